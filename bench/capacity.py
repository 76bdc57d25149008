"""Capacity: one PostgreSQL site with many active games, measured beside a small one.

    nice .venv/bin/python bench/capacity.py [--games 100000] [--finished 1000000]
        [--players 20000] [--baseline 1000] [--repeat 30] [--keep]

Each site is a database of its own (``pbem_capacity_<games>``) made by pbem's migrations and
filled in bulk (multi-row inserts, no service calls): a mix of the nine games and their board
sizes, each active game at a ply spread over a real game's length (random games played once per
kind with the engine, their positions and moves reused), 10% due within the hour, 20,000 players
of whom a few have 200 active games, and finished, listed games for the archive (without their
moves: the archive lists rows and never reads them). Last, a Swiss tournament of 200 of the
players made through pbem's own services (:func:`add_swiss`, 20-30 s): 5 of its 9 rounds played
(its finished games are in the archive), the 6th under way (100 active games, not due at NOW).
Then it prints, for the small site and the big one side by side: the sweep with nothing due and
with 10 and 100 games due (the real :func:`pbem.scheduler.sweep` with ``now``; reminders), a
player's home with 200 games, the archive and its filters, the Swiss's standings page,
``/metrics`` and ``/healthz`` (p50/p95/p99 over ``--repeat`` requests through the Flask test
client), each with its number of SQL statements; for the big site also the database's size per
active and per finished game, the pool's connections per process and the slowest statements with
their plans (timed client-side: pg_stat_statements needs shared_preload_libraries and a server
restart).

Finished games beyond the first 2,000 are copies made inside the server (INSERT ... SELECT over
generate_series): a million in 6.5 minutes on the 2-core machine under load, where multi-row
inserts made about 500 games a second.

Baseline (2026-11-28, 2 cores shared with other jobs, load 9-14, so p95s are noisy): 35,000
active games (the build of 100,000 was stopped there) + 1,002,000 finished, 20,000 players;
p50 / p95 ms.

                        before (load ~14)    after (load ~12)     after (load ~9)
    sweep, 0 due          43 /   32           10 /   15            3 /    3
    sweep, 100 due      1885 / 2421         (noisy)               377 /  394
    home, 200 games      629 / 1438          257 / 1151           76 /  195
    archive             2375 / 2901           47 /  135           15 /   19
    archive, page 50    2614 / 3524           55 /  138           17 /   24
    archive, game       2908 / 3547           47 /   84           15 /   18
    archive, player     2073 / 3280         1157 / 1824          141 /  224
    archive, days        152 /  263           51 /   97           32 /   46
    /metrics            1368 / 2275           30 /  134           15 /   21
    /metrics, recount    821 /  871         1255 / 1365          549 /  557  (once per 10 min)
    /healthz              31 /   48           30 /   98            5 /    7

The home and the archive's player filter (2026-11-28 01:43 and 01:45, one run after the other at
load 6-8, --repeat 30, the same site; cpu: this process's CPU time per request, which the
load hardly moves; both runs freeze the app's objects as pbem.wsgi does): p50 / p95 ms.

                        before                        after
                        wall          cpu     stmts   wall          cpu     stmts
    home, 200 games      377 /  666   79 / 101   12    246 /  920   54 / 65    12
    archive, player      217 /  414   17 /  19    5    186 /  235   18 / 19     6

Without gc.freeze (the same code, another run at load ~6.5) the home's CPU p95 was 167 ms
against 55 with it: a full collection walked the app's 150,000 objects every few homes. The
home's HTML is the same before and after (six heavy players, four languages, compared line by
line). The player filter's time is PostgreSQL's: "player 123" matches 111 players and about
12,000 games, so the count (capped at 10,001) probes 10,001 games either way (38-100 ms with
the load), while the page itself now walks the archive newest first (22 ms, 1,779 games
checked) where it sorted all 12,000; "player 9" (1,111 players, 120,000 games): the page
916 ms -> 1 ms, the count 216 -> 144 ms.

The home again (2026-11-28 04:31; a site built with --games 3000 --finished 3000 --players 2000,
its first player's 200 active games; this module's measures of that site alone, before and after
in turn, three runs each at load 1.8-2.3 with --repeat 60, the medians of the runs): p50 / p95 ms.

                        before                        after
                        wall          cpu     stmts   wall          cpu     stmts
    home, 200 games       49 /   64   41 / 56    12     27 /   38   21 / 26    11

The home reads its games, and every game's seats with their players, column by column instead of as
ORM objects (its queries took 18 ms of the 48 building a GameRecord, Seat or Player per row, the
seats read by a list of 200 game ids that psycopg parsed anew; now 5), its JSON columns as text
decoded only where needed; the account's settings list their 600 time zones from Python, not a
template loop (2 ms), and its notification setting is read in the page's session, not one of its
own. The HTML is the same before and after (twelve players, six of them with 200 games, four
languages, compared line by line; CSRF tokens differ on every request). Of the 21 ms left: about 9
the page without games (the request, three sessions, the account's sections), 6 the loop over the
games (3 of them signing 285 links), 5 the queries' rows, 1 the rows' HTML.

The Swiss's standings page (200 players, 5 rounds played and the 6th under way: 600 games, a
crosstable of 40,000 cells, 1.7 MB of HTML; 2026-11-28 04:24-04:33, load 1.5-3, --repeat 20,
the small site of 500 + 5,000 games): p50 / p95 ms.

                        before                        after
                        wall          cpu     stmts   wall          cpu     stmts
    swiss standings      545 /  577  524 / 559    8     72 /   79   63 /  70    9

Before, the crosstable was a dict of every pair of players (40,000 lists, and the collections
their making set off) and the template wrote its 40,000 cells one by one, asking gettext five
times a row; now pbem.tournaments.standings.crosstable keeps only the pairs who met, and
pbem.web.tournaments.crosstable_cells writes each column's empty cell once. The games and seats
are read as columns, not ORM objects, and only the games whose places need their final position
(draws: one more statement) are read whole and decoded. The HTML is the same before and after
(four languages, compared byte for byte). What is left: about 30 ms reading and scoring the
600 games, 25 ms writing the page.

Database: 34 kB per active game (its moves with their positions are most of it), 1.3 kB per
finished game without moves (a finished game keeps its moves: add an active game's share).
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, insert, text
from sqlalchemy.engine import Engine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from pbem import create_app
from pbem.admin.actions import adjudicate
from pbem.clock.controls import PerMove
from pbem.clock.tables import GameClock
from pbem.db import Database
from pbem.features import connect
from pbem.links import Links
from pbem.migrate import upgrade
from pbem.models import GameRecord, GameStatus, Move, MoveSource, Player, Seat
from pbem.monitoring import RECOUNT, Tallies
from pbem.scheduler import sweep
from pbem.scheduler.bots import bot_turns
from pbem.services import PlayerSpec, Site
from pbem.services.resignation import resign
from pbem.tournaments.queries import games_running
from pbem.tournaments.service import create_tournament, start_tournament
from pbem.tournaments.tables import Tournament

SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"
NOW = datetime(2026, 3, 3, 12, 0, tzinfo=UTC)
PER_MOVE = timedelta(days=3)
HEAVY_GAMES = 200  # active games of each of the busiest players
HEAVY_PLAYERS = 10
CHUNK = 5_000
SWISS_PLAYERS = 200  # the tournament's: players HEAVY_PLAYERS + 1 onwards
SWISS_ROUNDS = 9
SWISS_PLAYED = 5  # rounds finished; the next one is under way
SWISS_DRAWS = 0.1  # the share of its games adjudicated drawn (the others end by resignation)
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


    def add_finished_copies(self, count: int, templates: int = 2_000) -> None:
        """``count`` finished, listed games: ``templates`` of them built as above, the rest
        copied from those inside the server (``INSERT ... SELECT`` over ``generate_series``),
        each copy with its own public id, dates spread over two years and random players: the
        archive reads rows, not how they were made, and a million rows go in minutes instead of
        an hour of multi-row inserts."""
        first = self.next_game
        self.add_games(min(count, templates), finished=True)
        copies = count - min(count, templates)
        if copies <= 0:
            return
        kinds = self.next_game - first
        game_columns = [c.name for c in GameRecord.__table__.columns  # type: ignore[attr-defined]
                        if c.name not in ("id", "public_id", "seed", "created_at", "started_at",
                                          "finished_at")]
        clock_columns = [c.name for c in GameClock.__table__.columns  # type: ignore[attr-defined]
                         if c.name not in ("id", "game_id")]
        seat_columns = [c.name for c in Seat.__table__.columns  # type: ignore[attr-defined]
                        if c.name not in ("id", "game_id", "player_id")]
        spread = ("timestamptz '{now}' - (n % 730) * interval '1 day'"
                  " - (n % 1440) * interval '1 minute'")
        for start in range(0, copies, 100_000):
            end = min(copies, start + 100_000)
            began = self.next_game
            with self.database.write() as session:
                # Copy n of template (n % kinds): its id is first + n % kinds.
                finished_at = spread.format(now=NOW.isoformat())
                session.execute(text(
                    f"INSERT INTO games (public_id, seed, created_at, started_at, finished_at, "
                    f"{', '.join(game_columns)}) "
                    f"SELECT 'c' || lpad(n::text, 9, '0'), 'seed' || n, {finished_at} - interval "
                    f"'30 days', {finished_at} - interval '30 days', {finished_at}, "
                    f"{', '.join('t.' + c for c in game_columns)} "
                    f"FROM generate_series(:start, :end - 1) AS n "
                    f"JOIN games t ON t.id = :first + n % :kinds ORDER BY n"),
                    {"start": start, "end": end, "first": first, "kinds": kinds})
                session.execute(text(
                    f"INSERT INTO game_clocks (game_id, {', '.join(clock_columns)}) "
                    f"SELECT g.id, {', '.join('c.' + c for c in clock_columns)} FROM games g "
                    f"JOIN game_clocks c ON c.game_id = :first + "
                    f"substr(g.public_id, 2)::int % :kinds "
                    f"WHERE g.public_id LIKE 'c%' AND g.id >= :began"),
                    {"first": first, "kinds": kinds, "began": began})
                session.execute(text(
                    f"INSERT INTO seats (game_id, player_id, {', '.join(seat_columns)}) "
                    f"SELECT g.id, {HEAVY_PLAYERS + 1} + (hashint4(g.id * 8 + s.seat) & "
                    f"2147483647) % {self.players - HEAVY_PLAYERS}, "
                    f"{', '.join('s.' + c for c in seat_columns)} FROM games g "
                    f"JOIN seats s ON s.game_id = :first + substr(g.public_id, 2)::int % :kinds "
                    f"WHERE g.public_id LIKE 'c%' AND g.id >= :began"),
                    {"first": first, "kinds": kinds, "began": began})
                self.next_game = int(session.execute(text(
                    "SELECT max(id) + 1 FROM games")).scalar_one())
            print(f"  {end + min(count, templates):,} finished games", flush=True)


def swiss_slug(database: Database) -> str | None:
    """The slug of the site's Swiss tournament (its standings page: /tournaments/<slug>)."""
    with database.session() as session:
        return session.execute(text("SELECT slug FROM tournaments WHERE format = 'swiss' "
                                    "ORDER BY id LIMIT 1")).scalar_one_or_none()


def add_swiss(database: Database, rng: random.Random, size: int = SWISS_PLAYERS) -> str:
    """A Swiss tournament of ``size`` of the site's players, made through pbem's own
    services (the tournament's rows, pairings, games, clocks and emails as the site makes
    them): SWISS_PLAYED of its SWISS_ROUNDS rounds finished, each game by a resignation or (a
    share SWISS_DRAWS) an organiser's drawn adjudication, and the next round paired and under
    way. Each round ends in one transaction (the last game's end pairs the next round), a day
    apart, so the running round's clocks are not yet due at NOW. Its emails are marked sent, as
    they would have been long before NOW. Returns the tournament's slug."""
    connect()  # the tournament pairs its next round when a round's last game ends (idempotent)
    site = Site(Links("bench-secret", "http://localhost"), "pbem@example.test")
    began = time.perf_counter()
    first = NOW - timedelta(days=SWISS_PLAYED + 1)
    with database.session() as session:
        people = session.execute(text(
            "SELECT name, email FROM players WHERE id > :heavy ORDER BY id LIMIT :n"),
            {"heavy": HEAVY_PLAYERS, "n": size}).all()
    with database.write() as session:
        made = create_tournament(
            session, first, site, name="Capacity Swiss", game_type="mosey",
            players=[PlayerSpec(name, email) for name, email in people], fmt="swiss",
            rounds=SWISS_ROUNDS, time_control=PerMove(PER_MOVE), created_by="bench@example.test")
        assert made.id is not None
        tournament_id, slug = made.id, made.slug
    with database.write() as session:
        start_tournament(session, first, site, tournament_id=tournament_id)
    for number in range(1, SWISS_PLAYED + 1):
        ended = first + timedelta(days=number)
        with database.write() as session:
            games = session.execute(text(
                "SELECT t.game_id FROM tournament_games t JOIN games g ON g.id = t.game_id "
                "WHERE t.tournament_id = :t AND t.round = :r AND g.status = 'active' "
                "ORDER BY t.game_id"), {"t": tournament_id, "r": number}).scalars().all()
            for game_id in games:
                if rng.random() < SWISS_DRAWS:
                    adjudicate(session, ended, site, game_id=game_id, winners=[],
                               reason="agreed draw", actor="bench@example.test")
                else:
                    resign(session, ended, site, game_id=game_id, seat=rng.randrange(2))
    with database.write() as session:
        tournament = session.get(Tournament, tournament_id)
        assert tournament is not None and tournament.current_round == SWISS_PLAYED + 1
        running = games_running(session, tournament_id, SWISS_PLAYED + 1)
        assert games_running(session, tournament_id) == running > 0
        session.execute(text("UPDATE outbox_emails SET status = 'sent' WHERE status = 'queued'"))
    print(f"Swiss of {size} players, {SWISS_PLAYED} of {SWISS_ROUNDS} rounds played, "
          f"round {SWISS_PLAYED + 1} under way: {time.perf_counter() - began:.1f} s")
    return slug


def site_url(games: int, prefix: str = "pbem_capacity") -> str:
    """The site's database: ``prefix`` keeps two people's runs on one server apart."""
    return f"{SERVER}/{prefix}_{games}"


def build_site(games: int, finished: int, players: int, kinds: list[tuple[Sample, int]],
               keep: bool, prefix: str = "pbem_capacity", swiss: int = SWISS_PLAYERS
               ) -> Database:
    """The site ``prefix_games``, built now (or, with ``keep``, as an earlier run left it),
    with a Swiss of ``swiss`` players."""
    url = site_url(games, prefix)
    admin = create_engine(f"{SERVER}/postgres", isolation_level="AUTOCOMMIT")
    name = url.rpartition("/")[2]
    with admin.connect() as connection:
        exists = connection.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"),
                                    {"n": name}).first()
        if exists and keep:
            admin.dispose()
            upgrade(url)  # new indexes of this checkout
            print(f"{name}: kept from an earlier run")
            database = Database(url)
            if swiss_slug(database) is None:  # built before the bench had its tournament
                add_swiss(database, random.Random(games), swiss)
            return database
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    began = time.perf_counter()
    upgrade(url)
    database = Database(url)
    builder = Builder(database, kinds, random.Random(games),
                      max(players, 200, HEAVY_PLAYERS + swiss))
    builder.add_players()
    builder.add_games(games, finished=False)
    builder.add_finished_copies(finished)
    add_swiss(database, builder.rng, swiss)
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
    # This process's CPU time (p50, p95): the server's own work, whatever else loads the machine.
    cpu50: float = 0.0
    cpu95: float = 0.0

    def __str__(self) -> str:
        return (f"{self.p50 * 1000:8.1f} {self.p95 * 1000:8.1f} {self.p99 * 1000:8.1f} "
                f"{self.statements:6d} {self.cpu50 * 1000:6.1f} {self.cpu95 * 1000:6.1f}")


@dataclass
class Slowest:
    """The statements that took longest, timed client-side (pg_stat_statements needs the
    server's shared_preload_libraries and a restart): the longest run of each, with its
    parameters for EXPLAIN."""

    runs: dict[str, tuple[float, Any]]
    hooks: list[tuple[str, Callable[..., None]]] = field(default_factory=list)

    def listen(self, engine_: Engine) -> None:
        def before(conn: Any, _cursor: Any, _statement: str, _parameters: Any, *_: Any) -> None:
            conn.info.setdefault("bench_began", []).append(time.perf_counter())

        def after(conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
            took = time.perf_counter() - conn.info["bench_began"].pop()
            # The pages' reads; the bench's own resets of due games are not the site's work.
            if not statement.lstrip().upper().startswith("SELECT"):
                return
            if took > self.runs.get(statement, (0.0, None))[0]:
                self.runs[statement] = (took, parameters)

        self.hooks = [("before_cursor_execute", before), ("after_cursor_execute", after)]
        for name, hook in self.hooks:
            event.listen(engine_, name, hook)

    def report(self, engine_: Engine, count: int = 5) -> None:
        for name, hook in self.hooks:  # the report's own statements are not the site's
            event.remove(engine_, name, hook)
        print("\nslowest statements (longest run, client-side), with their plans:")
        worst = sorted(self.runs.items(), key=lambda item: -item[1][0])[:count]
        for statement, (took, parameters) in worst:
            print(f"\n{took * 1000:8.1f} ms  {' '.join(statement.split())[:300]}")
            with engine_.connect() as connection:
                plan = connection.exec_driver_sql(f"EXPLAIN (ANALYZE, BUFFERS) {statement}",
                                                  parameters).scalars().all()
            for line in plan[:14]:
                print(f"            {line}")


def database_report(database: Database, peak_connections: int) -> None:
    """Size per active and per finished game (each game table's size shared out by its rows'
    bytes), and connections: SQLAlchemy's pool per process and what the measures used."""
    tables = {"games": "g.id", "game_clocks": "t.game_id", "seats": "t.game_id",
              "moves": "t.game_id"}
    with database.session() as session:
        count = dict(session.execute(text(
            "SELECT status = 'finished', count(*) FROM games GROUP BY 1")).all())
        per = {True: 0.0, False: 0.0}
        for table, key in tables.items():
            size = session.execute(text(f"SELECT pg_total_relation_size('{table}')")).scalar_one()
            join = "" if table == "games" else f" JOIN games g ON g.id = {key}"
            source = "games g" if table == "games" else f"{table} t"
            shares = dict(session.execute(text(
                f"SELECT g.status = 'finished', sum(pg_column_size({source.split()[1]}.*)) "
                f"FROM {source}{join} GROUP BY 1")).all())
            whole = sum(float(v) for v in shares.values()) or 1.0
            for finished, part in shares.items():
                per[bool(finished)] += size * float(part) / whole
            print(f"  {table:12} {size / 2**20:9.1f} MB")
        total = session.execute(text("SELECT pg_database_size(current_database())")).scalar_one()
    active, finished = count.get(False, 0), count.get(True, 0)
    print(f"  database     {total / 2**20:9.1f} MB in all")
    if active:
        print(f"  per active game:   {per[False] / active / 1024:6.1f} kB (games, clock, seats, "
              f"moves with their positions)")
    if finished:
        print(f"  per finished game: {per[True] / finished / 1024:6.1f} kB (moves not built: "
              f"add an active game's moves for a real one)")
    pool = database.engine.pool
    print(f"  connections: pool {type(pool).__name__} of {getattr(pool, 'size', lambda: '?')()}"
          f" + {getattr(pool, '_max_overflow', '?')} overflow per process; at most "
          f"{peak_connections} open to this database during the measures")


def timed(engine_: Engine, action: Callable[[], Any], repeat: int) -> Measure:
    action()  # warm: the first request compiles templates and queries
    took, cpu = [], []
    with counting(engine_) as count:
        action()
    for _ in range(repeat):
        began, cpu_began = time.perf_counter(), time.process_time()
        action()
        took.append(time.perf_counter() - began)
        cpu.append(time.process_time() - cpu_began)

    def cuts(values: list[float]) -> list[float]:
        return (statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1
                else values * 99)

    walls, cpus = cuts(took), cuts(cpu)
    return Measure(walls[49], walls[94], walls[98], count[0], cpus[49], cpus[94])


def make_due(database: Database, due: int) -> None:
    """Exactly ``due`` games owe a reminder at NOW; nothing else is due. The Swiss
    tournament's games are left as the service made them (not due at NOW), so the sweep's
    measures stay those of the bulk-built games."""
    with database.write() as session:
        session.execute(text("UPDATE game_clocks SET next_due_at = deadline, reminder_seconds = "
                             "'[]', reminders_sent = '[]' WHERE next_due_at < :now"),
                        {"now": NOW})
        session.execute(text(
            "UPDATE game_clocks SET reminder_seconds = '[86400]', next_due_at = :due, "
            "deadline = :deadline "
            "WHERE game_id IN (SELECT game_id FROM game_clocks WHERE next_due_at IS NOT NULL "
            "AND game_id NOT IN (SELECT game_id FROM tournament_games) "
            "ORDER BY game_id DESC LIMIT :n)"),
            {"due": NOW - timedelta(seconds=1), "deadline": NOW + timedelta(hours=1), "n": due})


def measure_site(database: Database, repeat: int, report: bool = False) -> dict[str, Measure]:
    """The measures of one site; with ``report``, its sizes, connections and slowest
    statements too."""
    site = Site(Links("bench-secret", "http://localhost"), "pbem@example.test")
    results: dict[str, Measure] = {}
    slowest = Slowest({})
    if report:
        slowest.listen(database.engine)
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
            max(0.0, whole.p99 - reset.p99), whole.statements - reset.statements,
            max(0.0, whole.cpu50 - reset.cpu50), max(0.0, whole.cpu95 - reset.cpu95))
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
    gc.freeze()  # as pbem.wsgi does once the app is made

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
                        ("swiss standings", f"/tournaments/{swiss_slug(database)}"),
                        ("/metrics", "/metrics"), ("/healthz", "/healthz")):
        results[label] = timed(database.engine, page(path), repeat)

    periods = iter(range(1, 1_000))

    def recount() -> None:
        """What a web process's first scrape counts, and one scrape every RECOUNT seconds: the
        emails up to their mark (per process), and the site's moves tally advanced a period
        (its first count, of every move, was the first /metrics above)."""
        tallies = Tallies()
        with database.session() as reading:
            tallies.outbox(reading)
        tallies.moves(database, datetime.now(UTC) + next(periods) * timedelta(seconds=RECOUNT))

    results["/metrics, recount"] = timed(database.engine, recount, 3)
    if report:
        with database.session() as reading:
            peak = reading.execute(text("SELECT count(*) FROM pg_stat_activity "
                                        "WHERE datname = current_database()")).scalar_one()
        slowest.report(database.engine)
        print(f"\n{database.url.rpartition('/')[2]}:")
        database_report(database, int(peak))
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
    parser.add_argument("--prefix", default="pbem_capacity",
                        help="the databases' names: PREFIX_GAMES")
    args = parser.parse_args()
    kinds = samples()
    sites = [(args.baseline, args.baseline * 10, min(args.players, args.baseline * 2)),
             (args.games, args.finished, args.players)]
    found = []
    for games, finished, players in sites:
        database = build_site(games, finished, players, kinds, args.keep, args.prefix)
        found.append(measure_site(database, args.repeat, report=games == args.games))
        database.dispose()
    small, big = sites[0], sites[1]
    print()
    heads = [f"{name}: {games:,} + {finished:,} finished"
             for name, (games, finished, _) in (("small", small), ("big", big))]
    print(f"{'':20} {heads[0]:>47}   {heads[1]:>47}")
    columns = f"{'p50':>8} {'p95':>8} {'p99':>8} {'stmts':>6} {'cpu50':>6} {'cpu95':>6}"
    print(f"{'ms':20} {columns}   {columns}")
    for label in found[0]:
        print(f"{label:20} {found[0][label]}   {found[1][label]}")


if __name__ == "__main__":
    main()
