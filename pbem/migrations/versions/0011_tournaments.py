"""tournaments: tournaments, tournament_entries, tournament_games

A tournament (round robin, double round robin or Swiss; multi-player tables), the players who
entered it (withdrawn_at when they left), and the games of each round (pbem.services.tournaments).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24 03:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("slug", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("game_type", sa.String(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=True),
        sa.Column("time_control", sa.JSON(), nullable=True),
        sa.Column("timeout_policy", sa.String(), nullable=False),
        sa.Column("format", sa.String(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("table_size", sa.Integer(), nullable=False),
        sa.Column("listed", sa.Boolean(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("current_round", sa.Integer(), nullable=False),
        sa.Column("byes", sa.JSON(), nullable=True),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.Column("started_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=True),
        sa.Column("finished_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tournaments_slug"), ["slug"], unique=True)
    op.create_table(
        "tournament_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("joined_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.Column("withdrawn_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=True),
        sa.Column("thread_message_id", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id", "player_id"),
    )
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tournament_entries_player_id"), ["player_id"],
                              unique=False)
        batch_op.create_index(batch_op.f("ix_tournament_entries_tournament_id"),
                              ["tournament_id"], unique=False)
    op.create_table(
        "tournament_games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id"),
    )
    with op.batch_alter_table("tournament_games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tournament_games_tournament_id"),
                              ["tournament_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("tournament_games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournament_games_tournament_id"))
    op.drop_table("tournament_games")
    with op.batch_alter_table("tournament_entries", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournament_entries_tournament_id"))
        batch_op.drop_index(batch_op.f("ix_tournament_entries_player_id"))
    op.drop_table("tournament_entries")
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tournaments_slug"))
    op.drop_table("tournaments")
