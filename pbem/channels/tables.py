"""The channels' tables: each player's channels, and the messages queued for them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from pbem.models import MailStatus
from pbem.models.columns import time_column


class PlayerChannel(SQLModel, table=True):
    """A place a player is told of their games besides email: an Apprise address, sealed
    (pbem.channels.urls) because it carries the service's tokens, and which news goes there."""

    __tablename__ = "player_channels"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    sealed_url: str = Field(sa_column=Column(Text, nullable=False))  # Fernet, never shown
    service: str  # Apprise's name of the service: "Telegram", "ntfy"
    shown: str  # scheme and host at most: "ntfys://ntfy.example.org/…", "tgram://…"
    on_turn: bool = True  # "Your turn" (email kind "turn")
    on_reminder: bool = True  # a turn's reminders ("reminder")
    on_game_over: bool = True  # a game's end ("game_over")
    created_at: datetime = time_column()


class ChannelMessage(SQLModel, table=True):
    """One message to send to a channel: written with the email it repeats, delivered by the
    outbox's rules (pbem.mail.outbox: claims, attempts, backoff, given up after the last)."""

    __tablename__ = "channel_messages"
    __table_args__ = (Index("ix_channel_messages_due", "status", "next_attempt_at"),)

    id: int | None = Field(default=None, primary_key=True)
    channel_id: int = Field(foreign_key="player_channels.id", index=True)
    kind: str  # turn, reminder, game_over (as the email's kind)
    title: str  # the email's subject, in the player's language
    game_id: int | None = Field(default=None, foreign_key="games.id")
    # The turn a "turn" or "reminder" message is about: its link is that turn's move link.
    seat: int | None = None
    ply: int | None = None
    status: str = MailStatus.QUEUED
    attempts: int = 0
    next_attempt_at: datetime = time_column()
    last_error: str = ""
    claimed_by: str = ""
    claimed_until: datetime | None = time_column(nullable=True)
    created_at: datetime = time_column()
    sent_at: datetime | None = time_column(nullable=True)
