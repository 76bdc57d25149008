"""Two submissions of the same turn at the same moment: exactly one is applied; games started
at the same moment stay within the cap.

Real threads, a real SQLite file (WAL, BEGIN IMMEDIATE) and real PostgreSQL (row lock plus the
conditional UPDATE on the ply). The race is run on several games so it is not won by luck once.
"""

from __future__ import annotations

import random
import threading
from datetime import datetime

from sqlmodel import select

import engine
from pbem.db import Database
from pbem.models import GameRecord, Move, OutboxEmail, Player
from pbem.positions import current_state
from pbem.services import GameMovedOn, ServiceError, Site, submit_move
from pbem.services.computer_games import (
    MAX_COMPUTER_GAMES,
    computer_games_in_progress,
    start_computer_game,
)
from tests.support import start_a_game

ROUNDS = 4


def test_a_double_submission_applies_exactly_one_move(
    database: Database, now: datetime, site: Site, any_game: str, smallest_options: object,
) -> None:
    options = smallest_options(any_game)  # type: ignore[operator]
    rng = random.Random(3)
    for _ in range(ROUNDS):
        game_pk = start_a_game(database, now, site, any_game, options)
        with database.session() as session:
            row = session.get(GameRecord, game_pk)
            emails_before = len(session.exec(select(OutboxEmail)).all())
        assert row is not None
        game, state = current_state(row)
        seat = game.to_move(state)
        # Two moves, as from two windows: the first to commit wins, the other is refused.
        moves = [str(game.random_move(state, rng)) for _ in range(2)]
        barrier = threading.Barrier(2)
        outcomes: list[str] = []

        def submit(text: str, game_pk: int = game_pk, seat: int | None = seat,
                   barrier: threading.Barrier = barrier, outcomes: list[str] = outcomes) -> None:
            barrier.wait()
            try:
                with database.write() as session:
                    submit_move(session, now, site, game_id=game_pk, seat=seat or 0, ply=0,
                                text=text)
                outcomes.append("played")
            except GameMovedOn:
                outcomes.append("moved on")

        threads = [threading.Thread(target=submit, args=(m,)) for m in moves]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(outcomes) == ["moved on", "played"]

        with database.session() as session:
            played = session.exec(select(Move).where(Move.game_id == game_pk)).all()
            row = session.get(GameRecord, game_pk)
            emails = session.exec(select(OutboxEmail)).all()
        assert len(played) == 1 and row is not None and row.ply == 1
        assert current_state(row)[1] == game.play(state, played[0].notation)
        # The refused move's emails rolled back with it: only one move's worth were written.
        written = len(emails) - emails_before
        assert 1 <= written <= engine.new_game(any_game, **options).num_players


def test_games_against_the_computer_started_at_once_stay_within_the_cap(
    database: Database, now: datetime, site: Site,
) -> None:
    """Four windows start a game against the computer at the same moment, one below the cap:
    exactly one game starts (PostgreSQL's read committed would let all four count nine)."""
    with database.write() as session:
        ann = Player(name="Ann", email="ann@example.test", created_at=now)
        session.add(ann)
        session.flush()
        for _ in range(MAX_COMPUTER_GAMES - 1):
            start_computer_game(session, now, site, player=ann, game_type="mosey",
                                options={"order": 4}, level="easy")
        ann_id = ann.id
    assert ann_id is not None
    barrier = threading.Barrier(4)
    outcomes: list[str] = []

    def start() -> None:
        barrier.wait()
        try:
            with database.write() as session:
                player = session.get(Player, ann_id)
                assert player is not None
                start_computer_game(session, now, site, player=player, game_type="mosey",
                                    options={"order": 4}, level="easy")
            outcomes.append("started")
        except ServiceError:
            outcomes.append("refused")

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["refused"] * 3 + ["started"]
    with database.session() as session:
        assert computer_games_in_progress(session, ann_id) == MAX_COMPUTER_GAMES
