"""Sending the outbox: one pass over the emails that are due (``pbem deliver``).

A mail server that is down or says "try later" (4xx) only delays mail: the row stays pending with
its attempt count, its error and the time of the next try (exponential backoff, capped). Only a
recipient refused for good (5xx) ends as ``failed``, still in the table for the mail log. A crash
between sending and marking can send an email twice, never zero times.
"""

from __future__ import annotations

import smtplib
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.utils import parseaddr
from typing import Any

from sqlmodel import col, select

from pbem.db import Database
from pbem.mail.boards import board_png
from pbem.mail.compose import build_message
from pbem.models import OutboxEmail

FIRST_RETRY = timedelta(minutes=1)
LONGEST_WAIT = timedelta(hours=6)
GIVE_UP_AFTER = 30  # attempts when the server keeps refusing with 5xx for reasons not the address


def backoff(attempts: int) -> timedelta:
    """Wait before try number ``attempts + 1``: 1, 2, 4, ... minutes, at most 6 hours."""
    wait: timedelta = FIRST_RETRY * 2 ** max(attempts - 1, 0)
    return min(wait, LONGEST_WAIT)


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int
    mail_from: str
    user: str = ""
    password: str = ""
    tls: str = "none"  # none, starttls, ssl
    timeout: float = 30

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> SmtpSettings:
        return cls(host=config["SMTP_HOST"], port=int(config["SMTP_PORT"]),
                   mail_from=config["MAIL_FROM"], user=config["SMTP_USER"],
                   password=config["SMTP_PASSWORD"], tls=config["SMTP_TLS"])

    def connect(self) -> smtplib.SMTP:
        if self.tls == "ssl":
            server: smtplib.SMTP = smtplib.SMTP_SSL(self.host, self.port, timeout=self.timeout,
                                                    context=ssl.create_default_context())
        else:
            server = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
            if self.tls == "starttls":
                server.starttls(context=ssl.create_default_context())
        if self.user:
            server.login(self.user, self.password)
        return server


@dataclass
class DeliveryReport:
    sent: int = 0
    deferred: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)


def due_ids(database: Database, now: datetime, limit: int) -> list[int]:
    with database.session() as session:
        rows = session.exec(
            select(OutboxEmail.id)
            .where(OutboxEmail.status == "pending", col(OutboxEmail.next_attempt_at) <= now)
            .order_by(col(OutboxEmail.id)).limit(limit)
        )
        return [i for i in rows if i is not None]


def _mark(database: Database, email_id: int, now: datetime, *, sent: bool = False,
          error: str = "", permanent: bool = False) -> None:
    with database.write() as session:
        email = session.get(OutboxEmail, email_id)
        if email is None:
            return
        email.attempts += 1
        if sent:
            email.status, email.sent_at, email.last_error = "sent", now, ""
        else:
            email.last_error = error[:500]
            if permanent or email.attempts >= GIVE_UP_AFTER:
                email.status = "failed"
            else:
                email.next_attempt_at = now + backoff(email.attempts)
        session.add(email)


def deliver_pending(
    database: Database, smtp: SmtpSettings, now: datetime, *, limit: int = 500
) -> DeliveryReport:
    """Send what is due over one SMTP connection; see the module docstring for failures."""
    report = DeliveryReport()
    ids = due_ids(database, now, limit)
    if not ids:
        return report
    try:
        server = smtp.connect()
    except (OSError, smtplib.SMTPException) as error:
        for email_id in ids:
            _mark(database, email_id, now, error=f"cannot reach the mail server: {error}")
        report.deferred += len(ids)
        report.errors.append(str(error))
        return report
    envelope_from = parseaddr(smtp.mail_from)[1]
    try:
        for position, email_id in enumerate(ids):
            with database.session() as session:
                email = session.get(OutboxEmail, email_id)
            if email is None or email.status != "pending":
                continue
            png = None
            if email.image_ply is not None and email.game_id is not None:
                viewer = -1 if email.image_viewer is None else email.image_viewer
                png = board_png(database, email.game_id, email.image_ply, viewer)
            message = build_message(email, mail_from=smtp.mail_from, now=now, png=png)
            try:
                server.send_message(message, from_addr=envelope_from, to_addrs=[email.to_address])
            except smtplib.SMTPRecipientsRefused as error:
                code = min(c for c, _ in error.recipients.values())
                _mark(database, email_id, now, error=str(error.recipients), permanent=code >= 500)
                report.failed += code >= 500
                report.deferred += code < 500
            except smtplib.SMTPResponseException as error:
                _mark(database, email_id, now, error=f"{error.smtp_code} {error.smtp_error!r}")
                report.deferred += 1
                report.errors.append(str(error))
                server.rset()
            except (OSError, smtplib.SMTPServerDisconnected) as error:
                # The connection is gone: this and the rest wait for the next pass.
                for later in ids[position:]:
                    _mark(database, later, now, error=f"connection lost: {error}")
                report.deferred += len(ids) - position
                report.errors.append(str(error))
                return report
            else:
                _mark(database, email_id, now, sent=True)
                report.sent += 1
    finally:
        try:
            server.quit()
        except (OSError, smtplib.SMTPException):
            server.close()
    return report
