"""Receiving one email: a move, a command, a bounce, or mail that must not be answered.

:func:`receive` is the one entry point for both ways mail arrives (``pbem inbound`` over SMTP or
LMTP, ``pbem fetch-mail`` over IMAP). Each message is stored in ``inbound_mail`` under its
Message-ID in the same transaction as its effects, so a redelivered message, an IMAP pass repeated
after a crash or two fetchers at once play nothing twice: the second finds the row (SQLite's
``BEGIN IMMEDIATE`` serialises them; on PostgreSQL the unique index makes it wait, then fail).

The signed reply address is the credential, as the links are: it names the game, seat, ply and
the seat's holder. A reply from another address is still played, and the holder is told.

Answers are in the seat holder's language; a refusal before the seat is known goes out in the
language of the player who sent it, if pbem knows the address, else the site's default language.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
from datetime import datetime
from email.message import EmailMessage
from email.utils import getaddresses, parseaddr
from typing import cast

from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session, select

from engine.text import Text
from pbem.db import Database
from pbem.inbound import bounces, commands, robots
from pbem.inbound.answers import Thread, answer, reader_for, refusals_left
from pbem.inbound.bouncing import record_bounce
from pbem.inbound.commands import Outcome
from pbem.inbound.reading import read_reply, reply_text
from pbem.models import Game, InboundMail, Player, Seat
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
    return cast(EmailMessage, email.message_from_bytes(raw, policy=email.policy.default))


def message_id_of(message: EmailMessage, raw: bytes) -> str:
    """The Message-ID, or a digest of the bytes when a sender left it out."""
    found = " ".join(str(message.get("Message-ID", "")).split())
    return found or f"<sha256.{hashlib.sha256(raw).hexdigest()}@pbem.invalid>"


def receive(database: Database, now: datetime, site: Site, raw: bytes, *,
            recipients: list[str] | None = None) -> Outcome:
    """Handle ``raw`` (a whole message) once, whatever it is; ``recipients`` are the envelope's
    (SMTP's RCPT TO); without them the headers say whom it was for."""
    message = parse(raw)
    message_id = message_id_of(message, raw)
    sender = parseaddr(str(message.get("From", "")))[1].lower()
    try:
        with database.write() as session:
            if session.exec(select(InboundMail.id).where(
                    InboundMail.message_id == message_id)).first() is not None:
                return Outcome("duplicate", "this message was handled before")
            record = InboundMail(message_id=message_id, sender=sender, received_at=now,
                                 recipient=", ".join(recipients or []))
            session.add(record)
            session.flush()  # a twin being handled at this moment fails here (unique index)
            try:
                with session.begin_nested():  # a message that breaks us changes nothing...
                    outcome = dispatch(session, now, site, message, message_id,
                                       recipients or [], sender)
            except SQLAlchemyError:
                raise  # ...but a database that is down is worth retrying: the mail comes back
            except Exception as error:  # ...and is recorded, so it is not retried for ever
                outcome = Outcome("ignored", f"could not be handled: {error!r}")
            record.outcome, record.detail = outcome.kind, outcome.detail[:500]
            record.game_id, record.answered = outcome.game_id, outcome.answered
            session.add(record)
            return outcome
    except IntegrityError:
        return Outcome("duplicate", "this message is being handled by another process")


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
             message_id: str, recipients: list[str], sender: str) -> Outcome:
    to = addressed_to(message, recipients)
    base = site.reply_address
    bounce_tokens = [t for a in to if (t := bounce_token_in_address(a, base))]
    if bounce_tokens or robots.is_mailer_daemon(message):
        return bounce(session, now, site, message, bounce_tokens)
    own = [parseaddr(site.mail_from)[1], base]
    why = robots.why_not_answer(message, own_addresses=own)
    if why is not None:
        return Outcome("ignored", why)
    thread = Thread(sender, message_id, str(message.get("Subject", "")))
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
    row = session.get(Game, fields.game)
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
    context = commands.Context(session, now, site, thread, row, seat, holder, fields, stranger)
    return commands.run(context, reply)


def refuse(session: Session, now: datetime, site: Site, thread: Thread, reason: str,
           text: str, *, row: Game | None = None) -> Outcome:
    """Answer with ``text`` (a :class:`Text`, in the sender's language) unless the sender had
    too many refusals this hour."""
    game_id = row.id if row else None
    if not thread.sender or not refusals_left(session, now, thread.sender):
        return Outcome("refused", f"{reason}: {text}", game_id)
    reader = reader_for(site, sender_player(session, thread.sender))
    answer(session, now, site, thread, kind="reply_refused", row=row, reader=reader,
           reason=reader.text(text))
    return Outcome("refused", f"{reason}: {text}", game_id, answered=True)


def sender_player(session: Session, sender: str) -> Player | None:
    """The player who has the address ``sender`` (for the language of a refusal), if any."""
    return session.exec(select(Player).where(Player.email == sender.lower())).first()


def bounce(session: Session, now: datetime, site: Site, message: EmailMessage,
           tokens: list[str]) -> Outcome:
    """Mark the bounced email, flag its player, alert the organiser and hold the game."""
    outbox_ids = []
    for token in tokens:
        try:
            outbox_ids.append(read_bounce_token(site.links.secret_key, token))
        except BadReplyToken:
            continue
    failed = bounces.bounced_recipients(message)
    original = bounces.original_headers(message)
    original_id = str(original.get("Message-ID", "")).strip() if original is not None else ""
    found = record_bounce(session, now, site, outbox_ids=outbox_ids, addresses=failed,
                          message_id=original_id)
    if not found:
        return Outcome("ignored", "a delivery report about no email of ours")
    return Outcome("bounce", f"bounced: {', '.join(sorted(found))}")

