"""The sweep: reminders once per turn, repeated and crashed sweeps, concurrent sweeps.

Every test states its times (``now``); nothing sleeps. Each runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import random
import threading
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import select

from pbem.models import AuditEntry, GameRecord
from pbem.positions import current_state
from pbem.scheduler.sweep import due_query
from pbem.services import submit_move
from tests.support import ClockGames

START = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)  # a Monday
DAY = timedelta(days=1)


def test_each_reminder_is_sent_once_in_the_games_thread_with_the_local_deadline(
    clock_games: ClockGames,
) -> None:
    games = clock_games
    game_id = games.start("mosey", START, zones=["Europe/Paris", "America/New_York"])
    row, clock = games.game(game_id), games.clock(game_id)
    assert clock.deadline == START + 3 * DAY
    assert clock.next_due_at == clock.deadline - timedelta(hours=24)

    assert games.sweep(START + DAY).reminders == 0
    first = games.sweep(clock.deadline - timedelta(hours=23, minutes=59))
    again = games.sweep(clock.deadline - timedelta(hours=23))
    assert (first.reminders, again.reminders) == (1, 0)
    second = games.sweep(clock.deadline - timedelta(hours=2))
    assert second.reminders == 1
    assert games.sweep(clock.deadline - timedelta(minutes=5)).reminders == 0

    reminders = games.emails("reminder")
    mover = row.to_move
    assert [r.to_address for r in reminders] == [f"p{mover}@example.test"] * 2
    turn = games.emails("turn")[0]
    invitation = next(e for e in games.emails("invitation")
                  if e.to_address == reminders[0].to_address)
    # Replies in the game's thread (the first email the seat got), as the turn notice is.
    assert all(r.in_reply_to == invitation.message_id == turn.in_reply_to for r in reminders)
    zone = "Europe/Paris" if mover == 0 else "America/New_York"
    local = clock.deadline.astimezone(ZoneInfo(zone))
    # Reader.when: "Thursday, March 6, 2025, 13:00 (CET)", on the player's own clock.
    assert f"{local:%A, %B} {local.day}, {local:%Y, %H:%M} ({local.tzname()})" in (
        reminders[0].text_body)
    assert "in about 1 day." in reminders[0].text_body
    assert "in about 2 hours." in reminders[1].text_body
    assert "/play/" in reminders[1].text_body


def test_a_new_turn_has_its_own_reminders(clock_games: ClockGames) -> None:
    games = clock_games
    game_id = games.start("mosey", START, per_move=timedelta(days=2))
    row, clock = games.game(game_id), games.clock(game_id)
    games.sweep(clock.deadline - timedelta(hours=1))
    # The scheduler missed the 24 h reminder's time: only the latest is sent, not both at once.
    assert len(games.emails("reminder")) == 1
    moved_at = clock.deadline - timedelta(minutes=30)
    game, state = current_state(row)
    move = str(game.random_move(state, random.Random(1)))
    with games.database.write() as session:
        submit_move(session, moved_at, games.site, game_id=game_id, seat=row.to_move,
                    ply=row.ply, text=move)
    after, after_clock = games.game(game_id), games.clock(game_id)
    assert after_clock.deadline == moved_at + timedelta(days=2)
    assert after_clock.reminders_sent == []
    games.sweep(after_clock.deadline - timedelta(hours=24))
    games.sweep(after_clock.deadline - timedelta(hours=2))
    reminders = games.emails("reminder")
    assert [r.to_address for r in reminders][1:] == [f"p{after.to_move}@example.test"] * 2


def test_a_repeated_sweep_applies_each_timeout_once(clock_games: ClockGames) -> None:
    games = clock_games
    ids = [games.start("mosey", START, timeout_policy="random") for _ in range(3)]
    late = START + 3 * DAY + timedelta(minutes=1)
    first = games.sweep(late)
    second = games.sweep(late)
    assert first.timeouts == {"random": 3} and second.work_done == 0
    assert all(games.game(i).ply == 1 for i in ids)


def test_a_sweep_that_crashes_half_way_is_finished_by_the_next_one(clock_games: ClockGames) -> None:
    games = clock_games
    ids = [games.start("mosey", START, timeout_policy="random") for _ in range(3)]
    late = START + 3 * DAY + timedelta(minutes=1)

    def crash(game_id: int, done: str) -> None:
        raise RuntimeError("the process died here")

    with pytest.raises(RuntimeError):
        games.sweep(late, after_each=crash)
    assert sorted(games.game(i).ply for i in ids) == [0, 0, 1]
    resumed = games.sweep(late + timedelta(minutes=1))
    assert resumed.timeouts == {"random": 2}
    assert [games.game(i).ply for i in ids] == [1, 1, 1]
    with games.database.session() as session:
        timeouts = session.exec(select(AuditEntry).where(AuditEntry.action == "timeout")).all()
    assert sorted(t.game_id for t in timeouts) == sorted(ids)  # once each


def test_concurrent_sweeps_share_the_work_without_doing_any_twice(clock_games: ClockGames) -> None:
    games = clock_games
    ids = [games.start("mosey", START, timeout_policy="random") for _ in range(6)]
    late = START + 3 * DAY + timedelta(minutes=1)
    results: list[object] = []
    threads = [threading.Thread(target=lambda: results.append(games.sweep(late)))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(r.timeouts.get("random", 0) for r in results) == 6
    assert all(not r.errors for r in results)
    assert [games.game(i).ply for i in ids] == [1] * 6


def test_the_sweep_finds_due_games_through_the_index(clock_games: ClockGames) -> None:
    clock_games.start("mosey", START)
    database = clock_games.database
    query = due_query(datetime(2030, 1, 1, tzinfo=UTC), 500).compile(
        database.engine, compile_kwargs={"literal_binds": True})
    with database.session() as session:
        connection = session.connection()
        if database.is_sqlite:
            plan = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {query}").all()
        else:  # a tiny table would be scanned anyway: ask what the index makes possible
            connection.exec_driver_sql("SET enable_seqscan = off")
            plan = connection.exec_driver_sql(f"EXPLAIN {query}").all()
    assert any("ix_game_clocks_next_due_at" in str(step) for step in plan), plan


def test_a_game_ended_elsewhere_with_a_stale_due_time_is_cleared_not_looped(
    clock_games: ClockGames,
) -> None:
    ids = [clock_games.start("mosey", START, timeout_policy="random") for _ in range(3)]
    with clock_games.database.write() as session:
        for game_id in ids:  # as a tool that ends games without knowing about the clock would
            row = session.get(GameRecord, game_id)
            assert row is not None
            row.status = "finished"
            session.add(row)
    late = START + 3 * DAY + timedelta(minutes=1)
    summary = clock_games.sweep(late, batch=2)  # a full batch of games with nothing to do
    assert summary.work_done == 0 and summary.skipped == 3
    assert all(clock_games.clock(i).next_due_at is None for i in ids)
    assert all(clock_games.game(i).ply == 0 for i in ids)
