"""The notifications' tables: each player's setting, and the games they muted."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import Column, Date, UniqueConstraint
from sqlmodel import Field, SQLModel

from pbem.models.columns import time_column


class Mode(StrEnum):
    """How much pbem mails a player (a player without a row gets :attr:`ALL`)."""

    ALL = "all"  # every event
    TURNS = "turns"  # only their turns, and game ends
    DIGEST = "digest"  # one email a day listing what waits for them
    OFF = "off"  # nothing but what must always go: they follow their games on the web


DEFAULT_DIGEST_HOUR = 8


class NotificationSetting(SQLModel, table=True):
    """A player's choice; ``digest_hour`` (0-23, in their time zone) matters for the digest."""

    __tablename__ = "notification_settings"

    player_id: int = Field(foreign_key="players.id", primary_key=True)
    mode: str = Mode.ALL
    digest_hour: int = DEFAULT_DIGEST_HOUR
    # The day (in the player's time zone) of the last digest: one a local day, whatever DST does.
    digest_day: date | None = Field(default=None, sa_column=Column(Date, nullable=True))
    # When the last digest was written: the next one tells what happened after it.
    digest_at: datetime | None = time_column(nullable=True)


class GameMute(SQLModel, table=True):
    """A game a player muted: no email about it but reminders and what must always go."""

    __tablename__ = "game_mutes"
    __table_args__ = (UniqueConstraint("player_id", "game_id"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    game_id: int = Field(foreign_key="games.id")
    created_at: datetime = time_column()
