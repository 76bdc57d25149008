"""The computer stands in for timed-out players: policy ``bot`` plays one turn for them,
``forfeit-bot`` takes a forfeited seat to the end of a game of three or more. The moves are the
sweep's (never a request), carry a note in every reader's language, and nobody is mailed a turn
the computer plays."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from pbem.db import Database
from pbem.models import GameStatus, MoveSource, Seat
from pbem.positions import current_state
from pbem.scheduler.bots import STAND_IN_LEVEL, STAND_IN_NOTES
from pbem.scheduler.search_process import PLAYOUTS
from pbem.services import Site, submit_move
from tests.support import ClockGames

START = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def seat_row(games: ClockGames, game_id: int, seat: int) -> Seat:
    from sqlmodel import select

    with games.database.session() as session:
        found = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat)).one()
        return found


def test_policy_bot_plays_one_turn_for_a_timed_out_player(clock_games: ClockGames) -> None:
    game_id = clock_games.start("mosey", START, per_move=2 * DAY, timeout_policy="bot")
    late = START + 2 * DAY + timedelta(minutes=1)
    summary = clock_games.sweep(late)
    assert summary.timeouts.get("bot") == 1 and not summary.errors
    row = clock_games.game(game_id)
    assert row.ply == 1 and row.to_move == 1  # the computer moved for seat 0 in that sweep
    move = clock_games.moves(game_id)[0]
    assert (move.seat, move.source, move.note) == (0, MoveSource.TIMEOUT, STAND_IN_NOTES["turn"])
    assert seat_row(clock_games, game_id, 0).stand_in is None  # one turn only
    game, state = current_state(row)
    with clock_games.database.write() as session:  # seat 1 answers; seat 0 is asked again
        submit_move(session, late, clock_games.site, game_id=game_id, seat=1, ply=1,
                    text=str(game.random_move(state, random.Random(1))))
    turns = clock_games.emails("turn", to="p0@example.test")
    assert turns and turns[-1].created_at == late  # their next turn is theirs again
    notices = [e for e in clock_games.emails() if "computer plays this turn" in e.text_body]
    assert {e.to_address for e in notices} >= {"p1@example.test"}


def test_policy_bot_in_dutch_says_so_in_dutch(clock_games: ClockGames) -> None:
    from sqlmodel import select

    from pbem.i18n import Reader
    from pbem.models import Player

    game_id = clock_games.start("mosey", START, per_move=2 * DAY, timeout_policy="bot")
    with clock_games.database.write() as session:
        for player in session.exec(select(Player)):
            player.language = "nl"
            session.add(player)
    clock_games.sweep(START + 3 * DAY)
    dutch = Reader("nl").gettext(STAND_IN_NOTES["turn"])
    assert dutch != STAND_IN_NOTES["turn"]
    turn = clock_games.emails("turn", to="p1@example.test")[-1]
    assert dutch in turn.text_body and clock_games.game(game_id).ply == 1


def test_forfeit_bot_lets_the_computer_finish_a_three_player_game(
    sqlite_database: Database, site: Site, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A whole Rifugio game: on SQLite only (the other tests here cover both databases).
    clock_games = ClockGames(sqlite_database, site)
    monkeypatch.setitem(PLAYOUTS, STAND_IN_LEVEL, 12)  # a quick stand-in: the rules are the test
    game_id = clock_games.start("rifugio", START, options={"players": 3}, per_move=2 * DAY,
                                timeout_policy="forfeit-bot")
    now = START + 2 * DAY + timedelta(minutes=1)
    clock_games.sweep(now)
    loser = seat_row(clock_games, game_id, 0)
    assert loser.forfeited and loser.stand_in == "game"
    rng = random.Random(5)
    for _ in range(400):
        row = clock_games.game(game_id)
        if row.status != GameStatus.ACTIVE:
            break
        if row.to_move == 0:
            summary = clock_games.sweep(now)
            assert not summary.errors
            continue
        game, state = current_state(row)
        with clock_games.database.write() as session:
            submit_move(session, now, clock_games.site, game_id=game_id, seat=row.to_move,
                        ply=row.ply, text=str(game.random_move(state, rng)))
    finished = clock_games.game(game_id)
    assert finished.status == GameStatus.FINISHED
    assert finished.winners and 0 not in finished.winners  # a seat that left cannot win
    after = [m for m in clock_games.moves(game_id) if m.seat == 0][1:]
    assert after and all(m.source == MoveSource.STAND_IN and m.note == STAND_IN_NOTES["game"]
                         for m in after)
    forfeited_turns = [e for e in clock_games.emails("turn", to="p0@example.test")
                       if e.created_at > START]
    assert forfeited_turns == []  # the computer's turns are not mailed to the player


def test_forfeit_bot_with_two_players_is_a_loss(clock_games: ClockGames) -> None:
    game_id = clock_games.start("mosey", START, per_move=2 * DAY, timeout_policy="forfeit-bot")
    clock_games.sweep(START + 3 * DAY)
    row = clock_games.game(game_id)
    assert row.status == GameStatus.FINISHED and row.winners == [1]


def test_a_seat_replaced_while_the_computer_thinks_is_not_played(
    clock_games: ClockGames, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sweep found a seat to play for a player who resigned; before its move is submitted
    the organiser puts a substitute on that seat: the computer's move is dropped, and the seat
    is the substitute's to play."""
    from pbem.admin.actions import replace_player
    from pbem.scheduler.bots import bot_turns, play_turn
    from pbem.services import PlayerSpec, resign

    monkeypatch.setitem(PLAYOUTS, STAND_IN_LEVEL, 12)  # a quick stand-in: the race is the test
    game_id = clock_games.start("rifugio", START, options={"players": 3}, per_move=2 * DAY)
    row = clock_games.game(game_id)
    with clock_games.database.write() as session:
        resign(session, START, clock_games.site, game_id=game_id, seat=row.to_move)
    turns = bot_turns(clock_games.database, game_id)
    assert [t.seat for t in turns] == [row.to_move]
    with clock_games.database.write() as session:
        replace_player(session, START, clock_games.site, game_id=game_id, seat=row.to_move,
                       new_player=PlayerSpec("Sub", "sub@example.test"), actor="olga")
    assert play_turn(clock_games.database, START, clock_games.site, turns[0]) is False
    assert clock_games.game(game_id).ply == row.ply and bot_turns(clock_games.database) == []
