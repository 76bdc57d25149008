"""play by reply: inbound mail, reply addresses, bounced players

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 23:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "inbound_mail",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(), nullable=False),
        sa.Column("sender", sa.String(), nullable=False),
        sa.Column("recipient", sa.String(), nullable=False),
        sa.Column("received_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("outcome", sa.String(), nullable=False),
        sa.Column("detail", sa.String(), nullable=False),
        sa.Column("answered", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("inbound_mail", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inbound_mail_message_id"), ["message_id"],
                              unique=True)
        batch_op.create_index(batch_op.f("ix_inbound_mail_sender"), ["sender"], unique=False)
        batch_op.create_index(batch_op.f("ix_inbound_mail_game_id"), ["game_id"], unique=False)
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("bounced_at", pbem.models.columns.UTCDateTime(timezone=True),
                                      nullable=True))
    with op.batch_alter_table("outbox_emails", schema=None) as batch_op:
        batch_op.add_column(sa.Column("reply_to", sa.String(), nullable=False,
                                      server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("outbox_emails", schema=None) as batch_op:
        batch_op.drop_column("reply_to")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("bounced_at")
    with op.batch_alter_table("inbound_mail", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inbound_mail_game_id"))
        batch_op.drop_index(batch_op.f("ix_inbound_mail_sender"))
        batch_op.drop_index(batch_op.f("ix_inbound_mail_message_id"))
    op.drop_table("inbound_mail")
