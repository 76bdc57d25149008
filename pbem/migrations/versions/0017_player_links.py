"""players replace their email links: players.links_version, player_sign_ins

players.links_version: part of every games-page link (pbem.links, the token's ``v``); "Replace my
email links" and "sign out everywhere" add one, so links mailed before stop working.
player_sign_ins: each browser that signed in with a link from the player's mail, shown on their
account page (pbem.web.email_links); no client addresses.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("links_version", sa.Integer(), nullable=False,
                                      server_default="0"))
    op.create_table(
        "player_sign_ins",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.Column("browser", sa.String(), nullable=False),
        sa.Column("system", sa.String(), nullable=False),
        sa.Column("via", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("player_sign_ins", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_player_sign_ins_player_id"), ["player_id"],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table("player_sign_ins", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_sign_ins_player_id"))
    op.drop_table("player_sign_ins")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("links_version")
