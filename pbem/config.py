"""Configuration from the environment (and an optional ``.env`` file).

Every setting is a ``PBEM_*`` variable, documented in ``.env.example``. ``load_config`` reads them
once; ``create_app`` lets tests override any key. ``check_config`` refuses what cannot work or is
unsafe, each refusal one line that starts with the setting's name (``pbem doctor`` and every
command that starts the app show that line and nothing else).

>>> config = load_config({"PBEM_SMTP_PORT": "2525"}, read_dotenv=False)
>>> config["SMTP_PORT"]
2525
>>> load_config({"PBEM_SMTP_PORT": "25x"}, read_dotenv=False)
Traceback (most recent call last):
...
pbem.config.ConfigError: PBEM_SMTP_PORT must be a whole number, not '25x'
"""

from __future__ import annotations

import getpass
import logging
import math
import os
from collections.abc import Callable, Iterator, Mapping
from email.utils import parseaddr
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit

from dotenv import dotenv_values
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from pbem.addresses import BadAddress, check_address
from pbem.i18n import catalog_problems

DEFAULT_SECRET_KEY = "dev-only-secret-change-me"
INSTANCE_DIR = Path("instance")
# Exactly these, lower case: a near miss such as "Production" must not quietly run without the
# production checks.
ENVIRONMENTS = ("development", "test", "production")
MIN_SECRET_LENGTH = 32  # the secret signs every emailed link: long enough not to be guessed
MAX_BOT_WORKERS = 32  # processes; more would only queue on the database
MAX_STRONG_SECONDS = 20.0  # the sweep's cutoff for any search (pbem.scheduler.bots)
SMTP_TLS_MODES = ("none", "starttls", "ssl")
# PBEM_TASKS: where the computer players' searches run. Empty: in the scheduler's own worker
# processes (PBEM_BOT_WORKERS). procrastinate: as jobs in the site's PostgreSQL, run by
# `pbem worker` on any machine that reaches it (pbem.tasks, docs/bots.md).
TASK_ENGINES = ("", "procrastinate")
INBOUND_SCHEMES = ("smtp", "lmtp")

log = logging.getLogger(__name__)


class ConfigError(ValueError):
    """A setting that makes it unsafe or impossible to start; the message names the setting."""


def _flag(text: str) -> bool:
    return text.strip().lower() in {"1", "true", "yes", "on"}


def load_config(
    environ: Mapping[str, str] | None = None, *, read_dotenv: bool = True
) -> dict[str, Any]:
    """The settings, from ``environ`` (default: the process environment) over ``.env``;
    :class:`ConfigError` names a number that is not one."""
    values: dict[str, str | None] = {}
    if read_dotenv and Path(".env").is_file():
        values.update(dotenv_values(".env"))
    values.update(os.environ if environ is None else environ)

    def get(name: str, default: str) -> str:
        value = values.get(f"PBEM_{name}")
        return default if value is None or value == "" else value

    def whole(name: str, default: str) -> int:
        text = get(name, default)
        try:
            return int(text.strip())
        except ValueError:
            raise ConfigError(f"PBEM_{name} must be a whole number, not {text!r}") from None

    sweep_every = whole("SWEEP_EVERY", "60")
    return {
        "ENV": get("ENV", "development"),
        "DATABASE_URL": get("DATABASE_URL", f"sqlite:///{INSTANCE_DIR / 'pbem.db'}"),
        "SECRET_KEY": get("SECRET_KEY", DEFAULT_SECRET_KEY),
        "BASE_URL": get("BASE_URL", "http://127.0.0.1:5000").rstrip("/"),
        "SMTP_HOST": get("SMTP_HOST", "127.0.0.1"),
        "SMTP_PORT": whole("SMTP_PORT", "8025"),
        "SMTP_USER": get("SMTP_USER", ""),
        "SMTP_PASSWORD": get("SMTP_PASSWORD", ""),
        "SMTP_TLS": get("SMTP_TLS", "none").lower(),
        "MAIL_FROM": get("MAIL_FROM", "pbem <pbem@localhost>"),
        # Days of absence a player may take per calendar year (their clocks stop meanwhile).
        "VACATION_DAYS": whole("VACATION_DAYS", "30"),
        # Comma-separated addresses alerted when a game without an organiser needs one (a
        # bounce, a clock under "hold", a computer player that failed), and always on "hold".
        "ALERT_EMAILS": get("ALERT_EMAILS", ""),
        # Scheduler: seconds between sweeps (reminders, timeouts) and between mail deliveries.
        "SWEEP_EVERY": sweep_every,
        "DELIVER_EVERY": whole("DELIVER_EVERY", "5"),
        # Whether `pbem scheduler` delivers mail too (on: the lease holder does); off when
        # `pbem deliver --loop` processes, on any hosts, do it (`pbem scheduler --no-deliver`).
        "SCHEDULER_DELIVERS": _flag(get("SCHEDULER_DELIVERS", "on")),
        # Seconds a delivery process holds the emails it claimed (an email is sent with at
        # least half of it left, renewed first otherwise); a process that dies or is cut off
        # leaves them to another after this long. More than twice the SMTP timeout (30 s).
        "DELIVER_CLAIM_SECONDS": whole("DELIVER_CLAIM_SECONDS", "600"),
        # Seconds between looks for a computer player to move: its reply comes within seconds.
        "BOT_EVERY": whole("BOT_EVERY", "2"),
        # Computer players' searches at once (worker processes of the scheduler; cores to use).
        "BOT_WORKERS": whole("BOT_WORKERS", "2"),
        # Where those searches run instead: a task engine (TASK_ENGINES), or "" for the above.
        "TASKS": get("TASKS", "").strip().lower(),
        # Reverse proxies in front of the app (1 behind nginx): client addresses for the login
        # rate limit come from X-Forwarded-For only when this is set.
        "TRUSTED_PROXIES": whole("TRUSTED_PROXIES", "0"),
        # PostgreSQL schema to use (tests give each run its own); empty: the server's default.
        "DATABASE_SEARCH_PATH": get("DATABASE_SEARCH_PATH", "") or None,
        # Seconds PostgreSQL lets a session sit idle inside a transaction before ending it (and
        # its locks): a host cut off mid-transaction holds up the others no longer than this.
        "DATABASE_IDLE_TRANSACTION_SECONDS": whole("DATABASE_IDLE_TRANSACTION_SECONDS", "60"),
        # Shared storage for rate limits across processes (redis://127.0.0.1:6379/0).
        "REDIS_URL": get("REDIS_URL", ""),
        # Play by reply (docs/play-by-reply.md): the address replies go to; "" switches it off.
        "REPLY_ADDRESS": get("REPLY_ADDRESS", ""),
        # Where replies wait when they are fetched rather than handed over (pbem fetch-mail),
        # imaps://user:password@imap.example.org/INBOX, and how often the scheduler fetches.
        "IMAP_URL": get("IMAP_URL", ""),
        "FETCH_EVERY": whole("FETCH_EVERY", "0"),
        # Where `pbem inbound` listens when replies are handed over (smtp:// or lmtp://host:port);
        # `pbem doctor` checks that it answers and accepts the reply and bounce addresses.
        "INBOUND_URL": get("INBOUND_URL", ""),
        # The language of pages for visitors we know nothing about (no player, no cookie, no
        # Accept-Language we speak), and of new players nobody chose one for: en, nl, de or it.
        "DEFAULT_LANGUAGE": get("DEFAULT_LANGUAGE", "en").strip().lower(),
        # DKIM signing of outgoing mail: all three, or none.
        "DKIM_SELECTOR": get("DKIM_SELECTOR", ""),
        "DKIM_DOMAIN": get("DKIM_DOMAIN", ""),
        "DKIM_KEY_FILE": get("DKIM_KEY_FILE", ""),
        # /healthz (pbem.monitoring) answers 503 when the scheduler's lease was last renewed
        # longer ago than this (seconds; default five sweeps), when mail waits longer than
        # HEALTH_MAX_MAIL_AGE (an email never tried or retrying, or an IMAP fetch failing that
        # long), or when more than HEALTH_MAX_BACKLOG emails wait.
        "HEALTH_MAX_LEASE_AGE": whole("HEALTH_MAX_LEASE_AGE", str(5 * sweep_every)),
        "HEALTH_MAX_MAIL_AGE": whole("HEALTH_MAX_MAIL_AGE", "900"),
        "HEALTH_MAX_BACKLOG": whole("HEALTH_MAX_BACKLOG", "1000"),
        # Prometheus metrics on /metrics (off: 404). Counts come from the database at each scrape
        # (the moves and emails partly counted again only every 10 minutes: pbem.monitoring).
        "METRICS": _flag(get("METRICS", "off")),
        # Who may get an account by signing in (docs/challenges.md): open (anyone), invite (only
        # addresses someone invited to a game) or closed (no new accounts at all).
        "SIGNUP": get("SIGNUP", "invite").strip().lower(),
        # The computer at "strong" thinks this long a move in the sweep; 0: a fixed 2000
        # playouts instead (the same move for the same position, whatever the machine's load).
        "BOT_STRONG_SECONDS": get("BOT_STRONG_SECONDS", "5"),
        # A person playing the computer on the web gets no turn email while they are on the
        # game's pages; it is sent if they have not viewed one for this many minutes.
        "TURN_EMAIL_HOLD_MINUTES": whole("TURN_EMAIL_HOLD_MINUTES", "10"),
        # What players may choose when they start games themselves: time controls (";" between
        # them, as "3d per move") and timeout policies (","), approved by the site.
        "CHALLENGE_TIME_CONTROLS": get("CHALLENGE_TIME_CONTROLS",
                                       "3d per move; 7d per move; fischer; 1d per move"),
        "CHALLENGE_POLICIES": get("CHALLENGE_POLICIES", "default, forfeit, random, hold"),
        # Days a challenge or seek waits for its players before it expires.
        "CHALLENGE_DAYS": whole("CHALLENGE_DAYS", "7"),
        # Per player: challenges and seeks open at once, and games waiting or under way.
        "MAX_OPEN_CHALLENGES": whole("MAX_OPEN_CHALLENGES", "5"),
        "MAX_ACTIVE_GAMES": whole("MAX_ACTIVE_GAMES", "30"),
        # Messages a player may write in a game's conversation per hour, over all their games
        # (pages and say: lines of replies alike); the next one is refused with when to retry.
        "CHAT_PER_HOUR": whole("CHAT_PER_HOUR", "20"),
        # Flask's own switch for the Werkzeug debugger (a Python shell for anyone who can make
        # the app fail): read so that production can refuse it.
        "FLASK_DEBUG": _flag(values.get("FLASK_DEBUG") or ""),
    }


Check = Callable[[Mapping[str, Any]], None]
"""One check of :data:`CHECKS`: raises :class:`ConfigError` or returns."""


def check_config(config: Mapping[str, Any]) -> None:
    """Refuse settings that are unsafe in production or that cannot work, the first one found.

    >>> check_config({"ENV": "Production", "SMTP_TLS": "none"})
    Traceback (most recent call last):
    ...
    pbem.config.ConfigError: PBEM_ENV must be development, test or production, not 'Production'
    """
    for _name, check in CHECKS:
        check(config)
    _check_catalogs(config)


def config_problems(config: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    """(setting, what is wrong or None) for every check of :data:`CHECKS` (``pbem doctor``)."""
    for name, check in CHECKS:
        try:
            check(config)
        except ConfigError as error:
            yield name, str(error)
        else:
            yield name, None


def _check_environment(config: Mapping[str, Any]) -> None:
    env = config["ENV"]
    if env not in ENVIRONMENTS:
        raise ConfigError(f"PBEM_ENV must be development, test or production, not {env!r}")
    if env == "production" and (config.get("FLASK_DEBUG") or config.get("DEBUG")):
        # The Werkzeug debugger runs any Python its visitors type.
        raise ConfigError("FLASK_DEBUG (the Werkzeug debugger) must be off in production")


def _check_secret(config: Mapping[str, Any]) -> None:
    if config["ENV"] != "production":
        return
    secret = str(config.get("SECRET_KEY") or "")
    if not secret or secret == DEFAULT_SECRET_KEY:
        # Whoever has the secret can forge any link: the default one is in our repository.
        raise ConfigError("PBEM_SECRET_KEY must be set to a long random value in production")
    if len(secret) < MIN_SECRET_LENGTH:
        raise ConfigError(f"PBEM_SECRET_KEY must be at least {MIN_SECRET_LENGTH} characters in"
                          " production; make one with: python -c 'import secrets;"
                          " print(secrets.token_urlsafe(48))'")


def _check_base_url(config: Mapping[str, Any]) -> None:
    url = str(config.get("BASE_URL") or "")
    parts = _split(url)
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname \
            or parts.query or parts.fragment:
        raise ConfigError(f"PBEM_BASE_URL must be an absolute http(s) address such as "
                          f"https://pbem.example.org, not {url!r}")
    if config["ENV"] == "production" and parts.scheme != "https":
        # Links in mail are credentials: over plain http anyone on the way can read them.
        raise ConfigError(f"PBEM_BASE_URL must start with https:// in production, not {url!r}")


def _check_database_url(config: Mapping[str, Any]) -> None:
    if config.get("DATABASE") is not None:
        return  # a test hands over its own Database
    example = ("such as sqlite:///instance/pbem.db or "
               "postgresql+psycopg://user:password@host:5432/pbem")
    try:
        backend = make_url(str(config.get("DATABASE_URL") or "")).get_backend_name()
    except ArgumentError:
        # Never the URL itself: it may hold the database password.
        raise ConfigError(f"PBEM_DATABASE_URL is not a database URL {example}") from None
    if backend not in ("sqlite", "postgresql"):
        raise ConfigError(f"PBEM_DATABASE_URL must name SQLite or PostgreSQL ({example}), "
                          f"not {backend}")


def _check_numbers(config: Mapping[str, Any]) -> None:
    for name, lowest in (("SWEEP_EVERY", 1), ("DELIVER_EVERY", 1), ("VACATION_DAYS", 0),
                         ("DELIVER_CLAIM_SECONDS", 1), ("DATABASE_IDLE_TRANSACTION_SECONDS", 1),
                         ("TRUSTED_PROXIES", 0), ("FETCH_EVERY", 0), ("CHALLENGE_DAYS", 1),
                         ("HEALTH_MAX_LEASE_AGE", 1), ("HEALTH_MAX_MAIL_AGE", 1),
                         ("HEALTH_MAX_BACKLOG", 1), ("MAX_OPEN_CHALLENGES", 0),
                         ("MAX_ACTIVE_GAMES", 0), ("CHAT_PER_HOUR", 1),
                         ("TURN_EMAIL_HOLD_MINUTES", 0)):
        if name in config and int(config[name]) < lowest:
            raise ConfigError(f"PBEM_{name} must be {'zero' if lowest == 0 else lowest} or more")
    if int(config.get("BOT_EVERY", 2)) < 1:
        raise ConfigError("PBEM_BOT_EVERY must be a whole number of seconds, at least 1")
    if not 1 <= int(config.get("BOT_WORKERS", 2)) <= MAX_BOT_WORKERS:
        raise ConfigError(f"PBEM_BOT_WORKERS must be a whole number from 1 to {MAX_BOT_WORKERS}")
    if not 0 <= strong_seconds(config) <= MAX_STRONG_SECONDS:
        raise ConfigError(f"PBEM_BOT_STRONG_SECONDS must be a number of seconds from 0 to "
                          f"{MAX_STRONG_SECONDS:g}")


def _check_choices(config: Mapping[str, Any]) -> None:
    if config.get("DEFAULT_LANGUAGE", "en") not in ("en", "nl", "de", "it"):
        raise ConfigError("PBEM_DEFAULT_LANGUAGE must be one of en, nl, de, it")
    if config.get("SIGNUP", "invite") not in ("open", "invite", "closed"):
        raise ConfigError("PBEM_SIGNUP must be one of open, invite, closed")


def _check_tasks(config: Mapping[str, Any]) -> None:
    tasks = str(config.get("TASKS") or "")
    if tasks not in TASK_ENGINES:
        raise ConfigError(f"PBEM_TASKS must be empty (the scheduler searches in its own "
                          f"processes) or procrastinate (searches queued in PostgreSQL for "
                          f"pbem worker), not {tasks!r}")
    if not tasks:
        return
    database = config.get("DATABASE")
    try:
        sqlite = database.is_sqlite if database is not None else make_url(
            str(config.get("DATABASE_URL") or "")).get_backend_name() == "sqlite"
    except ArgumentError:
        return  # PBEM_DATABASE_URL's own check says what is wrong with it
    if sqlite:
        # The jobs are rows in the games' database, queued in the move's own transaction.
        raise ConfigError(f"PBEM_TASKS={tasks} needs PostgreSQL, but PBEM_DATABASE_URL is "
                          f"SQLite: leave PBEM_TASKS empty to search in the scheduler")


def _check_smtp(config: Mapping[str, Any]) -> None:
    if config.get("SMTP_TLS", "none") not in SMTP_TLS_MODES:
        raise ConfigError("PBEM_SMTP_TLS must be one of none, starttls, ssl")
    if not str(config.get("SMTP_HOST") or "").strip():
        raise ConfigError("PBEM_SMTP_HOST must name the mail relay (127.0.0.1 for a local one)")
    if not 1 <= int(config.get("SMTP_PORT", 25)) <= 65535:
        raise ConfigError("PBEM_SMTP_PORT must be a port number from 1 to 65535")
    user, password = config.get("SMTP_USER"), config.get("SMTP_PASSWORD")
    if bool(user) != bool(password):
        missing = "PBEM_SMTP_PASSWORD" if user else "PBEM_SMTP_USER"
        raise ConfigError(f"{missing} must be set too: PBEM_SMTP_USER and PBEM_SMTP_PASSWORD "
                          "go together (both empty: no login)")


def _check_addresses(config: Mapping[str, Any]) -> None:
    _name, sender = parseaddr(str(config.get("MAIL_FROM") or ""))
    local, at, domain = sender.rpartition("@")
    if not (local and at and domain) or any(c.isspace() for c in sender):
        # Not check_address: "pbem@localhost", the development default, is a fine sender.
        raise ConfigError(f"PBEM_MAIL_FROM must be an address such as \"pbem <pbem@example.org>\""
                          f", not {config.get('MAIL_FROM')!r}")
    for alert in str(config.get("ALERT_EMAILS") or "").split(","):
        try:
            if alert.strip():
                check_address(alert)
        except BadAddress:
            raise ConfigError(f"PBEM_ALERT_EMAILS must be addresses separated by commas; "
                              f"{alert.strip()!r} is not one") from None
    reply = str(config.get("REPLY_ADDRESS") or "")
    if reply:
        try:
            checked = check_address(reply)
        except BadAddress:
            raise ConfigError(f"PBEM_REPLY_ADDRESS must be an address such as "
                              f"play@pbem.example.org, not {reply!r}") from None
        if "+" in checked.partition("@")[0]:
            # The token goes after a "+": a second one would be read as part of it.
            raise ConfigError(f"PBEM_REPLY_ADDRESS must have no '+' in its local part, "
                              f"not {reply!r}")


def _check_dkim(config: Mapping[str, Any]) -> None:
    names = ("DKIM_SELECTOR", "DKIM_DOMAIN", "DKIM_KEY_FILE")
    given = [name for name in names if config.get(name)]
    if not given:
        return
    if len(given) < len(names):
        missing = ", ".join(f"PBEM_{name}" for name in names if name not in given)
        raise ConfigError(f"{missing} must be set too: DKIM needs PBEM_DKIM_SELECTOR, "
                          f"PBEM_DKIM_DOMAIN and PBEM_DKIM_KEY_FILE, or none of them")
    path = Path(str(config["DKIM_KEY_FILE"]))
    try:
        pem = path.read_bytes()
    except PermissionError:
        raise ConfigError(f"PBEM_DKIM_KEY_FILE {path} is not readable by this user "
                          f"({_user()}): chown it to the service user, mode 0600") from None
    except OSError as error:
        raise ConfigError(f"PBEM_DKIM_KEY_FILE {path} cannot be read: "
                          f"{error.strerror or error}") from None
    if b"PRIVATE KEY-----" not in pem:
        raise ConfigError(f"PBEM_DKIM_KEY_FILE {path} holds no PEM private key "
                          "(make one with pbem dkim-keygen)")


def _check_urls(config: Mapping[str, Any]) -> None:
    imap = str(config.get("IMAP_URL") or "")
    if imap:
        parts = _split(imap)
        if parts is None or parts.scheme not in ("imap", "imaps") or not parts.hostname \
                or not parts.username:
            raise ConfigError("PBEM_IMAP_URL must be like imaps://user:password@imap.example.org"
                              "/INBOX")
    if int(config.get("FETCH_EVERY") or 0) and not imap:
        raise ConfigError("PBEM_FETCH_EVERY needs PBEM_IMAP_URL: the mailbox to fetch from")
    if (imap or config.get("INBOUND_URL")) and not config.get("REPLY_ADDRESS"):
        raise ConfigError("PBEM_REPLY_ADDRESS must be set when replies are received "
                          "(PBEM_IMAP_URL or PBEM_INBOUND_URL)")
    redis = str(config.get("REDIS_URL") or "")
    if redis:
        parts = _split(redis)
        if parts is None or parts.scheme not in ("redis", "rediss", "unix"):
            raise ConfigError("PBEM_REDIS_URL must be like redis://127.0.0.1:6379/0")
    inbound = str(config.get("INBOUND_URL") or "")
    if inbound:
        inbound_address(inbound)


def inbound_address(url: str) -> tuple[str, str, int]:
    """(protocol, host, port) of PBEM_INBOUND_URL.

    >>> inbound_address("lmtp://127.0.0.1:2525")
    ('lmtp', '127.0.0.1', 2525)
    """
    parts = _split(url)
    try:
        port = parts.port if parts else None
    except ValueError:
        port = None
    if parts is None or parts.scheme not in INBOUND_SCHEMES or not parts.hostname or not port:
        raise ConfigError(f"PBEM_INBOUND_URL must be like lmtp://127.0.0.1:2525 or "
                          f"smtp://127.0.0.1:2525, not {url!r}")
    return parts.scheme, parts.hostname, port


def _split(url: str) -> SplitResult | None:
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018  (a port that is not a number raises here)
    except ValueError:
        return None
    return parts


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return f"uid {os.getuid()}"


CHECKS: tuple[tuple[str, Check], ...] = (
    ("PBEM_ENV", _check_environment),
    ("PBEM_SECRET_KEY", _check_secret),
    ("PBEM_BASE_URL", _check_base_url),
    ("PBEM_DATABASE_URL", _check_database_url),
    ("numbers", _check_numbers),
    ("choices", _check_choices),
    ("PBEM_TASKS", _check_tasks),
    ("PBEM_SMTP_*", _check_smtp),
    ("addresses", _check_addresses),
    ("PBEM_DKIM_*", _check_dkim),
    ("PBEM_IMAP_URL, PBEM_REDIS_URL, PBEM_INBOUND_URL", _check_urls),
)
"""Every check of the settings alone (no network), in the order they are reported."""


def _check_catalogs(config: Mapping[str, Any]) -> None:
    """Production refuses to start without every language's compiled catalog (its players
    would get English mail with no word said); elsewhere a warning names what is missing."""
    problems = catalog_problems()
    if problems and config["ENV"] == "production":
        raise ConfigError(f"{problems[0]}: reinstall pbem (a wheel has them compiled), or "
                          "make translations in a checkout")
    for problem in problems:
        if problem not in _warned:  # once a process, not at every app a test makes
            _warned.add(problem)
            log.warning("%s: pages and mail fall back to English (make translations)", problem)


_warned: set[str] = set()


def strong_seconds(config: Mapping[str, Any]) -> float:
    """PBEM_BOT_STRONG_SECONDS as a number (-1 when it is not one, which the check refuses)."""
    try:
        value = float(config.get("BOT_STRONG_SECONDS", 5))
    except (TypeError, ValueError):
        return -1.0
    return value if math.isfinite(value) else -1.0  # nor is NaN or infinity
