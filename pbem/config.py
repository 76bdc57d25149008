"""Configuration from the environment (and an optional ``.env`` file).

Every setting is a ``PBEM_*`` variable, documented in ``.env.example``. ``load_config`` reads them
once; ``create_app`` lets tests override any key.

>>> config = load_config({"PBEM_SMTP_PORT": "2525"}, read_dotenv=False)
>>> config["SMTP_PORT"]
2525
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dotenv import dotenv_values

DEFAULT_SECRET_KEY = "dev-only-secret-change-me"
INSTANCE_DIR = Path("instance")


class ConfigError(ValueError):
    """A setting that makes it unsafe or impossible to start."""


def _flag(text: str) -> bool:
    return text.strip().lower() in {"1", "true", "yes", "on"}


def load_config(
    environ: Mapping[str, str] | None = None, *, read_dotenv: bool = True
) -> dict[str, Any]:
    """The settings, from ``environ`` (default: the process environment) over ``.env``."""
    values: dict[str, str | None] = {}
    if read_dotenv and Path(".env").is_file():
        values.update(dotenv_values(".env"))
    values.update(os.environ if environ is None else environ)

    def get(name: str, default: str) -> str:
        value = values.get(f"PBEM_{name}")
        return default if value is None or value == "" else value

    return {
        "ENV": get("ENV", "development"),
        "DATABASE_URL": get("DATABASE_URL", f"sqlite:///{INSTANCE_DIR / 'pbem.db'}"),
        "SECRET_KEY": get("SECRET_KEY", DEFAULT_SECRET_KEY),
        "BASE_URL": get("BASE_URL", "http://127.0.0.1:5000").rstrip("/"),
        "SMTP_HOST": get("SMTP_HOST", "127.0.0.1"),
        "SMTP_PORT": int(get("SMTP_PORT", "8025")),
        "SMTP_USER": get("SMTP_USER", ""),
        "SMTP_PASSWORD": get("SMTP_PASSWORD", ""),
        "SMTP_TLS": get("SMTP_TLS", "none").lower(),
        "MAIL_FROM": get("MAIL_FROM", "pbem <pbem@localhost>"),
        # Days of absence a player may take per calendar year (their clocks stop meanwhile).
        "VACATION_DAYS": int(get("VACATION_DAYS", "30")),
        # Comma-separated addresses alerted when a game waits for an organiser (policy "hold").
        "ALERT_EMAILS": get("ALERT_EMAILS", ""),
        # Scheduler: seconds between sweeps (reminders, timeouts) and between mail deliveries.
        "SWEEP_EVERY": int(get("SWEEP_EVERY", "60")),
        "DELIVER_EVERY": int(get("DELIVER_EVERY", "5")),
        # Reverse proxies in front of the app (1 behind nginx): client addresses for the login
        # rate limit come from X-Forwarded-For only when this is set.
        "TRUSTED_PROXIES": int(get("TRUSTED_PROXIES", "0")),
        # PostgreSQL schema to use (tests give each run its own); empty: the server's default.
        "DATABASE_SEARCH_PATH": get("DATABASE_SEARCH_PATH", "") or None,
        # Shared storage for rate limits across processes (redis://127.0.0.1:6379/0).
        "REDIS_URL": get("REDIS_URL", ""),
    }


def check_config(config: Mapping[str, Any]) -> None:
    """Refuse settings that are unsafe in production (a secret anyone can read in our repo)."""
    if config["ENV"] == "production" and config["SECRET_KEY"] == DEFAULT_SECRET_KEY:
        raise ConfigError("PBEM_SECRET_KEY must be set to a long random value in production")
    if int(config.get("VACATION_DAYS", 30)) < 0:
        raise ConfigError("PBEM_VACATION_DAYS must be zero or more")
    if config["SMTP_TLS"] not in {"none", "starttls", "ssl"}:
        raise ConfigError("PBEM_SMTP_TLS must be one of none, starttls, ssl")
