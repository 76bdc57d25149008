"""A player starts a game against the computer from their games page.

The player has said yes by asking, so their seat starts accepted and no invitation is sent to
them; every other seat is the computer at the chosen level, which accepts at once. The game
starts straight away, and the scheduler's sweep plays the computer's moves (never a request).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping
from datetime import datetime
from typing import Literal

from sqlalchemy import exists, func
from sqlmodel import Session, col, select

import engine
from engine.bots import LEVELS
from engine.text import Text
from pbem.errors import ServiceError
from pbem.models import GameRecord, GameStatus, Player, Seat
from pbem.services.common import Site
from pbem.services.games import create_game
from pbem.services.players import PlayerSpec, bot_spec

Starter = Literal["me", "computer", "random"]
STARTERS: tuple[Starter, ...] = ("me", "computer", "random")
COMPUTER_TIMEOUT = "forfeit"
"""When the player's clock runs out (after the reminders) the game is lost and over: with the
usual random moves instead, a game its player had left went on for months, one email a turn."""
MAX_COMPUTER_GAMES = 10
"""Unfinished games against the computer a player may have at once: the computer's searches
are shared by the whole site, so one player cannot queue hundreds of them."""


def computer_games_in_progress(session: Session, player_id: int) -> int:
    """How many unfinished games ``player_id`` plays in which every other seat is a computer."""
    other_person = exists().where(col(Seat.game_id) == GameRecord.id,
                                  col(Seat.player_id) != player_id,
                                  col(Seat.player_id) == Player.id, col(Player.bot_level).is_(None))
    mine = select(Seat.game_id).where(Seat.player_id == player_id)
    return session.exec(select(func.count()).select_from(GameRecord).where(
        col(GameRecord.id).in_(mine), col(GameRecord.status).in_((GameStatus.INVITED,
                                                                  GameStatus.ACTIVE)),
        ~other_person)).one()


def start_computer_game(
    session: Session,
    now: datetime,
    site: Site,
    *,
    player: Player,
    game_type: str,
    options: Mapping[str, object],
    level: str,
    starter: Starter = "me",
    rng: random.Random | None = None,
    watching: bool = False,
) -> GameRecord:
    """Create and start ``game_type`` between ``player`` and the computer at ``level``.
    ``watching``: the player started it on the web and is on its page (no turn email while
    they stay there).

    ``starter``: who takes the first seat (with more than two seats, the player sits first or
    last); ``random`` decides by ``rng``.
    """
    if level not in LEVELS:
        raise ServiceError(Text("%(level)s is not a level; choose one of %(levels)s",
                                level=repr(level), levels=", ".join(LEVELS)))
    if starter not in STARTERS:
        raise ServiceError(Text("%(starter)s is not a choice of who starts; choose one of "
                                "%(starters)s", starter=repr(starter),
                                starters=", ".join(STARTERS)))
    try:
        info = engine.game_class(game_type).info
        seats = engine.new_game(info.id, **info.resolve(options)).num_players
    except engine.UnknownGame as error:
        raise ServiceError(str(error)) from None
    assert player.id is not None
    # Two windows at once must not both count nine: PostgreSQL waits here for the other's
    # commit (SQLite's BEGIN IMMEDIATE has serialised the writers already).
    session.exec(select(Player.id).where(Player.id == player.id).with_for_update()).one()
    if computer_games_in_progress(session, player.id) >= MAX_COMPUTER_GAMES:
        raise ServiceError(Text("you have %(count)d games against the computer in progress, the "
                                "most at once: finish or resign one to start another",
                                count=MAX_COMPUTER_GAMES))
    if starter == "random":
        starter = (rng or random.Random(secrets.randbits(64))).choice(("me", "computer"))
    me = PlayerSpec(player.name, player.email, language=player.language)
    computers = [bot_spec(level)] * (seats - 1)
    order = [me, *computers] if starter == "me" else [*computers, me]
    return create_game(session, now, site, game_type=info.id, options=dict(options),
                       players=order, accepted=(player.email,), timeout_policy=COMPUTER_TIMEOUT,
                       watching=(player.email,) if watching else ())
