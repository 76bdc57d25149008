"""Health and metrics endpoints for operators (being written: /healthz and /metrics)."""

from __future__ import annotations

from flask import Flask

from pbem.db import Database


def init_app(app: Flask, database: Database) -> None:
    """Register the operators' endpoints on ``app``."""
