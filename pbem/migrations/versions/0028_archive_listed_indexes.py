"""archive indexes: the archive's count and its page of games read from indexes alone (issue 36)

The archive lists finished games that are listed, newest first, and counts its matches up to
10,000. With ``listed`` in the index, the count is an index-only scan instead of a visit to each
game's row: with 1,000,000 finished games the game filter's count took 90 ms, now a few.
ix_games_archive replaces ix_games_status_finished_at, ix_games_archive_game replaces
ix_games_game_type_status_finished_at (migration 0026). ix_games_archive_rows: the player
filter's thousands of games sorted from the index alone, only the page's 20 rows then read;
ix_seats_player_game: the games of the players the filter names, from the index alone.

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-28 01:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_games_archive", "games", ["status", "listed", "finished_at"])
    op.create_index("ix_games_archive_game", "games",
                    ["game_type", "status", "listed", "finished_at"])
    op.create_index("ix_games_archive_rows", "games", ["id", "status", "listed", "finished_at"])
    op.create_index("ix_seats_player_game", "seats", ["player_id", "game_id"])
    op.drop_index("ix_games_game_type_status_finished_at", table_name="games")
    op.drop_index("ix_games_status_finished_at", table_name="games")


def downgrade() -> None:
    op.create_index("ix_games_status_finished_at", "games", ["status", "finished_at"])
    op.create_index("ix_games_game_type_status_finished_at", "games",
                    ["game_type", "status", "finished_at"])
    op.drop_index("ix_seats_player_game", table_name="seats")
    op.drop_index("ix_games_archive_rows", table_name="games")
    op.drop_index("ix_games_archive_game", table_name="games")
    op.drop_index("ix_games_archive", table_name="games")
