"""Timeout policies (pass, random, forfeit, grace, hold) and forced passes, with explicit times.

Each test runs on SQLite and PostgreSQL. Refugia has a pass; Mosey has none; Rifugio seats 3.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from sqlmodel import select

from pbem.clock.deadlines import POLICIES, default_timeout_policy
from pbem.models import AuditEntry, GameStatus, MoveSource, Seat
from pbem.positions import current_state
from pbem.services import Site, submit_move
from pbem.services.clock_actions import extend_deadline
from tests.support import ClockGames

START = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)  # a Monday
LATE = START + timedelta(days=3, minutes=1)  # just after the first deadline (3 days per move)


def _clock_texts(games: ClockGames) -> list[str]:
    return [e.text_body for e in games.emails("clock")]


def test_each_game_has_a_sensible_default_policy() -> None:
    assert default_timeout_policy("refugia") == "pass"  # the rules have a pass
    assert default_timeout_policy("mosey") == "grace"  # nobody may pass in Mosey
    assert set(POLICIES) == {"pass", "random", "bot", "forfeit", "forfeit-bot", "grace", "hold"}


def test_pass_policy_passes_for_the_player_and_tells_everyone(clock_games: ClockGames) -> None:
    game_id = clock_games.start("refugia", START)
    before = clock_games.game(game_id)
    assert clock_games.clock(game_id).timeout_policy == "pass"
    summary = clock_games.sweep(LATE)
    assert summary.timeouts == {"pass": 1}
    [move] = clock_games.moves(game_id)
    assert (move.notation, move.source, move.seat) == ("pass", MoveSource.TIMEOUT,
                                                       before.to_move)
    after = clock_games.game(game_id)
    assert after.ply == 1 and after.to_move != before.to_move
    # the next player's clock starts now
    assert clock_games.clock(game_id).deadline == LATE + timedelta(days=3)
    notices = clock_games.emails("clock")
    assert sorted(e.to_address for e in notices) == ["p0@example.test", "p1@example.test"]
    assert all("did not move in time" in t and "passed for them" in t
               for t in _clock_texts(clock_games))
    assert clock_games.sweep(LATE).work_done == 0  # applied once


def test_pass_policy_falls_back_to_a_random_move_where_passing_is_illegal(
    clock_games: ClockGames,
) -> None:
    game_id = clock_games.start("mosey", START, timeout_policy="pass")
    assert clock_games.sweep(LATE).timeouts == {"pass": 1}
    [move] = clock_games.moves(game_id)
    assert move.notation != "pass" and move.source == MoveSource.TIMEOUT
    assert "random legal move" in _clock_texts(clock_games)[0]


def test_random_policy_is_reproducible_from_the_seed_and_ply(clock_games: ClockGames) -> None:
    game_id = clock_games.start("mosey", START, timeout_policy="random")
    row = clock_games.game(game_id)
    game, state = current_state(row)
    expected = str(game.random_move(state, random.Random(f"{row.seed}:{row.ply}")))
    clock_games.sweep(LATE)
    [move] = clock_games.moves(game_id)
    assert move.notation == expected


def test_forfeit_with_two_players_ends_the_game(clock_games: ClockGames) -> None:
    game_id = clock_games.start("mosey", START, timeout_policy="forfeit")
    loser = clock_games.game(game_id).to_move
    assert clock_games.sweep(LATE).timeouts == {"forfeit": 1}
    over = clock_games.game(game_id)
    assert over.status == GameStatus.FINISHED and over.winners == [1 - loser]
    assert "ran out of time and forfeits" in over.result
    assert clock_games.clock(game_id).next_due_at is None
    assert len(clock_games.emails("game_over")) == 2
    assert clock_games.sweep(LATE + timedelta(days=9)).work_done == 0


def test_forfeit_with_three_players_lets_a_stand_in_play_to_the_end(
    clock_games: ClockGames,
) -> None:
    game_id = clock_games.start("rifugio", START, options={"players": 3},
                                timeout_policy="forfeit")
    loser = clock_games.game(game_id).to_move
    clock_games.sweep(LATE)
    after = clock_games.game(game_id)
    assert after.status == GameStatus.ACTIVE and after.to_move != loser
    with clock_games.database.session() as session:
        seats = session.exec(select(Seat).where(Seat.game_id == game_id)).all()
    assert [s.seat for s in seats if s.forfeited] == [loser]
    stand_in = [m for m in clock_games.moves(game_id) if m.source == MoveSource.STAND_IN]
    assert stand_in and all(m.seat == loser for m in stand_in)
    # The others play on; whenever the forfeited seat is to move, the stand-in moves at once.
    rng = random.Random(3)
    for _ in range(12):
        row = clock_games.game(game_id)
        if row.status != GameStatus.ACTIVE:
            break
        assert row.to_move != loser
        game, state = current_state(row)
        move = game.random_move(state, rng)
        with clock_games.database.write() as session:
            submit_move(session, LATE, clock_games.site, game_id=game_id, seat=row.to_move,
                        ply=row.ply, text=str(move))
    assert len([m for m in clock_games.moves(game_id) if m.source == MoveSource.STAND_IN]) > 1


def test_grace_extends_once_then_falls_back(clock_games: ClockGames) -> None:
    game_id = clock_games.start("mosey", START, timeout_policy="grace")
    deadline = clock_games.clock(game_id).deadline
    assert clock_games.sweep(LATE).timeouts == {"grace": 1}
    graced = clock_games.clock(game_id)
    assert clock_games.game(game_id).ply == 0 and graced.deadline == deadline + timedelta(days=3)
    assert "3d more, once" in _clock_texts(clock_games)[0]
    assert clock_games.sweep(LATE + timedelta(days=1)).work_done == 0
    assert clock_games.sweep(graced.deadline).timeouts == {"grace": 1}
    [move] = clock_games.moves(game_id)
    assert move.source == MoveSource.TIMEOUT  # no pass in Mosey: a random move


def test_hold_alerts_the_organiser_and_waits_until_they_extend(clock_games: ClockGames) -> None:
    game_id = clock_games.start("mosey", START, timeout_policy="hold", organiser=True)
    assert clock_games.sweep(LATE).timeouts == {"hold": 1}
    held = clock_games.clock(game_id)
    assert held.held_since == LATE and held.next_due_at is None
    assert clock_games.game(game_id).ply == 0
    alerts = clock_games.emails("clock", to="olga@example.test")
    assert len(alerts) == 1 and "Extend the deadline" in alerts[0].text_body
    assert clock_games.sweep(LATE + timedelta(days=30)).work_done == 0  # it waits
    with clock_games.database.write() as session:
        extend_deadline(session, game_id, by=timedelta(days=1), now=LATE + timedelta(hours=5),
                        actor="olga@example.test", site=clock_games.site)
    released = clock_games.clock(game_id)
    assert released.held_since is None
    assert released.deadline == LATE + timedelta(hours=5, days=1)
    with clock_games.database.session() as session:
        actions = [a.action for a in session.exec(select(AuditEntry))]
    assert "timeout" in actions and "deadline extended" in actions


def test_forced_passes_are_played_at_once_and_told_in_the_next_email(
    clock_games: ClockGames,
) -> None:
    game_id = clock_games.start("refugia", START)
    rng = random.Random(5)
    forced = []
    for _ in range(400):
        row = clock_games.game(game_id)
        if row.status != GameStatus.ACTIVE or forced:
            break
        game, state = current_state(row)
        legal = [m for m in game.legal_moves(state) if str(m) != "pass"] or ["pass"]
        with clock_games.database.write() as session:
            submit_move(session, START, clock_games.site, game_id=game_id, seat=row.to_move,
                        ply=row.ply, text=str(rng.choice(legal)))
        forced = [m for m in clock_games.moves(game_id) if m.source == MoveSource.FORCED_PASS]
    assert forced, "no forced pass came up"
    move = forced[0]
    game, _ = current_state(row)
    before = game.decode(clock_games.moves(game_id)[move.ply - 1].state_after)
    assert [str(m) for m in game.legal_moves(before)] == ["pass"]
    assert move.notation == "pass" and "forced pass" in move.note
    # The player who moves next reads about it in their turn email.
    turn = clock_games.emails("turn")[-1]
    assert "forced pass" in turn.text_body


def test_a_timed_out_turn_of_several_steps_is_finished_in_one_go(
    clock_games: ClockGames,
) -> None:
    # Two-player Rifugio: each turn lays two tiles (two steps, two plies).
    game_id = clock_games.start("rifugio", START, options={"players": 2},
                                timeout_policy="random")
    seat = clock_games.game(game_id).to_move
    assert clock_games.sweep(LATE).timeouts == {"random": 1}
    after = clock_games.game(game_id)
    timed_out = [m for m in clock_games.moves(game_id) if m.source == MoveSource.TIMEOUT]
    assert after.to_move != seat and len(timed_out) == after.ply >= 2
    assert all(m.seat == seat for m in timed_out)
    assert len(clock_games.emails("clock")) == 2  # one notice per player, not per step


def test_hold_without_an_organiser_alerts_the_sites_alert_addresses(
    clock_games: ClockGames,
) -> None:
    clock_games.site = Site(clock_games.site.links, clock_games.site.mail_from,
                            ("desk@example.test",))
    clock_games.start("mosey", START, timeout_policy="hold")
    clock_games.sweep(LATE)
    alerts = clock_games.emails("clock", to="desk@example.test")
    assert len(alerts) == 1 and alerts[0].subject.startswith("[organiser]")
