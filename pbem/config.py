"""Configuration from the environment (and an optional ``.env`` file).

Every setting is a ``PBEM_*`` variable, documented in ``.env.example``. ``load_config`` reads them
once; ``create_app`` lets tests override any key.

>>> config = load_config({"PBEM_SMTP_PORT": "2525"}, read_dotenv=False)
>>> config["SMTP_PORT"]
2525
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dotenv import dotenv_values

DEFAULT_SECRET_KEY = "dev-only-secret-change-me"
INSTANCE_DIR = Path("instance")
# Exactly these, lower case: a near miss such as "Production" must not quietly run without the
# production checks.
ENVIRONMENTS = ("development", "test", "production")
MIN_SECRET_LENGTH = 32  # the secret signs every emailed link: long enough not to be guessed


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

    sweep_every = int(get("SWEEP_EVERY", "60"))
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
        "SWEEP_EVERY": sweep_every,
        "DELIVER_EVERY": int(get("DELIVER_EVERY", "5")),
        # Seconds between looks for a computer player to move: its reply comes within seconds.
        "BOT_EVERY": int(get("BOT_EVERY", "2")),
        # Computer players' searches at once (worker processes of the scheduler; cores to use).
        "BOT_WORKERS": int(get("BOT_WORKERS", "2")),
        # Reverse proxies in front of the app (1 behind nginx): client addresses for the login
        # rate limit come from X-Forwarded-For only when this is set.
        "TRUSTED_PROXIES": int(get("TRUSTED_PROXIES", "0")),
        # PostgreSQL schema to use (tests give each run its own); empty: the server's default.
        "DATABASE_SEARCH_PATH": get("DATABASE_SEARCH_PATH", "") or None,
        # Shared storage for rate limits across processes (redis://127.0.0.1:6379/0).
        "REDIS_URL": get("REDIS_URL", ""),
        # Play by reply (docs/play-by-reply.md): the address replies go to; "" switches it off.
        "REPLY_ADDRESS": get("REPLY_ADDRESS", ""),
        # Where replies wait when they are fetched rather than handed over (pbem fetch-mail),
        # imaps://user:password@imap.example.org/INBOX, and how often the scheduler fetches.
        "IMAP_URL": get("IMAP_URL", ""),
        "FETCH_EVERY": int(get("FETCH_EVERY", "0")),
        # The language of pages for visitors we know nothing about (no player, no cookie, no
        # Accept-Language we speak), and of new players nobody chose one for: en, nl, de or it.
        "DEFAULT_LANGUAGE": get("DEFAULT_LANGUAGE", "en").strip().lower(),
        # DKIM signing of outgoing mail: all three, or none.
        "DKIM_SELECTOR": get("DKIM_SELECTOR", ""),
        "DKIM_DOMAIN": get("DKIM_DOMAIN", ""),
        "DKIM_KEY_FILE": get("DKIM_KEY_FILE", ""),
        # /healthz (pbem.monitoring) answers 503 when the scheduler's lease was last renewed
        # longer ago than this (seconds; default five sweeps), when the oldest never-tried email
        # is older than HEALTH_MAX_MAIL_AGE, or when more than HEALTH_MAX_BACKLOG wait.
        "HEALTH_MAX_LEASE_AGE": int(get("HEALTH_MAX_LEASE_AGE", str(5 * sweep_every))),
        "HEALTH_MAX_MAIL_AGE": int(get("HEALTH_MAX_MAIL_AGE", "900")),
        "HEALTH_MAX_BACKLOG": int(get("HEALTH_MAX_BACKLOG", "1000")),
        # Prometheus metrics on /metrics (off: 404). Counts come from the database at each scrape.
        "METRICS": _flag(get("METRICS", "off")),
        # Who may get an account by signing in (docs/challenges.md): open (anyone), invite (only
        # addresses someone invited to a game) or closed (no new accounts at all).
        "SIGNUP": get("SIGNUP", "invite").strip().lower(),
        # The computer at "strong" thinks this long a move in the sweep; 0: a fixed 2000
        # playouts instead (the same move for the same position, whatever the machine's load).
        "BOT_STRONG_SECONDS": get("BOT_STRONG_SECONDS", "5"),
        # What players may choose when they start games themselves: time controls (";" between
        # them, as "3d per move") and timeout policies (","), approved by the site.
        "CHALLENGE_TIME_CONTROLS": get("CHALLENGE_TIME_CONTROLS",
                                       "3d per move; 7d per move; fischer; 1d per move"),
        "CHALLENGE_POLICIES": get("CHALLENGE_POLICIES", "default, forfeit, random, hold"),
        # Days a challenge or seek waits for its players before it expires.
        "CHALLENGE_DAYS": int(get("CHALLENGE_DAYS", "7")),
        # Per player: challenges and seeks open at once, and games waiting or under way.
        "MAX_OPEN_CHALLENGES": int(get("MAX_OPEN_CHALLENGES", "5")),
        "MAX_ACTIVE_GAMES": int(get("MAX_ACTIVE_GAMES", "30")),
        # Flask's own switch for the Werkzeug debugger (a Python shell for anyone who can make
        # the app fail): read so that production can refuse it.
        "FLASK_DEBUG": _flag(values.get("FLASK_DEBUG") or ""),
    }


def check_config(config: Mapping[str, Any]) -> None:
    """Refuse settings that are unsafe in production or that cannot work.

    >>> check_config({"ENV": "Production", "SMTP_TLS": "none"})
    Traceback (most recent call last):
    ...
    pbem.config.ConfigError: PBEM_ENV must be development, test or production, not 'Production'
    """
    env = config["ENV"]
    if env not in ENVIRONMENTS:
        raise ConfigError(f"PBEM_ENV must be development, test or production, not {env!r}")
    if env == "production":
        _check_production(config)
    if int(config.get("VACATION_DAYS", 30)) < 0:
        raise ConfigError("PBEM_VACATION_DAYS must be zero or more")
    if config.get("DEFAULT_LANGUAGE", "en") not in ("en", "nl", "de", "it"):
        raise ConfigError("PBEM_DEFAULT_LANGUAGE must be one of en, nl, de, it")
    if config.get("SIGNUP", "invite") not in ("open", "invite", "closed"):
        raise ConfigError("PBEM_SIGNUP must be one of open, invite, closed")
    if not 0 <= strong_seconds(config) <= MAX_STRONG_SECONDS:
        raise ConfigError(f"PBEM_BOT_STRONG_SECONDS must be a number of seconds from 0 to "
                          f"{MAX_STRONG_SECONDS:g}")
    if int(config.get("BOT_EVERY", 2)) < 1:
        raise ConfigError("PBEM_BOT_EVERY must be a whole number of seconds, at least 1")
    if not 1 <= int(config.get("BOT_WORKERS", 2)) <= MAX_BOT_WORKERS:
        raise ConfigError(f"PBEM_BOT_WORKERS must be a whole number from 1 to {MAX_BOT_WORKERS}")
    if config["SMTP_TLS"] not in {"none", "starttls", "ssl"}:
        raise ConfigError("PBEM_SMTP_TLS must be one of none, starttls, ssl")


MAX_BOT_WORKERS = 32  # processes; more would only queue on the database
MAX_STRONG_SECONDS = 20.0  # the sweep's cutoff for any search (pbem.scheduler.bots)


def strong_seconds(config: Mapping[str, Any]) -> float:
    """PBEM_BOT_STRONG_SECONDS as a number (-1 when it is not one, which the check refuses)."""
    try:
        value = float(config.get("BOT_STRONG_SECONDS", 5))
    except (TypeError, ValueError):
        return -1.0
    return value if math.isfinite(value) else -1.0  # nor is NaN or infinity


def _check_production(config: Mapping[str, Any]) -> None:
    secret = str(config.get("SECRET_KEY") or "")
    if not secret or secret == DEFAULT_SECRET_KEY:
        # Whoever has the secret can forge any link: the default one is in our repository.
        raise ConfigError("PBEM_SECRET_KEY must be set to a long random value in production")
    if len(secret) < MIN_SECRET_LENGTH:
        raise ConfigError(f"PBEM_SECRET_KEY must be at least {MIN_SECRET_LENGTH} characters in"
                          " production; make one with: python -c 'import secrets;"
                          " print(secrets.token_urlsafe(48))'")
    if config.get("FLASK_DEBUG") or config.get("DEBUG"):
        # The Werkzeug debugger runs any Python its visitors type.
        raise ConfigError("FLASK_DEBUG (the Werkzeug debugger) must be off in production")
