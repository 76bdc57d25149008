"""Resigning: a game of two ends; in a game of three or more the player leaves, placed last, and
the computer plays their seat so the others can finish (pbem.services.resignation)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlmodel import select

import engine
from pbem.db import Database
from pbem.i18n import Reader
from pbem.models import GameStatus, MoveSource, Seat
from pbem.positions import current_state
from pbem.ratings.service import places
from pbem.scheduler.bots import STAND_IN_LEVEL, STAND_IN_NOTES
from pbem.scheduler.search_process import PLAYOUTS
from pbem.services import (
    NotYourTurn,
    PlayerSpec,
    Site,
    create_game,
    resign,
    start_game,
    submit_move,
)
from pbem.services.players import bot_spec
from pbem.services.resignation import OutOfGame
from pbem.services.results import end_of_play, result_sentence, shown_result
from tests.support import ClockGames

START = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def seats(games: ClockGames, game_id: int) -> list[Seat]:
    with games.database.session() as session:
        return list(session.exec(select(Seat).where(Seat.game_id == game_id)
                                 .order_by(Seat.seat)))  # type: ignore[arg-type]


def three_player_rifugio(games: ClockGames) -> int:
    return games.start("rifugio", START, options={"players": 3}, per_move=2 * DAY)


def test_resigning_a_game_of_two_ends_it(clock_games: ClockGames) -> None:
    game_id = clock_games.start("mosey", START, per_move=2 * DAY)
    with clock_games.database.write() as session:
        resign(session, START, clock_games.site, game_id=game_id, seat=0)
    row = clock_games.game(game_id)
    assert row.status == GameStatus.FINISHED and row.winners == [1]
    assert "resigned" in row.result


def test_resigning_a_game_of_three_leaves_it_to_the_computer(clock_games: ClockGames) -> None:
    game_id = three_player_rifugio(clock_games)
    with clock_games.database.write() as session:
        resign(session, START, clock_games.site, game_id=game_id, seat=1)
    row = clock_games.game(game_id)
    assert row.status == GameStatus.ACTIVE and not row.winners  # the other two play on
    leaver = seats(clock_games, game_id)[1]
    assert leaver.resigned and leaver.stand_in == "resigned"
    told = {e.to_address: e for e in clock_games.emails("clock")}
    assert set(told) == {"p0@example.test", "p1@example.test", "p2@example.test"}
    assert told["p0@example.test"].subject.startswith("Player 1 resigned:")
    assert told["p1@example.test"].subject.startswith("You resigned:")
    assert "The computer plays their seat to the end" in told["p2@example.test"].text_body


def test_the_second_resignation_of_three_ends_the_game(clock_games: ClockGames) -> None:
    game_id = three_player_rifugio(clock_games)
    with clock_games.database.write() as session:
        resign(session, START, clock_games.site, game_id=game_id, seat=1)
        resign(session, START, clock_games.site, game_id=game_id, seat=2)
    row = clock_games.game(game_id)
    assert row.status == GameStatus.FINISHED and row.winners == [0]
    assert places(row, seats(clock_games, game_id))[0] == 1.0
    assert {e.to_address for e in clock_games.emails("game_over")} >= {
        "p0@example.test", "p1@example.test", "p2@example.test"}


def test_a_resigned_seat_resigns_and_moves_no_more(clock_games: ClockGames) -> None:
    game_id = three_player_rifugio(clock_games)
    mover = clock_games.game(game_id).to_move
    with clock_games.database.write() as session:
        resign(session, START, clock_games.site, game_id=game_id, seat=mover)
    row = clock_games.game(game_id)
    game, state = current_state(row)
    with pytest.raises(NotYourTurn, match="out of this game"), \
            clock_games.database.write() as session:
        submit_move(session, START, clock_games.site, game_id=game_id, seat=mover, ply=row.ply,
                    text=str(game.random_move(state, random.Random(1))))
    with pytest.raises(OutOfGame), clock_games.database.write() as session:
        resign(session, START, clock_games.site, game_id=game_id, seat=mover)
    assert clock_games.game(game_id).ply == row.ply


def test_the_computer_plays_a_resigned_seat_until_the_game_ends(
    sqlite_database: Database, site: Site, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 0 resigns; the sweep plays its turns (never mailed to its player) while the others
    move; then seat 1 resigns too, which leaves one person in play and ends the game."""
    games = ClockGames(sqlite_database, site)  # SQLite only: the others here cover both
    monkeypatch.setitem(PLAYOUTS, STAND_IN_LEVEL, 12)  # a quick stand-in: the rules are the test
    game_id = three_player_rifugio(games)
    later = START + timedelta(hours=1)
    with games.database.write() as session:
        resign(session, later, games.site, game_id=game_id, seat=0)
    rng, computer_turns = random.Random(7), 0
    while computer_turns < 3:
        row = games.game(game_id)
        assert row.status == GameStatus.ACTIVE
        if row.to_move == 0:
            assert not games.sweep(later).errors and games.game(game_id).to_move != 0
            computer_turns += 1
            continue
        game, state = current_state(row)
        with games.database.write() as session:
            submit_move(session, later, games.site, game_id=game_id, seat=row.to_move,
                        ply=row.ply, text=str(game.random_move(state, rng)))
    played = [m for m in games.moves(game_id) if m.seat == 0]
    assert played and all(m.source == MoveSource.STAND_IN and m.note == STAND_IN_NOTES["resigned"]
                          for m in played)
    assert [e for e in games.emails("turn", to="p0@example.test")
            if e.created_at > START] == []  # the computer's turns are not mailed to them
    with games.database.write() as session:
        resign(session, later, games.site, game_id=game_id, seat=1)
    row = games.game(game_id)
    assert row.status == GameStatus.FINISHED and row.winners == [2]
    ranks = places(row, seats(games, game_id))
    assert ranks[2] == 1.0 and min(ranks[0], ranks[1]) > 1.0  # those who left come last
    assert games.emails("game_over", to="p0@example.test")  # the result reaches them


def test_the_last_person_resigning_against_computers_ends_the_game(
    database: Database, site: Site,
) -> None:
    with database.write() as session:
        row = create_game(session, START, site, game_type="rifugio", options={"players": 3},
                          players=[PlayerSpec("Ann", "ann@example.test"), bot_spec("easy"),
                                   bot_spec("normal")])
        assert row.id is not None
        game_id = row.id
        start_game(session, START, site, game_id=game_id, force=True)
        resign(session, START, site, game_id=game_id, seat=0)
    games = ClockGames(database, site)
    row = games.game(game_id)
    assert row.status == GameStatus.FINISHED and row.winners == [1, 2]


def _finished_rifugio(seed: int) -> tuple[Any, Any]:
    game = engine.new_game("rifugio", players=3)
    state, rng = game.start(seed=seed), random.Random(seed)
    while game.to_move(state) is not None:
        state = game.play(state, game.random_move(state, rng))
    return game, state


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_seat_that_left_cannot_win_on_the_board(seed: int) -> None:
    """Whoever the board's winner is, if they had left, the best seat still in play wins and
    the result says why, in each language."""
    game, state = _finished_rifugio(seed)
    outcome = game.outcome(state)
    assert outcome is not None and outcome.scores is not None and outcome.winners
    names = ["Ann (Red)", "Bram (Blue)", "Cleo (Yellow)"]
    top = outcome.winners[0]
    winners, result = end_of_play(game, state, names, [top])
    playing = [s for s in range(3) if s != top]
    best = max(outcome.scores[s] for s in playing)
    assert winners == [s for s in playing if outcome.scores[s] == best]
    assert result.startswith(result_sentence(game, state, names))
    assert f"{names[top]} had left the game, so" in result
    assert end_of_play(game, state, names, [s for s in playing][:1]) == (
        list(outcome.winners), result_sentence(game, state, names))  # a loser left: no change
    dutch = shown_result(result, game, state, winners, [top], [],
                         lambda reader: names, Reader("nl"))
    assert dutch != result and "had left" not in dutch and names[top] in dutch


def test_a_forfeit_that_leaves_one_player_in_play_ends_the_game(clock_games: ClockGames) -> None:
    game_id = clock_games.start("rifugio", START, options={"players": 3}, per_move=2 * DAY,
                                timeout_policy="forfeit-bot")
    mover = clock_games.game(game_id).to_move
    leaver, last = [s for s in range(3) if s != mover]
    with clock_games.database.write() as session:
        resign(session, START, clock_games.site, game_id=game_id, seat=leaver)
    assert clock_games.game(game_id).status == GameStatus.ACTIVE
    clock_games.sweep(START + 2 * DAY + timedelta(minutes=1))  # the mover's clock runs out
    row = clock_games.game(game_id)
    assert row.status == GameStatus.FINISHED and row.winners == [last]
    assert "forfeits" in row.result
