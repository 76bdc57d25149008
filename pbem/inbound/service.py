"""Receiving one email: a move, a command, a bounce, or mail that must not be answered.

:func:`receive` is the one entry point for both ways mail arrives (``pbem inbound`` over SMTP or
LMTP, ``pbem fetch-mail`` over IMAP). Each message is stored in ``inbound_mail`` under its
Message-ID, sender and body digest in the same transaction as its effects, so a redelivered
message, an IMAP pass repeated after a crash or two fetchers at once play nothing twice: the
second finds the row (SQLite's ``BEGIN IMMEDIATE`` serialises them; on PostgreSQL the unique index
makes it wait, then fail). A look-alike that only borrows a Message-ID is a message of its own:
sending a reply's Message-ID first cannot have the real reply dropped.

The signed reply address is the credential, as the links are: it names the game, seat, ply and
the seat's holder. A reply from another address is still played, and the holder is told.

A delivery report changes something (the email marked bounced, the player flagged, the game held)
only when it proves which email of ours bounced: it came back to that email's VERP return path
(``bounce+TOKEN@``), or it quotes a Message-ID we sent to the address it reports as failed, with
our signed token in it. Anything else looking like a bounce is kept as "advisory" and changes
nothing, so nobody can stop another player's game with a forged report.

From is easily forged, so mail we cannot tie to a seat is answered only to players of ours whom
we have mailed before, and never with the sender's subject: our domain carries nobody's text to
strangers. Answers about a seat go to its holder, in the holder's language.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from datetime import datetime
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr

from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session, col, or_, select

from engine.text import Text
from pbem.db import Database
from pbem.inbound import bounces, commands, robots
from pbem.inbound.answers import Thread, answer, reader_for, refusals_left
from pbem.inbound.bouncing import bounced_emails, record_bounce
from pbem.inbound.commands import Handled
from pbem.inbound.reading import read_reply, reply_text
from pbem.models import GameRecord, InboundMail, MailStatus, OutboxEmail, Player, ReplyOutcome, Seat
from pbem.reply_addresses import (
    BadReplyToken,
    bounce_token_in_address,
    read_bounce_token,
    read_reply_token,
    token_in_address,
    token_in_message_ids,
)
from pbem.services.common import Site


def parse(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)


# Longer values are no Message-ID or address anyone sends, and too long to index (PostgreSQL
# keeps index entries under about 2.7 kB): they are stored as a digest, or as no sender.
MAX_MESSAGE_ID = 500
MAX_ADDRESS = 254  # RFC 5321's 256-octet path, without its angle brackets
_BODY_START = re.compile(rb"\r?\n\r?\n")


def message_id_of(message: EmailMessage, raw: bytes) -> str:
    """The Message-ID, or a digest of the bytes when a sender left it out (or wrote one longer
    than any mail client does)."""
    found = " ".join(str(message.get("Message-ID", "")).split())
    if len(found) > MAX_MESSAGE_ID:
        return f"<sha256.{hashlib.sha256(found.encode()).hexdigest()}@pbem.invalid>"
    return found or f"<sha256.{hashlib.sha256(raw).hexdigest()}@pbem.invalid>"


def sender_of(message: EmailMessage) -> str:
    """The address in From, lower-cased ("" when there is none, or none that could be real)."""
    sender = parseaddr(str(message.get("From", "")))[1].lower()
    return sender if len(sender) <= MAX_ADDRESS else ""


def body_digest(raw: bytes) -> str:
    """A digest of the body of ``raw`` (all after the headers), the same whether the message came
    with CRLF (SMTP) or LF (some IMAP servers) line ends and whatever a relay added on top.

    >>> body_digest(b"A: b\\r\\n\\r\\nd4\\r\\n") == body_digest(b"Received: x\\nA: b\\n\\nd4\\n")
    True
    """
    start = _BODY_START.search(raw)
    body = raw[start.end():] if start else b""
    return hashlib.sha256(body.replace(b"\r\n", b"\n").rstrip(b"\n")).hexdigest()


def receive(database: Database, now: datetime, site: Site, raw: bytes, *,
            recipients: list[str] | None = None) -> Handled:
    """Handle ``raw`` (a whole message) once, whatever it is; ``recipients`` are the envelope's
    (SMTP's RCPT TO); without them the headers say whom it was for."""
    message = parse(raw)
    message_id = message_id_of(message, raw)
    sender = sender_of(message)
    digest = body_digest(raw)
    try:
        with database.write() as session:
            if session.exec(select(InboundMail.id).where(
                    InboundMail.message_id == message_id, InboundMail.sender == sender,
                    or_(col(InboundMail.body_digest) == digest,
                        col(InboundMail.body_digest) == ""))  # stored before digests
                    ).first() is not None:
                return Handled(ReplyOutcome.DUPLICATE, "this message was handled before")
            record = InboundMail(message_id=message_id, sender=sender, body_digest=digest,
                                 received_at=now, recipient=", ".join(recipients or []))
            session.add(record)
            session.flush()  # a twin being handled at this moment fails here (unique index)
            try:
                with session.begin_nested():  # a message that breaks us changes nothing...
                    outcome = dispatch(session, now, site, message, message_id,
                                       recipients or [], sender)
            except SQLAlchemyError:
                raise  # ...but a database that is down is worth retrying: the mail comes back
            except Exception as error:  # ...and is recorded, so it is not retried for ever
                outcome = Handled(ReplyOutcome.IGNORED, f"could not be handled: {error!r}")
            record.outcome, record.detail = outcome.kind, outcome.detail[:500]
            record.game_id, record.seat = outcome.game_id, outcome.seat
            record.answered = outcome.answered
            session.add(record)
            return outcome
    except IntegrityError:
        return Handled(ReplyOutcome.DUPLICATE, "this message is being handled by another process")


def accepts_recipient(site: Site, address: str) -> bool:
    """Whether mail for ``address`` is ours to read: the reply address itself (clients that drop
    the plus part), a tagged reply address, or a bounce address of the same domain."""
    base = site.reply_address
    if not base:
        return False
    plain = address.strip().strip("<>").lower()
    return plain == base.lower() or token_in_address(plain, base) is not None or \
        bounce_token_in_address(plain, base) is not None


def addressed_to(message: EmailMessage, recipients: list[str]) -> list[str]:
    headers = [str(v) for key in ("To", "Cc", "Delivered-To", "X-Original-To")
               for v in message.get_all(key, [])]
    return [*recipients, *(address for _, address in getaddresses(headers))]


def dispatch(session: Session, now: datetime, site: Site, message: EmailMessage,
             message_id: str, recipients: list[str], sender: str) -> Handled:
    to = addressed_to(message, recipients)
    base = site.reply_address
    bounce_tokens = [t for a in to if (t := bounce_token_in_address(a, base))]
    if bounce_tokens or robots.is_mailer_daemon(message):
        return bounce(session, now, site, message, bounce_tokens)
    own = [parseaddr(site.mail_from)[1], base]
    why = robots.why_not_answer(message, own_addresses=own)
    if why is not None:
        return Handled(ReplyOutcome.IGNORED, why)
    thread = Thread(sender, message_id, "")  # a refusal repeats nobody's subject
    tokens = [t for a in to if (t := token_in_address(a, base))]
    tokens += token_in_message_ids([str(v) for key in ("In-Reply-To", "References")
                                    for v in message.get_all(key, [])])
    if not tokens:
        return refuse(session, now, site, thread, "no-game",
                      Text("this message does not answer one of our emails"))
    try:
        fields = read_reply_token(site.links.secret_key, tokens[0])
    except BadReplyToken:
        return refuse(session, now, site, thread, "damaged",
                      Text("the address you wrote to is damaged or not one of ours"))
    row = session.get(GameRecord, fields.game)
    seat = session.exec(select(Seat).where(Seat.game_id == fields.game,
                                           Seat.seat == fields.seat)).first()
    if row is None or seat is None:
        return refuse(session, now, site, thread, "damaged", Text("there is no such game"))
    if seat.player_id != fields.holder:
        return refuse(session, now, site, thread, "replaced",
                      Text("the organiser has given this seat to another player"), row=row)
    holder = session.get(Player, seat.player_id)
    assert holder is not None
    reply = read_reply(reply_text(message))
    stranger = sender != holder.email.lower()
    if not stranger:  # the holder's own thread; another address's subject is not repeated
        thread = Thread(sender, message_id, str(message.get("Subject", "")))
    context = commands.Context(session, now, site, thread, row, seat, holder, fields, stranger)
    return commands.run(context, reply)


def refuse(session: Session, now: datetime, site: Site, thread: Thread, reason: str,
           text: Text, *, row: GameRecord | None = None) -> Handled:
    """Answer with ``text`` (a :class:`Text`, in the sender's language) when the sender is a
    player of ours whom we have mailed before and has had no more than
    :data:`~pbem.inbound.answers.REFUSALS_PER_HOUR` refusals this hour. Anybody can write any
    From, so nobody else gets one: pbem must not mail strangers at a forger's bidding."""
    game_id = row.id if row else None
    player = sender_player(session, thread.sender) if thread.sender else None
    why = None
    if player is None:
        why = "not a player of ours"
    elif not mailed_before(session, thread.sender):
        why = "never mailed before"
    elif not refusals_left(session, now, thread.sender):
        why = "too many refusals this hour"
    if player is None or why is not None:
        return Handled(ReplyOutcome.REFUSED, f"{reason}: {text} (not answered: {why})", game_id)
    reader = reader_for(site, player)
    answer(session, now, site, thread, kind="reply_refused", row=row, reader=reader,
           player=player, reason=reader.text(text))
    return Handled(ReplyOutcome.REFUSED, f"{reason}: {text}", game_id, answered=True)


def sender_player(session: Session, sender: str) -> Player | None:
    """The player who has the address ``sender``, if any."""
    return session.exec(select(Player).where(Player.email == sender.lower())).first()


def mailed_before(session: Session, address: str) -> bool:
    """Whether an email of ours was delivered to ``address`` (and has not bounced)."""
    return session.exec(select(OutboxEmail.id).where(
        OutboxEmail.to_address == address, OutboxEmail.status == MailStatus.SENT)
        .limit(1)).first() is not None


def bounce(session: Session, now: datetime, site: Site, message: EmailMessage,
           tokens: list[str]) -> Handled:
    """Mark the bounced email, flag its player, alert the organiser and hold the game: when the
    report proves which email of ours bounced (see :func:`bounced_emails`). Anything else is
    advisory: kept with its outcome, changing nothing."""
    outbox_ids = []
    for token in tokens:
        try:
            outbox_ids.append(read_bounce_token(site.links.secret_key, token))
        except BadReplyToken:
            continue
    failed = bounces.bounced_recipients(message)
    reported = ", ".join(sorted(failed)) or "no address"
    if outbox_ids and not reports_failure(message, failed):
        return Handled(ReplyOutcome.ADVISORY, "a message to a return path that reports no "
                       f"failure (a delay or an auto-reply); failed: {reported}")
    original = bounces.original_headers(message)
    original_id = " ".join(str(original.get("Message-ID", "")).split()) \
        if original is not None else ""
    emails = bounced_emails(session, site, outbox_ids=outbox_ids, addresses=failed,
                            message_id=original_id)
    if not emails:
        return Handled(ReplyOutcome.ADVISORY, "a delivery report that names no email of ours "
                       "(no valid return path, no Message-ID we sent there); "
                       f"failed: {reported}")
    found = record_bounce(session, now, site, emails)
    return Handled(ReplyOutcome.BOUNCE, f"bounced: {', '.join(sorted(found))}")


def reports_failure(message: EmailMessage, failed: set[str]) -> bool:
    """Whether a message that came back to a VERP return path says the email failed: a report
    naming failed addresses, or one from a mail system that we cannot read (the return path
    names the email anyway); not a delay, nor an auto-reply sent to the return path."""
    if failed:
        return True
    return robots.is_mailer_daemon(message) and not bounces.delayed_recipients(message)

