"""The ratings' tables: each player's rating per game id, and what every rated game changed
(the history that graphs are drawn from and that ``pbem ratings rebuild`` writes again)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from pbem.models.columns import time_column


class PlayerRating(SQLModel, table=True):
    """A player's rating in one game id (OpenSkill's mean and uncertainty; pbem.ratings)."""

    __tablename__ = "player_ratings"
    __table_args__ = (UniqueConstraint("player_id", "game_type"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    game_type: str = Field(index=True)
    mu: float
    sigma: float
    games: int = 0
    updated_at: datetime = time_column()


class RatingChange(SQLModel, table=True):
    """What one rated game did to one player's rating: the history a graph is drawn from, and
    what ``pbem ratings rebuild`` writes again."""

    __tablename__ = "rating_changes"
    __table_args__ = (UniqueConstraint("game_id", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    game_type: str
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    at: datetime = time_column()
