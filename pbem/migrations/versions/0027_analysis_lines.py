"""analysis lines: the analysis board's lines too long for their address (issue 34)

analysis_lines: a line's steps under an unguessable id (secrets.token_urlsafe), for one game;
never changed once written, so a shared address keeps its meaning (pbem.analysis.stored).

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-27 23:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analysis_lines",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("steps", sa.Text(), nullable=False),
        sa.Column("created_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("analysis_lines", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_analysis_lines_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("analysis_lines", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_analysis_lines_game_id"))
    op.drop_table("analysis_lines")
