"""organisers' remembered browsers and two-factor sign-in: organiser_security, recovery codes

organiser_security: one row per organiser (made when first needed). ``devices_version`` is part
of every device cookie (pbem.admin.devices: a browser that signed in before gets past a locked
account with the right password); a new password and "sign out everywhere" add one. The TOTP
secret, when it was switched on, and the last time step a code was accepted for (no replays).
organiser_recovery_codes: one-time recovery codes, sha256-hashed; ``used_at`` once used.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models
import pbem.models.organisers  # its tables on the metadata `alembic check` reads

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "organiser_security",
        sa.Column("admin_user_id", sa.Integer(), nullable=False),
        sa.Column("devices_version", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("totp_secret", sa.String(), nullable=True),
        sa.Column("totp_on_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=True),
        sa.Column("totp_last_step", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["admin_user_id"], ["admin_users.id"]),
        sa.PrimaryKeyConstraint("admin_user_id"),
    )
    op.create_table(
        "organiser_recovery_codes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("admin_user_id", sa.Integer(), nullable=False),
        sa.Column("code_hash", sa.String(), nullable=False),
        sa.Column("created_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.Column("used_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["admin_user_id"], ["admin_users.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("organiser_recovery_codes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_organiser_recovery_codes_admin_user_id"),
                              ["admin_user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("organiser_recovery_codes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_organiser_recovery_codes_admin_user_id"))
    op.drop_table("organiser_recovery_codes")
    op.drop_table("organiser_security")
