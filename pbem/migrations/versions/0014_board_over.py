"""boards of games that ended off the board: board_images.over

A game ended by resignation, a forfeit on time or an adjudication is drawn at its last position
as over ("game over", not "X to move"), a different picture from the one drawn at that ply while
the game ran; the cache keeps both, so ``over`` joins its unique key. It is only a cache: the
table is made anew (empty) rather than altered, which also replaces its unique constraint.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-24 04:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def _board_images(*key: str) -> None:
    op.create_table(
        "board_images",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("viewer", sa.Integer(), nullable=False),
        sa.Column("language", sa.String(), nullable=False),
        *([sa.Column("over", sa.Boolean(), nullable=False, server_default="0")]
          if "over" in key else []),
        sa.Column("png", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(*key),
    )
    op.create_index("ix_board_images_game_id", "board_images", ["game_id"], unique=False)


def upgrade() -> None:
    op.drop_index("ix_board_images_game_id", table_name="board_images")
    op.drop_table("board_images")
    _board_images("game_id", "ply", "viewer", "language", "over")


def downgrade() -> None:
    op.drop_index("ix_board_images_game_id", table_name="board_images")
    op.drop_table("board_images")
    _board_images("game_id", "ply", "viewer", "language")
