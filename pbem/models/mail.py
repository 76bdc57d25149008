"""Tables of the mail pbem sends and receives: the outbox, the board images attached to it,
what reaches the reply address (pbem.inbound) and what the development mail catcher caught.

Imported back into :mod:`pbem.models`, so ``from pbem.models import OutboxEmail`` works as before.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Protocol

from sqlalchemy import Column, Index, LargeBinary, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from pbem.models.columns import time_column

__all__ = ["BoardImage", "CaughtMail", "InboundMail", "MailStatus", "OutboxEmail", "OutboxImage",
           "Queued"]


class MailStatus(StrEnum):
    QUEUED = "queued"  # never tried
    RETRYING = "retrying"  # tried, deferred (4xx, server down); next_attempt_at says when
    SENDING = "sending"  # claimed by a delivery process until claimed_until
    SENT = "sent"
    BOUNCED = "bounced"  # sent, then a delivery report said it never arrived
    FAILED = "failed"  # refused for good (5xx) or out of attempts: organisers are shown it
    # Never sent: the recipient's notification settings keep it back (pbem.notifications), and
    # their daily digest, if they chose one, lists it.
    WITHHELD = "withheld"


WAITING = (MailStatus.QUEUED, MailStatus.RETRYING)
"""The statuses of mail still to be tried."""


class Queued(Protocol):
    """A row that the delivery job sends with retries (pbem.mail.outbox): an email of the
    outbox, or a message to a player's other channels (pbem.channels), by the same columns."""

    id: int | None
    status: str  # a MailStatus
    attempts: int
    next_attempt_at: datetime
    last_error: str
    claimed_by: str
    claimed_until: datetime | None
    sent_at: datetime | None


class ReplyOutcome(StrEnum):
    """What became of an incoming message (InboundMail.outcome)."""

    PLAYED = "played"  # a move or a turn was played
    COMMAND = "command"  # a command was carried out (resign, board, vacation, ...)
    REFUSED = "refused"  # not carried out; the sender is told why unless answers are limited
    IGNORED = "ignored"  # nothing to act on: no token, autoresponder, could not be read
    BOUNCE = "bounce"  # a delivery report proving one of our emails did not arrive
    ADVISORY = "advisory"  # a delivery report that proves nothing: kept, changes nothing
    DUPLICATE = "duplicate"  # handled before (or being handled by another process)

class OutboxEmail(SQLModel, table=True):
    """One email to send. Written in the same transaction as what caused it; sent later."""

    __tablename__ = "outbox_emails"
    # ix_outbox_recipient: each recipient's emails are delivered in order (pbem.mail.outbox).
    __table_args__ = (Index("ix_outbox_due", "status", "next_attempt_at"),
                      Index("ix_outbox_recipient", "to_address", "status"))

    id: int | None = Field(default=None, primary_key=True)
    game_id: int | None = Field(default=None, foreign_key="games.id", index=True)
    player_id: int | None = Field(default=None, foreign_key="players.id")
    kind: str  # invitation, turn, update, game-over, ...
    to_address: str
    to_name: str = ""
    subject: str
    text_body: str = Field(sa_column=Column(Text, nullable=False))
    html_body: str = Field(sa_column=Column(Text, nullable=False))
    # The board to attach: a position (game, ply) as a viewer (-1: the public) sees it.
    image_ply: int | None = None
    image_viewer: int | None = None
    image_language: str = Field(default="en", sa_column_kwargs={"server_default": "en"})
    message_id: str
    in_reply_to: str = ""
    reply_to: str = ""  # the signed reply address (play+TOKEN@...), when play by reply is on
    unsubscribe_url: str = ""
    essential: bool = True
    status: str = MailStatus.QUEUED  # see MailStatus
    attempts: int = 0
    next_attempt_at: datetime = time_column()
    last_error: str = ""
    claimed_by: str = ""  # the delivery process sending it now (status "sending")
    claimed_until: datetime | None = time_column(nullable=True)  # after this, others may take it
    created_at: datetime = time_column()
    sent_at: datetime | None = time_column(nullable=True)


class OutboxImage(SQLModel, table=True):
    """One more board picture an email shows, beside the one its own ``image_*`` columns name
    (a daily digest shows one per game): its HTML refers to it as ``cid:<name>``, and delivery
    attaches the PNG of that position (:mod:`pbem.mail.boards`)."""

    __tablename__ = "outbox_images"

    id: int | None = Field(default=None, primary_key=True)
    email_id: int = Field(foreign_key="outbox_emails.id", index=True)
    name: str  # what the HTML's src="cid:..." says, unique within the email
    game_id: int = Field(foreign_key="games.id")
    ply: int
    viewer: int  # -1 for the public view
    language: str = "en"


class BoardImage(SQLModel, table=True):
    """A board picture, drawn once per position, viewer and language however many people get
    it: drawn (``svg``, its size on screen in ``width`` and ``height``) when the first email
    that shows it is written, rasterised (``png``, the SVG then let go) when one is delivered
    (:mod:`pbem.mail.boards`)."""

    __tablename__ = "board_images"
    __table_args__ = (UniqueConstraint("game_id", "ply", "viewer", "language", "over"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    ply: int
    viewer: int  # -1 for the public view
    language: str = "en"  # boards carry words (headers, scores): one picture per language
    # Drawn as over (pbem.mail.boards): the game ended off the board at this ply, which the
    # picture drawn before it ended (someone "to move") does not say.
    over: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    # None only for a picture kept from before sizes were stored (the next email measures it).
    width: int | None = None
    height: int | None = None
    svg: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    png: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))


class CaughtMail(SQLModel, table=True):
    """A message the development mail catcher received (``pbem dev`` only)."""

    __tablename__ = "caught_mail"

    id: int | None = Field(default=None, primary_key=True)
    received_at: datetime = time_column()
    mail_from: str
    recipients: str
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class InboundMail(SQLModel, table=True):
    """A message that reached the reply address, once: what it was and what became of it.

    A message is the same message when its Message-ID, its sender and the digest of its body
    are: a look-alike that only borrows the Message-ID is another message, so nobody can have a
    real reply dropped as a "duplicate" by sending its Message-ID first. (Rows from before the
    digest have ``body_digest`` "".)
    """

    __tablename__ = "inbound_mail"
    __table_args__ = (UniqueConstraint("message_id", "sender", "body_digest",
                                       name="uq_inbound_mail_copy"),)  # handled exactly once

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(index=True)
    sender: str = Field(default="", index=True)
    body_digest: str = Field(default="", sa_column_kwargs={"server_default": ""})
    recipient: str = ""
    received_at: datetime = time_column()
    game_id: int | None = Field(default=None, foreign_key="games.id", index=True)
    seat: int | None = None  # the seat its reply address named, once that was read
    outcome: str = ""  # a ReplyOutcome
    detail: str = ""
    answered: bool = False  # an email went back (to the sender, or to the seat's holder)
