"""Searches on `pbem worker` processes (PBEM_TASKS=procrastinate): computer moves per minute with
1, 2 and 4 workers (normal and strong), and the wait from a person's move to the reply with 50
games at once.

    .venv/bin/python bench/bot_workers.py [--workers 1 2 4] [--levels normal strong]
        [--seconds 20] [--strong-seconds 1] [--games 50] [--rounds 3]

``--levels`` with no level skips the moves per minute, ``--games 0`` the wait.

Each run gets a fresh schema in the PostgreSQL at PBEM_BENCH_POSTGRES_URL (default: the tests'
postgresql+psycopg://postgres@127.0.0.1:5432/test), dropped afterwards, and real `pbem worker`
processes (each one search at a time).

Moves per minute: games of Mosey (order 4) between two computers, enough of them that every
worker always has a job; each move queues the next search in its own transaction, so the games
go on from worker to worker. The count is of the moves played in ``--seconds`` once the workers
have started. Strong thinks ``--strong-seconds`` a move (the service's default is 5; with a time
budget a worker plays about one move per budget whatever the cores, so moves per minute measure
the queue, not the search), or, at 0, plays its fixed 2000 playouts.

The wait: ``--games`` games of a person against the computer (normal); each round every person
moves at once, as if their emails had all come in together, and the script waits for every
reply, with the scheduler running as ``pbem scheduler`` runs it (its sweep of the queue every
2 s, which here finds nothing lost). Median, 90th percentile and largest wait.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from sqlalchemy import create_engine, func, text
from sqlmodel import SQLModel, col, select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pbem.ratelimit  # noqa: F401  (its table is on the metadata too)
from bench.bot_replies import new_games, people_move, wait_for_replies
from pbem.db import Database
from pbem.features import connect
from pbem.links import Links
from pbem.mail.outbox import SmtpSettings
from pbem.models import GameRecord, GameStatus, Move, MoveSource
from pbem.scheduler.runner import SchedulerJobs, build_scheduler
from pbem.services import (
    Site,
    create_game,
)
from pbem.services.players import bot_spec
from pbem.tasks.jobs import make_job_tables
from pbem.tasks.queueing import queue_with_writes, requeue

ROOT = Path(__file__).resolve().parent.parent
URL = os.environ.get("PBEM_BENCH_POSTGRES_URL",
                     "postgresql+psycopg://postgres@127.0.0.1:5432/test")
NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
SECRET = "bench-secret"
BASE = "http://bench.invalid"
MAIL_FROM = "pbem@bench.invalid"


@contextmanager
def schema() -> Iterator[tuple[Database, str]]:
    """A fresh schema with pbem's tables and the job tables; writes queue searches."""
    name = f"pbem_bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{name}"'))
    database = Database(URL, search_path=name)
    try:
        SQLModel.metadata.create_all(database.engine)
        make_job_tables(database)
        queue_with_writes(database)
        yield database, name
    finally:
        database.dispose()
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{name}" CASCADE'))
        admin.dispose()


def registered(database: Database) -> int:
    with database.session() as session:
        return int(session.execute(text("SELECT count(*) FROM procrastinate_workers"))
                   .scalar_one())


@contextmanager
def workers(database: Database, name: str, count: int, strong_seconds: float,
            folder: Path) -> Iterator[None]:
    """``count`` `pbem worker` processes, each registered when the block starts."""
    env = {**os.environ, "PBEM_DATABASE_URL": URL, "PBEM_DATABASE_SEARCH_PATH": name,
           "PBEM_TASKS": "procrastinate", "PBEM_ENV": "development",
           "PBEM_SECRET_KEY": SECRET, "PBEM_BASE_URL": BASE, "PBEM_MAIL_FROM": MAIL_FROM,
           "PBEM_BOT_STRONG_SECONDS": str(strong_seconds), "PYTHONPATH": str(ROOT)}
    processes = [subprocess.Popen([sys.executable, "-m", "pbem.cli", "worker"], env=env,
                                  cwd=folder, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) for _ in range(count)]
    try:
        deadline = time.monotonic() + 120
        while registered(database) < count:
            if time.monotonic() > deadline:
                raise SystemExit("the workers did not start")
            time.sleep(0.1)
        yield
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            process.wait(timeout=60)


def bot_moves(database: Database) -> int:
    with database.session() as session:
        return int(session.exec(select(func.count()).select_from(Move).where(
            col(Move.source) == MoveSource.BOT)).one())


def moves_per_minute(level: str, count: int, seconds: float, strong_seconds: float,
                     site: Site, folder: Path) -> float:
    with schema() as (database, name):
        # Each game has one search queued at a time, and the queue serves them in turn, so
        # they all end at about the same time: enough of them to outlast the count.
        for _ in range(40 * count):
            with database.write() as session:
                create_game(session, NOW, site, game_type="mosey", options={"order": 4},
                            players=[bot_spec(level), bot_spec(level)])
        with workers(database, name, count, strong_seconds, folder):
            before, began = bot_moves(database), time.perf_counter()
            time.sleep(seconds)
            made, took = bot_moves(database) - before, time.perf_counter() - began
        with database.session() as session:
            unfinished = session.exec(select(func.count()).select_from(GameRecord).where(
                col(GameRecord.status) == GameStatus.ACTIVE)).one()
        if not unfinished:
            print("  (every game ended before the time was up: more games needed)")
        return 60 * made / took


def reply_waits(count: int, games: int, rounds: int, site: Site, folder: Path) -> list[float]:
    with schema() as (database, name):
        ids = new_games(database, site, games, "normal")
        jobs = SchedulerJobs(database, site, SmtpSettings("127.0.0.1", 9, MAIL_FROM),
                             queue_bots=partial(requeue, database))
        jobs.is_active(datetime.now(UTC))
        scheduler = build_scheduler(jobs, blocking=False, sweep_every=3600, deliver_every=3600)
        rng, waits = random.Random(1), []
        with workers(database, name, count, 0.0, folder):
            scheduler.start()
            try:
                for _ in range(rounds):
                    moved = people_move(database, site, ids, rng)
                    waits += wait_for_replies(database, moved, limit=300.0)
            finally:
                scheduler.shutdown(wait=True)
                jobs.stop()
        return sorted(waits)


def main() -> None:
    connect()  # ratings, tournaments and rematches react to games that end
    # The scheduler's delivery finds no relay here, as meant: its warning is not a result.
    logging.getLogger("pbem.scheduler.runner").setLevel(logging.ERROR)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--levels", nargs="*", default=["normal", "strong"],
                        choices=("easy", "normal", "strong"))
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--strong-seconds", type=float, default=1.0)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    site = Site(Links(SECRET, BASE), MAIL_FROM, strong_seconds=args.strong_seconds)
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; "
          f"Mosey order 4; PostgreSQL at {URL.rpartition('@')[2]}")
    with tempfile.TemporaryDirectory() as folder:
        for level in args.levels:
            budget = (f" ({args.strong_seconds:g} s a move)" if args.strong_seconds
                      else " (2000 playouts a move)") if level == "strong" else ""
            for count in args.workers:
                rate = moves_per_minute(level, count, args.seconds, args.strong_seconds, site,
                                        Path(folder))
                print(f"{level}{budget}, {count} worker(s): {rate:.0f} computer moves per "
                      f"minute")
        for count in args.workers if args.games and args.rounds else []:
            waits = reply_waits(count, args.games, args.rounds, site, Path(folder))
            print(f"{args.games} games at once, normal, {count} worker(s): replies "
                  f"{len(waits)}: median {statistics.median(waits):.2f} s, 90th percentile "
                  f"{waits[int(0.9 * (len(waits) - 1))]:.2f} s, largest {waits[-1]:.2f} s")


if __name__ == "__main__":
    main()
