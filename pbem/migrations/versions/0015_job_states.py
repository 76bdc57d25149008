"""how the scheduler's background jobs last went: job_states

The scheduler's delivery and IMAP fetch record their last run, last success and since when they
fail, so that /healthz and /metrics in the web processes can report a relay or a mailbox that is
down (pbem.scheduler.job_states).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-25 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def _time(name: str, nullable: bool = True) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(name, pbem.models.columns.UTCDateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "job_states",
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("holder", sa.String(), nullable=False),
        _time("last_run_at", nullable=False),
        _time("last_success_at"),
        _time("failing_since"),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(), nullable=False),
        _time("last_error_at"),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("job_states")
