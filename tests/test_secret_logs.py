"""Nothing secret in any log: a reply through ``pbem inbound`` and a sign-in through the web app,
each run as its own process as an operator runs them, then every line they wrote is read.

Secrets are the reply and bounce tokens (``play+TOKEN@``, ``bounce+TOKEN@``), link tokens (a
sign-in link, a player's ``/me/`` page) and passwords (in the database URL, the IMAP URL, the
SMTP password, the secret key). What the logs must still show is checked too, masked, so that a
test that read no log at all could not pass.
"""

from __future__ import annotations

import http.cookiejar
import logging
import os
import re
import signal
import smtplib
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from email import message_from_bytes
from email.policy import default as default_policy
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlmodel import select

from pbem import create_app
from pbem.db import Database
from pbem.links import Links, seat_holder_for
from pbem.logs import MaskSecrets, mask_secrets
from pbem.models import Move, OutboxEmail
from pbem.positions import current_state
from pbem.reply_addresses import bounce_address, make_bounce_token
from pbem.services import PlayerSpec, Site
from tests.support import (
    MAIL_FROM,
    SECRET,
    SmtpServer,
    csrf_of,
    free_port,
    make_database,
    postgres_url,
    start_a_game,
    two_player_game,
)

PBEM = Path(sys.executable).with_name("pbem")
REPLY_ADDRESS = "play@pbem.example.test"
DB_PASSWORD = "s3cret-pw"
PASSWORDS = {"SMTP_PASSWORD": "smtp-s3cret-pw", "IMAP_URL": "imap-s3cret-pw"}


def _settings(database_url: str, base_url: str, **more: str) -> dict[str, str]:
    """A whole environment for a pbem command, with a password wherever a setting has one."""
    return {**os.environ, "PYTHONUNBUFFERED": "1", "PBEM_ENV": "development",
            "PBEM_DATABASE_URL": database_url, "PBEM_SECRET_KEY": SECRET,
            "PBEM_BASE_URL": base_url, "PBEM_MAIL_FROM": MAIL_FROM,
            "PBEM_REPLY_ADDRESS": REPLY_ADDRESS, "PBEM_SMTP_TLS": "starttls",
            "PBEM_SMTP_USER": "pbem", "PBEM_SMTP_PASSWORD": PASSWORDS["SMTP_PASSWORD"],
            "PBEM_IMAP_URL": f"imaps://pbem:{PASSWORDS['IMAP_URL']}@127.0.0.1:1/INBOX",
            **{f"PBEM_{name}": value for name, value in more.items()}}


def _run(args: list[str], env: dict[str, str], folder: Path) -> str:
    """A pbem command to its end; everything it wrote."""
    done = subprocess.run([str(PBEM), *args], env=env, cwd=folder, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


class Running:
    """A pbem command running in the background, its output going to files."""

    def __init__(self, args: list[str], env: dict[str, str], folder: Path) -> None:
        self.out, self.err = folder / f"{args[0]}.out", folder / f"{args[0]}.err"
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.process = subprocess.Popen([str(PBEM), *args], env=env, cwd=folder,
                                            stdout=out, stderr=err)

    def wait_for(self, ready: Any) -> None:
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, self.output()
            try:
                ready()
                return
            except OSError:
                assert time.monotonic() < deadline, "did not start:\n" + self.output()
                time.sleep(0.1)  # the real pbem process is starting

    def stop(self) -> str:
        """Stop it as systemd does (SIGTERM); everything it wrote."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.output()

    def output(self) -> str:
        return self.out.read_text(errors="replace") + self.err.read_text(errors="replace")


def _assert_no_secret(logs: str, secrets: dict[str, str]) -> None:
    for what, secret in secrets.items():
        assert secret.lower() not in logs.lower(), f"{what} in the logs:\n{logs}"


# -- a reply through pbem inbound ---------------------------------------------------------------


def _turn_email(database: Database) -> OutboxEmail:
    with database.session() as session:
        turn = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "turn")).first()
        assert turn is not None and turn.reply_to
        return turn


def _reply_to(database: Database, game: int, turn: OutboxEmail) -> bytes:
    """The player to move answers their turn email with a legal move, as a mail client would."""
    from pbem.models import GameRecord

    with database.session() as session:
        row = session.get(GameRecord, game)
        assert row is not None
        state_game, state = current_state(row)
        move = str(state_game.legal_moves(state)[0])
    return (f"From: {turn.to_address}\r\nTo: {turn.reply_to}\r\nSubject: Re: {turn.subject}\r\n"
            f"Message-ID: <r1@example.test>\r\nIn-Reply-To: {turn.message_id}\r\n"
            f"\r\n{move}\r\n").encode()


def test_a_reply_through_pbem_inbound_logs_no_token(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pbem.db'}"
    env = _settings(url, "https://pbem.example.test")
    logs = _run(["db", "upgrade"], env, tmp_path)
    database = Database(url)
    site = Site(Links(SECRET, "https://pbem.example.test", seat_holder=seat_holder_for(database)),
                MAIL_FROM, reply_address=REPLY_ADDRESS)
    game = start_a_game(database, datetime.now(UTC), site, two_player_game(),
                        players=[PlayerSpec("Ann", "ann@example.test"),
                                 PlayerSpec("Bob", "bob@example.test")])
    turn = _turn_email(database)
    assert turn.reply_to is not None and turn.id is not None
    reply_token = turn.reply_to.partition("+")[2].partition("@")[0]
    bounce_token = make_bounce_token(SECRET, turn.id)
    port = free_port()
    inbound = Running(["inbound", "--port", str(port)], env, tmp_path)
    try:
        inbound.wait_for(lambda: smtplib.SMTP("127.0.0.1", port, timeout=5).quit())
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
            client.sendmail(turn.to_address, [turn.reply_to], _reply_to(database, game, turn))
            # A delivery report to the VERP address of that email, from the null sender.
            client.sendmail("<>", [bounce_address(REPLY_ADDRESS, bounce_token)],
                            b"From: MAILER-DAEMON@mx.example.test\r\nTo: "
                            + bounce_address(REPLY_ADDRESS, bounce_token).encode()
                            + b"\r\nSubject: Undelivered Mail Returned to Sender\r\n\r\n"
                            b"gone\r\n")
    finally:
        logs += inbound.stop()
    with database.session() as session:
        assert len(list(session.exec(select(Move)))) == 1, logs  # the reply was played
    database.dispose()
    _assert_no_secret(logs, {"the reply token": reply_token, "the bounce token": bounce_token,
                             "the secret key": SECRET, **PASSWORDS})
    # The session was logged (aiosmtpd writes each command at INFO), with the tokens masked.
    assert f"{REPLY_ADDRESS.partition('@')[0]}+…@" in logs, logs
    assert "bounce+…@" in logs, logs


# -- a sign-in through the web app --------------------------------------------------------------


@pytest.fixture
def postgres_with_password(tmp_path: Path) -> Iterator[tuple[Database, str, str]]:
    """(a migrated database in a schema of its own, its URL with a password, the schema).

    PostgreSQL on 127.0.0.1 trusts local connections, so any password works."""
    database, drop = make_database("postgresql", tmp_path, migrate=True)
    url = make_url(postgres_url()[0] or "").set(password=DB_PASSWORD)
    with database.engine.connect() as connection:
        schema = str(connection.execute(text("select current_schema()")).scalar())
    assert schema.startswith("pbem_test_")
    yield database, url.render_as_string(hide_password=False), schema
    drop()


def _text(raw: bytes) -> str:
    """The plain-text part of an email, as a person reads it."""
    part = message_from_bytes(raw, policy=default_policy).get_body(("plain",))
    assert part is not None
    return str(part.get_content())


def _browser() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def _post(browser: urllib.request.OpenerDirector, url: str, form: dict[str, str]) -> Any:
    return browser.open(url, data=urllib.parse.urlencode(form).encode(), timeout=30)


def test_a_sign_in_through_the_web_app_logs_no_token_and_no_password(
    tmp_path: Path, postgres_with_password: tuple[Database, str, str], smtp_server: SmtpServer,
) -> None:
    database, url, schema = postgres_with_password
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    # Ann and Bob play a game: its emails end with each player's games-page (/me/) link.
    site = Site(Links(SECRET, base, seat_holder=seat_holder_for(database)), MAIL_FROM)
    start_a_game(database, datetime.now(UTC), site, two_player_game(),
                 players=[PlayerSpec("Ann", "ann@example.test"),
                          PlayerSpec("Bob", "bob@example.test")])
    env = _settings(url, base, DATABASE_SEARCH_PATH=schema, SMTP_HOST="127.0.0.1",
                    SMTP_PORT=str(smtp_server.port), SMTP_TLS="none", SMTP_USER="",
                    SMTP_PASSWORD="")
    logs = _run(["db", "upgrade"], env, tmp_path)
    serve = Running(["serve", "--port", str(port)], env, tmp_path)
    browser = _browser()
    try:
        serve.wait_for(lambda: browser.open(f"{base}/sign-in", timeout=5).read())
        page = browser.open(f"{base}/sign-in", timeout=30).read().decode()
        asked = _post(browser, f"{base}/sign-in",
                      {"email": "ann@example.test", "csrf_token": csrf_of(page)})
        assert asked.status == 200
        logs += _run(["deliver"], env, tmp_path)  # every email, to the SMTP server
        to_ann = "\n".join(_text(m.raw) for m in smtp_server.messages
                           if m.recipients == ["ann@example.test"])
        sign_in = re.search(rf"{re.escape(base)}/sign-in/([A-Za-z0-9_-]+)", to_ann)
        me = re.search(rf"{re.escape(base)}/me/([^/?#\s]+)", to_ann)
        assert sign_in and me, to_ann
        confirm = browser.open(sign_in[0], timeout=30).read().decode()
        signed_in = _post(browser, sign_in[0], {"csrf_token": csrf_of(confirm)})
        assert signed_in.status == 200 and "/sign-in" not in signed_in.geturl()
        games = browser.open(f"{me[0]}?saved=1", timeout=30)  # her games page, from her mail
        assert games.status == 200
    finally:
        logs += serve.stop()
    _assert_no_secret(logs, {"the sign-in token": sign_in[1], "the /me/ token": me[1],
                             "the database password": DB_PASSWORD, "the secret key": SECRET})
    # The requests were logged, with the tokens cut short.
    assert f"/sign-in/{sign_in[1][:8]}…" in logs, logs
    assert f"/me/{me[1][:8]}…" in logs, logs
    assert "database is up to date" in logs


# -- the masks themselves -----------------------------------------------------------------------


def test_every_token_route_of_the_app_is_masked_in_a_log_line() -> None:
    app = create_app({"DATABASE_URL": "sqlite://"}, read_env=False)
    token = Links(SECRET, "https://pbem.example").sign("player", player=1)
    routes = [rule.rule for rule in app.url_map.iter_rules() if "token" in rule.arguments]
    assert {"/sign-in/<token>", "/sign-up/<token>", "/challenge/<token>",
            "/rematch/<token>"} <= set(routes)
    for rule in routes:
        path = rule.replace("<token>", token)
        line = mask_secrets(f'127.0.0.1 - - "GET {path}?saved=1 HTTP/1.1" 200 -')
        assert token not in line and f"{token[:8]}…" in line, rule


def test_a_route_that_cannot_be_masked_breaks_no_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Such a route fails the nginx test (tests/web/test_nginx_config.py); while logging, the
    other routes are still masked and the request that logs goes on."""
    app = create_app({"DATABASE_URL": "sqlite://"}, read_env=False)
    app.add_url_rule("/x/<int:n>/<token>", "odd", lambda n, token: "")
    with caplog.at_level(logging.INFO):
        logging.getLogger("werkzeug").info('"GET /sign-in/%s HTTP/1.1" 200 -', "A" * 43)
    assert caplog.records[0].getMessage() == f'"GET /sign-in/{"A" * 8}… HTTP/1.1" 200 -'


def test_configure_logging_masks_every_logger_through_its_handler(
    tmp_path: Path,
) -> None:
    """Run in a process of its own: configure_logging sets up that process's logging."""
    script = tmp_path / "log.py"
    script.write_text(
        "import logging\n"
        "from pbem.logs import configure_logging\n"
        "configure_logging()\n"
        "logging.getLogger('mail.log').info('%r >> %r', ('127.0.0.1', 5),"
        " b'RCPT TO:<play+abcdefghijklmnop@pbem.example.org>')\n"
        "logging.getLogger('apscheduler.executors.default').warning("
        "'Job failed: postgresql://pbem:%s@db/pbem', 'pw-in-args')\n"
        "try:\n"
        "    raise ValueError('no mailbox bounce+qrstuvwxyz234567@pbem.example.org')\n"
        "except ValueError:\n"
        "    logging.getLogger('pbem.inbound').exception('failed')\n"
        "logging.getLogger('pbem').debug('below the level: not written')\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])},
                          timeout=60, check=True)
    lines = done.stderr.splitlines()
    assert any(line.endswith("mail.log ('127.0.0.1', 5) >> b'RCPT TO:<play+…@pbem.example.org>'")
               for line in lines), done.stderr
    assert "apscheduler.executors.default Job failed: postgresql://pbem:***@db/pbem" in \
        done.stderr
    assert "ValueError: no mailbox bounce+…@pbem.example.org" in done.stderr  # the traceback
    for secret in ("abcdefghijklmnop", "pw-in-args", "qrstuvwxyz234567", "below the level"):
        assert secret not in done.stderr


def test_pbem_inbound_smtp_logs_are_masked_wherever_they_go(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Without configure_logging (a test, another program): the inbound server's own lines and
    aiosmtpd's are masked on their loggers."""
    import pbem.inbound.smtp  # noqa: F401  (masks its loggers when imported)

    with caplog.at_level(logging.INFO), caplog.at_level(logging.INFO, logger="mail.log"):
        logging.getLogger("mail.log").info("%r recip: %s", ("127.0.0.1", 5),
                                           "play+abcdefghijklmnop@pbem.example.org")
        logging.getLogger("pbem.inbound.smtp").error("checking recipient %r failed",
                                                     "bounce+qrstuvwxyz234567@x.example")
    assert [r.getMessage() for r in caplog.records] == [
        "('127.0.0.1', 5) recip: play+…@pbem.example.org",
        "checking recipient 'bounce+…@x.example' failed"]
    assert any(isinstance(f, MaskSecrets) for f in logging.getLogger("mail.log").filters)
