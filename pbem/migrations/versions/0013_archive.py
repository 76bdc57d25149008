"""archive: games.listed (the public archive and profiles) and players.profile_hidden

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24 03:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Server defaults: games made before the archive existed are listed, and every existing
    # profile stays visible until its player hides it.
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("listed", sa.Boolean(), nullable=False,
                                      server_default=sa.true()))
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("profile_hidden", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("profile_hidden")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("listed")
