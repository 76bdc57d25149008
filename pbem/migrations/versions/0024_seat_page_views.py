"""seats' page views and held turn emails; the outbox by recipient

seats.page_viewed_at: when the seat's player last looked at the game's page; while they do, a
game against the computer mails them no turn (pbem.services.turn_mail).
seats.turn_email_held: the ply whose turn email is held for that reason until the sweep writes
it (indexed: the sweep looks for them).
ix_outbox_recipient: the outbox delivers each recipient's emails in the order they were written
(pbem.mail.outbox), asking for a recipient's earlier emails still waiting.

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-27 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch_op:
        batch_op.add_column(sa.Column("page_viewed_at",
                                      pbem.models.columns.UTCDateTime(timezone=True),
                                      nullable=True))
        batch_op.add_column(sa.Column("turn_email_held", sa.Integer(), nullable=True))
        batch_op.create_index("ix_seats_turn_email_held", ["turn_email_held"], unique=False)
    op.create_index("ix_outbox_recipient", "outbox_emails", ["to_address", "status"],
                    unique=False)


def downgrade() -> None:
    op.drop_index("ix_outbox_recipient", table_name="outbox_emails")
    with op.batch_alter_table("seats") as batch_op:
        batch_op.drop_index("ix_seats_turn_email_held")
        batch_op.drop_column("turn_email_held")
        batch_op.drop_column("page_viewed_at")
