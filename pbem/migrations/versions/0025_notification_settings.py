"""players' mail settings: notification_settings, game_mutes, outbox_images

notification_settings: how much pbem mails each player (every event, their turns and game ends, a
daily digest at an hour of their choosing, or off), and when their last digest went
(pbem.notifications). A player without a row gets every event, as before.
game_mutes: the games a player muted.
outbox_images: more board pictures an email shows beside its own (a digest shows one per game).
An email a player's setting keeps back stays in the outbox with the status "withheld".

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-27 21:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notification_settings",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(), nullable=False),
        sa.Column("digest_hour", sa.Integer(), nullable=False),
        sa.Column("digest_day", sa.Date(), nullable=True),
        sa.Column("digest_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("player_id"),
    )
    op.create_table(
        "game_mutes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("created_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("player_id", "game_id"),
    )
    with op.batch_alter_table("game_mutes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_mutes_player_id"), ["player_id"],
                              unique=False)
    op.create_table(
        "outbox_images",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("email_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("viewer", sa.Integer(), nullable=False),
        sa.Column("language", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["email_id"], ["outbox_emails.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("outbox_images", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_outbox_images_email_id"), ["email_id"],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table("outbox_images", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbox_images_email_id"))
    op.drop_table("outbox_images")
    with op.batch_alter_table("game_mutes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_mutes_player_id"))
    op.drop_table("game_mutes")
    op.drop_table("notification_settings")
