"""The clock's table: one row per game (``game_clocks``), its settings and where its current
turn's clock stands. The game's own row (:class:`pbem.models.GameRecord`) says whose turn it is;
this one says until when, and what happens then.

:mod:`pbem.clock.deadlines` keeps these rows and is the only writer; pages and the sweep read
them through :func:`pbem.clock.deadlines.clock_of` and :func:`pbem.clock.deadlines.with_clocks`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Column
from sqlmodel import Field, SQLModel

from pbem.models.columns import UTCDateTime, json_column, time_column


class GameClock(SQLModel, table=True):
    __tablename__ = "game_clocks"

    game_id: int = Field(foreign_key="games.id", primary_key=True)
    # The settings, fixed when the game is made. time_control is TimeControl.to_dict(); None:
    # no clock.
    time_control: dict[str, Any] | None = json_column()
    timeout_policy: str = ""  # pass, random, forfeit, grace, hold ("" before the scheduler)
    reminder_seconds: list[int] | None = json_column()  # reminder offsets before the deadline
    vacations_allowed: bool = True  # the absences of the player to move stop their clock
    # The current turn.
    deadline: datetime | None = time_column(nullable=True)
    turn_started_at: datetime | None = time_column(nullable=True)
    turn_bank_seconds: int | None = None  # the clock time the current turn was given
    banks: dict[str, int] | None = json_column()  # Fischer: seat -> bank seconds for its next turn
    reminders_sent: list[int] | None = json_column()  # offsets already reminded in the current turn
    grace_used: bool = False  # the grace extension of the current turn has been given
    held_since: datetime | None = time_column(nullable=True)  # waiting for the organiser
    paused_at: datetime | None = time_column(nullable=True)
    paused_remaining_seconds: int | None = None  # clock time left when paused
    # The sweep's one index: the earliest of the deadline and the next reminder (None: no work).
    next_due_at: datetime | None = Field(
        default=None, sa_column=Column(UTCDateTime(), nullable=True, index=True)
    )
