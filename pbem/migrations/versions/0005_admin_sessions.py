"""organisers' sessions can be revoked; rate-limit counters shared by every web process

admin_users.session_version: every organiser's session carries it, and logging out, a new
password or "sign out everywhere" adds one, so copies of older session cookies stop working.
rate_limits: the login limiter's counters when no Redis is configured (pbem.ratelimit).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 22:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

# The rate_limits model lives with its storage; importing it puts the table on the metadata that
# `alembic check` compares the migrated schema with (env.py imports pbem.models only).
import pbem.ratelimit  # noqa: F401

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("admin_users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("session_version", sa.Integer(), nullable=False,
                                      server_default="0"))
    op.create_table(
        "rate_limits",
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    with op.batch_alter_table("rate_limits", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_rate_limits_expires_at"), ["expires_at"],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table("rate_limits", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_rate_limits_expires_at"))
    op.drop_table("rate_limits")
    with op.batch_alter_table("admin_users", schema=None) as batch_op:
        batch_op.drop_column("session_version")
