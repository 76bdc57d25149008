"""Fixtures shared by the service, clock, web, admin and scheduler tests (tests/support.py has
the helpers).

PostgreSQL runs are real: each test gets its own schema in the ``test`` database at 127.0.0.1:5432,
dropped afterwards; when PostgreSQL does not answer, those runs are skipped, never faked.
"""

from __future__ import annotations

import functools
import hashlib
import io
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient
from PIL import Image

import engine
import pbem.admin.accounts
import pbem.mail.boards
import pbem.ratelimit
from pbem import create_app
from pbem.db import Database
from pbem.features import connect
from pbem.links import Links
from pbem.mail.boards import SCALE
from pbem.services import Site
from pbem.services.notify import svg_size
from tests.support import (
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    BACKENDS,
    BASE_URL,
    MAIL_FROM,
    SECRET,
    Cli,
    ClockGames,
    Mailbox,
    SmtpHandler,
    SmtpServer,
    csrf_of,
    free_port,
    make_database,
    smallest_options,
)

# As every process of the service does where it starts: ratings, tournaments and rematches react
# to the games the tests end through the services.
connect()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``early`` first (each worker's share of the run is a range of this
    order): one of them started in the last minute would keep the whole run waiting on it."""
    items.sort(key=lambda item: item.get_closest_marker("early") is None)


@pytest.fixture(autouse=True, scope="session")
def _each_password_hashed_once() -> Iterator[None]:
    """scrypt is slow on purpose (about 100 ms a call, a third of a dashboard test's time) and a
    pure function of its arguments. Within a test process an organiser's password is hashed once
    (a salt per password, not per account) and each key derived once, so the hundreds of
    sign-ins cost nothing; ``pbem.admin.passwords``' own tests still salt every hash afresh."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hashlib, "scrypt", functools.cache(hashlib.scrypt))
        patch.setattr(pbem.admin.accounts, "hash_password",
                      functools.cache(pbem.admin.accounts.hash_password))
        yield


@pytest.fixture
def make_db() -> Any:
    return make_database


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A fresh database on each backend (the test runs once per backend)."""
    db, remove = make_database(request.param, tmp_path)
    yield db
    remove()


@pytest.fixture
def sqlite_database(tmp_path: Path) -> Iterator[Database]:
    db, remove = make_database("sqlite", tmp_path)
    yield db
    remove()


@pytest.fixture
def now() -> datetime:
    return datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def site() -> Site:
    return Site(Links(SECRET, BASE_URL), MAIL_FROM)


@pytest.fixture(name="smallest_options")
def smallest_options_fixture() -> Any:
    return smallest_options


@pytest.fixture
def any_game() -> str:
    """One game from the catalogue for tests about the service rather than the games."""
    if not engine.GAMES:
        pytest.skip("the game catalogue is empty")
    return next(iter(engine.GAMES))


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on: a mail server that is down."""
    return free_port()


@pytest.fixture
def smtp_server() -> Iterator[SmtpServer]:
    server = SmtpServer("127.0.0.1", free_port())
    controller = Controller(SmtpHandler(server), hostname=server.host, port=server.port)
    controller.start()
    yield server
    controller.stop()


@pytest.fixture
def app(sqlite_database: Database, smtp_server: SmtpServer) -> Flask:
    return create_app({
        "ENV": "development", "TESTING": True, "SECRET_KEY": SECRET, "BASE_URL": BASE_URL,
        "DATABASE": sqlite_database, "DATABASE_URL": sqlite_database.url,
        "SMTP_HOST": smtp_server.host, "SMTP_PORT": smtp_server.port, "MAIL_FROM": MAIL_FROM,
    }, read_env=False)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def admin_client(client: FlaskClient, sqlite_database: Database) -> FlaskClient:
    """A test client logged in to the dashboard as ADMIN_EMAIL."""
    from pbem.admin.accounts import create_admin

    with sqlite_database.write() as session:
        create_admin(session, datetime.now(UTC), ADMIN_EMAIL, ADMIN_PASSWORD)
    token = csrf_of(client.get("/admin/login").text)
    assert client.post("/admin/login", data={"csrf_token": token, "email": ADMIN_EMAIL,
                                             "password": ADMIN_PASSWORD}).status_code == 302
    return client


@pytest.fixture
def mailbox(sqlite_database: Database, smtp_server: SmtpServer) -> Mailbox:
    return Mailbox(sqlite_database, smtp_server)


@pytest.fixture
def csrf() -> Any:
    return csrf_of


@pytest.fixture
def sketched_boards(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every email's board picture a blank PNG of the board's size, for the tests that play whole
    games through the mail: they follow hundreds of emails and look at none of the pictures,
    whose rasterising (CairoSVG, some 40 ms each) would be most of their time. The pictures
    themselves are checked where they are the point: tests/engine/test_png.py and the email
    tests of tests/service."""
    def blank(svg: str) -> bytes:
        width, height = svg_size(svg)
        out = io.BytesIO()
        Image.new("P", (width * SCALE, height * SCALE)).save(out, "PNG")
        return out.getvalue()

    monkeypatch.setattr(pbem.mail.boards, "svg_to_png", blank)


@pytest.fixture
def clock_games(database: Database, site: Site) -> ClockGames:
    """Games with clocks on each backend (the test runs once per backend)."""
    return ClockGames(database, site)


@pytest.fixture
def sqlite_clock_games(sqlite_database: Database, site: Site) -> ClockGames:
    return ClockGames(sqlite_database, site)


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Cli]:
    """``pbem`` commands in ``tmp_path``, on a database that ``pbem db upgrade`` made."""
    from pbem.cli import main

    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    env = {"PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": "cli-secret",
           "PBEM_BASE_URL": "https://pbem.example", "PBEM_MAIL_FROM": "pbem <pbem@example.test>"}
    runner = CliRunner()
    assert runner.invoke(main, ["db", "upgrade"], env=env).exit_code == 0
    command = Cli(env, Database(url), runner)
    yield command
    command.database.dispose()
