"""The conditional moves' table: one row per seat that keeps (or just lost) a tree."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from pbem.models.columns import json_column, time_column


class ConditionalMoves(SQLModel, table=True):
    """A seat's answers to the opponent's possible moves (pbem.conditional.tree's JSON form),
    valid from ``ply``: the ply at which the opponent plays the first move the tree answers.

    Only the seat's own holder ever sees it. When the opponent's move is not in the tree (or the
    rules refuse the answer), the tree is emptied and ``dropped_move`` and ``dropped_ply`` say
    so until the seat's turn email has told them; a row with an empty tree and nothing dropped
    is removed."""

    __tablename__ = "conditional_moves"
    __table_args__ = (UniqueConstraint("game_id", "seat"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    player_id: int = Field(foreign_key="players.id")  # the holder who left it
    ply: int
    tree: dict[str, Any] = json_column()
    played: int = 0  # answers played from it so far
    dropped_move: str | None = None  # the opponent's move it did not answer
    dropped_ply: int | None = None  # the ply of the turn that move started
    dropped_illegal: bool = False  # dropped because the rules refused the answer
    updated_at: datetime = time_column()
