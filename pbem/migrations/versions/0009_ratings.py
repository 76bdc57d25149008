"""ratings: games.rated, player_ratings, rating_changes

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24 01:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rated", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
    op.create_table(
        "player_ratings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_type", sa.String(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("player_id", "game_type"),
    )
    op.create_index("ix_player_ratings_player_id", "player_ratings", ["player_id"])
    op.create_index("ix_player_ratings_game_type", "player_ratings", ["game_type"])
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_type", sa.String(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "player_id"),
    )
    op.create_index("ix_rating_changes_game_id", "rating_changes", ["game_id"])
    op.create_index("ix_rating_changes_player_id", "rating_changes", ["player_id"])


def downgrade() -> None:
    op.drop_table("rating_changes")
    op.drop_table("player_ratings")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("rated")
