"""computer stand-ins and boards per language: seats.stand_in, outbox_emails.image_language,
board_images.language

Board pictures carry words (headers, scores, panel labels) in the reader's language, so the
cache of rendered boards is keyed by language too. It is only a cache: the table is made anew
(empty) rather than altered, which also replaces its unique constraint.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24 01:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def _board_images(*key: str) -> None:
    op.create_table(
        "board_images",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("viewer", sa.Integer(), nullable=False),
        *([sa.Column("language", sa.String(), nullable=False)] if "language" in key else []),
        sa.Column("png", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(*key),
    )
    op.create_index("ix_board_images_game_id", "board_images", ["game_id"], unique=False)


def upgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("stand_in", sa.String(), nullable=True))
    with op.batch_alter_table("outbox_emails", schema=None) as batch_op:
        batch_op.add_column(sa.Column("image_language", sa.String(), nullable=False,
                                      server_default="en"))
    op.drop_index("ix_board_images_game_id", table_name="board_images")
    op.drop_table("board_images")
    _board_images("game_id", "ply", "viewer", "language")


def downgrade() -> None:
    op.drop_index("ix_board_images_game_id", table_name="board_images")
    op.drop_table("board_images")
    _board_images("game_id", "ply", "viewer")
    with op.batch_alter_table("outbox_emails", schema=None) as batch_op:
        batch_op.drop_column("image_language")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("stand_in")
