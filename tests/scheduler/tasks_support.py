"""What the search-worker tests share (tests/scheduler/test_tasks_*.py): a PostgreSQL schema of
their own with Procrastinate's job tables, games against the computer, real ``pbem worker``
processes, and looks at the job table.

Real time only where real processes must do something: the helpers poll for it (never a fixed
sleep) and give up after :data:`PATIENCE` seconds.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlmodel import SQLModel

import pbem.ratelimit  # noqa: F401  (its table must be on the metadata)
from pbem.db import Database
from pbem.models import GameRecord, Move
from pbem.positions import current_state, moves_of
from pbem.scheduler.bots import bot_seed
from pbem.scheduler.search_process import BotSearch, run_search
from pbem.services import PlayerSpec, Site, create_game, respond_to_invitation, submit_move
from pbem.services.players import bot_spec
from pbem.tasks.jobs import make_job_tables
from pbem.tasks.queueing import queue_with_writes
from tests.support import BASE_URL, MAIL_FROM, SECRET, free_port, postgres_url

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
ANN = PlayerSpec("Ann", "ann@example.test")
PATIENCE = 20.0  # seconds a real process gets to do what a test waits for
T = TypeVar("T")


@dataclass(frozen=True)
class TaskDatabase:
    """A database whose writes queue searches, and what a worker process needs to reach it."""

    database: Database
    url: str
    schema: str


@contextmanager
def task_database() -> Iterator[TaskDatabase]:
    """A fresh schema in the test PostgreSQL with pbem's tables and the job tables."""
    url, problem = postgres_url()
    if url is None:
        pytest.skip(problem)
    schema = f"pbem_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    database = Database(url, search_path=schema)
    try:
        SQLModel.metadata.create_all(database.engine)
        make_job_tables(database)
        queue_with_writes(database)
        yield TaskDatabase(database, url, schema)
    finally:
        database.dispose()
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def wait_for(condition: Callable[[], T], seconds: float = PATIENCE) -> T:
    """``condition()``'s first true answer, asked every 0.1 s."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)  # the conditions are other processes' work (workers, PostgreSQL)
    raise AssertionError(f"timed out after {seconds} s waiting")


def game_against(database: Database, site: Site, level: str, *,
                 computer_starts: bool = False) -> int:
    """A started Mosey (order 4) game of Ann against the computer at ``level``."""
    seats = [bot_spec(level), ANN] if computer_starts else [ANN, bot_spec(level)]
    with database.write() as session:
        row = create_game(session, NOW, site, game_type="mosey", players=seats,
                          options={"order": 4})
        assert row.id is not None
        respond_to_invitation(session, NOW, site, game_id=row.id,
                              seat=1 if computer_starts else 0, accept=True)
        return row.id


def game_between_computers(database: Database, site: Site, level: str) -> int:
    with database.write() as session:
        row = create_game(session, NOW, site, game_type="mosey", options={"order": 4},
                          players=[bot_spec(level), bot_spec(level)])
        assert row.id is not None
        return row.id


def row_of(database: Database, game_id: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_id)
        assert row is not None
        return row


def person_moves(database: Database, site: Site, game_id: int) -> int:
    """Ann plays her first legal move; the ply of the computer's turn that follows."""
    row = row_of(database, game_id)
    game, state = current_state(row)
    with database.write() as session:
        submit_move(session, NOW, site, game_id=game_id, seat=row.to_move or 0, ply=row.ply,
                    text=str(game.legal_moves(state)[0]))
    return row.ply + 1


def moves(database: Database, game_id: int) -> list[Move]:
    with database.session() as session:
        return moves_of(session, game_id)


def searched_move(database: Database, game_id: int, ply: int, level: str,
                  strong_seconds: float = 0.0) -> str:
    """The move a search of ``game_id`` as it stood at ``ply`` finds (deterministic for
    easy, normal, and strong without a time budget)."""
    row = row_of(database, game_id)
    before = {m.ply + 1: m.state_after for m in moves(database, game_id)}
    state = before.get(ply)  # None at the start
    seat = 0 if ply % 2 == 0 else 1  # Mosey's seats alternate (no forced passes in these)
    search = BotSearch(row.game_type, dict(row.options), state, seat, level,
                       bot_seed(row.seed, ply), strong_seconds)
    return run_search(search)[0]


def jobs(database: Database) -> list[dict[str, Any]]:
    """The search jobs still in the table (a search that succeeded is deleted)."""
    with database.session() as session:
        rows = session.execute(text(
            "SELECT j.id, j.status, j.args, j.attempts, j.worker_id FROM procrastinate_jobs j"
            " ORDER BY j.id"))
        return [dict(row._mapping) for row in rows]


def doing(database: Database) -> list[dict[str, Any]]:
    return [job for job in jobs(database) if job["status"] == "doing"]


def live_worker_ids(database: Database) -> set[int]:
    with database.session() as session:
        return set(session.execute(text("SELECT id FROM procrastinate_workers")).scalars())


class DatabaseOutage:
    """A TCP relay to the test PostgreSQL that a test can switch off, as a database restart
    would: every connection through it cut, new ones refused, until it is switched on again.
    (The PostgreSQL here is shared with other tests: it cannot be restarted itself.)"""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        self.upstream = (parsed.host or "127.0.0.1", parsed.port or 5432)
        self.port = free_port()
        self.url = parsed.set(host="127.0.0.1", port=self.port).render_as_string(
            hide_password=False)
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        self.listener: socket.socket | None = None
        self.switch_on()

    def switch_on(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def switch_off(self) -> None:
        """Cut every connection and refuse new ones (nothing listens on the port)."""
        with self.lock:
            listener, self.listener = self.listener, None
            doomed, self.sockets = self.sockets, []
        if listener is not None:
            listener.close()
        for sock in doomed:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # switched off
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.sockets += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class Worker:
    """A real ``pbem worker`` process on the test schema (reaching the database at ``url``
    when given); its output goes to ``log``."""

    def __init__(self, tasks: TaskDatabase, folder: Path, *, strong_seconds: float = 0.0,
                 url: str = "") -> None:
        self.tasks = tasks
        self.log = folder / f"worker-{uuid.uuid4().hex[:6]}.log"
        env = {**os.environ, "PBEM_DATABASE_URL": url or tasks.url,
               "PBEM_DATABASE_SEARCH_PATH": tasks.schema, "PBEM_TASKS": "procrastinate",
               "PBEM_ENV": "development", "PBEM_SECRET_KEY": SECRET, "PBEM_BASE_URL": BASE_URL,
               "PBEM_MAIL_FROM": MAIL_FROM, "PBEM_BOT_STRONG_SECONDS": str(strong_seconds),
               "PYTHONPATH": str(ROOT)}
        self.worker_id = 0  # its row in the workers' table, when known
        self.terminated = False
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "pbem.cli", "worker"], env=env, cwd=folder,
                stdout=out, stderr=subprocess.STDOUT)

    def kill(self) -> None:
        """As the OOM killer or a pulled plug would: no goodbye, the job left "doing"."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=PATIENCE)

    def terminate(self) -> None:
        """SIGTERM, once, as systemd sends it."""
        if not self.terminated and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.terminated = True

    def stop(self) -> int:
        """SIGTERM (unless sent already), as systemd stops it; its exit status."""
        self.terminate()
        try:
            return self.process.wait(timeout=PATIENCE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def workers(tasks: TaskDatabase, folder: Path, count: int = 1, **options: Any
            ) -> Iterator[list[Worker]]:
    """``count`` workers, started at once, each registered when the block begins."""
    known = live_worker_ids(tasks.database)
    started = [Worker(tasks, folder, **options) for _ in range(count)]

    def registered() -> set[int] | None:
        """The new rows of the workers' table, once all are there (then they take jobs)."""
        new = live_worker_ids(tasks.database) - known
        return new if len(new) >= count else None

    try:
        new = wait_for(registered)
        if count == 1:
            started[0].worker_id = min(new)
        yield started
    finally:
        for worker in started:  # all at once: each waits for its search under way
            worker.terminate()
        for worker in started:
            worker.stop()
