"""Migration 0020 moves each game's clock from ``games`` to ``game_clocks`` and keeps it exactly.

A database at 0018 holds games in every state a clock can be in; after the upgrade every value is
the same (times to the microsecond, JSON as it was written, NULLs), the service reads the clocks
and the sweep finds the due game; the downgrade puts every value back. On SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import inspect, text

from pbem.clock.deadlines import clock_of
from pbem.db import Database
from pbem.migrate import downgrade, upgrade
from pbem.models.columns import UTCDateTime
from pbem.scheduler.sweep import due_games
from tests.support import BACKENDS, make_database

BEFORE = "0018"  # the revision before the clocks moved
TIMES = ("deadline", "turn_started_at", "held_since", "paused_at", "next_due_at")
JSONS = ("time_control", "reminder_seconds", "banks", "reminders_sent")
CLOCK = ("deadline", "time_control", "timeout_policy", "reminder_seconds", "vacations_allowed",
         "turn_started_at", "turn_bank_seconds", "banks", "reminders_sent", "grace_used",
         "held_since", "paused_at", "paused_remaining_seconds", "next_due_at")
T = datetime(2026, 11, 23, 9, 30, 15, 123456, tzinfo=UTC)  # microseconds must survive
FISCHER = {"kind": "fischer", "initial_seconds": 172800, "increment_seconds": 86400,
           "maximum_seconds": 345600, "weekends_off": True}
PER_MOVE = {"kind": "per_move", "per_move_seconds": 259200, "weekends_off": False}
NO_CLOCK: dict[str, Any] = {
    "deadline": None, "time_control": None, "timeout_policy": "", "reminder_seconds": None,
    "vacations_allowed": True, "turn_started_at": None, "turn_bank_seconds": None, "banks": None,
    "reminders_sent": None, "grace_used": False, "held_since": None, "paused_at": None,
    "paused_remaining_seconds": None, "next_due_at": None}
# Each game's status and clock, as 0018 kept them in its row.
GAMES: dict[str, dict[str, Any]] = {
    "running fischer": {"status": "active", **NO_CLOCK, "time_control": FISCHER,
                        "timeout_policy": "forfeit", "reminder_seconds": [86400, 7200],
                        "vacations_allowed": False, "turn_started_at": T,
                        "turn_bank_seconds": 151_234, "banks": {"0": 151_234, "1": 98_765},
                        "reminders_sent": [86400], "deadline": T + timedelta(seconds=151_234),
                        "next_due_at": T + timedelta(seconds=151_234 - 7200)},
    "reminded, due now": {"status": "active", **NO_CLOCK, "time_control": PER_MOVE,
                          "timeout_policy": "random", "reminder_seconds": [86400, 7200],
                          "turn_started_at": T - timedelta(days=3), "turn_bank_seconds": 259200,
                          "reminders_sent": [86400, 7200], "deadline": T, "next_due_at": T},
    "paused": {"status": "active", **NO_CLOCK, "time_control": PER_MOVE, "timeout_policy": "pass",
               "turn_started_at": T - timedelta(hours=5), "turn_bank_seconds": 259200,
               "paused_at": T, "paused_remaining_seconds": 241_200, "reminders_sent": []},
    "held after grace": {"status": "active", **NO_CLOCK, "time_control": PER_MOVE,
                         "timeout_policy": "grace", "grace_used": True,
                         "turn_started_at": T - timedelta(days=6), "turn_bank_seconds": 259200,
                         "deadline": T - timedelta(days=3), "held_since": T,
                         "reminders_sent": [7200, 86400]},
    "no clock": {"status": "active", **NO_CLOCK},
    "finished": {"status": "finished", **NO_CLOCK, "time_control": FISCHER,
                 "timeout_policy": "hold", "banks": {"1": 3600}, "reminders_sent": [],
                 "turn_started_at": T - timedelta(days=1), "turn_bank_seconds": 86400},
    "invited": {"status": "invited", **NO_CLOCK, "time_control": PER_MOVE,
                "reminder_seconds": []},
}


@pytest.fixture(params=BACKENDS)
def old_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Database, str]]:
    """A database at 0018 with the games above, and its PostgreSQL schema ("" on SQLite)."""
    database, remove = make_database(request.param, tmp_path, migrate=True, revision=BEFORE)
    schema = ""
    if not database.is_sqlite:
        with database.engine.connect() as connection:
            schema = str(connection.execute(text("SHOW search_path")).scalar())
    with database.engine.begin() as connection:
        _fill(connection)
    yield database, schema
    remove()


def _fill(connection: sa.Connection) -> None:
    # The columns as 0018 made them, times and JSON typed as the models type them.
    games = sa.Table("games", sa.MetaData(), *(sa.Column(n, UTCDateTime()) for n in TIMES),
                     *(sa.Column(n, sa.JSON()) for n in (*JSONS, "options", "state",
                                                         "start_state", "winners")),
                     sa.Column("created_at", UTCDateTime()), autoload_with=connection)
    players = sa.Table("players", sa.MetaData(), sa.Column("created_at", UTCDateTime()),
                       autoload_with=connection)
    seats = sa.Table("seats", sa.MetaData(), autoload_with=connection)
    connection.execute(players.insert(), [
        {"id": n, "name": name, "email": f"{name}@example.test", "language": "en",
         "time_zone": "UTC", "notify_updates": True, "created_at": T, "session_version": 0,
         "profile_hidden": False, "links_version": 0} for n, name in ((1, "ann"), (2, "bob"))])
    for number, (name, values) in enumerate(GAMES.items(), 1):
        connection.execute(games.insert(), {
            "id": number, "public_id": f"game{number}", "game_type": "mosey",
            "options": {"order": 4}, "state": {"name": name}, "start_state": {}, "ply": number,
            "to_move": 0, "seed": "s", "seed_commitment": "c", "result": "", "created_at": T,
            "rated": False, "listed": True, **values})
        # Rows that point at the game: SQLite rebuilds games to drop its columns.
        connection.execute(seats.insert(), [
            {"game_id": number, "seat": seat, "player_id": seat + 1, "status": "accepted",
             "resigned": False, "forfeited": False, "thread_message_id": ""}
            for seat in (0, 1)])


def _stored(connection: sa.Connection, table: str, key: str) -> list[tuple[Any, ...]]:
    """Every game's clock columns as the database returns them, JSON as its stored text."""
    columns = ", ".join(f"CAST({n} AS TEXT)" if n in JSONS else n for n in CLOCK)
    return [tuple(row) for row in connection.execute(
        text(f"SELECT {key}, {columns} FROM {table} ORDER BY {key}"))]


def _game_rows(connection: sa.Connection) -> list[tuple[Any, ...]]:
    """What the games table keeps besides the clock."""
    return [tuple(row) for row in connection.execute(text(
        "SELECT id, public_id, status, ply, to_move, CAST(state AS TEXT), created_at FROM games"
        " ORDER BY id"))]


def test_the_upgrade_keeps_every_clock_exactly(old_database: tuple[Database, str]) -> None:
    database, schema = old_database
    with database.engine.connect() as connection:
        before = _stored(connection, "games", "id")
        games_before = _game_rows(connection)
    upgrade(database.url, search_path=schema or None)
    with database.engine.connect() as connection:
        assert _stored(connection, "game_clocks", "game_id") == before
        assert _game_rows(connection) == games_before
        assert not set(CLOCK) & {c["name"] for c in inspect(connection).get_columns("games")}
    with database.session() as session:
        for number, values in enumerate(GAMES.values(), 1):
            clock = clock_of(session, number)
            assert {n: getattr(clock, n) for n in CLOCK} == {n: values[n] for n in CLOCK}
    # The sweep finds the one game whose reminder or deadline is due, through the new index.
    assert due_games(database, T, 10) == [(2, 2)]
    assert due_games(database, T + timedelta(days=2), 10) == [(2, 2), (1, 1)]


def test_the_downgrade_puts_every_clock_back(old_database: tuple[Database, str]) -> None:
    database, schema = old_database
    with database.engine.connect() as connection:
        before = _stored(connection, "games", "id")
    upgrade(database.url, search_path=schema or None)
    downgrade(database.url, BEFORE, search_path=schema or None)
    with database.engine.connect() as connection:
        assert _stored(connection, "games", "id") == before
        names = inspect(connection).get_table_names()
        indexes = {i["name"] for i in inspect(connection).get_indexes("games")}
    assert "game_clocks" not in names and "ix_games_next_due_at" in indexes
    upgrade(database.url, search_path=schema or None)  # and up again: the same once more
    with database.engine.connect() as connection:
        assert _stored(connection, "game_clocks", "game_id") == before
