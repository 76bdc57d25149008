"""Scheduler speed: one sweep over 100,000 active games in SQLite, and emails per second.

    .venv/bin/python bench/scheduler.py [--games 100000] [--due 1000] [--emails 1000]

The games are inserted in bulk (one started Mosey position copied into every row, a real clock
row for each), then the sweep is timed three times: when nothing is due, when ``--due`` games owe a
reminder, and when ``--due`` games have timed out (policy ``random``: a move, its turn notice and
everyone's timeout email each). Delivery sends ``--emails`` plain emails over real SMTP to an
aiosmtpd server on loopback, through the claiming outbox.
"""

from __future__ import annotations

import argparse
import socket
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from sqlalchemy import insert
from sqlmodel import SQLModel

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from pbem.clock.controls import PerMove
from pbem.clock.tables import GameClock
from pbem.db import Database
from pbem.features import connect
from pbem.links import Links
from pbem.mail.catcher import CatchingHandler
from pbem.mail.outbox import SmtpSettings, deliver_pending
from pbem.models import GameRecord, GameStatus, OutboxEmail, Player, Seat
from pbem.scheduler import sweep
from pbem.services import Site

NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
PER_MOVE = timedelta(days=3)


def _game_rows(count: int, due_reminders: int, due_timeouts: int
               ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The games' rows and their clocks' rows."""
    game = engine.new_game("mosey")
    state = game.encode(game.start("bench"))
    control = PerMove(PER_MOVE).to_dict()
    rows = []
    clocks = []
    for n in range(count):
        # Most games started recently; the first ones are due at NOW (reminder or timeout).
        if n < due_timeouts:
            started = NOW - PER_MOVE - timedelta(minutes=1)
        elif n < due_timeouts + due_reminders:
            started = NOW - PER_MOVE + timedelta(hours=23)
        else:
            started = NOW - timedelta(hours=n % 40)
        deadline = started + PER_MOVE
        rows.append({
            "public_id": f"bench{n:08d}", "game_type": "mosey", "options": {"order": 4},
            "status": GameStatus.ACTIVE, "state": state, "start_state": state, "ply": 0,
            "to_move": 0, "seed": f"seed{n}", "seed_commitment": "", "winners": None,
            "result": "", "created_at": started, "started_at": started,
        })
        clocks.append({
            "game_id": n + 1, "deadline": deadline, "time_control": control,
            "timeout_policy": "random", "reminder_seconds": [86400, 7200],
            "vacations_allowed": True, "turn_started_at": started,
            "turn_bank_seconds": 3 * 86400, "banks": None, "reminders_sent": [],
            "grace_used": False, "next_due_at": deadline - timedelta(hours=24),
        })
        if n < due_timeouts:
            clocks[-1]["reminders_sent"] = [86400, 7200]
            clocks[-1]["next_due_at"] = deadline
    return rows, clocks


def build(path: Path, games: int, due_reminders: int, due_timeouts: int) -> Database:
    database = Database(f"sqlite:///{path}")
    SQLModel.metadata.create_all(database.engine)
    with database.write() as session:
        session.add_all([Player(name=name, email=f"{name}@example.test", created_at=NOW)
                         for name in ("ann", "bob")])
    began = time.perf_counter()
    rows, clocks = _game_rows(games, due_reminders, due_timeouts)
    with database.write() as session:
        session.execute(insert(GameRecord), rows)
        session.execute(insert(GameClock), clocks)
        session.execute(insert(Seat), [
            {"game_id": g + 1, "seat": s, "player_id": s + 1, "status": "accepted",
             "resigned": False, "forfeited": False, "thread_message_id": ""}
            for g in range(games) for s in (0, 1)])
    print(f"inserted {games:,} active games in {time.perf_counter() - began:.1f} s")
    return database


def timed_sweep(database: Database, site: Site, now: datetime, label: str) -> None:
    began = time.perf_counter()
    summary = sweep(database, now, site)
    took = time.perf_counter() - began
    print(f"sweep, {label}: {took * 1000:,.1f} ms  (reminders {summary.reminders}, "
          f"timeouts {summary.timeouts}, errors {len(summary.errors)})")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def delivery(database: Database, count: int) -> None:
    with database.write() as session:
        session.execute(insert(OutboxEmail), [
            {"kind": "notice", "to_address": f"r{n}@example.test", "to_name": "", "subject": "x",
             "text_body": "hello " * 40, "html_body": "<p>hello</p>" * 40,
             "message_id": f"<bench{n}@example.test>", "in_reply_to": "",
             "unsubscribe_url": "", "essential": True, "status": "queued", "attempts": 0,
             "next_attempt_at": NOW, "last_error": "", "claimed_by": "", "created_at": NOW}
            for n in range(count)])
    received: list[bytes] = []
    port = free_port()
    controller = Controller(CatchingHandler(lambda f, r, raw: received.append(raw)),
                            hostname="127.0.0.1", port=port)
    controller.start()
    try:
        settings = SmtpSettings("127.0.0.1", port, "pbem <pbem@example.test>")
        later = NOW + timedelta(days=30)  # past every email the sweeps queued: plain ones only
        began = time.perf_counter()
        sent = 0
        while True:
            report = deliver_pending(database, settings, later, limit=500)
            sent += report.sent
            if report.sent == 0:
                break
        took = time.perf_counter() - began
    finally:
        controller.stop()
    print(f"delivery: {sent} emails in {took:.2f} s = {sent / took:,.0f} emails/s "
          f"(received {len(received)})")


def main() -> None:
    connect()  # ratings, tournaments and rematches react to games that end
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--due", type=int, default=1_000)
    parser.add_argument("--emails", type=int, default=1_000)
    args = parser.parse_args()
    site = Site(Links("bench-secret", "http://bench.example"), "pbem <pbem@example.test>")
    with tempfile.TemporaryDirectory() as folder:
        database = build(Path(folder) / "bench.db", args.games, args.due, args.due)
        quiet = NOW - timedelta(days=5)  # before anything is due
        timed_sweep(database, site, quiet, f"{args.games:,} games, nothing due")
        timed_sweep(database, site, quiet, f"{args.games:,} games, nothing due (again)")
        reminder_time = NOW - timedelta(minutes=59)
        timed_sweep(database, site, reminder_time, f"{args.due:,} reminders due")
        timed_sweep(database, site, NOW, f"{args.due:,} timeouts due")
        timed_sweep(database, site, NOW, "right after (nothing left)")
        # Sweep-written mail carries board pictures; time plain mail alone for a clean number.
        with database.write() as session:
            session.execute(OutboxEmail.__table__.delete())  # type: ignore[attr-defined]
        delivery(database, args.emails)
        database.dispose()


if __name__ == "__main__":
    main()
