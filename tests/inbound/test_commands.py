"""The commands of play by reply, run as an operator runs them: ``pbem inbound`` as its own
process, ``pbem fetch-mail`` and the scheduler's fetch job against a real Dovecot, and
``pbem dkim-keygen``."""

from __future__ import annotations

import os
import smtplib
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlmodel import select

from pbem.cli import main
from pbem.db import Database
from pbem.links import Links, seat_holder_for
from pbem.migrate import upgrade
from pbem.models import GameRecord, Move, OutboxEmail
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site
from tests.dkim_support import txt_value
from tests.inbound.replies import REPLY_ADDRESS
from tests.support import BASE_URL, MAIL_FROM, SECRET, free_port, start_a_game

ROOT = Path(__file__).resolve().parents[2]


def _setup(tmp_path: Path) -> tuple[Database, Site, dict[str, str], int]:
    url = f"sqlite:///{tmp_path / 'pbem.db'}"
    upgrade(url)
    database = Database(url)
    site = Site(Links(SECRET, BASE_URL, seat_holder=seat_holder_for(database)), MAIL_FROM,
                reply_address=REPLY_ADDRESS)
    game = start_a_game(database, datetime.now(UTC), site, "mosey",
                        players=[PlayerSpec("Ann", "ann@example.test"),
                                 PlayerSpec("Bob", "bob@example.test")])
    env = {"PBEM_DATABASE_URL": url, "PBEM_ENV": "development", "PBEM_SECRET_KEY": SECRET,
           "PBEM_BASE_URL": BASE_URL, "PBEM_MAIL_FROM": MAIL_FROM,
           "PBEM_REPLY_ADDRESS": REPLY_ADDRESS}
    return database, site, env, game


def _reply(database: Database, game: int) -> tuple[str, bytes]:
    """The player to move answers their turn email (address from its row, as from Reply-To)."""
    with database.session() as session:
        row = session.get(GameRecord, game)
        assert row is not None
        turn = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "turn")).first()
        assert turn is not None and turn.reply_to
        state_game, state = current_state(row)
        move = str(state_game.legal_moves(state)[0])
    return turn.reply_to, (f"From: {turn.to_address}\r\nTo: {turn.reply_to}\r\n"
                           f"Subject: Re: {turn.subject}\r\nMessage-ID: <r1@example.test>\r\n"
                           f"\r\n{move}\r\n").encode()


def _moves(database: Database) -> list[Move]:
    with database.session() as session:
        return list(session.exec(select(Move)))


def test_pbem_inbound_plays_a_reply_and_refuses_strangers_at_rcpt(tmp_path: Path) -> None:
    database, _, env, game = _setup(tmp_path)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "pbem.cli", "inbound", "--port", str(port)],
        env={**os.environ, **env, "PYTHONPATH": str(ROOT)}, cwd=tmp_path,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                client = smtplib.SMTP("127.0.0.1", port, timeout=30)
                break
            except OSError:
                assert time.monotonic() < deadline, "pbem inbound did not start"
                time.sleep(0.1)  # the `pbem inbound` process is starting
        with client:
            client.ehlo()
            client.mail("someone@example.test")
            assert client.rcpt("postmaster@pbem.example.test")[0] == 550
            client.rset()
            address, raw = _reply(database, game)
            client.sendmail("ann@example.test", [address.upper()], raw)
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert len(_moves(database)) == 1


def test_fetch_mail_and_the_scheduler_read_a_real_imap_mailbox(
        tmp_path: Path, dovecot: tuple[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    from pbem.mail.outbox import SmtpSettings
    from pbem.scheduler.runner import SchedulerJobs

    url, append = dovecot
    database, site, env, game = _setup(tmp_path)
    monkeypatch.chdir(tmp_path)
    _, raw = _reply(database, game)
    append(raw)
    fetched = CliRunner().invoke(main, ["fetch-mail"], env={**env, "PBEM_IMAP_URL": url})
    assert fetched.exit_code == 0, fetched.output
    assert "1 played" in fetched.output and len(_moves(database)) == 1
    append(raw)  # delivered again: handled once only
    jobs = SchedulerJobs(database, site, SmtpSettings("127.0.0.1", free_port(), MAIL_FROM),
                         imap_url=url)
    assert jobs.fetch_tick() == 1
    assert len(_moves(database)) == 1
    jobs.stop()


def test_dkim_keygen_writes_a_private_key_and_prints_the_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    key = tmp_path / "dkim.pem"
    made = CliRunner().invoke(main, ["dkim-keygen", "--out", str(key), "--selector", "mail",
                                     "--domain", "pbem.example.test"],
                              env={"PBEM_ENV": "development"})
    assert made.exit_code == 0, made.output
    assert key.read_bytes().startswith(b"-----BEGIN") and key.stat().st_mode & 0o077 == 0
    record = next(line for line in made.output.splitlines() if "_domainkey" in line)
    assert record.startswith("mail._domainkey.pbem.example.test.")
    assert txt_value(record).startswith("v=DKIM1; k=rsa; p=")
    again = CliRunner().invoke(main, ["dkim-keygen", "--out", str(key)],
                               env={"PBEM_ENV": "development"})
    assert again.exit_code != 0  # never overwrites a key
