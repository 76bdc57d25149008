"""Load with faults: games played through their emailed links while processes die. Prints numbers.

    .venv/bin/python bench/load.py [--backend sqlite|postgresql|both] [--games 24] [--plies 6]

For each backend it starts gunicorn (3 workers), a ``pbem scheduler`` process and an aiosmtpd SMTP
sink on loopback; creates the games; then "players" (threads) read each turn email from the sink,
GET its move page, GET the confirm page and POST the confirm with the page's CSRF token, 10% of
them twice at the same moment. Meanwhile it SIGKILLs gunicorn workers and the scheduler (which is
restarted), and stops the SMTP sink for a while. At the end it waits for the outbox to drain and
prints moves/s, confirm-POST latency, 5xx answers, duplicate moves (in the database) and turn
emails lost (written to the outbox but never received). Bounded by --max-seconds and
--drain-seconds; everything stays on 127.0.0.1. A PostgreSQL run uses a schema of its own.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import http.cookiejar
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from aiosmtpd.controller import Controller  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402
from sqlmodel import SQLModel, select  # noqa: E402

from pbem.db import Database  # noqa: E402
from pbem.features import connect  # noqa: E402
from pbem.links import Links  # noqa: E402
from pbem.mail.catcher import CatchingHandler  # noqa: E402
from pbem.models import GameRecord, GameStatus  # noqa: E402
from pbem.positions import current_state  # noqa: E402
from pbem.services import PlayerSpec, Site, create_game, start_game  # noqa: E402
from tests.support import MAIL_FROM, SECRET, free_port, postgres_url, start_gunicorn  # noqa: E402

GAME = "mosey"


class Sink:
    """An SMTP server on loopback that keeps every message, and can be down for a while."""

    def __init__(self) -> None:
        self.port = free_port()
        self.messages: list[bytes] = []
        self.lock = threading.Lock()
        self.controller: Controller | None = None

    def _store(self, _from: str, _to: list[str], raw: bytes) -> None:
        with self.lock:
            self.messages.append(raw)

    def start(self) -> None:
        self.controller = Controller(CatchingHandler(self._store), hostname="127.0.0.1",
                                     port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def since(self, index: int) -> list[bytes]:
        with self.lock:
            return self.messages[index:]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Time the POST alone: a 303 is the answer, not something to follow."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@dataclass
class Stats:
    post_seconds: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    connection_errors: int = 0
    doubles: int = 0
    doubles_both_played: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, status: int) -> None:
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1


def request(opener: Any, url: str, stats: Stats, data: dict[str, str] | None = None,
            retries: int = 2) -> tuple[int, str, float]:
    """(status, body, seconds); a dropped connection (a killed worker) is retried like a person
    pressing again would."""
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    for attempt in range(retries + 1):
        start = time.perf_counter()
        try:
            with opener.open(url, data=body, timeout=30) as response:
                status, page = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, page = error.code, error.read().decode(errors="replace")
        except (urllib.error.URLError, ConnectionError, OSError):
            with stats.lock:
                stats.connection_errors += 1
            if attempt == retries:
                return 0, "", time.perf_counter() - start
            time.sleep(0.3)
            continue
        stats.count(status)
        return status, page, time.perf_counter() - start
    return 0, "", 0.0


class Run:
    """One backend's run: processes, games, players and faults."""

    def __init__(self, url: str, schema: str | None, args: argparse.Namespace) -> None:
        self.url, self.schema, self.args = url, schema, args
        self.folder = Path(tempfile.mkdtemp(prefix="pbem-load-"))
        self.sink = Sink()
        self.database = Database(url, search_path=schema)
        self.stats = Stats()
        self.rng = random.Random(7)
        self.seats: dict[str, tuple[int, int]] = {}  # address -> (game id, seat)
        self.scheduler: subprocess.Popen[bytes] | None = None
        self.events: list[str] = []

    # -- processes ---------------------------------------------------------------------------

    def migrate(self) -> None:
        from pbem.migrate import upgrade

        try:
            upgrade(self.url, search_path=self.schema)
        except Exception as error:  # migrations being edited: the models' schema will do
            print(f"  (migration failed: {error}; using the models' schema)")
            SQLModel.metadata.create_all(self.database.engine)

    def start(self) -> None:
        self.migrate()
        self.sink.start()
        env = {"PBEM_DATABASE_SEARCH_PATH": self.schema or "", "PBEM_SMTP_HOST": "127.0.0.1"}
        self.web = start_gunicorn(self.url, workers=3, smtp_port=self.sink.port, env=env,
                                  folder=self.folder)
        self.site = Site(Links(SECRET, self.web.url), MAIL_FROM)
        self.start_scheduler()

    def start_scheduler(self) -> None:
        command = [sys.executable, "-m", "pbem.cli", "scheduler", "--sweep-every", "5",
                   "--deliver-every", "1"]
        self.scheduler = subprocess.Popen(command, env=self.web.env, cwd=self.folder,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop(self) -> None:
        if self.scheduler is not None and self.scheduler.poll() is None:
            self.scheduler.send_signal(signal.SIGTERM)
            self.scheduler.wait(timeout=30)
        self.web.stop()
        self.sink.stop()
        self.database.dispose()

    def workers(self) -> list[int]:
        path = Path(f"/proc/{self.web.process.pid}/task/{self.web.process.pid}/children")
        return [int(p) for p in path.read_text().split()] if path.exists() else []

    # -- faults -------------------------------------------------------------------------------

    def faults(self, done: threading.Event) -> None:
        """Worker kills every few seconds, the SMTP sink down for a while, scheduler kills."""
        plan: list[tuple[float, str]] = [(2.0 + 4 * n, "worker")
                                         for n in range(self.args.worker_kills)]
        plan += [(5.0 + 30 * n, "scheduler") for n in range(self.args.scheduler_kills)]
        if self.args.smtp_outage:
            plan += [(8.0, "smtp-down"), (8.0 + self.args.smtp_outage, "smtp-up")]
        start = time.monotonic()
        for at, what in sorted(plan):
            if done.wait(max(0.0, at - (time.monotonic() - start))):
                break
            self.fault(what)
        if self.sink.controller is None:
            self.sink.start()  # never leave the sink down

    def fault(self, what: str) -> None:
        if what == "worker":
            pids = self.workers()
            if pids:
                os.kill(random.choice(pids), signal.SIGKILL)
        elif what == "scheduler" and self.scheduler is not None:
            self.scheduler.kill()
            self.scheduler.wait()
            self.start_scheduler()
        elif what == "smtp-down":
            self.sink.stop()
        elif what == "smtp-up":
            self.sink.start()
        self.events.append(f"{datetime.now(UTC):%H:%M:%S} {what}")

    # -- games and players --------------------------------------------------------------------

    def create_games(self) -> None:
        now = datetime.now(UTC)
        for number in range(self.args.games):
            people = [PlayerSpec(f"G{number} P{s}", f"g{number}-p{s}@load.test") for s in (0, 1)]
            with self.database.write() as session:
                row = create_game(session, now, self.site, game_type=GAME, players=people,
                                  per_move=timedelta(days=3))
                assert row.id is not None
                start_game(session, now, self.site, game_id=row.id, force=True)
            for seat, person in enumerate(people):
                self.seats[person.email] = (row.id, seat)

    def game(self, game_id: int) -> GameRecord | None:
        with self.database.session() as session:
            return session.get(GameRecord, game_id)

    def finished(self) -> bool:
        with self.database.session() as session:
            rows = session.exec(select(GameRecord.ply, GameRecord.status)).all()
        return all(ply >= self.args.plies or status != GameStatus.ACTIVE for ply, status in rows)

    def play_turn(self, link: str, address: str) -> None:
        """What a player does with a turn email: open it, pick, confirm (sometimes twice)."""
        game_id, seat = self.seats[address]
        opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), NoRedirect())
        status, _, _ = request(opener, link, self.stats)
        row = self.game(game_id)
        if status != 200 or row is None or row.to_move != seat or row.ply >= self.args.plies:
            return
        game, state = current_state(row)
        move = str(game.random_move(state, random.Random(f"{game_id}:{row.ply}")))
        confirm = f"{link}/confirm"
        status, page, _ = request(opener, f"{confirm}?{urllib.parse.urlencode({'move': move})}",
                                  self.stats)
        token = re.search(r'name="csrf_token" value="([^"]+)"', page)
        if status != 200 or token is None:
            return
        form = {"csrf_token": token[1], "move": move}
        twice = self.rng.random() < 0.10
        answers: list[int] = []

        def post(barrier: threading.Barrier | None) -> None:
            if barrier is not None:
                barrier.wait()
            code, _, seconds = request(opener, confirm, self.stats, form, retries=1)
            with self.stats.lock:
                self.stats.post_seconds.append(seconds)
                answers.append(code)

        if twice:
            barrier = threading.Barrier(2)
            threads = [threading.Thread(target=post, args=(barrier,)) for _ in range(2)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            with self.stats.lock:
                self.stats.doubles += 1
                self.stats.doubles_both_played += answers.count(303) > 1
        else:
            post(None)

    def play(self) -> float:
        """Read turn emails and play them until every game reached --plies; the play time."""
        seen: set[str] = set()
        read = 0
        start = time.monotonic()
        done = threading.Event()
        chaos = threading.Thread(target=self.faults, args=(done,))
        chaos.start()
        with ThreadPoolExecutor(self.args.clients) as pool:
            while time.monotonic() - start < self.args.max_seconds and not self.finished():
                new = self.sink.since(read)
                read += len(new)
                for raw in new:
                    found = turn_link(raw, self.web.url)
                    if found and found[0] not in seen:
                        seen.add(found[0])
                        pool.submit(self.play_turn, found[1], found[2])
                time.sleep(0.05)
        elapsed = time.monotonic() - start
        done.set()
        chaos.join()
        return elapsed

    def drain(self) -> float:
        """Wait (bounded) until the outbox has nothing waiting; the time it took."""
        start = time.monotonic()
        while time.monotonic() - start < self.args.drain_seconds:
            with self.database.session() as session:
                waiting = session.exec(text(
                    "SELECT count(*) FROM outbox_emails WHERE status IN"
                    " ('queued', 'retrying', 'sending')")).scalar()  # type: ignore[call-overload]
            if not waiting:
                break
            time.sleep(0.5)
        return time.monotonic() - start

    # -- the numbers --------------------------------------------------------------------------

    def report(self, play_seconds: float, drain_seconds: float) -> None:
        with self.database.session() as session:
            def one(sql: str) -> Any:
                return session.exec(text(sql)).scalar()  # type: ignore[call-overload]
            moves = one("SELECT count(*) FROM moves WHERE source = 'link'")
            duplicates = one("SELECT count(*) FROM (SELECT game_id, ply FROM moves"
                             " GROUP BY game_id, ply HAVING count(*) > 1) AS d")
            expected = {r[0] for r in session.exec(text(  # type: ignore[call-overload]
                "SELECT message_id FROM outbox_emails WHERE kind = 'turn'"))}
            left = dict(session.exec(text(  # type: ignore[call-overload]
                "SELECT status, count(*) FROM outbox_emails GROUP BY status")).all())
        received = [email.message_from_bytes(raw)["Message-ID"] for raw in self.sink.since(0)]
        lost = expected - set(received)
        ms = sorted(s * 1000 for s in self.stats.post_seconds) or [0.0]

        def pct(p: float) -> float:
            return ms[min(len(ms) - 1, round(p / 100 * (len(ms) - 1)))]

        errors_5xx = sum(n for status, n in self.stats.statuses.items() if status >= 500)
        print(f"  games {self.args.games} x {self.args.plies} plies; play {play_seconds:.1f} s,"
              f" drain {drain_seconds:.1f} s; faults: {', '.join(self.events) or 'none'}")
        print(f"  moves committed through links: {moves} = {moves / play_seconds:.2f} moves/s")
        print(f"  confirm POSTs: {len(self.stats.post_seconds)}; latency p50 {pct(50):.0f} ms,"
              f" p95 {pct(95):.0f} ms, p99 {pct(99):.0f} ms, max {ms[-1]:.0f} ms")
        print(f"  HTTP answers: {dict(sorted(self.stats.statuses.items()))}; 5xx: {errors_5xx};"
              f" dropped connections: {self.stats.connection_errors}")
        print(f"  double confirms: {self.stats.doubles}, both played: "
              f"{self.stats.doubles_both_played}; duplicate moves in the database: {duplicates}")
        print(f"  turn emails: {len(expected)} written, {len(expected) - len(lost)} received,"
              f" {len(lost)} lost (not received within the bound); received twice:"
              f" {len(received) - len(set(received))}; outbox at the end: {left}")


def turn_link(raw: bytes, base: str) -> tuple[str, str, str] | None:
    """(Message-ID, the /play/ link, the recipient) of a turn email, else None."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    body = message.get_body(("plain",))
    if body is None or "It is your turn" not in body.get_content():
        return None
    link = re.search(rf"{re.escape(base)}/play/\S+", body.get_content())
    if link is None:
        return None
    recipient = message["To"].addresses[0].addr_spec
    return str(message["Message-ID"]), link[0], recipient


def with_backend(backend: str, body: Callable[[str, str | None], None]) -> None:
    if backend == "sqlite":
        folder = tempfile.mkdtemp(prefix="pbem-load-db-")
        body(f"sqlite:///{folder}/load.db", None)
        return
    url, problem = postgres_url()
    if url is None:
        print(f"  skipped: {problem}")
        return
    schema = f"pbem_load_{uuid.uuid4().hex[:10]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        body(url, schema)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def main() -> None:
    connect()  # ratings, tournaments and rematches react to games that end
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--plies", type=int, default=6, help="moves played in each game")
    parser.add_argument("--clients", type=int, default=8, help="players acting at once")
    parser.add_argument("--worker-kills", type=int, default=3)
    parser.add_argument("--scheduler-kills", type=int, default=2)
    parser.add_argument("--smtp-outage", type=float, default=10, help="seconds; 0: none")
    parser.add_argument("--max-seconds", type=float, default=300, help="bound on the play")
    parser.add_argument("--drain-seconds", type=float, default=200,
                        help="bound on waiting for the outbox afterwards")
    args = parser.parse_args()
    for backend in (["sqlite", "postgresql"] if args.backend == "both" else [args.backend]):
        print(f"{backend}:")

        def body(url: str, schema: str | None) -> None:
            run = Run(url, schema, args)
            run.start()
            try:
                run.create_games()
                play_seconds = run.play()
                drain_seconds = run.drain()
                run.report(play_seconds, drain_seconds)
            finally:
                run.stop()

        with_backend(backend, body)


if __name__ == "__main__":
    main()
