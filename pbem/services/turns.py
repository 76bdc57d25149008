"""A whole turn: a player's steps from the move pages or a reply by mail, or a computer player's
move; the forced passes and stand-in moves that follow it are played with it.

A turn is one or several steps (a game with hidden information may need the result of one step
before the player can choose the next). :func:`play_turn` plays them all in the caller's
transaction, each at the ply the game has reached, and stops with :class:`TurnOver` if the turn
passes to someone else before the steps run out; the caller's rollback then undoes every step.
What happened comes back as events (:mod:`pbem.services.events`): each move played (the
automatic moves that followed included), the turn that started, the game that ended.

A single move is a turn of one step (:func:`submit_move`): the move page, a computer player.
The server's own moves (a timeout's, a forced pass, a stand-in's) go through
:func:`pbem.services.moves.play_and_notify`, which every step here ends in.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session

from engine.text import Text
from pbem.models import GameStatus, Move, MoveSource
from pbem.services.common import NotYourTurn, Site, lock_game
from pbem.services.events import MovePlayed, TurnEvent
from pbem.services.moves import Position, check_turn, play_and_notify


class TurnOver(NotYourTurn):
    """The turn passed on after ``played`` while ``next`` was still to be played. Its message is
    what a move for a seat whose turn is over gets ("it is not your turn", or "this game is not
    running" when the step ended the game); a reply by mail words it its own way from
    ``played`` and ``next``."""

    def __init__(self, played: Sequence[str], next: str, *, running: bool) -> None:
        super().__init__(Text("it is not your turn") if running
                         else Text("this game is not running"))
        self.played = list(played)
        self.next = next


def play_turn(
    session: Session,
    now: datetime,
    site: Site,
    *,
    game_id: int,
    seat: int,
    ply: int,
    steps: Sequence[str],
    note: str = "",
    source: str = MoveSource.LINK,
    holder: int | None = None,
) -> list[TurnEvent]:
    """Play ``steps`` for ``seat``, the first at ``ply`` (the ply the player saw), ``note`` with
    the last; raises a ServiceError (:class:`TurnOver` among them) or engine.IllegalMove, whose
    message is the engine's reason, and the caller rolls back. ``holder``, when given, must
    still hold the seat (a replaced player's old link plays nothing)."""
    events: list[TurnEvent] = []
    row = lock_game(session, game_id)
    position: Position | None = None  # decoded once, then carried from step to step
    for number, step in enumerate(steps):
        if number and (row.status != GameStatus.ACTIVE or row.to_move != seat):
            raise TurnOver(steps[:number], step, running=row.status == GameStatus.ACTIVE)
        check_turn(session, row, seat=seat, ply=ply if number == 0 else row.ply,
                   source=source, holder=holder)
        position = position or Position.of(row)
        move = position.game.parse_move(step)
        events += play_and_notify(session, now, site, row, move, source=source,
                                  note=note if number == len(steps) - 1 else "",
                                  position=position)
    return events


def submit_move(
    session: Session,
    now: datetime,
    site: Site,
    *,
    game_id: int,
    seat: int,
    ply: int,
    text: str,
    note: str = "",
    source: str = MoveSource.LINK,
    holder: int | None = None,
) -> Move:
    """Play ``text`` for ``seat`` if the game is still at ``ply`` (see :func:`play_turn`): the
    move's record. Forced passes and stand-in moves that follow are played in the same
    transaction (:func:`pbem.services.moves.play_automatic_moves`)."""
    events = play_turn(session, now, site, game_id=game_id, seat=seat, ply=ply, steps=[text],
                       note=note, source=source, holder=holder)
    return next(event.move for event in events if isinstance(event, MovePlayed))
