"""Rebuilding every rating from the rated games gives exactly what the games gave as they ended;
two games ending at the same moment for the same player both count."""

from __future__ import annotations

import itertools
import random
import threading
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import col, select

from pbem.admin import actions
from pbem.db import Database
from pbem.models import Player
from pbem.ratings.service import rebuild
from pbem.ratings.tables import RatingChange
from pbem.services import Site, resign, submit_move
from tests.ratings.support import QUICK, changes, last_move, play_out, ratings, start
from tests.support import Cli, ClockGames


def _history(database: Database) -> list[tuple[Any, ...]]:
    return [(c.game_id, c.player_id, c.game_type, c.mu_before, c.sigma_before, c.mu_after,
             c.sigma_after, c.at) for c in changes(database)]


def test_rebuilding_gives_the_ratings_the_games_gave(database: Database, now: datetime,
                                                    site: Site) -> None:
    rng = random.Random(7)
    names = ["ann", "bob", "cy", "dee"]
    when = now
    for round_ in range(6):
        when += timedelta(hours=1)
        first, second = rng.sample(names, 2)
        game_id = start(database, when, site, first, second)
        if round_ == 2:  # resigned
            with database.write() as session:
                resign(session, when, site, game_id=game_id, seat=1)
        elif round_ == 4:  # adjudicated: never counts, before or after
            with database.write() as session:
                actions.adjudicate(session, when, site, game_id=game_id, winners=[1],
                                   reason="agreed", actor="boss@example.test")
        else:
            play_out(database, when, site, game_id, rng)
    when += timedelta(hours=1)
    play_out(database, when, site, start(database, when, site, "ann", "cy", rated=False), rng)
    forfeit = ClockGames(database, site)
    forfeit.start("mosey", when, timeout_policy="forfeit", rated=True)  # Player 0 and 1
    forfeit.sweep(when + timedelta(days=4))
    when += timedelta(days=5)
    play_out(database, when, site, start(database, when, site, "cy", "dee",
                                         options={"board": "3-4"}), rng)

    live, live_history = ratings(database), _history(database)
    assert sum(games for _, _, games in live.values()) == 2 * 7  # 6 refugia, 1 mosey
    assert {game_type for _, game_type in live} == {QUICK, "mosey"}
    with database.write() as session:
        assert rebuild(session, when) == (7, len(live))
    assert ratings(database) == live  # exactly: the same updates in the same order
    assert _history(database) == live_history


def test_the_rebuild_command(cli: Cli, site: Site, now: datetime) -> None:
    database = cli.database
    play_out(database, now, site, start(database, now, site, "ann", "bob"), random.Random(1))
    live = ratings(database)
    done = cli("ratings", "rebuild")
    assert done.exit_code == 0, done.output
    assert done.output == "ratings rebuilt from 1 rated game for 2 players\n"
    assert ratings(database) == live


ROUNDS = 3


def test_two_games_ending_at_once_for_the_same_player_both_count(
        database: Database, now: datetime, site: Site) -> None:
    """Ann plays Bob and Cy; both games end at the same moment, from two threads. Her first
    rating is made by both at once in the first round, then locked and updated in the others."""
    rng = random.Random(11)
    for _ in range(ROUNDS):
        finals = []
        for opponent in ("bob", "cy"):
            game_id = start(database, now, site, "ann", opponent)
            finals.append((game_id, *last_move(database, now, site, game_id, rng)))
        barrier = threading.Barrier(2)
        errors: list[BaseException] = []

        def finish(game_id: int, seat: int, ply: int, move: str,
                   barrier: threading.Barrier = barrier,
                   errors: list[BaseException] = errors) -> None:
            barrier.wait()
            try:
                with database.write() as session:
                    submit_move(session, now, site, game_id=game_id, seat=seat, ply=ply,
                                text=move)
            except BaseException as error:  # reported below, from this thread
                errors.append(error)

        threads = [threading.Thread(target=finish, args=final) for final in finals]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
    stored = ratings(database)
    assert stored[("ann@example.test", QUICK)][2] == 2 * ROUNDS
    assert stored[("bob@example.test", QUICK)][2] == stored[("cy@example.test", QUICK)][2] \
        == ROUNDS
    # No update lost: each of Ann's changes starts where the one before ended.
    with database.session() as session:
        ann = session.exec(select(Player).where(Player.email == "ann@example.test")).one()
        hers = session.exec(select(RatingChange).where(RatingChange.player_id == ann.id)
                            .order_by(col(RatingChange.id))).all()
    assert len(hers) == 2 * ROUNDS
    for earlier, later in itertools.pairwise(hers):
        assert (later.mu_before, later.sigma_before) == (earlier.mu_after, earlier.sigma_after)
    assert (hers[-1].mu_after, hers[-1].sigma_after) == stored[("ann@example.test", QUICK)][:2]
