"""organisers' accounts and seat replacements (the dashboard)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 06:05:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _time(name: str, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, pbem.models.columns.UTCDateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "admin_users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(), nullable=False),
        sa.Column("password_hash", sa.String(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        _time("created_at"),
        _time("last_login_at", nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("admin_users", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_admin_users_email"), ["email"], unique=True)
    op.create_table(
        "seat_replacements",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("old_player_id", sa.Integer(), nullable=False),
        sa.Column("new_player_id", sa.Integer(), nullable=False),
        sa.Column("admin_id", sa.Integer(), nullable=True),
        _time("at"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["old_player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["new_player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["admin_id"], ["admin_users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("seat_replacements", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_seat_replacements_game_id"), ["game_id"],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table("seat_replacements", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_seat_replacements_game_id"))
    op.drop_table("seat_replacements")
    with op.batch_alter_table("admin_users", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_admin_users_email"))
    op.drop_table("admin_users")
