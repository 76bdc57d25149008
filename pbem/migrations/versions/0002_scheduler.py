"""the scheduler: clocks on games, absences, scheduler lease, outbox claims

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 05:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def _time(name: str, nullable: bool = True) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, pbem.models.columns.UTCDateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_control", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("timeout_policy", sa.String(), nullable=False,
                                      server_default=""))
        batch_op.add_column(sa.Column("reminder_seconds", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("vacations_allowed", sa.Boolean(), nullable=False,
                                      server_default=sa.true()))
        batch_op.add_column(_time("turn_started_at"))
        batch_op.add_column(sa.Column("turn_bank_seconds", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("banks", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("reminders_sent", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("grace_used", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
        batch_op.add_column(_time("held_since"))
        batch_op.add_column(_time("paused_at"))
        batch_op.add_column(sa.Column("paused_remaining_seconds", sa.Integer(), nullable=True))
        batch_op.add_column(_time("next_due_at"))
        batch_op.create_index(batch_op.f("ix_games_next_due_at"), ["next_due_at"], unique=False)

    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("forfeited", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))

    with op.batch_alter_table("outbox_emails", schema=None) as batch_op:
        batch_op.add_column(sa.Column("claimed_by", sa.String(), nullable=False,
                                      server_default=""))
        batch_op.add_column(_time("claimed_until"))
    # "pending" split into never tried (queued) and deferred (retrying).
    op.execute("UPDATE outbox_emails SET status = 'queued'"
               " WHERE status = 'pending' AND attempts = 0")
    op.execute("UPDATE outbox_emails SET status = 'retrying' WHERE status = 'pending'")

    op.create_table(
        "player_absences",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("start", sa.Date(), nullable=False),
        sa.Column("end", sa.Date(), nullable=False),
        _time("created_at", nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("player_absences", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_player_absences_player_id"), ["player_id"],
                              unique=False)

    op.create_table(
        "scheduler_leases",
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("holder", sa.String(), nullable=False),
        _time("expires_at", nullable=False),
        _time("renewed_at", nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("scheduler_leases")
    with op.batch_alter_table("player_absences", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_absences_player_id"))
    op.drop_table("player_absences")
    op.execute("UPDATE outbox_emails SET status = 'pending' WHERE status IN "
               "('queued', 'retrying', 'sending')")
    with op.batch_alter_table("outbox_emails", schema=None) as batch_op:
        batch_op.drop_column("claimed_until")
        batch_op.drop_column("claimed_by")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("forfeited")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_next_due_at"))
        for name in ("next_due_at", "paused_remaining_seconds", "paused_at", "held_since",
                     "grace_used", "reminders_sent", "banks", "turn_bank_seconds",
                     "turn_started_at", "vacations_allowed", "reminder_seconds",
                     "timeout_policy", "time_control"):
            batch_op.drop_column(name)
