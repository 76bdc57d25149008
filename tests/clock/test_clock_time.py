"""Clocks as data: Fischer banks, weekends off in the player's zone, pause, resume and extend.

Each test runs on SQLite and PostgreSQL, with explicit times.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from pbem.clock.controls import Fischer, PerMove
from pbem.models import AuditEntry
from pbem.positions import current_state
from pbem.services import GameNotActive, ServiceError, submit_move
from pbem.services.clock_actions import extend_deadline, pause_game, resume_game
from tests.support import ClockGames

MONDAY = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
HOUR, DAY = timedelta(hours=1), timedelta(days=1)


def _move(games: ClockGames, game_id: int, when: datetime, seed: int = 0) -> None:
    row = games.game(game_id)
    game, state = current_state(row)
    with games.database.write() as session:
        submit_move(session, when, games.site, game_id=game_id, seat=row.to_move, ply=row.ply,
                    text=str(game.random_move(state, random.Random(seed))))


def test_fischer_banks_carry_over_per_seat(clock_games: ClockGames) -> None:
    fischer = Fischer(initial=2 * DAY, increment=DAY, maximum=4 * DAY)
    game_id = clock_games.start("mosey", MONDAY, time_control=fischer)
    first, first_clock = clock_games.game(game_id), clock_games.clock(game_id)
    assert first_clock.deadline == MONDAY + 2 * DAY
    assert first_clock.time_control == fischer.to_dict()
    _move(clock_games, game_id, MONDAY + 10 * HOUR)  # Light used 10 h of 48
    second, second_clock = clock_games.game(game_id), clock_games.clock(game_id)
    assert second_clock.banks == {
        str(first.to_move): int((2 * DAY - 10 * HOUR + DAY).total_seconds())}
    assert second_clock.deadline == MONDAY + 10 * HOUR + 2 * DAY  # Dark's first bank
    _move(clock_games, game_id, MONDAY + 11 * HOUR)  # Dark used 1 h
    third = clock_games.clock(game_id)
    # Light's bank is 2d14h; capped at 4d for Dark (2d - 1h + 1d = 2d23h is under the cap).
    assert third.deadline == MONDAY + 11 * HOUR + 2 * DAY + 14 * HOUR
    assert third.banks[str(second.to_move)] == int((3 * DAY - HOUR).total_seconds())


def test_weekends_off_stop_the_clock_in_the_players_own_zone(clock_games: ClockGames) -> None:
    friday_noon_utc = datetime(2025, 3, 7, 12, 0, tzinfo=UTC)
    daily = PerMove(DAY, weekends_off=True)
    utc_game = clock_games.start("mosey", friday_noon_utc, time_control=daily)
    assert clock_games.clock(utc_game).deadline == datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
    # In Tokyo it is already Friday 21:00: 3 hours of Friday, then Monday 00:00 + 21 h.
    tokyo_game = clock_games.start("mosey", friday_noon_utc, time_control=daily,
                                   zones=["Asia/Tokyo", "Asia/Tokyo"])
    assert clock_games.clock(tokyo_game).deadline == datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
    new_york = clock_games.start("mosey", datetime(2025, 3, 8, 3, 0, tzinfo=UTC),
                                 time_control=daily,
                                 zones=["America/New_York", "America/New_York"])
    # Friday 22:00 in New York: 2 hours of Friday, then Monday (EDT from 9 March) 00:00 + 22 h.
    assert clock_games.clock(new_york).deadline == datetime(2025, 3, 11, 2, 0, tzinfo=UTC)


def test_pause_keeps_the_time_left_and_resume_restores_it(clock_games: ClockGames) -> None:
    game_id = clock_games.start("mosey", MONDAY)
    with clock_games.database.write() as session:
        pause_game(session, game_id, now=MONDAY + DAY, actor="olga", site=clock_games.site)
    paused = clock_games.clock(game_id)
    assert paused.deadline is None and paused.next_due_at is None
    assert paused.paused_remaining_seconds == int((2 * DAY).total_seconds())
    assert clock_games.sweep(MONDAY + 30 * DAY).work_done == 0  # no reminder, no timeout
    row = clock_games.game(game_id)
    with pytest.raises(GameNotActive, match="paused"), clock_games.database.write() as session:
        submit_move(session, MONDAY + 2 * DAY, clock_games.site, game_id=game_id,
                    seat=row.to_move, ply=row.ply, text="A1-A2")
    with clock_games.database.write() as session:
        resume_game(session, game_id, now=MONDAY + 10 * DAY, actor="olga",
                    site=clock_games.site)
    resumed = clock_games.clock(game_id)
    assert resumed.deadline == MONDAY + 12 * DAY and resumed.paused_at is None
    assert resumed.next_due_at == resumed.deadline - 24 * HOUR
    with clock_games.database.session() as session:
        actions = [(a.action, a.detail.get("actor")) for a in session.exec(select(AuditEntry))]
    assert ("game paused", "olga") in actions and ("game resumed", "olga") in actions
    texts = [e.text_body for e in clock_games.emails("clock")]
    assert len(texts) == 4 and "paused the game" in texts[0] and "resumed" in texts[2]


def test_extending_a_deadline_moves_it_and_its_reminders(clock_games: ClockGames) -> None:
    game_id = clock_games.start("mosey", MONDAY)
    clock_games.sweep(MONDAY + 2 * DAY + HOUR)  # the 24 h reminder
    with clock_games.database.write() as session:
        extend_deadline(session, game_id, by=2 * DAY, now=MONDAY + 2 * DAY + 2 * HOUR,
                        actor="olga", site=clock_games.site)
    row = clock_games.clock(game_id)
    assert row.deadline == MONDAY + 5 * DAY
    assert row.next_due_at == row.deadline - 2 * HOUR  # the 24 h one was sent this turn
    assert clock_games.sweep(MONDAY + 4 * DAY + HOUR).work_done == 0
    assert clock_games.sweep(row.deadline - HOUR).reminders == 1
    assert "gave the player to move 2d more" in clock_games.emails("clock")[0].text_body
    with pytest.raises(ServiceError), clock_games.database.write() as session:
        extend_deadline(session, game_id, by=timedelta(0), now=MONDAY, actor="olga",
                        site=clock_games.site)


def test_a_late_fischer_move_before_the_sweep_still_counts(clock_games: ClockGames) -> None:
    game_id = clock_games.start("mosey", MONDAY, time_control=Fischer())
    mover = clock_games.game(game_id).to_move
    _move(clock_games, game_id, MONDAY + 3 * DAY)  # after the 2-day deadline, before a sweep
    assert clock_games.game(game_id).ply == 1
    assert clock_games.clock(game_id).banks == {str(mover): int(DAY.total_seconds())}


def test_create_game_takes_the_clock_settings_and_refuses_bad_ones(
    clock_games: ClockGames,
) -> None:
    game_id = clock_games.start("mosey", MONDAY, reminders=[timedelta(hours=6)],
                                timeout_policy="forfeit")
    row = clock_games.clock(game_id)
    assert row.time_control == PerMove().to_dict() == PerMove(per_move=3 * DAY).to_dict()
    assert row.reminder_seconds == [6 * 3600] and row.timeout_policy == "forfeit"
    assert row.next_due_at == row.deadline - 6 * HOUR
    for bad, reason in (({"timeout_policy": "sudden death"}, "unknown timeout policy"),
                        ({"reminders": [timedelta(0)]}, "reminders must be positive"),
                        ({"per_move": DAY, "time_control": Fischer()}, "not both")):
        with pytest.raises(ServiceError, match=reason):
            clock_games.start("mosey", MONDAY, **bad)
