"""How soon the computer answers a move: seconds from a person's move to the computer's reply.

    .venv/bin/python bench/bot_replies.py [--games 8] [--rounds 5] [--level normal] [--workers 2]

``--games`` games of Mosey (order 4) between a person and the computer, in a SQLite file, with
the scheduler running as ``pbem scheduler`` runs it (its computer-players job every 2 s, the
searches in ``--workers`` worker processes; no sweep or delivery meanwhile). Each round every
person moves at once, as if their emails had all come in together; the script then waits for
every reply. Prints the median, 90th percentile and largest wait, and replies per second.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlmodel import SQLModel

from pbem.db import Database
from pbem.features import connect
from pbem.links import Links
from pbem.mail.outbox import SmtpSettings
from pbem.models import GameRecord, GameStatus
from pbem.positions import current_state
from pbem.scheduler.runner import SchedulerJobs, build_scheduler
from pbem.scheduler.search_process import BotSearch, SearchProcess
from pbem.services import PlayerSpec, Site, create_game, respond_to_invitation, submit_move
from pbem.services.players import bot_spec

NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)


def new_games(database: Database, site: Site, count: int, level: str) -> list[int]:
    ids = []
    for number in range(count):
        with database.write() as session:
            row = create_game(session, NOW, site, game_type="mosey", options={"order": 4},
                              players=[PlayerSpec(f"P{number}", f"p{number}@example.test"),
                                       bot_spec(level)])
            assert row.id is not None
            respond_to_invitation(session, NOW, site, game_id=row.id, seat=0, accept=True)
            ids.append(row.id)
    return ids


def people_move(database: Database, site: Site, games: list[int],
                rng: random.Random) -> dict[int, tuple[int, float]]:
    """Each person whose turn it is moves; game -> (the ply the reply will make, when)."""
    moved = {}
    for game_id in games:
        with database.session() as session:
            row = session.get(GameRecord, game_id)
        if row is None or row.status != GameStatus.ACTIVE or row.to_move != 0:
            continue
        game, state = current_state(row)
        with database.write() as session:
            submit_move(session, NOW, site, game_id=game_id, seat=0, ply=row.ply,
                        text=str(game.random_move(state, rng)))
        moved[game_id] = (row.ply + 2, time.perf_counter())
    return moved


def wait_for_replies(database: Database, moved: dict[int, tuple[int, float]],
                     limit: float = 120.0) -> list[float]:
    waits: list[float] = []
    pending = dict(moved)
    start = time.perf_counter()
    while pending and time.perf_counter() - start < limit:
        time.sleep(0.05)
        with database.session() as session:
            for game_id, (ply, since) in list(pending.items()):
                row = session.get(GameRecord, game_id)
                if row is not None and (row.ply >= ply or row.status != GameStatus.ACTIVE):
                    waits.append(time.perf_counter() - since)
                    del pending[game_id]
    if pending:
        print(f"  {len(pending)} replies still missing after {limit:.0f} s")
    return waits


def warm_up(searches: SearchProcess, workers: int) -> None:
    """Start every worker (each starts on a search that finds the others busy) before timing."""
    search = BotSearch("mosey", {"order": 4}, None, seat=0, level="normal", seed=0)
    with ThreadPoolExecutor(workers) as threads:
        list(threads.map(searches.run, [search] * 2 * workers))


def main() -> None:
    connect()  # ratings, tournaments and rematches react to games that end
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--level", default="normal", choices=("easy", "normal", "strong"))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        database = Database(f"sqlite:///{folder}/bench.db")
        SQLModel.metadata.create_all(database.engine)
        site = Site(Links("bench-secret", "http://bench.invalid"), "pbem@bench.invalid",
                    strong_seconds=5.0)  # the default PBEM_BOT_STRONG_SECONDS
        games = new_games(database, site, args.games, args.level)
        jobs = SchedulerJobs(database, site, SmtpSettings("127.0.0.1", 9, "pbem@bench.invalid"),
                             searches=SearchProcess(args.workers))
        jobs.is_active(datetime.now(UTC))
        warm_up(jobs.searches, args.workers)
        scheduler = build_scheduler(jobs, blocking=False, sweep_every=3600, deliver_every=3600)
        scheduler.start()
        rng, waits, began = random.Random(1), [], time.perf_counter()
        try:
            for _ in range(args.rounds):
                waits += wait_for_replies(database, people_move(database, site, games, rng))
        finally:
            scheduler.shutdown(wait=True)
            jobs.stop()
            database.dispose()
        took = time.perf_counter() - began
    waits.sort()
    print(f"{args.games} games, {args.rounds} rounds, level {args.level}, "
          f"{args.workers} worker(s), the computer-players job every 2 s")
    print(f"  replies {len(waits)}: median {statistics.median(waits):.2f} s, "
          f"90th percentile {waits[int(0.9 * (len(waits) - 1))]:.2f} s, "
          f"largest {waits[-1]:.2f} s; {len(waits) / took:.2f} replies per second")


if __name__ == "__main__":
    main()
