"""challenges: challenges, challenge_players (players start their own games, issue 19)

challenges: a proposed game (to named players, an open seek, or a rematch), its options, clock
preset and seat order, until it starts (game_id), is declined, expires or is cancelled.
challenge_players: who is in it, in which slot, and their answer; unique (challenge, slot) and
(challenge, player) keep two joins at once from sharing a seat.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24 03:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("public_id", sa.String(), nullable=False),
        sa.Column("creator_id", sa.Integer(), nullable=False),
        sa.Column("game_type", sa.String(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=True),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("time_control", sa.String(), nullable=False),
        sa.Column("timeout_policy", sa.String(), nullable=False),
        sa.Column("seat_order", sa.String(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("listed", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("created_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.Column("expires_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.Column("closed_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("rematch_of", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["creator_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["rematch_of"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("rematch_of"),
    )
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_challenges_public_id"), ["public_id"], unique=True)
        batch_op.create_index(batch_op.f("ix_challenges_creator_id"), ["creator_id"],
                              unique=False)
        batch_op.create_index(batch_op.f("ix_challenges_game_type"), ["game_type"], unique=False)
        batch_op.create_index(batch_op.f("ix_challenges_status"), ["status"], unique=False)
        batch_op.create_index(batch_op.f("ix_challenges_expires_at"), ["expires_at"],
                              unique=False)
    op.create_table(
        "challenge_players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("challenge_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("answered_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["challenge_id"], ["challenges.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("challenge_id", "slot"),
        sa.UniqueConstraint("challenge_id", "player_id"),
    )
    with op.batch_alter_table("challenge_players", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_challenge_players_challenge_id"), ["challenge_id"],
                              unique=False)
        batch_op.create_index(batch_op.f("ix_challenge_players_player_id"), ["player_id"],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table("challenge_players", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_challenge_players_player_id"))
        batch_op.drop_index(batch_op.f("ix_challenge_players_challenge_id"))
    op.drop_table("challenge_players")
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_challenges_expires_at"))
        batch_op.drop_index(batch_op.f("ix_challenges_status"))
        batch_op.drop_index(batch_op.f("ix_challenges_game_type"))
        batch_op.drop_index(batch_op.f("ix_challenges_creator_id"))
        batch_op.drop_index(batch_op.f("ix_challenges_public_id"))
    op.drop_table("challenges")
