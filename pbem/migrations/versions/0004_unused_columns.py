"""drop columns that were written but never read

games.per_move_seconds (the time control keeps it), outbox_emails.image_last_move and image_alt
(the email's HTML has both), board_images.width and height (the PNG header has them).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 22:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

def dropped() -> dict[str, list[sa.Column]]:  # type: ignore[type-arg]
    """The columns, made anew for each use (a Column belongs to one table)."""
    return {
        "games": [sa.Column("per_move_seconds", sa.Integer(), nullable=True)],
        "outbox_emails": [sa.Column("image_last_move", sa.String(), nullable=True),
                          sa.Column("image_alt", sa.String(), nullable=False, server_default="")],
        "board_images": [sa.Column("width", sa.Integer(), nullable=False, server_default="0"),
                         sa.Column("height", sa.Integer(), nullable=False, server_default="0")],
    }


def upgrade() -> None:
    for table, columns in dropped().items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for column in columns:
                batch_op.drop_column(column.name)


def downgrade() -> None:
    for table, columns in dropped().items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for column in columns:
                batch_op.add_column(column)
