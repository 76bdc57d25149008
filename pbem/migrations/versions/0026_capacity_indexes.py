"""capacity indexes: the archive's order and game filter, and the metrics' moves by source

ix_games_status_finished_at: the archive (finished games, newest first) reads a page and counts
the matches from the index instead of sorting every game (issue 36).
ix_games_game_type_status_finished_at: the same with the archive's game filter.
ix_moves_source: /metrics counts the moves by source from the index alone.
ix_players_bot_level, ix_seats_stand_in: the sweep's and the bot job's search for games waiting
for the computer starts from the few seats it plays, not from every active game.

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-27 22:30:00
"""

from __future__ import annotations

from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_games_status_finished_at", "games", ["status", "finished_at"])
    op.create_index("ix_games_game_type_status_finished_at", "games",
                    ["game_type", "status", "finished_at"])
    op.create_index("ix_moves_source", "moves", ["source"])
    op.create_index("ix_players_bot_level", "players", ["bot_level"])
    op.create_index("ix_seats_stand_in", "seats", ["stand_in"])


def downgrade() -> None:
    op.drop_index("ix_seats_stand_in", table_name="seats")
    op.drop_index("ix_players_bot_level", table_name="players")
    op.drop_index("ix_moves_source", table_name="moves")
    op.drop_index("ix_games_game_type_status_finished_at", table_name="games")
    op.drop_index("ix_games_status_finished_at", table_name="games")
