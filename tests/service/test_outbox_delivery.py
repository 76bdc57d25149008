"""Outbox delivery against a real SMTP server (aiosmtpd) that fails and recovers; claims.

Runs on SQLite and PostgreSQL. Times are explicit; nothing sleeps.
"""

from __future__ import annotations

import email
import email.policy
import threading
from datetime import UTC, datetime, timedelta

from aiosmtpd.controller import Controller
from sqlmodel import select

from pbem.db import Database
from pbem.mail.outbox import (
    CLAIM_FOR,
    MAX_ATTEMPTS,
    backoff,
    claim_due,
    deliver_pending,
    failed_mail,
)
from pbem.models import MailStatus, OutboxEmail
from tests.support import SmtpHandler, SmtpServer, free_port

NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)


def _queue(database: Database, count: int, *, first: int = 0) -> list[int]:
    with database.write() as session:
        rows = [OutboxEmail(kind="notice", to_address=f"r{n}@example.test", subject=f"n{n}",
                            text_body=f"message {n}", html_body=f"<p>message {n}</p>",
                            message_id=f"<m{n}@example.test>", next_attempt_at=NOW,
                            created_at=NOW) for n in range(first, first + count)]
        session.add_all(rows)
        session.flush()
        return [r.id for r in rows if r.id is not None]


def _email(database: Database, email_id: int) -> OutboxEmail:
    with database.session() as session:
        row = session.get(OutboxEmail, email_id)
        assert row is not None
        return row


def test_a_server_that_says_later_then_no_then_is_down_then_recovers(
    database: Database,
) -> None:
    server = SmtpServer("127.0.0.1", free_port())
    controller = Controller(SmtpHandler(server), hostname=server.host, port=server.port)
    controller.start()
    try:
        later, refused = _queue(database, 2)
        server.refuse = 1  # the first message: "451 try again later"
        first = deliver_pending(database, server.settings(), NOW)
        assert (first.sent, first.deferred) == (1, 1)
        assert _email(database, later).status == MailStatus.RETRYING
        retry_at = _email(database, later).next_attempt_at
        assert retry_at == NOW + backoff(1) and "451" in _email(database, later).last_error
        assert _email(database, refused).status == MailStatus.SENT  # the second went through

        server.refuse, server.refuse_reply = 1, "550 5.1.1 No such user here"
        second = deliver_pending(database, server.settings(), retry_at)
        assert second.failed == 1
        gone = _email(database, later)
        assert gone.status == MailStatus.FAILED and gone.attempts == 2 and "550" in gone.last_error
        with database.session() as session:
            assert [e.id for e in failed_mail(session)] == [later]  # shown to organisers
        assert deliver_pending(database, server.settings(), NOW + timedelta(days=9)).sent == 0
    finally:
        controller.stop()

    [waiting] = _queue(database, 1, first=10)
    down = deliver_pending(database, server.settings(), NOW)  # nothing listens now
    assert down.deferred == 1 and _email(database, waiting).status == MailStatus.RETRYING
    assert "cannot reach the mail server" in _email(database, waiting).last_error

    controller = Controller(SmtpHandler(server), hostname=server.host, port=server.port)
    controller.start()  # the server is back, on the same port
    try:
        back = deliver_pending(database, server.settings(), NOW + timedelta(minutes=2))
        assert back.sent == 1 and _email(database, waiting).status == MailStatus.SENT
        assert _email(database, waiting).attempts == 2
        received = email.message_from_bytes(server.messages[-1].raw, policy=email.policy.default)
        assert received["Message-ID"] == "<m10@example.test>"
    finally:
        controller.stop()


def test_mail_that_is_never_accepted_fails_after_the_ceiling(
    database: Database, closed_port: int, smtp_server: SmtpServer,
) -> None:
    [email_id] = _queue(database, 1)
    down = smtp_server.settings().__class__("127.0.0.1", closed_port, "pbem <p@example.test>",
                                            timeout=2)
    when = NOW
    for attempt in range(1, MAX_ATTEMPTS + 1):
        deliver_pending(database, down, when)
        row = _email(database, email_id)
        assert row.attempts == attempt
        when = row.next_attempt_at
    assert row.status == MailStatus.FAILED
    with database.session() as session:
        assert [e.id for e in failed_mail(session)] == [email_id]
    assert deliver_pending(database, smtp_server.settings(), when + timedelta(days=1)).sent == 0


def test_two_delivery_processes_never_send_one_email_twice(
    database: Database, smtp_server: SmtpServer,
) -> None:
    ids = _queue(database, 40)
    reports = []

    def deliver(holder: str) -> None:
        reports.append(deliver_pending(database, smtp_server.settings(), NOW, holder=holder,
                                       limit=7))

    for _ in range(8):  # passes until all is sent, two processes racing each time
        threads = [threading.Thread(target=deliver, args=(h,)) for h in ("one", "two")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    ids_seen = [email.message_from_bytes(m.raw)["Message-ID"] for m in smtp_server.messages]
    assert len(ids_seen) == len(set(ids_seen)) == len(ids)
    assert sum(r.sent for r in reports) == len(ids)


def test_an_abandoned_claim_is_retried_after_it_expires(
    database: Database, smtp_server: SmtpServer,
) -> None:
    [email_id] = _queue(database, 1)
    assert claim_due(database, NOW, 10, "crashed-process") == [email_id]  # then it died
    assert deliver_pending(database, smtp_server.settings(), NOW + timedelta(minutes=1)).sent == 0
    after = NOW + CLAIM_FOR + timedelta(seconds=1)
    assert deliver_pending(database, smtp_server.settings(), after).sent == 1
    with database.session() as session:
        sent = session.exec(select(OutboxEmail)).one()
    assert sent.status == MailStatus.SENT and sent.claimed_by == ""


class _RefusesOurSender(SmtpHandler):
    async def handle_MAIL(self, server: object, session: object, envelope: object,
                          address: str, mail_options: list[str]) -> str:
        return "553 5.7.1 Sender address rejected: not owned by user"


def test_a_refused_sender_address_delays_mail_instead_of_failing_it(
    database: Database,
) -> None:
    """A 5xx about our own address is a setting to fix; the players' mail must survive it."""
    server = SmtpServer("127.0.0.1", free_port())
    controller = Controller(_RefusesOurSender(server), hostname=server.host, port=server.port)
    controller.start()
    try:
        [email_id] = _queue(database, 1)
        report = deliver_pending(database, server.settings(), NOW)
    finally:
        controller.stop()
    row = _email(database, email_id)
    assert report.failed == 0 and row.status == MailStatus.RETRYING
    assert "refused the sender" in row.last_error and "553" in row.last_error


# Rows written before names and addresses were checked (or by a path that forgot to): each must
# fail alone, with its reason, while the good mail around it goes out.
MALFORMED = [
    ("Eve\r\nBcc: evil@example.test", "eve@example.test", "subject"),
    ("Line\u2028Separator", "ls@example.test", "subject"),
    ("Tab", "vt@example.test", "Mosey: Vertical\x0bTab vs Bo"),
    ("Ann", "ann@@example.org", "subject"),
    ("Änne", "änne@example.org", "subject"),
    ("Nobody", "", "subject"),
    ("Spaces", "two words@example.org", "subject"),
]


def test_malformed_rows_fail_alone_and_the_rest_is_delivered(
    database: Database, smtp_server: SmtpServer,
) -> None:
    good_before = _queue(database, 2)
    with database.write() as session:
        rows = [OutboxEmail(kind="turn", to_address=address, to_name=name, subject=subject,
                            text_body="t", html_body="<p>t</p>", message_id=f"<bad{n}@x.test>",
                            next_attempt_at=NOW, created_at=NOW)
                for n, (name, address, subject) in enumerate(MALFORMED)]
        session.add_all(rows)
        session.flush()
        bad = [r.id for r in rows if r.id is not None]
    good_after = _queue(database, 2, first=10)

    report = deliver_pending(database, smtp_server.settings(), NOW)

    assert report.sent == 4 and report.failed == len(MALFORMED)
    received = {email.message_from_bytes(m.raw)["Message-ID"] for m in smtp_server.messages}
    assert received == {"<m0@example.test>", "<m1@example.test>", "<m10@example.test>",
                        "<m11@example.test>"}
    for email_id in bad:
        row = _email(database, email_id)
        assert row.status == MailStatus.FAILED, (row.to_address, row.to_name, row.status)
        assert row.last_error.startswith("cannot be sent:") and row.claimed_by == ""
    for email_id in good_before + good_after:
        assert _email(database, email_id).status == MailStatus.SENT
    with database.session() as session:
        assert {e.id for e in failed_mail(session)} == set(bad)  # organisers see them
    later = deliver_pending(database, smtp_server.settings(), NOW + CLAIM_FOR * 2)
    assert (later.sent, later.failed) == (0, 0)
    with database.session() as session:
        statuses = set(session.exec(select(OutboxEmail.status)))
    assert statuses == {MailStatus.SENT, MailStatus.FAILED}
