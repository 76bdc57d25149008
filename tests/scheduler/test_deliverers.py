"""Delivery from several processes at once: real ``pbem deliver --loop`` processes on one outbox,
a local SMTP sink counting Message-IDs. Each email arrives exactly once, also when a deliverer is
SIGKILLed in the middle of its batch (the other takes its claimed emails over once the claim time,
two seconds here, runs out); and a deliverer that lost its claim neither sends nor marks.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from email import message_from_bytes
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import insert, text
from sqlmodel import select

from pbem.db import Database
from pbem.mail.outbox import claim_due, deliver_pending
from pbem.models import MailStatus, OutboxEmail
from pbem.models.jobs import JobState
from pbem.models.mail import Queued
from pbem.scheduler.job_states import DELIVER, job_states, record_run
from tests.support import SmtpServer, free_port, make_database

ROOT = Path(__file__).resolve().parents[2]
CLAIM_SECONDS = 2
STALL = "stall@example.test"


class Sink:
    """An SMTP server that counts the Message-IDs it accepted and who sent each; the first
    message to :data:`STALL` hangs at RCPT until the test lets it go (its sender is then killed
    mid-batch, before the message was handed over)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ids: Counter[str] = Counter()
        self.senders: Counter[str] = Counter()
        self.stalled_by = ""
        self.stalled = threading.Event()
        self.release = asyncio.Event()

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          options: list[str]) -> str:
        if address == STALL and not self.stalled.is_set():
            self.stalled_by = envelope.mail_from
            self.stalled.set()
            await self.release.wait()
            return "451 4.3.0 Try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message_id = message_from_bytes(envelope.original_content or envelope.content)[
            "Message-ID"]
        with self.lock:
            self.ids[message_id] += 1
            self.senders[envelope.mail_from] += 1
        return "250 Message accepted for delivery"

    def received(self) -> int:
        with self.lock:
            return len(self.ids)


@pytest.fixture
def sink() -> Iterator[tuple[Sink, int]]:
    port = free_port()
    handler = Sink()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield handler, port
    controller.loop.call_soon_threadsafe(handler.release.set)
    controller.stop()


def _queue(database: Database, count: int, now: datetime, stall_at: int | None = None) -> set[str]:
    """``count`` due emails, each to its own address (one to :data:`STALL`); their Message-IDs."""
    rows = [{"kind": "turn", "to_address": STALL if n == stall_at else f"p{n}@example.test",
             "subject": f"Email {n}", "text_body": "Your move.", "html_body": "<p>Your move.</p>",
             "message_id": f"<{n}.capacity@example.test>", "next_attempt_at": now,
             "created_at": now, "status": MailStatus.QUEUED} for n in range(count)]
    with database.write() as session:
        session.execute(insert(OutboxEmail), rows)
    return {str(row["message_id"]) for row in rows}


def _wait_for(condition: Callable[[], object], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def _deliverers(environment: dict[str, str], port: int, cwd: Path) -> list[subprocess.Popen[bytes]]:
    """Two ``pbem deliver --loop`` processes, told apart by their envelope senders."""
    return [subprocess.Popen(
        [sys.executable, "-m", "pbem.cli", "deliver", "--loop", "--every", "1"],
        env={**os.environ, **environment, "PBEM_SMTP_PORT": str(port), "PBEM_ENV": "development",
             "PBEM_DELIVER_CLAIM_SECONDS": str(CLAIM_SECONDS), "PYTHONPATH": str(ROOT),
             "PBEM_MAIL_FROM": f"pbem <{name}@example.test>"},
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for name in ("a", "b")]


def _stop(processes: list[subprocess.Popen[bytes]]) -> list[int | None]:
    """SIGTERM to those still running; their exit codes (-9: killed before)."""
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    return [process.wait(timeout=20) for process in processes]


def _statuses(database: Database) -> Counter[str]:
    with database.session() as session:
        return Counter(session.exec(select(OutboxEmail.status)))


def test_two_deliverers_on_postgresql_send_each_email_once_though_one_is_killed_mid_batch(
    tmp_path: Path, sink: tuple[Sink, int], now: datetime,
) -> None:
    handler, port = sink
    database, remove = make_database("postgresql", tmp_path)
    try:
        with database.session() as session:
            schema = str(session.execute(text("SELECT current_schema()")).scalar())
        expected = _queue(database, 200, now, stall_at=40)
        processes = _deliverers({"PBEM_DATABASE_URL": database.url,
                                 "PBEM_DATABASE_SEARCH_PATH": schema}, port, tmp_path)
        try:
            assert handler.stalled.wait(timeout=60), "no deliverer reached the stalled email"
            stalled = next(p for p, name in zip(processes, "ab", strict=True)
                           if handler.stalled_by == f"{name}@example.test")
            stalled.kill()  # mid-batch: the emails it claimed after this one are still claimed
            stalled.wait(timeout=10)
            _wait_for(lambda: handler.received() == len(expected), seconds=60)
        finally:
            codes = _stop(processes)
        assert handler.ids == Counter(expected)  # each exactly once, none lost
        assert len(handler.senders) == 2  # both delivered, before one was killed
        assert sorted(codes) == sorted([-signal.SIGKILL, 0])  # the other stopped cleanly
        assert _statuses(database) == {MailStatus.SENT: len(expected)}
    finally:
        remove()


def test_a_deliverer_cut_off_inside_a_transaction_holds_up_the_others_only_briefly(
    tmp_path: Path, now: datetime,
) -> None:
    """A host whose link goes down mid-transaction leaves its session open on the server (TCP
    notices nothing for hours): PostgreSQL ends it after the idle-transaction time, and with it
    the row locks that the other deliverers' passes wait for."""
    database, remove = make_database("postgresql", tmp_path)
    try:
        with database.session() as session:
            schema = str(session.execute(text("SELECT current_schema()")).scalar())
        record_run(database, DELIVER, "a", now)
        cut_off = Database(database.url, search_path=schema, idle_transaction_seconds=1)
        silent = cut_off.session()
        silent.exec(select(JobState).with_for_update()).all()  # and then never a word more
        other = threading.Thread(target=record_run, args=(database, DELIVER, "b", now))
        other.start()
        other.join(timeout=15)
        finished = not other.is_alive()
        with contextlib.suppress(Exception):  # its connection was ended under it
            silent.close()
        cut_off.dispose()
        other.join()
        assert finished, "the other deliverer waited on the silent one's lock"
        assert job_states(database)[DELIVER].holder == "b"
    finally:
        remove()


def test_two_deliverers_on_sqlite_send_each_email_once(
    tmp_path: Path, sink: tuple[Sink, int], now: datetime,
) -> None:
    handler, port = sink
    database, remove = make_database("sqlite", tmp_path, migrate=True)
    try:
        expected = _queue(database, 100, now)
        processes = _deliverers({"PBEM_DATABASE_URL": database.url}, port, tmp_path)
        try:
            _wait_for(lambda: handler.received() == len(expected), seconds=60)
        finally:
            assert _stop(processes) == [0, 0]
        assert handler.ids == Counter(expected)
        assert _statuses(database) == {MailStatus.SENT: len(expected)}
    finally:
        remove()


def test_a_deliverer_that_lost_its_claims_neither_sends_nor_marks_them(
    sqlite_database: Database, smtp_server: SmtpServer, now: datetime,
) -> None:
    expected = _queue(sqlite_database, 5, now)
    claim = timedelta(seconds=CLAIM_SECONDS)
    later = now + claim + timedelta(seconds=1)
    taken: list[int] = []

    def slow_clock() -> datetime:
        """The first deliverer stalls past its claim; meanwhile a second takes its emails."""
        if not taken:
            taken.extend(claim_due(sqlite_database, later, 10, "second", claim_for=claim))
        return later

    report = deliver_pending(sqlite_database, smtp_server.settings(), now, holder="first",
                             claim_for=claim, clock=slow_clock)
    assert report.attempted == 0 and not smtp_server.messages and len(taken) == len(expected)
    with sqlite_database.session() as session:
        rows: list[Queued] = list(session.exec(select(OutboxEmail)))
    assert {(row.status, row.claimed_by, row.attempts) for row in rows} == {
        (MailStatus.SENDING, "second", 0)}
    # The second sends them, once, in its next pass (its own claims ran out meanwhile).
    report = deliver_pending(sqlite_database, smtp_server.settings(), later + claim * 2,
                             holder="second", claim_for=claim)
    assert report.sent == len(expected) and len(smtp_server.messages) == len(expected)
