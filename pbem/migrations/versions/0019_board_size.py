"""boards drawn once, their size kept: board_images.width, height, svg; png may wait

The email that first shows a board draws it (in its reader's language) and keeps the drawing
with its size, which every email showing it writes in its <img>; delivery rasterises that
drawing rather than drawing the board again, then keeps the PNG and lets the SVG go. So the PNG
is empty until then. Pictures kept from before have no size (NULL): the next email showing one
draws it once more to measure it.

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-27 16:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("board_images", schema=None) as batch_op:
        batch_op.add_column(sa.Column("width", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("height", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("svg", sa.Text(), nullable=True))
        batch_op.alter_column("png", existing_type=sa.LargeBinary(), nullable=True)


def downgrade() -> None:
    # A drawing not yet rasterised is only a cache: delivery draws it again.
    op.execute(sa.text("DELETE FROM board_images WHERE png IS NULL"))
    with op.batch_alter_table("board_images", schema=None) as batch_op:
        batch_op.alter_column("png", existing_type=sa.LargeBinary(), nullable=False)
        batch_op.drop_column("svg")
        batch_op.drop_column("height")
        batch_op.drop_column("width")
