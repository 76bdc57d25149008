"""Sending the outbox: one pass over the emails that are due (``pbem deliver``, the scheduler).

Each email's ``status`` is what a dashboard shows (:class:`~pbem.models.MailStatus`): ``queued``
(never tried), ``retrying`` (a mail server that is down or says "try later" (4xx) only delays mail:
the row keeps its attempt count, last error and the time of the next try, with exponential backoff),
``sending`` (claimed by one delivery process), ``sent``, and ``failed``: refused for good (5xx) or
still not accepted after :data:`MAX_ATTEMPTS` tries. Failed mail stays in the table for the mail
log and :func:`failed_mail` lists it for organisers.

Any number of delivery processes, on any hosts, share the outbox (``pbem deliver --loop``, the
scheduler): each first *claims* its rows in a short write transaction (``FOR UPDATE SKIP LOCKED``
on PostgreSQL; on SQLite the transaction's BEGIN IMMEDIATE and a conditional UPDATE). A claim
expires after the claim time (:data:`CLAIM_FOR`, ``PBEM_DELIVER_CLAIM_SECONDS``), so a process
that dies or is cut off mid-pass only delays its emails: another one takes them over. A process
sends an email only while its claim on it is its own with at least half the claim time left
(renewing it first otherwise, :func:`hold_claim`) and records the attempt only while the claim
is still its own, so a process that was too slow and lost its claim neither sends nor marks
those emails. A crash between the relay's
"250 OK" and the marking can still send an email twice, never zero times. The hosts' clocks
must agree (NTP) to well within the claim time.
"""

from __future__ import annotations

import logging
import os
import smtplib
import socket
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.utils import parseaddr
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import and_, exists, or_, true, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from pbem.db import Database
from pbem.logs import mask_secrets
from pbem.mail.boards import board_png
from pbem.mail.compose import UnsendableEmail, render_message
from pbem.mail.dkim import sign_message
from pbem.models import MailStatus, OutboxEmail, OutboxImage
from pbem.models.mail import WAITING, Queued
from pbem.reply_addresses import bounce_address, make_bounce_token

log = logging.getLogger(__name__)
FIRST_RETRY = timedelta(minutes=1)
LONGEST_WAIT = timedelta(hours=6)
MAX_ATTEMPTS = 12  # about a day of retries (1, 2, 4, ... minutes, then every 6 hours)
# A claim's length: half of it is longer than sending one email can take (the SMTP timeout),
# and a dead process's emails are not held up for long.
CLAIM_FOR = timedelta(minutes=10)


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
    # Play by reply: the envelope sender of each email names its row (bounce+TOKEN@), so a
    # bounce finds the email that bounced (VERP).
    return_path: Callable[[int], str] | None = field(default=None, compare=False)
    # DKIM: the message as signed.
    sign: Callable[[bytes], bytes] | None = field(default=None, compare=False)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> SmtpSettings:
        reply = str(config.get("REPLY_ADDRESS") or "")
        return cls(host=config["SMTP_HOST"], port=int(config["SMTP_PORT"]),
                   mail_from=config["MAIL_FROM"], user=config["SMTP_USER"],
                   password=config["SMTP_PASSWORD"], tls=config["SMTP_TLS"],
                   return_path=partial(verp_address, config["SECRET_KEY"], reply) if reply
                   else None, sign=dkim_signer(config))

    @property
    def relay(self) -> str:
        """Where mail goes, for logs and /healthz: ``host:port``, never the user or password."""
        return f"{self.host}:{self.port}"

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


def verp_address(secret: str, reply_address: str, email_id: int) -> str:
    """bounce+TOKEN@ the reply address's domain, the token naming outbox row ``email_id``."""
    return bounce_address(reply_address, make_bounce_token(secret, email_id))


def dkim_signer(config: Mapping[str, Any]) -> Callable[[bytes], bytes] | None:
    """Signing with the site's DKIM key when PBEM_DKIM_* are set (checked at start-up)."""
    selector, domain = config.get("DKIM_SELECTOR") or "", config.get("DKIM_DOMAIN") or ""
    key_file = config.get("DKIM_KEY_FILE") or ""
    if not (selector and domain and key_file):
        return None
    key = Path(key_file).read_bytes()
    return partial(sign_message, selector=selector, domain=domain, private_key=key)


@dataclass
class DeliveryReport:
    """How one pass went. ``relay_error`` is set when the relay itself could not be used (not
    reached, the connection lost, our sender refused): every email of the pass waits for it;
    ``errors`` has every error met, the relay's included."""

    sent: int = 0
    deferred: int = 0
    failed: int = 0
    errors: list[str] = field(default_factory=list)
    relay_error: str = ""

    @property
    def attempted(self) -> int:
        return self.sent + self.deferred + self.failed

    def count(self, status: str) -> None:
        """Count one attempt that left its message ``status`` (sent, failed or waiting)."""
        if status == MailStatus.SENT:
            self.sent += 1
        elif status == MailStatus.FAILED:
            self.failed += 1
        else:
            self.deferred += 1


def default_holder() -> str:
    """Who claims rows: this host and process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _due(table: Any, now: datetime) -> Any:
    waiting = and_(col(table.status).in_(WAITING), col(table.next_attempt_at) <= now)
    abandoned = and_(col(table.status) == MailStatus.SENDING, col(table.claimed_until) < now)
    return or_(waiting, abandoned)


def _in_turn(table: Any, now: datetime) -> Any:
    """An email is sent only once every earlier email to its address is sent, given up on, or
    due now (and so claimed before it, in id order): each recipient reads their emails in the
    order they were written (a game over before the pairing it led to), even when an earlier
    one waits for a retry or is being sent by another process. Other channels' messages go as
    they come."""
    if table is not OutboxEmail:
        return true()
    earlier = aliased(OutboxEmail)
    later = and_(col(earlier.status).in_(WAITING), col(earlier.next_attempt_at) > now)
    held = and_(col(earlier.status) == MailStatus.SENDING, col(earlier.claimed_until) >= now)
    return ~exists().where(col(earlier.to_address) == col(OutboxEmail.to_address),
                           col(earlier.id) < col(OutboxEmail.id), or_(later, held))


def claim_due(database: Database, now: datetime, limit: int, holder: str,
              table: type[Queued] = OutboxEmail, claim_for: timedelta = CLAIM_FOR) -> list[int]:
    """Claim up to ``limit`` due rows of ``table`` (the outbox's emails, or another channel's
    messages with the same delivery columns) for ``holder``; others skip them until the claim
    expires, ``claim_for`` from ``now``."""
    with database.write() as session:
        ids = [i for i in session.exec(
            select(table.id).where(_due(table, now), _in_turn(table, now))
            .order_by(col(table.id)).limit(limit)
            .with_for_update(skip_locked=True)  # PostgreSQL; SQLite holds its write lock already
        ) if i is not None]
        if not ids:
            return []
        session.execute(
            update(table).where(col(table.id).in_(ids), _due(table, now))
            .values(status=MailStatus.SENDING, claimed_by=holder, claimed_until=now + claim_for)
            .execution_options(synchronize_session=False)
        )
        claimed = session.exec(select(table.id).where(
            col(table.id).in_(ids), table.claimed_by == holder,
            table.status == MailStatus.SENDING))
        return sorted(i for i in claimed if i is not None)


def hold_claim(database: Database, row_id: int, holder: str, now: datetime,
               claim_for: timedelta = CLAIM_FOR, table: type[Queued] = OutboxEmail) -> bool:
    """Whether ``holder`` still holds its claim on row ``row_id`` at ``now``, renewed then for
    ``claim_for``: asked right before sending, so that what is sent is held for a whole claim
    time. False when the claim ran out (another process may have taken it over) or the row
    was released or marked meanwhile: then the row is not to be sent by ``holder``."""
    with database.write() as session:
        result = session.execute(
            update(table).where(col(table.id) == row_id, col(table.status) == MailStatus.SENDING,
                                col(table.claimed_by) == holder, col(table.claimed_until) > now)
            .values(claimed_until=now + claim_for)
            .execution_options(synchronize_session=False))
        return bool(getattr(result, "rowcount", 0))


def holds(row: Queued, holder: str) -> bool:
    """Whether ``row`` (read in the transaction that is to record an attempt) is still claimed
    by ``holder``: one whose claim was taken over records nothing."""
    return row.status == MailStatus.SENDING and row.claimed_by == holder


def release_claims(session: Session, holder: str, now: datetime) -> int:
    """Make the rows ``holder`` claimed due again at once: for a process known to be dead (the
    scheduler whose lease ran out), so its mail waits for the lease, not for :data:`CLAIM_FOR`.
    Returns how many rows were released."""
    result = session.execute(
        update(OutboxEmail).where(col(OutboxEmail.status) == MailStatus.SENDING,
                                  col(OutboxEmail.claimed_by) == holder)
        .values(claimed_until=now - timedelta(microseconds=1))
        .execution_options(synchronize_session=False))
    return int(getattr(result, "rowcount", 0) or 0)


def failed_mail(session: Session, game_id: int | None = None) -> list[OutboxEmail]:
    """Emails given up on, newest first, for the organisers (of one game, or all)."""
    query = select(OutboxEmail).where(OutboxEmail.status == MailStatus.FAILED)
    if game_id is not None:
        query = query.where(OutboxEmail.game_id == game_id)
    return list(session.exec(query.order_by(col(OutboxEmail.id).desc())))


def record_attempt(row: Queued, now: datetime, *, sent: bool = False, error: str = "",
                   permanent: bool = False, max_attempts: int = MAX_ATTEMPTS) -> str:
    """One attempt at ``row``, by the one retry policy of everything pbem delivers: sent, or
    failed for good (``permanent``, or out of attempts), or retried after :func:`backoff`.
    Returns the new status."""
    row.attempts += 1
    row.claimed_by, row.claimed_until = "", None
    if sent:
        row.status, row.sent_at, row.last_error = MailStatus.SENT, now, ""
    else:
        # Shown on the dashboard: the relay's answer may quote our bounce+TOKEN@ sender.
        row.last_error = mask_secrets(error)[:500]
        if permanent or row.attempts >= max_attempts:
            row.status = MailStatus.FAILED
        else:
            row.status = MailStatus.RETRYING
            row.next_attempt_at = now + backoff(row.attempts)
    return row.status


def _mark(database: Database, email_id: int, now: datetime, holder: str, *, sent: bool = False,
          error: str = "", permanent: bool = False, max_attempts: int = MAX_ATTEMPTS) -> str:
    """Record one attempt while ``holder`` still holds the claim; returns the new status, ""
    when the claim was lost (the row is another process's now)."""
    with database.write() as session:
        email = session.get(OutboxEmail, email_id, with_for_update=True)
        if email is None or not holds(email, holder):
            return ""
        status = record_attempt(email, now, sent=sent, error=error, permanent=permanent,
                                max_attempts=max_attempts)
        session.add(email)
        return status


def deliver_pending(
    database: Database, smtp: SmtpSettings, now: datetime, *, limit: int = 500,
    holder: str | None = None, max_attempts: int = MAX_ATTEMPTS,
    claim_for: timedelta = CLAIM_FOR, clock: Callable[[], datetime] | None = None,
) -> DeliveryReport:
    """Send what is due at ``now`` over one SMTP connection; see the module docstring for
    failures. ``clock`` tells the time as the pass goes on, for claims and the attempts'
    times (a long pass outlives ``now``); by default it stays ``now``."""
    report = DeliveryReport()
    holder = holder or default_holder()
    ids = claim_due(database, now, limit, holder, claim_for=claim_for)
    if not ids:
        return report
    moment = clock or (lambda: now)

    def mark(email_id: int, **outcome: Any) -> None:
        status = _mark(database, email_id, moment(), holder, max_attempts=max_attempts,
                       **outcome)
        if status:
            report.count(status)
        else:
            log.warning("outbox: email %s was taken over by another process", email_id)

    try:
        server = smtp.connect()
    except (OSError, smtplib.SMTPException) as error:
        reason = f"cannot reach the mail server: {_reason(error)}"
        for email_id in ids:
            mark(email_id, error=reason)
        report.errors.append(reason)
        report.relay_error = reason
        return report
    envelope_from = parseaddr(smtp.mail_from)[1]
    pngs: dict[tuple[int, int, int, str], bytes] = {}  # one read per board, however many recipients
    # Addresses whose earlier email in this pass was not sent: their later ones wait for it.
    behind: set[str] = set()
    try:
        for position, email_id in enumerate(ids):
            prepared = _prepare(database, email_id, smtp, now, pngs, mark, report, holder)
            if prepared is None:
                continue
            recipient, raw, held_until = prepared
            if recipient.lower() in behind:
                _release(database, email_id, moment(), holder)
                continue
            # Sent while at least half the claim time is left (far more than one email takes),
            # renewed first otherwise: no write per email where claims are long.
            if held_until - moment() < claim_for / 2 and not hold_claim(
                    database, email_id, holder, moment(), claim_for):
                # Too slow: the claim ran out and the email may be another process's now.
                log.warning("outbox: the claim on email %s ran out before it was sent", email_id)
                behind.add(recipient.lower())  # its later emails must not overtake it
                continue
            behind.add(recipient.lower())  # until it is sent, below
            sender = smtp.return_path(email_id) if smtp.return_path else envelope_from
            try:
                server.sendmail(sender, [recipient], raw)
            except smtplib.SMTPRecipientsRefused as error:
                code = min(c for c, _ in error.recipients.values())
                mark(email_id, error=str(error.recipients), permanent=code >= 500)
            except smtplib.SMTPServerDisconnected as error:
                _connection_lost(ids[position:], mark, report, error)
                return report
            except smtplib.SMTPSenderRefused as error:
                # Our own address refused: a setting to fix, not a reason to drop players' mail.
                reason = f"the relay refused the sender: {error.smtp_code} {error.smtp_error!r}"
                mark(email_id, error=reason)
                report.errors.append(reason)
                report.relay_error = reason
                server.rset()
            except smtplib.SMTPResponseException as error:
                # 5xx is a refusal for good (RFC 5321): retrying would only annoy the relay.
                mark(email_id, error=f"{error.smtp_code} {error.smtp_error!r}",
                     permanent=error.smtp_code >= 500)
                report.errors.append(str(error))
                server.rset()
            except smtplib.SMTPException as error:
                # Anything else smtplib refuses (SMTPUTF8 not offered, say) is about this row.
                mark(email_id, error=f"cannot be sent: {error}", permanent=True)
                report.errors.append(str(error))
                server.rset()
            except OSError as error:
                _connection_lost(ids[position:], mark, report, error)
                return report
            else:
                mark(email_id, sent=True)
                behind.discard(recipient.lower())
    finally:
        try:
            server.quit()
        except (OSError, smtplib.SMTPException):
            server.close()
    return report


def _release(database: Database, email_id: int, now: datetime, holder: str) -> None:
    """Give back a claimed email unsent and untried, due again at once: an earlier email to
    its address could not be sent in this pass, and it must not overtake that one."""
    with database.write() as session:
        session.execute(update(OutboxEmail).where(col(OutboxEmail.id) == email_id,
                                                  col(OutboxEmail.status) == MailStatus.SENDING,
                                                  col(OutboxEmail.claimed_by) == holder)
                        .values(claimed_until=now - timedelta(microseconds=1))
                        .execution_options(synchronize_session=False))


def _prepare(
    database: Database, email_id: int, smtp: SmtpSettings, now: datetime,
    pngs: dict[tuple[int, int, int, str], bytes], mark: Any, report: DeliveryReport,
    holder: str,
) -> tuple[str, bytes, datetime] | None:
    """(recipient, message bytes, until when ``holder``'s claim lasts) for a claimed row, or
    None when it is not to be sent now (nor by ``holder``, whose claim was taken over).

    A row that can never be sent (a bad address or header that slipped in) is marked failed with
    its reason; any other failure (the board picture, the database) only defers it. Either way
    the rest of the pass goes on: one row must never stop everybody's mail.
    """
    try:
        with database.session() as session:
            email = session.get(OutboxEmail, email_id)
            more = list(session.exec(select(OutboxImage).where(OutboxImage.email_id == email_id)
                                     .order_by(col(OutboxImage.id))))
        if email is None or not holds(email, holder) or email.claimed_until is None:
            return None

        def picture(key: tuple[int, int, int, str]) -> bytes:
            if key not in pngs:
                pngs[key] = board_png(database, *key)
            return pngs[key]

        png = None
        if email.image_ply is not None and email.game_id is not None:
            png = picture((email.game_id, email.image_ply,
                           -1 if email.image_viewer is None else email.image_viewer,
                           email.image_language or "en"))
        images = [(image.name, picture((image.game_id, image.ply, image.viewer, image.language)))
                  for image in more]
        recipient, raw = render_message(email, mail_from=smtp.mail_from, now=now, png=png,
                                        images=images)
        return recipient, smtp.sign(raw) if smtp.sign else raw, email.claimed_until
    except UnsendableEmail as error:
        mark(email_id, error=f"cannot be sent: {error}", permanent=True)
        report.errors.append(f"email {email_id}: {error}")
    except Exception as error:  # a broken board or a database hiccup: try again later
        log.exception("outbox: email %s could not be prepared", email_id)
        mark(email_id, error=f"could not be prepared: {type(error).__name__}: {error}")
        report.errors.append(f"email {email_id}: {error}")
    return None


def _connection_lost(rest: list[int], mark: Any, report: DeliveryReport, error: Exception) -> None:
    """The connection is gone: this email and the rest wait for the next pass."""
    reason = f"connection lost: {_reason(error)}"
    for email_id in rest:
        mark(email_id, error=reason)
    report.errors.append(reason)
    report.relay_error = reason


def _reason(error: Exception) -> str:
    """What went wrong, never empty: ``TimeoutError()`` says nothing by its ``str``."""
    return str(error) or type(error).__name__
