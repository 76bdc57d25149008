"""The analysis lines kept because their address would be too long to share (issue 34)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Text
from sqlmodel import Field, SQLModel

from pbem.models.columns import time_column


class AnalysisLine(SQLModel, table=True):
    """A line's steps (``;`` between them) under an unguessable id, for one game. Never
    changed once written: an address that names it keeps showing the same line, and a move
    played from it keeps a new one."""

    __tablename__ = "analysis_lines"

    id: str = Field(primary_key=True, max_length=40)
    game_id: int = Field(foreign_key="games.id", index=True)
    steps: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = time_column()
