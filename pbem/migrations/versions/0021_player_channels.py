"""players' other channels: player_channels, channel_messages

player_channels: a player's Apprise addresses (Discord, Matrix, ntfy, Telegram, ...), sealed with
a key from the site's secret (pbem.channels.urls), shown only as scheme and host, and which news
each wants (turns, reminders, game ends).
channel_messages: the messages queued for them beside the emails they repeat, delivered with the
outbox's claims and retries (pbem.channels.delivery).

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-27 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_channels",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("sealed_url", sa.Text(), nullable=False),
        sa.Column("service", sa.String(), nullable=False),
        sa.Column("shown", sa.String(), nullable=False),
        sa.Column("on_turn", sa.Boolean(), nullable=False),
        sa.Column("on_reminder", sa.Boolean(), nullable=False),
        sa.Column("on_game_over", sa.Boolean(), nullable=False),
        sa.Column("created_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("player_channels", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_player_channels_player_id"), ["player_id"],
                              unique=False)
    op.create_table(
        "channel_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("channel_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("ply", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", pbem.models.columns.UTCDateTime(timezone=True),
                  nullable=False),
        sa.Column("last_error", sa.String(), nullable=False),
        sa.Column("claimed_by", sa.String(), nullable=False),
        sa.Column("claimed_until", pbem.models.columns.UTCDateTime(timezone=True),
                  nullable=True),
        sa.Column("created_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.Column("sent_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["channel_id"], ["player_channels.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("channel_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_channel_messages_channel_id"), ["channel_id"],
                              unique=False)
        batch_op.create_index("ix_channel_messages_due", ["status", "next_attempt_at"],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table("channel_messages", schema=None) as batch_op:
        batch_op.drop_index("ix_channel_messages_due")
        batch_op.drop_index(batch_op.f("ix_channel_messages_channel_id"))
    op.drop_table("channel_messages")
    with op.batch_alter_table("player_channels", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_channels_player_id"))
    op.drop_table("player_channels")
