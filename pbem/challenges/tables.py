"""Tables for challenges, open seeks and rematches (pbem.challenges.service).

A challenge is a game one player proposes: to named players (an invitation), to anyone signed in
(an open seek, listed on /seeks), or to the players of a finished game (a rematch). Each person
in it has a :class:`ChallengePlayer` row holding a *slot*; the unique (challenge, slot) and
(challenge, player) pairs are the database's last word that no seat is filled twice and nobody
sits twice, whatever two requests do at once.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Column, UniqueConstraint
from sqlmodel import Field, SQLModel

from pbem.models.columns import UTCDateTime, json_column

__all__ = ["Challenge", "ChallengeKind", "ChallengePlayer", "ChallengeStatus", "SeatOrder"]


class ChallengeKind(StrEnum):
    INVITE = "invite"  # to named players, by email
    SEEK = "seek"  # listed for any signed-in player to join
    REMATCH = "rematch"  # the players of a finished game, seats rotated


class ChallengeStatus(StrEnum):
    OPEN = "open"  # waiting for answers or for players
    STARTED = "started"  # its game exists (game_id)
    DECLINED = "declined"  # someone said no: it cannot start as planned
    EXPIRED = "expired"  # nobody (or not everyone) accepted in time
    CANCELLED = "cancelled"  # by its creator or an organiser


class SeatOrder(StrEnum):
    FIRST = "first"  # the creator takes seat 1
    SECOND = "second"  # the creator takes seat 2
    RANDOM = "random"


class Challenge(SQLModel, table=True):
    __tablename__ = "challenges"

    id: int | None = Field(default=None, primary_key=True)
    public_id: str = Field(index=True, unique=True)  # unguessable: the challenge page's URL
    creator_id: int = Field(foreign_key="players.id", index=True)
    game_type: str = Field(index=True)
    options: dict[str, Any] = json_column()  # resolved for ``seats`` players
    seats: int
    time_control: str  # the preset's text ("3d per move"), parsed when the game is made
    timeout_policy: str = ""  # one of the site's approved policies ("" for the game's default)
    seat_order: str = SeatOrder.FIRST
    rated: bool = True
    listed: bool = True  # its game in the public archive and on profiles (pbem.web.archive)
    kind: str = ChallengeKind.INVITE
    status: str = Field(default=ChallengeStatus.OPEN, index=True)
    created_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    expires_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False, index=True))
    closed_at: datetime | None = Field(default=None,
                                       sa_column=Column(UTCDateTime(), nullable=True))
    game_id: int | None = Field(default=None, foreign_key="games.id")
    # A rematch's finished game: unique, so two players asking at once make one rematch.
    rematch_of: int | None = Field(default=None, foreign_key="games.id", unique=True)


class ChallengePlayer(SQLModel, table=True):
    """One person of a challenge and their answer; ``slot`` 0 is the creator (for a rematch, the
    order of the new game's seats)."""

    __tablename__ = "challenge_players"
    __table_args__ = (UniqueConstraint("challenge_id", "slot"),
                      UniqueConstraint("challenge_id", "player_id"))

    id: int | None = Field(default=None, primary_key=True)
    challenge_id: int = Field(foreign_key="challenges.id", index=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    slot: int
    status: str = "invited"  # invited, accepted, declined (pbem.models.SeatStatus's words)
    answered_at: datetime | None = Field(default=None,
                                         sa_column=Column(UTCDateTime(), nullable=True))
