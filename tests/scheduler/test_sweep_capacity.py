"""The sweep's cost follows the work due, not the number of games (issue 36): the SQL statements
one sweep runs, counted on the database's engine, are as many beside a thousand games with
nothing due as beside fifty; and a player's home asks as much with a thousand games as with
fifty. On SQLite and PostgreSQL; no timings (bench/capacity.py has them).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import event, insert
from sqlmodel import col, select

import engine
from pbem import create_app
from pbem.clock.controls import PerMove
from pbem.clock.tables import GameClock
from pbem.db import Database
from pbem.i18n import Reader
from pbem.models import GameRecord, GameStatus, Player, Seat
from pbem.scheduler import sweep
from pbem.scheduler.sweep import SweepSummary
from pbem.services import Site
from pbem.web.home import home_of
from tests.support import BASE_URL, MAIL_FROM, SECRET

PER_MOVE = timedelta(days=3)


def add_games(database: Database, now: datetime, *, due: int, idle: int, tag: str) -> None:
    """``due`` games whose reminder is due at ``now`` and ``idle`` games with nothing due for
    a day, between the site's two players, inserted in bulk as a big site would have them."""
    game = engine.new_game("mosey", order=4)
    state = game.encode(game.start("capacity"))
    with database.write() as session:
        people = session.exec(select(Player.id).order_by(col(Player.id))).all()
        if not people:
            session.add_all([Player(name=name, email=f"{name.lower()}@example.test",
                                    created_at=now) for name in ("Ann", "Bob")])
            session.flush()
            people = session.exec(select(Player.id).order_by(col(Player.id))).all()
        session.execute(insert(GameRecord), [
            {"public_id": f"{tag}{n:05d}", "game_type": "mosey", "options": {"order": 4},
             "status": GameStatus.ACTIVE, "state": state, "start_state": state, "ply": 0,
             "to_move": 0, "seed": f"seed{tag}{n}", "seed_commitment": "", "winners": None,
             "result": "", "created_at": now - timedelta(days=1),
             "started_at": now - timedelta(days=1)}
            for n in range(due + idle)])
        made = session.exec(select(GameRecord.id, GameRecord.public_id)
                            .where(col(GameRecord.public_id).startswith(tag))).all()
        clocks = []
        for game_id, public_id in made:
            is_due = int(public_id[len(tag):]) < due
            deadline = now + (timedelta(hours=1) if is_due else timedelta(days=2))
            clocks.append({
                "game_id": game_id, "time_control": PerMove(PER_MOVE).to_dict(),
                "timeout_policy": "random", "reminder_seconds": [86400],
                "vacations_allowed": True, "deadline": deadline,
                "turn_started_at": deadline - PER_MOVE,
                "turn_bank_seconds": int(PER_MOVE.total_seconds()), "banks": None,
                "reminders_sent": [], "grace_used": False,
                "next_due_at": deadline - timedelta(days=1)})
        session.execute(insert(GameClock), clocks)
        session.execute(insert(Seat), [
            {"game_id": game_id, "seat": seat, "player_id": people[seat], "status": "accepted",
             "resigned": False, "forfeited": False, "thread_message_id": ""}
            for game_id, _ in made for seat in (0, 1)])


@contextmanager
def counted(database: Database) -> Iterator[list[int]]:
    """How many SQL statements reach the database meanwhile."""
    count = [0]

    def seen(*_: Any) -> None:
        count[0] += 1

    event.listen(database.engine, "before_cursor_execute", seen)
    try:
        yield count
    finally:
        event.remove(database.engine, "before_cursor_execute", seen)


def swept(database: Database, now: datetime, site: Site) -> tuple[SweepSummary, int]:
    with counted(database) as count:
        summary = sweep(database, now, site)
    return summary, count[0]


def test_a_sweep_asks_as_much_of_the_database_beside_a_thousand_games_as_beside_fifty(
        database: Database, now: datetime, site: Site) -> None:
    add_games(database, now, due=3, idle=50, tag="small")
    small, small_statements = swept(database, now, site)
    _, small_idle = swept(database, now, site)

    add_games(database, now, due=3, idle=1000, tag="big")
    big, big_statements = swept(database, now, site)
    _, big_idle = swept(database, now, site)

    assert (small.reminders, big.reminders) == (3, 3)
    assert not small.errors and not big.errors
    assert big_idle == small_idle  # nothing due: the same few queries however many games
    assert big_statements == small_statements  # three reminders cost three reminders
    assert big_statements > big_idle


def test_a_players_home_asks_as_much_of_the_database_with_a_thousand_games_as_with_fifty(
        database: Database, now: datetime) -> None:
    """The home reads every game's seats and players at once, not once per game."""
    app = create_app({"ENV": "development", "TESTING": True, "SECRET_KEY": SECRET,
                      "BASE_URL": BASE_URL, "DATABASE": database, "DATABASE_URL": database.url,
                      "MAIL_FROM": MAIL_FROM}, read_env=False)

    def home_statements() -> tuple[int, int]:
        with app.test_request_context(), counted(database) as count, \
                database.session() as session:
            ann = session.exec(select(Player.id).where(Player.email == "ann@example.test")).one()
            assert ann is not None
            home = home_of(session, ann, now, Reader())
        return len(home.your_turn) + len(home.waiting), count[0]

    add_games(database, now, due=0, idle=50, tag="small")
    small_games, small = home_statements()
    add_games(database, now, due=0, idle=1000, tag="big")
    big_games, big = home_statements()

    assert (small_games, big_games) == (50, 1050)
    assert big == small
