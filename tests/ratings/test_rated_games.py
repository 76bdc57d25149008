"""Rated games update their players' ratings in the transaction that ends them, on SQLite and
PostgreSQL; unrated, adjudicated, aborted and computer games never do."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest
from sqlmodel import col, select

import engine
from pbem.admin import actions
from pbem.db import Database
from pbem.models import AuditEntry, GameRecord, GameStatus
from pbem.ratings.model import Rating, rate
from pbem.ratings.service import history, leaderboard, rate_game, ratings_of
from pbem.ratings.tables import PlayerRating, RatingChange
from pbem.services import Site, abort_game, resign, submit_move
from pbem.services.players import bot_spec
from tests.ratings.support import (
    QUICK,
    changes,
    emails_of,
    last_move,
    person,
    play_out,
    ratings,
    start,
)
from tests.support import ClockGames


def test_a_rated_game_played_to_its_end_rates_both_players_in_the_same_transaction(
        database: Database, now: datetime, site: Site) -> None:
    game_id = start(database, now, site, "ann", "bob")
    seat, ply, move = last_move(database, now, site, game_id, random.Random(1))
    assert ratings(database) == {}

    class Undo(Exception):
        pass

    # The last move and the ratings are written together: undoing one undoes the other.
    with pytest.raises(Undo), database.write() as session:
        submit_move(session, now, site, game_id=game_id, seat=seat, ply=ply, text=move)
        assert len(session.exec(select(PlayerRating)).all()) == 2
        raise Undo
    assert ratings(database) == {} and changes(database) == []

    with database.write() as session:
        submit_move(session, now, site, game_id=game_id, seat=seat, ply=ply, text=move)
    with database.session() as session:
        row = session.get(GameRecord, game_id)
    assert row is not None and row.status == GameStatus.FINISHED and len(row.winners or []) == 1
    [winner] = row.winners or []
    emails = emails_of(database, game_id)
    stored = ratings(database)
    won, lost = rate([Rating(), Rating()], [1, 2])
    assert stored[(emails[winner], QUICK)] == (won.mu, won.sigma, 1)
    assert stored[(emails[1 - winner], QUICK)] == (lost.mu, lost.sigma, 1)
    assert won.mu > Rating().mu > lost.mu
    made = changes(database, game_id)
    assert len(made) == 2 and all(c.at == now and c.game_type == QUICK for c in made)
    assert {(c.mu_before, c.sigma_before) for c in made} == {(Rating().mu, Rating().sigma)}

    # What the rating pages read.
    with database.session() as session:
        board = leaderboard(session, QUICK, 10)
        assert [e.name for e in board] == ["Ann" if winner == 0 else "Bob",
                                           "Bob" if winner == 0 else "Ann"]
        first = board[0]
        assert ratings_of(session, first.player_id) == {QUICK: first.rating}
        assert [(p.game_id, p.shown) for p in history(session, first.player_id, QUICK)] == [
            (game_id, won.shown)]
        # Rated once: a second call changes nothing.
        assert not rate_game(session, now, session.get(GameRecord, game_id))  # type: ignore[arg-type]


def test_an_unrated_game_changes_no_rating(database: Database, now: datetime,
                                           site: Site) -> None:
    play_out(database, now, site, start(database, now, site, "ann", "bob", rated=False),
             random.Random(2))
    assert ratings(database) == {} and changes(database) == []


def test_a_game_with_a_computer_player_is_never_rated(database: Database, now: datetime,
                                                      site: Site) -> None:
    game_id = start(database, now, site, players=[person("ann"), bot_spec("easy")], rated=True)
    with database.write() as session:
        row = session.get(GameRecord, game_id)
        assert row is not None and not row.rated  # asked for, but made unrated
        row.rated = True  # and even when a row says so (a bot put on a seat later)
        session.add(row)
    play_out(database, now, site, game_id, random.Random(3))
    assert ratings(database) == {} and changes(database) == []


def test_a_resignation_counts(database: Database, now: datetime, site: Site) -> None:
    game_id = start(database, now, site, "ann", "bob")
    with database.write() as session:
        resign(session, now, site, game_id=game_id, seat=0)
    lost, won = rate([Rating(), Rating()], [2, 1])
    assert ratings(database) == {("ann@example.test", QUICK): (lost.mu, lost.sigma, 1),
                                 ("bob@example.test", QUICK): (won.mu, won.sigma, 1)}


def test_a_forfeit_on_time_counts(database: Database, now: datetime, site: Site) -> None:
    games = ClockGames(database, site)
    game_id = games.start("mosey", now, timeout_policy="forfeit", rated=True)
    loser = games.game(game_id).to_move
    assert games.sweep(now + timedelta(days=4)).timeouts == {"forfeit": 1}
    won, lost = rate([Rating(), Rating()], [1, 2])
    emails = emails_of(database, game_id)
    assert ratings(database) == {(emails[1 - loser], "mosey"): (won.mu, won.sigma, 1),
                                 (emails[loser], "mosey"): (lost.mu, lost.sigma, 1)}


def test_an_adjudicated_game_is_made_unrated_and_says_so(database: Database, now: datetime,
                                                        site: Site) -> None:
    game_id = start(database, now, site, "ann", "bob")
    with database.write() as session:
        actions.adjudicate(session, now, site, game_id=game_id, winners=[0], reason="agreed",
                           actor="boss@example.test")
    with database.session() as session:
        row = session.get(GameRecord, game_id)
        entry = session.exec(select(AuditEntry).where(AuditEntry.action == "game adjudicated")
                             ).one()
    assert row is not None and row.status == GameStatus.FINISHED and not row.rated
    assert entry.detail["unrated"] is True
    assert ratings(database) == {} and changes(database) == []


def test_an_aborted_game_is_not_rated(database: Database, now: datetime, site: Site) -> None:
    game_id = start(database, now, site, "ann", "bob")
    with database.write() as session:
        row = abort_game(session, now, site, game_id=game_id, reason="a player left")
        assert row.rated and not rate_game(session, now, row)
    assert ratings(database) == {} and changes(database) == []


# Rifugio, three players: from this seed random play ends 11, 13, 11 with the second seat
# winning, so the first and third share second place.
RIFUGIO_SEED = "36"


def test_rifugio_with_three_players_and_a_shared_place(database: Database, now: datetime,
                                                       site: Site) -> None:
    game = engine.new_game("rifugio", players=3)
    rng = random.Random(int(RIFUGIO_SEED))
    positions = [game.start(RIFUGIO_SEED)]
    while game.outcome(positions[-1]) is None:
        positions.append(game.play(positions[-1], game.random_move(positions[-1], rng)))
    outcome = game.outcome(positions[-1])
    assert outcome is not None and outcome.winners == (1,) and outcome.scores == (11, 13, 11)
    game_id = start(database, now, site, "ann", "bob", "cy", game_type="rifugio",
                    options={"players": 3})
    before_end = positions[-2]
    with database.write() as session:  # the game as it stands one move before its end
        row = session.get(GameRecord, game_id)
        assert row is not None
        row.state, row.to_move = game.encode(before_end), game.to_move(before_end)
        session.add(row)
    last = next(m for m in game.legal_moves(before_end)
                if game.play(before_end, m) == positions[-1])
    with database.write() as session:
        submit_move(session, now, site, game_id=game_id, seat=game.to_move(before_end) or 0,
                    ply=row.ply, text=str(last))
    second, first, also_second = rate([Rating()] * 3, [2, 1, 2])
    assert second == also_second
    assert ratings(database) == {
        ("ann@example.test", "rifugio"): (second.mu, second.sigma, 1),
        ("bob@example.test", "rifugio"): (first.mu, first.sigma, 1),
        ("cy@example.test", "rifugio"): (also_second.mu, also_second.sigma, 1)}


def test_board_options_share_one_rating(database: Database, now: datetime, site: Site) -> None:
    play_out(database, now, site, start(database, now, site, "ann", "bob"), random.Random(4))
    play_out(database, now, site, start(database, now, site, "ann", "bob",
                                        options={"board": "3-4"}),
             random.Random(5))
    assert {key: games for key, (_, _, games) in ratings(database).items()} == {
        ("ann@example.test", QUICK): 2, ("bob@example.test", QUICK): 2}
    with database.session() as session:
        assert len(session.exec(select(RatingChange).order_by(col(RatingChange.id))).all()) == 4
