"""What the service, web, admin and scheduler tests share: databases (SQLite and PostgreSQL), a real
SMTP server, reading mail as a person would, and starting games. The conftest.py files hold the
fixtures.

PostgreSQL runs are real: each test process has its own schema in the ``test`` database at
127.0.0.1:5432 (as user postgres or root; override with PBEM_TEST_POSTGRES_URL), emptied after
each test and dropped at the end, so parallel runs never collide; a test of the migrations gets a
schema of its own. When PostgreSQL does not answer, those runs are skipped, never faked.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import tempfile
import threading
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import create_engine, text
from sqlmodel import SQLModel

import engine
from pbem.clock.deadlines import clock_of
from pbem.clock.tables import GameClock
from pbem.db import Database
from pbem.mail.catcher import CatchingHandler
from pbem.mail.outbox import SmtpSettings
from pbem.services import PlayerSpec, Site, create_game, start_game

# Tried in order; trust auth as user postgres or root.
POSTGRES_URLS = [os.environ["PBEM_TEST_POSTGRES_URL"]] if "PBEM_TEST_POSTGRES_URL" in os.environ \
    else ["postgresql+psycopg://postgres@127.0.0.1:5432/test",
          "postgresql+psycopg://root@127.0.0.1:5432/test"]
SECRET = "test-secret-key"
BASE_URL = "http://localhost"
MAIL_FROM = "pbem <pbem@example.test>"
BACKENDS = ["sqlite", "postgresql"]


@cache
def postgres_url() -> tuple[str | None, str]:
    """(the first PostgreSQL URL that answers, or None; why not)."""
    problems = []
    for url in POSTGRES_URLS:
        try:
            probe = create_engine(url, connect_args={"connect_timeout": 3})
            with probe.connect() as connection:
                connection.execute(text("select 1"))
            probe.dispose()
            return url, ""
        except Exception as error:  # any failure means: try the next, then skip with reasons
            problems.append(f"{url}: {error}")
    return None, "PostgreSQL does not answer: " + "; ".join(problems)


@cache
def _postgres_admin() -> Any:
    return create_engine(postgres_url()[0] or "", isolation_level="AUTOCOMMIT")


def make_database(backend: str, folder: Path, *, migrate: bool = False,
                  revision: str = "head") -> tuple[Database, Any]:
    """A fresh, empty database of ``backend`` and a function that removes it: its schema made by
    the migrations up to ``revision`` (``migrate``) or else from the models."""
    if backend == "sqlite":
        url = f"sqlite:///{folder / 'pbem.db'}"
        if migrate:
            folder.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(_migrated_sqlite(revision), folder / "pbem.db")
        database = Database(url)
        if not migrate:
            SQLModel.metadata.create_all(database.engine)
        return database, database.dispose
    url, problem = postgres_url()
    if url is None:
        pytest.skip(problem)
    if not migrate:
        return _reused_schema(url)
    schema = f"pbem_test_{uuid.uuid4().hex[:12]}"
    with _postgres_admin().connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    from pbem.migrate import upgrade
    upgrade(url, revision, search_path=schema)
    database = Database(url, search_path=schema)

    def drop() -> None:
        database.dispose()
        with _postgres_admin().connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    return database, drop


@cache
def _migrated_sqlite(revision: str) -> Path:
    """A SQLite file the migrations brought up to ``revision``, once per test process: each test
    gets a copy of it, the same file the migrations would make again a third of a second later."""
    from pbem.migrate import upgrade

    folder = Path(tempfile.mkdtemp(prefix="pbem-migrated-"))
    atexit.register(shutil.rmtree, folder, True)
    upgrade(f"sqlite:///{folder / 'pbem.db'}", revision)
    assert [path.name for path in folder.iterdir()] == ["pbem.db"]  # no write-ahead log left
    return folder / "pbem.db"


_SCHEMAS: dict[str, str] = {}
"""The schema this test process emptied, waiting for its next test (none while one uses it)."""


def _reused_schema(url: str) -> tuple[Database, Any]:
    """A schema made from the models, emptied after each test rather than made again: making
    forty-odd tables took PostgreSQL half a second a test, emptying them takes a tenth. A test
    that leaves the schema otherwise than it found it (a table dropped, renamed or added) gets
    it dropped: the next test makes a new one."""
    schema = _SCHEMAS.pop(url, None)  # taken while in use: a second one at once gets its own
    if schema is None:
        schema = f"pbem_test_{uuid.uuid4().hex[:12]}"
        with _postgres_admin().connect() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    database = Database(url, search_path=schema)
    SQLModel.metadata.create_all(database.engine)  # checks first: new tables only

    def empty() -> None:
        database.dispose()
        with _postgres_admin().connect() as connection:
            found = set(connection.execute(text(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = :schema"
            ), {"schema": schema}).scalars())
            if found == set(SQLModel.metadata.tables) and url not in _SCHEMAS:
                names = ", ".join(f'"{schema}"."{name}"' for name in sorted(found))
                connection.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
                _SCHEMAS[url] = schema
            else:
                connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    return database, empty


def _drop_reused_schemas() -> None:
    for schema in _SCHEMAS.values():
        with _postgres_admin().connect() as connection:
            connection.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))


atexit.register(_drop_reused_schemas)


def smallest_options(game_id: str) -> dict[str, object]:
    """The first choice of each option: the smallest boards, so that tests stay fast."""
    return {o.name: o.choices[0] for o in engine.GAMES[game_id].options}


# -- a real SMTP server ------------------------------------------------------------------------


@dataclass
class Received:
    mail_from: str
    recipients: list[str]
    raw: bytes


@dataclass
class SmtpServer:
    """What the test SMTP server received; ``refuse`` makes it answer ``refuse_reply`` (by
    default 451, try later) to that many messages."""

    host: str
    port: int
    messages: list[Received] = field(default_factory=list)
    refuse: int = 0
    refuse_reply: str = "451 4.3.0 Try again later"
    lock: threading.Lock = field(default_factory=threading.Lock)

    def settings(self) -> SmtpSettings:
        return SmtpSettings(host=self.host, port=self.port, mail_from=MAIL_FROM, timeout=10)


class SmtpHandler(CatchingHandler):
    def __init__(self, server: SmtpServer) -> None:
        super().__init__(lambda f, r, raw: server.messages.append(Received(f, r, raw)))
        self.server = server

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.server.lock:
            if self.server.refuse > 0:
                self.server.refuse -= 1
                return self.server.refuse_reply
        return await super().handle_DATA(server, session, envelope)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- the web app -------------------------------------------------------------------------------


# -- reading what was sent ---------------------------------------------------------------------


class Mailbox:
    """Delivers the outbox to the test SMTP server and reads messages back as a person would."""

    def __init__(self, database: Database, server: SmtpServer) -> None:
        self.database = database
        self.server = server
        self.read = 0

    def deliver(self, when: datetime | None = None) -> list[Any]:
        """One delivery pass; returns the newly received messages, parsed."""
        import email
        import email.policy

        from pbem.mail.outbox import deliver_pending

        deliver_pending(self.database, self.server.settings(), when or datetime.now(UTC))
        new = self.server.messages[self.read:]
        self.read = len(self.server.messages)
        return [email.message_from_bytes(m.raw, policy=email.policy.default) for m in new]

    @staticmethod
    def links(message: Any) -> list[str]:
        """Every URL in the plain-text part (the part every mail client can show)."""
        import re

        body = message.get_body(("plain",)).get_content()
        return re.findall(rf"{re.escape(BASE_URL)}/\S+", body)

    @classmethod
    def link(cls, message: Any, path: str) -> str:
        found = [u for u in cls.links(message) if u.startswith(f"{BASE_URL}{path}")]
        assert found, f"no {path} link in: {cls.links(message)}"
        return found[0]


@dataclass
class Cli:
    """The ``pbem`` command line on a migrated SQLite file, run as an operator would."""

    env: dict[str, str]
    database: Database
    runner: CliRunner

    def __call__(self, *args: str) -> Result:
        from pbem.cli import main

        return self.runner.invoke(main, list(args), env=self.env)


def csrf_of(html: str) -> str:
    import re

    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "the page has no CSRF token"
    return match[1]


def two_player_game() -> str:
    """The first game in the catalogue that two people can play."""
    for game_id, info in engine.GAMES.items():
        if info.min_players <= 2 <= info.max_players:
            return game_id
    pytest.skip("no two-player game in the catalogue")


ALICE_BOB = [PlayerSpec("Alice", "alice@example.test"), PlayerSpec("Bob", "bob@example.test")]
ALICE_BOB_CLEO = [*ALICE_BOB, PlayerSpec("Cleo", "cleo@example.test")]


def start_rifugio_of_three(database: Database, now: datetime, site: Site) -> int:
    """A started three-player Rifugio of Alice, Bob and Cleo (a game of more than two)."""
    return start_a_game(database, now, site, "rifugio", {"players": 3}, players=ALICE_BOB_CLEO)


def start_a_game(
    database: Database, now: datetime, site: Site, game_id: str,
    options: dict[str, object] | None = None, *, players: list[PlayerSpec] | None = None,
    **create: Any,
) -> int:
    """Create a game of ``game_id`` and start it at once; returns its id.

    Options default to each option's first choice, players to P0, P1, ... at example.test;
    ``create`` goes on to ``create_game`` (time control, policy, ...).
    """
    if options is None:
        options = {o.name: o.choices[0] for o in engine.GAMES[game_id].options}
    if players is None:
        count = engine.new_game(game_id, **options).num_players
        players = [PlayerSpec(f"P{n}", f"p{n}@example.test") for n in range(count)]
    with database.write() as session:
        row = create_game(session, now, site, game_type=game_id, options=options,
                          players=players, **create)
        assert row.id is not None
        start_game(session, now, site, game_id=row.id, force=True)
        return row.id


ADMIN_EMAIL = "boss@example.test"
ADMIN_PASSWORD = "a long enough password"


# -- games with clocks (the scheduler's tests) ---------------------------------------------------


def clock_in(database: Database, game_id: int) -> GameClock:
    """The game's clock row as it is now (pbem.clock.tables)."""
    with database.session() as session:
        return clock_of(session, game_id)


class ClockGames:
    """Start games with clocks and look at them, on one database, with explicit times."""

    def __init__(self, database: Database, site: Site) -> None:
        self.database = database
        self.site = site

    def start(self, game_type: str, now: datetime, *, zones: list[str] | None = None,
              options: dict[str, object] | None = None, organiser: bool = False,
              **create: Any) -> int:
        """A started game of ``game_type`` (smallest options) whose players live in ``zones``."""
        from pbem.models import Player
        from pbem.services import PlayerSpec, create_game, start_game

        options = smallest_options(game_type) if options is None else options
        count = engine.new_game(game_type, **options).num_players
        people = [PlayerSpec(f"Player {n}", f"p{n}@example.test") for n in range(count)]
        with self.database.write() as session:
            from sqlmodel import select

            for number, zone in enumerate(zones or []):
                person = people[number]
                player = session.exec(select(Player).where(Player.email == person.email)).first()
                player = player or Player(name=person.name, email=person.email, created_at=now)
                player.time_zone = zone
                session.add(player)
            session.flush()
            row = create_game(session, now, self.site, game_type=game_type, options=options,
                              players=people, organiser=PlayerSpec("Olga", "olga@example.test")
                              if organiser else None, **create)
            assert row.id is not None
            start_game(session, now, self.site, game_id=row.id, force=True)
            return row.id

    def game(self, game_id: int) -> Any:
        from pbem.models import GameRecord

        with self.database.session() as session:
            return session.get(GameRecord, game_id)

    def clock(self, game_id: int) -> GameClock:
        return clock_in(self.database, game_id)

    def emails(self, kind: str | None = None, *, to: str | None = None) -> list[Any]:
        from sqlmodel import col, select

        from pbem.models import OutboxEmail

        query = select(OutboxEmail).order_by(col(OutboxEmail.id))
        if kind:
            query = query.where(OutboxEmail.kind == kind)
        if to:
            query = query.where(OutboxEmail.to_address == to)
        with self.database.session() as session:
            return list(session.exec(query))

    def moves(self, game_id: int) -> list[Any]:
        from pbem.positions import moves_of

        with self.database.session() as session:
            return moves_of(session, game_id)

    def sweep(self, now: datetime, **options: Any) -> Any:
        from pbem.scheduler import sweep

        return sweep(self.database, now, self.site, **options)


def parametrize_game_id(metafunc: pytest.Metafunc) -> None:
    """A test taking ``game_id`` runs once per game in the catalogue (later ones too), unless it
    parametrises ``game_id`` itself."""
    already = any("game_id" in str(mark.args[0]) for mark in metafunc.definition.iter_markers(
        "parametrize"))
    if "game_id" in metafunc.fixturenames and not already:
        metafunc.parametrize("game_id", list(engine.GAMES))


# -- several server processes, as in production ------------------------------------------------


@dataclass
class Gunicorn:
    """A running ``gunicorn pbem.wsgi:app`` with several worker processes on a free port."""

    url: str
    process: Any
    database_url: str
    env: dict[str, str]

    def stop(self) -> None:
        import signal

        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)


def start_gunicorn(database_url: str, *, workers: int = 3, smtp_port: int | None = None,
                   env: dict[str, str] | None = None, folder: Path | None = None) -> Gunicorn:
    """Start gunicorn on a migrated ``database_url`` (the caller migrates) and wait until it
    answers; ``env`` adds or overrides PBEM_* settings. Call ``stop()`` when done.

    A free port can be taken by another process between our probe and gunicorn's bind: then
    gunicorn exits at once, and we try again on another port.
    """
    for attempt in range(3):
        try:
            return _start_gunicorn(database_url, workers=workers, smtp_port=smtp_port,
                                   env=env, folder=folder)
        except GunicornExited:
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


class GunicornExited(RuntimeError):
    pass


def _start_gunicorn(database_url: str, *, workers: int, smtp_port: int | None,
                    env: dict[str, str] | None, folder: Path | None) -> Gunicorn:
    import subprocess
    import sys
    import time
    import urllib.request

    root = Path(__file__).resolve().parents[1]
    port = free_port()
    settings = {**os.environ, "PBEM_DATABASE_URL": database_url, "PBEM_ENV": "development",
                "PBEM_SECRET_KEY": SECRET, "PBEM_BASE_URL": f"http://127.0.0.1:{port}",
                "PBEM_SMTP_PORT": str(smtp_port or free_port()), "PBEM_MAIL_FROM": MAIL_FROM,
                "PYTHONPATH": str(root), **(env or {})}
    gunicorn = Path(sys.executable).with_name("gunicorn")
    process = subprocess.Popen(
        # --preload: the app is made once and the workers forked from it (pbem.db gives each its
        # own connections), instead of each worker importing pbem again: 1.5 s of CPU apiece.
        [str(gunicorn), "--workers", str(workers), "--bind", f"127.0.0.1:{port}", "--preload",
         "--timeout", "60", "--graceful-timeout", "5", "pbem.wsgi:app"],
        env=settings, cwd=folder or root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = Gunicorn(f"http://127.0.0.1:{port}", process, database_url, settings)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise GunicornExited(f"gunicorn exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{server.url}/", timeout=2):
                return server
        except OSError:
            time.sleep(0.2)  # gunicorn is starting
    server.stop()
    raise RuntimeError("gunicorn did not answer within 60 s")
