"""metric_tallies: the moves' count for /metrics kept in the database, advanced incrementally

Each web process counted every move once every ten minutes for /metrics (1.5 s on a 3 GB moves
table, a worker blocked for it). The settled part of the count is now kept here, shared by every
process, and advanced by adding the moves written since (pbem.monitoring, issue 36). The first
scrape after this migration counts the moves once for the site and writes the row.

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-28 05:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "metric_tallies",
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("through", sa.Integer(), nullable=False),
        sa.Column("pending", sa.Integer(), nullable=False),
        sa.Column("counts", sa.String(), nullable=False),
        sa.Column("advanced_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("metric_tallies")
