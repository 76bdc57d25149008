"""inbound mail keyed on Message-ID, sender and body: inbound_mail.body_digest and .seat

A message was "handled before" when its Message-ID alone had been seen, so anyone who guessed a
mail client's next Message-ID could have the real reply dropped as a duplicate. Now a message is
the same only with the same Message-ID, sender and body digest: the unique index on message_id
becomes a plain index, and (message_id, sender, body_digest) is unique. Rows from before keep
their unique Message-IDs and get the digest "" (the service counts them as the same message when
Message-ID and sender match). ``seat`` records the seat a reply named, for the hourly limit of
answers per seat.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-25 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("inbound_mail", schema=None) as batch_op:
        batch_op.add_column(sa.Column("body_digest", sa.String(), nullable=False,
                                      server_default=""))
        batch_op.add_column(sa.Column("seat", sa.Integer(), nullable=True))
        batch_op.drop_index(batch_op.f("ix_inbound_mail_message_id"))
        batch_op.create_index(batch_op.f("ix_inbound_mail_message_id"), ["message_id"],
                              unique=False)
        batch_op.create_unique_constraint("uq_inbound_mail_copy",
                                          ["message_id", "sender", "body_digest"])


def downgrade() -> None:
    # Look-alikes kept since the upgrade would break the old unique Message-ID: keep the first.
    op.execute("DELETE FROM inbound_mail WHERE id NOT IN "
               "(SELECT MIN(id) FROM inbound_mail GROUP BY message_id)")
    with op.batch_alter_table("inbound_mail", schema=None) as batch_op:
        batch_op.drop_constraint("uq_inbound_mail_copy", type_="unique")
        batch_op.drop_index(batch_op.f("ix_inbound_mail_message_id"))
        batch_op.create_index(batch_op.f("ix_inbound_mail_message_id"), ["message_id"],
                              unique=True)
        batch_op.drop_column("seat")
        batch_op.drop_column("body_digest")
