"""The conversation's tables: a game's messages, and the players who muted a game's chat."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from pbem.models.columns import time_column


class ChatMessage(SQLModel, table=True):
    """One message of a game's conversation: from a seat's player, or from an organiser
    (``seat`` None, ``organiser`` their address). A hidden message stays in the table, for the
    dashboard and the audit log, and is shown to no player."""

    __tablename__ = "chat_messages"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int | None = None
    player_id: int | None = Field(default=None, foreign_key="players.id", index=True)
    organiser: str = ""
    body: str = Field(sa_column=Column(Text, nullable=False))  # as written: escaped when shown
    source: str = "web"  # web, reply (a say: line), dashboard
    created_at: datetime = time_column()
    hidden_at: datetime | None = time_column(nullable=True)
    hidden_by: str = ""


class ChatMute(SQLModel, table=True):
    """A player who wants no chat emails from this game (the pages still show its messages)."""

    __tablename__ = "chat_mutes"
    __table_args__ = (UniqueConstraint("game_id", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")
    player_id: int = Field(foreign_key="players.id")
    created_at: datetime = time_column()
