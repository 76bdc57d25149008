"""each game's clock in a table of its own: game_clocks (pbem.clock.tables)

game_clocks: one row per game (its primary key is the game's id), holding what games held of the
clock: the settings (time_control, timeout_policy, reminder_seconds, vacations_allowed) and the
current turn (deadline, turn_started_at, turn_bank_seconds, banks, reminders_sent, grace_used,
held_since, paused_at, paused_remaining_seconds, next_due_at with the sweep's index). Every game's
values are copied by the database itself (INSERT ... SELECT), so times keep their microseconds,
JSON its text and NULLs stay NULL; then the columns leave games. The downgrade copies them back.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-27 12:00:00
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

# In the order the columns had in games, which the downgrade gives them back.
COLUMNS = ("deadline", "time_control", "timeout_policy", "reminder_seconds", "vacations_allowed",
           "turn_started_at", "turn_bank_seconds", "banks", "reminders_sent", "grace_used",
           "held_since", "paused_at", "paused_remaining_seconds", "next_due_at")


def _columns(*, in_games: bool) -> list[sa.Column]:  # type: ignore[type-arg]
    """The clock's columns as games had them (with their server defaults, which the rows of
    games made before 0002 needed) or as game_clocks has them (every row written in full)."""

    def time(name: str) -> sa.Column:  # type: ignore[type-arg]
        return sa.Column(name, pbem.models.columns.UTCDateTime(timezone=True), nullable=True)

    def default(value: object) -> dict[str, Any]:
        return {"server_default": value} if in_games else {}

    return [
        time("deadline"),
        sa.Column("time_control", sa.JSON(), nullable=True),
        sa.Column("timeout_policy", sa.String(), nullable=False, **default("")),
        sa.Column("reminder_seconds", sa.JSON(), nullable=True),
        sa.Column("vacations_allowed", sa.Boolean(), nullable=False, **default(sa.true())),
        time("turn_started_at"),
        sa.Column("turn_bank_seconds", sa.Integer(), nullable=True),
        sa.Column("banks", sa.JSON(), nullable=True),
        sa.Column("reminders_sent", sa.JSON(), nullable=True),
        sa.Column("grace_used", sa.Boolean(), nullable=False, **default(sa.false())),
        time("held_since"),
        time("paused_at"),
        sa.Column("paused_remaining_seconds", sa.Integer(), nullable=True),
        time("next_due_at"),
    ]


def upgrade() -> None:
    op.create_table(
        "game_clocks",
        sa.Column("game_id", sa.Integer(), nullable=False),
        *_columns(in_games=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("game_id"),
    )
    with op.batch_alter_table("game_clocks", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_clocks_next_due_at"), ["next_due_at"],
                              unique=False)
    names = ", ".join(COLUMNS)
    op.execute(f"INSERT INTO game_clocks (game_id, {names}) SELECT id, {names} FROM games")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_next_due_at"))
        for name in COLUMNS:
            batch_op.drop_column(name)


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        for column in _columns(in_games=True):
            batch_op.add_column(column)
    # Every game has its clock row, so one UPDATE per column from it restores them all.
    for name in COLUMNS:
        op.execute(f"UPDATE games SET {name} = (SELECT game_clocks.{name} FROM game_clocks"
                   " WHERE game_clocks.game_id = games.id)")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_games_next_due_at"), ["next_due_at"], unique=False)
    with op.batch_alter_table("game_clocks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_clocks_next_due_at"))
    op.drop_table("game_clocks")
