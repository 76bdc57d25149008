"""players sign in by email: players.session_version, sign_in_links

players.session_version: every signed-in player's session carries it, and "sign out everywhere"
adds one, so older sessions stop loading.
sign_in_links: one-time sign-in links, kept as the SHA-256 of their token (pbem.web.signin).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24 01:45:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("session_version", sa.Integer(), nullable=False,
                                      server_default="0"))
    op.create_table(
        "sign_in_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(), nullable=False),
        sa.Column("created_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.Column("used_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("sign_in_links", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sign_in_links_player_id"), ["player_id"],
                              unique=False)
        batch_op.create_index(batch_op.f("ix_sign_in_links_token_hash"), ["token_hash"],
                              unique=True)


def downgrade() -> None:
    with op.batch_alter_table("sign_in_links", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sign_in_links_token_hash"))
        batch_op.drop_index(batch_op.f("ix_sign_in_links_player_id"))
    op.drop_table("sign_in_links")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("session_version")
