"""Capacity: one PostgreSQL site with many active games, measured beside a small one.

    nice .venv/bin/python bench/capacity.py [--games 100000] [--finished 1000000]
        [--players 20000] [--baseline 1000] [--repeat 30] [--keep]

Each site is a database of its own (``pbem_capacity_<games>``) made by pbem's migrations and
filled in bulk (multi-row inserts, no service calls): a mix of the nine games and their board
sizes, each active game at a ply spread over a real game's length (random games played once per
kind with the engine, their positions and moves reused), 10% due within the hour, 20,000 players
of whom a few have 200 active games, and finished, listed games for the archive (without their
moves: the archive lists rows and never reads them). Then it prints, for the small site and the
big one side by side: the sweep with nothing due and with 10 and 100 games due (the real
:func:`pbem.scheduler.sweep` with ``now``; reminders), a player's home with 200 games, the archive
and its filters, ``/metrics`` and ``/healthz`` (p50/p95/p99 over ``--repeat`` requests through
the Flask test client), each with its number of SQL statements.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, insert, text
from sqlalchemy.engine import Engine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from pbem import create_app
from pbem.clock.controls import PerMove
from pbem.clock.tables import GameClock
from pbem.db import Database
from pbem.features import connect
from pbem.links import Links
from pbem.migrate import upgrade
from pbem.models import GameRecord, GameStatus, Move, MoveSource, Player, Seat
from pbem.scheduler import sweep
from pbem.scheduler.bots import bot_turns
from pbem.services import Site

SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"
NOW = datetime(2026, 3, 3, 12, 0, tzinfo=UTC)
PER_MOVE = timedelta(days=3)
HEAVY_GAMES = 200  # active games of each of the busiest players
HEAVY_PLAYERS = 10
CHUNK = 5_000
# (game, options, share of the games): the nine games, several board sizes each.
KINDS: list[tuple[str, dict[str, Any], int]] = [
    ("mosey", {"order": 4}, 10), ("mosey", {"order": 5}, 6), ("mosey", {"order": 6}, 3),
    ("dont-mosey", {"order": 4}, 4), ("keep-a-riding", {"order": 5}, 4),
    ("firestorm", {"order": 4}, 4), ("conflagration", {"order": 5}, 3),
    ("backfire", {"order": 4}, 3),
    ("refugia", {"board": "3-4"}, 6), ("refugia", {"board": "4-5"}, 3),
    ("stigmergy", {"size": 8, "komi": "none"}, 6), ("stigmergy", {"size": 10, "komi": "none"}, 3),
    ("rifugio", {"players": 2}, 4), ("rifugio", {"players": 3}, 5), ("rifugio", {"players": 4}, 2),
]


@dataclass(frozen=True)
class Sample:
    """One random game of a kind, played to its end: its positions and moves, reused."""

    game_type: str
    options: dict[str, Any]
    seats: int
    states: list[dict[str, Any]]  # encoded, before each ply and after the last
    to_move: list[int | None]
    moves: list[tuple[int, str]]  # (seat, notation)


def play_sample(game_type: str, options: dict[str, Any], seed: int) -> Sample:
    game = engine.new_game(game_type, **options)
    rng = random.Random(seed)
    state = game.start(f"bench{seed}")
    states, to_move, moves = [game.encode(state)], [game.to_move(state)], []
    while game.to_move(state) is not None and len(moves) < 400:
        seat = game.to_move(state)
        assert seat is not None
        move = game.random_move(state, rng)
        state = game.play(state, move, seat=seat)
        moves.append((seat, str(move)))
        states.append(game.encode(state))
        to_move.append(game.to_move(state))
    return Sample(game_type, options, game.num_players, states, to_move, moves)


def samples() -> list[tuple[Sample, int]]:
    began = time.perf_counter()
    found = [(play_sample(g, o, n), share) for n, (g, o, share) in enumerate(KINDS)]
    print(f"played {len(found)} sample games in {time.perf_counter() - began:.1f} s")
    return found


class Builder:
    """Fills one database with the site's rows, in chunks of multi-row inserts."""

    def __init__(self, database: Database, kinds: list[tuple[Sample, int]], rng: random.Random,
                 players: int) -> None:
        self.database, self.rng, self.players = database, rng, players
        self.kinds = [sample for sample, _ in kinds]
        self.weights = [share for _, share in kinds]
        self.next_game = 1

    def _insert(self, table: Any, rows: list[dict[str, Any]]) -> None:
        for start in range(0, len(rows), CHUNK):
            with self.database.write() as session:
                session.execute(insert(table), rows[start:start + CHUNK])

    def add_players(self) -> None:
        self._insert(Player, [{"name": f"Player {n}", "email": f"p{n}@example.test",
                               "created_at": NOW - timedelta(days=400), "language": "en",
                               "time_zone": "UTC", "notify_updates": True}
                              for n in range(1, self.players + 1)])

    def _seat_players(self, seats: int, heavy: int | None) -> list[int]:
        chosen = self.rng.sample(range(HEAVY_PLAYERS + 1, self.players + 1), seats)
        if heavy is not None:
            chosen[self.rng.randrange(seats)] = heavy
        return chosen

    def add_games(self, count: int, *, finished: bool) -> None:
        """``count`` games: active ones at a ply spread over their length (the first
        HEAVY_PLAYERS * HEAVY_GAMES of them each with one of the busiest players), or finished,
        listed ones."""
        for start in range(0, count, CHUNK):
            games, clocks, seats, moves = [], [], [], []
            for n in range(start, min(count, start + CHUNK)):
                game_id = self.next_game
                self.next_game += 1
                sample = self.rng.choices(self.kinds, self.weights)[0]
                length = len(sample.moves)
                ply = length if finished else self.rng.randrange(max(1, length))
                started = NOW - timedelta(days=self.rng.uniform(0.5, 200))
                heavy = (n // HEAVY_GAMES + 1 if not finished
                         and n < HEAVY_PLAYERS * HEAVY_GAMES else None)
                games.append({
                    "public_id": f"{'f' if finished else 'a'}{game_id:09d}",
                    "game_type": sample.game_type, "options": sample.options,
                    "status": GameStatus.FINISHED if finished else GameStatus.ACTIVE,
                    "state": sample.states[ply], "start_state": sample.states[0], "ply": ply,
                    "to_move": None if finished else sample.to_move[ply],
                    "seed": f"seed{game_id}", "seed_commitment": "", "winners": [0] if finished
                    else None, "result": "rules" if finished else "", "created_at": started,
                    "started_at": started, "finished_at": started + timedelta(days=30)
                    if finished else None, "rated": False, "listed": True,
                })
                due_soon = not finished and self.rng.random() < 0.10
                deadline = (NOW + timedelta(minutes=self.rng.uniform(1, 60)) if due_soon
                            else NOW + timedelta(hours=self.rng.uniform(1.1, 72)))
                clocks.append({
                    "game_id": game_id, "time_control": PerMove(PER_MOVE).to_dict(),
                    "timeout_policy": "random", "reminder_seconds": [],
                    "vacations_allowed": True, "deadline": None if finished else deadline,
                    "turn_started_at": None if finished else deadline - PER_MOVE,
                    "turn_bank_seconds": int(PER_MOVE.total_seconds()), "banks": None,
                    "reminders_sent": [], "grace_used": False,
                    "next_due_at": None if finished else deadline,
                })
                for seat, player in enumerate(self._seat_players(sample.seats, heavy)):
                    seats.append({"game_id": game_id, "seat": seat, "player_id": player,
                                  "status": "accepted", "resigned": False, "forfeited": False,
                                  "thread_message_id": ""})
                if not finished:
                    moves.extend({"game_id": game_id, "ply": p, "seat": s, "notation": notation,
                                  "note": "", "source": MoveSource.LINK,
                                  "made_at": started + timedelta(hours=p),
                                  "state_after": sample.states[p + 1]}
                                 for p, (s, notation) in enumerate(sample.moves[:ply]))
            self._insert(GameRecord, games)
            self._insert(GameClock, clocks)
            self._insert(Seat, seats)
            self._insert(Move, moves)


def site_url(games: int) -> str:
    return f"{SERVER}/pbem_capacity_{games}"


def build_site(games: int, finished: int, players: int, kinds: list[tuple[Sample, int]],
               keep: bool) -> Database:
    url = site_url(games)
    admin = create_engine(f"{SERVER}/postgres", isolation_level="AUTOCOMMIT")
    name = url.rpartition("/")[2]
    with admin.connect() as connection:
        exists = connection.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"),
                                    {"n": name}).first()
        if exists and keep:
            admin.dispose()
            upgrade(url)  # new indexes of this checkout
            print(f"{name}: kept from an earlier run")
            return Database(url)
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    began = time.perf_counter()
    upgrade(url)
    database = Database(url)
    builder = Builder(database, kinds, random.Random(games), max(players, 200))
    builder.add_players()
    builder.add_games(games, finished=False)
    builder.add_games(finished, finished=True)
    # As autovacuum would have by then: statistics, and the visibility map that lets counts
    # be read from an index alone.
    with database.engine.execution_options(isolation_level="AUTOCOMMIT").connect() as connection:
        connection.execute(text("VACUUM ANALYZE"))
    print(f"{name}: {games:,} active + {finished:,} finished games, {builder.players:,} players "
          f"built in {time.perf_counter() - began:.0f} s")
    return database


@contextmanager
def counting(engine_: Engine) -> Iterator[list[int]]:
    """Counts the SQL statements run on ``engine_`` meanwhile."""
    count = [0]

    def seen(*_: Any) -> None:
        count[0] += 1

    event.listen(engine_, "before_cursor_execute", seen)
    try:
        yield count
    finally:
        event.remove(engine_, "before_cursor_execute", seen)


@dataclass(frozen=True)
class Measure:
    p50: float
    p95: float
    p99: float
    statements: int

    def __str__(self) -> str:
        return (f"{self.p50 * 1000:8.1f} {self.p95 * 1000:8.1f} {self.p99 * 1000:8.1f} "
                f"{self.statements:6d}")


def timed(engine_: Engine, action: Callable[[], Any], repeat: int) -> Measure:
    action()  # warm: the first request compiles templates and queries
    took = []
    with counting(engine_) as count:
        action()
    for _ in range(repeat):
        began = time.perf_counter()
        action()
        took.append(time.perf_counter() - began)
    cuts = statistics.quantiles(took, n=100, method="inclusive") if len(took) > 1 else took * 99
    return Measure(cuts[49], cuts[94], cuts[98], count[0])


def make_due(database: Database, due: int) -> None:
    """Exactly ``due`` games owe a reminder at NOW; nothing else is due."""
    with database.write() as session:
        session.execute(text("UPDATE game_clocks SET next_due_at = deadline, reminder_seconds = "
                             "'[]', reminders_sent = '[]' WHERE next_due_at < :now"),
                        {"now": NOW})
        session.execute(text(
            "UPDATE game_clocks SET reminder_seconds = '[86400]', next_due_at = :due, "
            "deadline = :deadline "
            "WHERE game_id IN (SELECT game_id FROM game_clocks WHERE next_due_at IS NOT NULL "
            "ORDER BY game_id DESC LIMIT :n)"),
            {"due": NOW - timedelta(seconds=1), "deadline": NOW + timedelta(hours=1), "n": due})


def measure_site(database: Database, repeat: int) -> dict[str, Measure]:
    site = Site(Links("bench-secret", "http://localhost"), "pbem@example.test")
    results: dict[str, Measure] = {}
    for due in (0, 10, 100):
        def one_sweep(due: int = due) -> None:
            make_due(database, due)
            summary = sweep(database, NOW, site, bots=False)
            assert not summary.errors, summary
        # Each run resets its due games first: the reset is in the time, so it is subtracted.
        reset = timed(database.engine, lambda due=due: make_due(database, due),
                      3)
        whole = timed(database.engine, one_sweep, 3)
        results[f"sweep, {due} due"] = Measure(
            max(0.0, whole.p50 - reset.p50), max(0.0, whole.p95 - reset.p95),
            max(0.0, whole.p99 - reset.p99), whole.statements - reset.statements)
    make_due(database, 0)
    # What the sweep (and the scheduler's bot job, every two seconds) asks first: which games
    # wait for the computer (none here).
    results["bot search, 0 waiting"] = timed(database.engine, lambda: bot_turns(database), repeat)
    app = create_app({"ENV": "development", "TESTING": True, "SECRET_KEY": "bench-secret",
                      "BASE_URL": "http://localhost", "DATABASE": database,
                      "DATABASE_URL": database.url, "MAIL_FROM": "pbem <pbem@example.test>",
                      "RATELIMIT_ENABLED": False, "METRICS": True}, read_env=False)
    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"] = "player:1:0"  # the first of the busiest players (200 games)
        session["_fresh"] = True

    shown = client.get("/account")
    assert shown.status_code == 200 and shown.text.count("Player ") > 100, "not signed in"

    def page(path: str) -> Callable[[], None]:
        def get() -> None:
            answer = client.get(path)
            assert answer.status_code in (200, 503), (path, answer.status_code)
        return get

    for label, path in (("home, 200 games", "/account"), ("archive", "/archive"),
                        ("archive, page 50", "/archive?page=50"),
                        ("archive, game", "/archive?game=stigmergy"),
                        ("archive, player", "/archive?player=player+123"),
                        ("archive, days", "/archive?from=2025-10-01&to=2025-10-07"),
                        ("/metrics", "/metrics"), ("/healthz", "/healthz")):
        results[label] = timed(database.engine, page(path), repeat)
    return results


def main() -> None:
    connect()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--finished", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--baseline", type=int, default=1_000, help="the small site's games")
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--keep", action="store_true", help="reuse sites an earlier run built")
    args = parser.parse_args()
    kinds = samples()
    sites = [(args.baseline, args.baseline * 10, min(args.players, args.baseline * 2)),
             (args.games, args.finished, args.players)]
    found = []
    for games, finished, players in sites:
        database = build_site(games, finished, players, kinds, args.keep)
        found.append(measure_site(database, args.repeat))
        database.dispose()
    small, big = sites[0], sites[1]
    print()
    heads = [f"{name}: {games:,} + {finished:,} finished"
             for name, (games, finished, _) in (("small", small), ("big", big))]
    print(f"{'':20} {heads[0]:>33}   {heads[1]:>33}")
    print(f"{'ms':20} {'p50':>8} {'p95':>8} {'p99':>8} {'stmts':>6}   "
          f"{'p50':>8} {'p95':>8} {'p99':>8} {'stmts':>6}")
    for label in found[0]:
        print(f"{label:20} {found[0][label]}   {found[1][label]}")


if __name__ == "__main__":
    main()
