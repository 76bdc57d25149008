"""Tables for tournaments (pbem.tournaments.service): the tournament, who entered it, and which
games belong to which round.

The core tables (games, players) know nothing of tournaments: a game belongs to a tournament only
through ``tournament_games``, so every game page, clock and email works as for any game.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, SQLModel

from pbem.models.columns import UTCDateTime

__all__ = ["Tournament", "TournamentEntry", "TournamentFormat", "TournamentGame",
           "TournamentStatus"]


class TournamentFormat(StrEnum):
    ROUND_ROBIN = "round-robin"
    DOUBLE_ROUND_ROBIN = "double-round-robin"
    SWISS = "swiss"  # also multi-player tables (Rifugio): rounds paired by score


class TournamentStatus(StrEnum):
    PENDING = "pending"  # created, entries known, no game yet
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


def time_column(nullable: bool = False) -> Any:
    return Field(default=None, sa_column=Column(UTCDateTime(), nullable=nullable))


class Tournament(SQLModel, table=True):
    __tablename__ = "tournaments"

    id: int | None = Field(default=None, primary_key=True)
    # The public standings page's address: unguessable, so an unlisted tournament is seen only
    # by those given the link.
    slug: str = Field(index=True, unique=True)
    name: str
    game_type: str
    # The game's options without the one that sets the number of seats: each table's game gets
    # the value for its own number of players (pbem.services.games.options_for_players).
    options: dict[str, Any] = Field(default=None, sa_column=Column(JSON, nullable=True))
    time_control: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    timeout_policy: str = ""
    format: str = TournamentFormat.ROUND_ROBIN
    rounds: int = 0  # Swiss: as the organiser chose; round robin: from the schedule
    table_size: int = 2  # players per game; more than two: multi-player tables of 3..table_size
    listed: bool = True  # on /tournaments; unlisted ones only by their slug
    rated: bool = False
    status: str = TournamentStatus.PENDING
    current_round: int = 0  # the last round whose games were made (0: not started)
    # Players with a bye, by round ("1": [player ids]); a bye is worth a win in the standings.
    byes: dict[str, list[int]] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    created_by: str = ""  # the organiser's email, as the audit log names them
    created_at: datetime = time_column()
    started_at: datetime | None = time_column(nullable=True)
    finished_at: datetime | None = time_column(nullable=True)


class TournamentEntry(SQLModel, table=True):
    __tablename__ = "tournament_entries"
    __table_args__ = (UniqueConstraint("tournament_id", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id", index=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    position: int = 0  # the order entered: the seeding, and the last tie-break
    joined_at: datetime = time_column()
    withdrawn_at: datetime | None = time_column(nullable=True)
    # Message-ID of the first tournament email to this player; later ones reply to it.
    thread_message_id: str = ""


class TournamentGame(SQLModel, table=True):
    __tablename__ = "tournament_games"

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id", index=True)
    game_id: int = Field(foreign_key="games.id", unique=True)
    round: int
    table: int = 0  # the table's number in its round, from 0
