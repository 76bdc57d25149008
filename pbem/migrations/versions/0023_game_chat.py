"""a conversation per game: chat_messages, chat_mutes

chat_messages: each game's messages, from a seat's player or an organiser, as written (escaped
where shown); a hidden one is kept, with who hid it and when (pbem.chat).
chat_mutes: the players who want no chat emails from a game.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-27 21:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("organiser", sa.String(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("created_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.Column("hidden_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=True),
        sa.Column("hidden_by", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("chat_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_chat_messages_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_chat_messages_player_id"), ["player_id"],
                              unique=False)
    op.create_table(
        "chat_mutes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("created_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "player_id"),
    )


def downgrade() -> None:
    op.drop_table("chat_mutes")
    with op.batch_alter_table("chat_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_chat_messages_player_id"))
        batch_op.drop_index(batch_op.f("ix_chat_messages_game_id"))
    op.drop_table("chat_messages")
