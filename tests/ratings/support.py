"""Rated games played through the service, on any database: start them, play them to one move
before the end, and read the ratings back."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

from sqlmodel import col, select

from pbem.db import Database
from pbem.models import GameRecord, GameStatus, Player
from pbem.positions import current_state
from pbem.ratings.tables import PlayerRating, RatingChange
from pbem.services import PlayerSpec, Site, submit_move
from tests.support import start_a_game

# Refugia on its smallest board ends in a handful of moves.
QUICK = "refugia"
QUICK_OPTIONS: dict[str, object] = {"board": "2-3"}


def person(name: str) -> PlayerSpec:
    return PlayerSpec(name.title(), f"{name}@example.test")


def start(database: Database, now: datetime, site: Site, *names: str, rated: bool = True,
          game_type: str = QUICK, options: dict[str, object] | None = None,
          players: list[PlayerSpec] | None = None, **create: Any) -> int:
    return start_a_game(database, now, site, game_type,
                        QUICK_OPTIONS if options is None else options,
                        players=players or [person(n) for n in names], rated=rated, **create)


def last_move(database: Database, now: datetime, site: Site, game_id: int,
              rng: random.Random) -> tuple[int, int, str]:
    """Play random moves until one can end the game: (seat, ply, that move). Moves after which
    the server's forced passes would end the game by themselves are avoided."""
    for _ in range(500):
        with database.session() as session:
            row = session.get(GameRecord, game_id)
        assert row is not None and row.status == GameStatus.ACTIVE and row.to_move is not None
        game, state = current_state(row)
        legal = list(game.legal_moves(state))
        ending = [m for m in legal if game.outcome(game.play(state, m)) is not None]
        if ending:
            return row.to_move, row.ply, str(rng.choice(ending))
        safe = [m for m in legal if not _passes_to_the_end(game, game.play(state, m))]
        move = rng.choice(safe or legal)
        with database.write() as session:
            submit_move(session, now, site, game_id=game_id, seat=row.to_move, ply=row.ply,
                        text=str(move))
    raise AssertionError("the game did not end")


def _passes_to_the_end(game: Any, state: Any) -> bool:
    """Whether the server's forced passes from ``state`` end the game."""
    while game.outcome(state) is None:
        legal = game.legal_moves(state)
        if len(legal) != 1 or str(legal[0]) != "pass":
            return False
        state = game.play(state, legal[0])
    return True


def play_out(database: Database, now: datetime, site: Site, game_id: int,
             rng: random.Random) -> GameRecord:
    """Play random moves to the end, each in its own transaction; the finished game."""
    for _ in range(500):
        with database.session() as session:
            row = session.get(GameRecord, game_id)
        assert row is not None
        if row.status != GameStatus.ACTIVE:
            assert row.status == GameStatus.FINISHED
            return row
        game, state = current_state(row)
        with database.write() as session:
            submit_move(session, now, site, game_id=game_id, seat=row.to_move or 0, ply=row.ply,
                        text=str(game.random_move(state, rng)))
    raise AssertionError("the game did not end")


def ratings(database: Database) -> dict[tuple[str, str], tuple[float, float, int]]:
    """(email, game id) -> (mu, sigma, games) for every stored rating."""
    with database.session() as session:
        rows = session.exec(select(PlayerRating, Player.email)
                            .join(Player, col(Player.id) == col(PlayerRating.player_id))).all()
    return {(email, r.game_type): (r.mu, r.sigma, r.games) for r, email in rows}


def changes(database: Database, game_id: int | None = None) -> list[RatingChange]:
    query = select(RatingChange).order_by(col(RatingChange.id))
    if game_id is not None:
        query = query.where(RatingChange.game_id == game_id)
    with database.session() as session:
        return list(session.exec(query))


def emails_of(database: Database, game_id: int) -> list[str]:
    """Seat order -> the player's address."""
    from pbem.services.common import players_of, seats_of

    with database.session() as session:
        seats = seats_of(session, game_id)
        players = players_of(session, seats)
        return [players[s.player_id].email for s in seats]
