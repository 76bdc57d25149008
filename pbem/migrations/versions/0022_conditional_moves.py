"""conditional moves: conditional_moves

conditional_moves: a seat's answers, left while it is the opponent's turn, to the opponent's
possible moves (a tree, as JSON), valid from a ply; and the move that did not match, until the
seat's turn email has said so (pbem.conditional).

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-27 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import pbem.models

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "conditional_moves",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("tree", sa.JSON(), nullable=True),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("dropped_move", sa.String(), nullable=True),
        sa.Column("dropped_ply", sa.Integer(), nullable=True),
        sa.Column("dropped_illegal", sa.Boolean(), nullable=False),
        sa.Column("updated_at", pbem.models.columns.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "seat"),
    )
    with op.batch_alter_table("conditional_moves", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_conditional_moves_game_id"), ["game_id"],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table("conditional_moves", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_conditional_moves_game_id"))
    op.drop_table("conditional_moves")
