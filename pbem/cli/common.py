"""What every ``pbem`` command needs: checked settings and the database they name.

Imports that only one command needs are made when it runs: see :mod:`pbem.cli` (start-up).
"""

from __future__ import annotations

from typing import Any

from pbem.config import check_config, load_config
from pbem.db import Database


def checked_config() -> dict[str, Any]:
    """The settings from the environment and ``.env``; :class:`~pbem.config.ConfigError` if
    they are unsafe (so a command never runs production on the default secret)."""
    config = load_config()
    check_config(config)
    return config


def open_database(config: dict[str, Any]) -> Database:
    """The database of ``config``, in its PostgreSQL schema when one is set; with PBEM_TASKS,
    each write that leaves a computer to move queues its search (pbem.tasks.queueing)."""
    database = Database.from_config(config)
    if config.get("TASKS"):
        from pbem.tasks.queueing import queue_with_writes

        queue_with_writes(database)
    return database

