"""Service speed: a move's POST-to-commit time, and emails per second through the outbox.

    .venv/bin/python bench/service.py [--moves 200] [--game GAME] [--database-url URL]

The POST is timed through Flask's test client against a real SQLite file (or the URL given), so
it includes the request, the engine, the transaction with its outbox rows, and the commit, but not
a network hop. Delivery goes over real SMTP to an aiosmtpd server on loopback, including building
each MIME message and the board PNG (rendered once per position and viewer, then reused).
"""

from __future__ import annotations

import argparse
import random
import re
import socket
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from aiosmtpd.controller import Controller
from sqlalchemy import create_engine, event, text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from pbem import create_app
from pbem.db import Database
from pbem.links import Links
from pbem.mail.catcher import CatchingHandler
from pbem.mail.outbox import SmtpSettings, deliver_pending
from pbem.migrate import upgrade
from pbem.models import GameRecord
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, create_game, start_game

SECRET = "bench-secret"
BASE = "http://localhost"


def new_game(database: Database, site: Site, game_id: str) -> int:
    count = engine.new_game(game_id).num_players
    with database.write() as session:
        row = create_game(session, datetime.now(UTC), site, game_type=game_id,
                          players=[PlayerSpec(f"P{n}", f"p{n}@bench.test") for n in range(count)])
        assert row.id is not None
        start_game(session, datetime.now(UTC), site, game_id=row.id, force=True)
        return row.id


def bench_moves(database: Database, site: Site, game_id: str,
                moves: int) -> tuple[list[float], list[float]]:
    """Each POST's wall time and this process's CPU time for it (the server's share alone:
    the database's work shows only in the wall time); prints the SQL statements each sent."""
    app = create_app({"ENV": "development", "SECRET_KEY": SECRET, "BASE_URL": BASE,
                      "DATABASE": database, "DATABASE_URL": database.url}, read_env=False)
    client = app.test_client()
    rng = random.Random(1)
    timings: list[float] = []
    cpu_times: list[float] = []
    counts: list[int] = []
    statements: list[str] = []
    event.listen(database.engine, "before_cursor_execute",
                 lambda _conn, _cursor, statement, *_: statements.append(statement))
    game_pk = new_game(database, site, game_id)
    while len(timings) < moves:
        with database.session() as session:
            row = session.get(GameRecord, game_pk)
        assert row is not None
        if row.to_move is None:
            game_pk = new_game(database, site, game_id)
            continue
        game, state = current_state(row)
        move = game.random_move(state, rng)
        url = site.links.move_url(game_pk, row.to_move, row.ply) + "/confirm"
        page = client.get(url, query_string={"move": str(move)})
        token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        assert token, page.text
        before = len(statements)
        start, cpu = time.perf_counter(), time.process_time()
        done = client.post(url, data={"csrf_token": token[1], "move": str(move)})
        timings.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu)
        counts.append(len(statements) - before)
        assert done.status_code in (302, 303), done.text
    print(f"SQL statements per POST: median {statistics.median(counts):g}, max {max(counts)}")
    return timings, cpu_times


def bench_delivery(database: Database) -> tuple[int, float]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    received: list[bytes] = []
    controller = Controller(CatchingHandler(lambda f, r, raw: received.append(raw)),
                            hostname="127.0.0.1", port=port)
    controller.start()
    try:
        start = time.perf_counter()
        report = deliver_pending(database, SmtpSettings("127.0.0.1", port, "pbem <p@bench.test>"),
                                 datetime.now(UTC), limit=100_000)
        elapsed = time.perf_counter() - start
    finally:
        controller.stop()
    assert report.sent == len(received), report
    return report.sent, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--game", default=None, help="default: the first game in the catalogue")
    parser.add_argument("--database-url", default=None, help="default: a fresh SQLite file")
    args = parser.parse_args()
    game_id = args.game or next(iter(engine.GAMES))
    folder = tempfile.mkdtemp(prefix="pbem-bench-")
    url = args.database_url or f"sqlite:///{folder}/bench.db"
    schema = None
    if url.startswith("postgresql"):
        # A schema of its own, dropped at the end, so the bench never touches other data.
        schema = f"pbem_bench_{uuid.uuid4().hex[:10]}"
        with create_engine(url, isolation_level="AUTOCOMMIT").connect() as connection:
            connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    upgrade(url, search_path=schema)  # the real schema, with its indexes
    database = Database(url, search_path=schema)
    site = Site(Links(SECRET, BASE), "pbem <p@bench.test>")
    try:
        run(database, site, game_id, args.moves)
    finally:
        database.dispose()
        if schema:
            with create_engine(url, isolation_level="AUTOCOMMIT").connect() as connection:
                connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))


def run(database: Database, site: Site, game_id: str, moves: int) -> None:

    timings, cpu_times = bench_moves(database, site, game_id, moves)
    for label, times in (("wall", timings), ("cpu", cpu_times)):
        ms = sorted(t * 1000 for t in times)
        print(f"move POST-to-commit, {label} ({game_id}, {database.engine.dialect.name}, "
              f"{len(ms)} moves): median {statistics.median(ms):.1f} ms, "
              f"p95 {ms[int(len(ms) * 0.95) - 1]:.1f} ms, max {ms[-1]:.1f} ms")
    sent, elapsed = bench_delivery(database)
    print(f"outbox delivery over SMTP to aiosmtpd on loopback: {sent} emails in {elapsed:.2f} s "
          f"= {sent / elapsed:.0f} emails/s (each new position's PNG rendered once)")
    sent, elapsed = _repeat_delivery(database)
    print(f"outbox delivery with every board already rendered: {sent} emails in {elapsed:.2f} s "
          f"= {sent / elapsed:.0f} emails/s")


def _repeat_delivery(database: Database) -> tuple[int, float]:
    """Queue every sent email again: the board PNGs now come from the cache."""
    from sqlmodel import select

    from pbem.models import MailStatus, OutboxEmail

    with database.write() as session:
        for email in session.exec(select(OutboxEmail)):
            email.status, email.attempts = MailStatus.QUEUED, 0
            session.add(email)
    return bench_delivery(database)


if __name__ == "__main__":
    main()
