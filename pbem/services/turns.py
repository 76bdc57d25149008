"""A whole turn, whoever plays it, and every move in it.

Every move of every source is played by :func:`play_moves`, and by nothing else: a player's steps
from the move pages or a reply by mail (:func:`play_turn`), a computer player's or a stand-in's
(:func:`submit_move`, from the sweep), a timed-out turn under its policy
(:mod:`pbem.services.timeouts`), and the moves the server makes itself after any of them (a
forced pass, a forfeited seat's stand-in, the answer a player left in advance: a conditional move,
asked of the features through :class:`~pbem.services.events.StandingMove`) or at a game's
start. It decodes the stored state once (:class:`~pbem.services.moves.Position`), carries it
from move to move and into the turn's events, and publishes what happened
(:mod:`pbem.services.events`): each move played, then the turn that started or the game that
ended. It writes no email: the subscribers to those events do (:mod:`pbem.services.turn_mail`),
in the same transaction.

A turn is one or several steps (a game with hidden information may need the result of one step
before the player can choose the next). :func:`play_turn` plays them all in the caller's
transaction, each at the ply the game has reached, and stops with :class:`TurnOver` if the turn
passes to someone else before the steps run out; the caller's rollback then undoes every step.
A single move is a turn of one step (:func:`submit_move`): the move page, a computer player.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session

from engine.text import Text
from pbem.models import GameRecord, GameStatus, Move, MoveSource
from pbem.services.common import NotYourTurn, Site, lock_game, seats_of
from pbem.services.events import (
    EVENTS,
    GameFinished,
    MovePlayed,
    StandingMove,
    TurnEvent,
    TurnStarted,
)
from pbem.services.moves import Position, apply_move, automatic_move, check_turn

MAX_TURN_MOVES = 10_000  # a stand-in playing out a long game among them; only a bug would reach it


@dataclass(frozen=True)
class Step:
    """One move of a turn: the engine's move, who made it (a MoveSource), its note."""

    move: Any
    source: str
    note: str = ""


Steps = Callable[[GameRecord, Position], Step | None]
"""The next step of a turn, asked before each with the locked row and its position as the steps
before left them; None when the turn has no more."""


def play_moves(
    session: Session, now: datetime, site: Site, row: GameRecord, steps: Steps | None = None,
    *, position: Position | None = None, opening: bool = False, quiet: bool = False,
) -> list[TurnEvent]:
    """Play a turn in the locked ``row``: each step ``steps`` gives, each followed by the moves
    the server then makes itself (forced passes, a forfeited seat's stand-in), or those alone
    without ``steps``. ``position`` is the row's, when the caller decoded it already; it follows
    the moves. What happened, in order, published (:data:`~pbem.services.events.EVENTS`: the
    emails are written by their subscribers) and returned: each move, then the turn that
    started or the game that ended. ``opening``: the game is starting, so the turn after these
    moves is its first whoever plays it (``quiet``: the caller tells the players of it)."""
    assert row.id is not None
    mover = row.to_move
    position = position or Position.of(row)
    seats = seats_of(session, row.id)
    played: list[Move] = []
    standing: list[Any] = []  # the steps still to play of an answer left in advance
    choice: tuple[Any, str, str] | None
    automatic = False
    for _ in range(MAX_TURN_MOVES):
        # After each move, the rest of an answer being played, else the server's own move,
        # else the steps the next seat left in advance for it (a conditional move); then the
        # turn's next step, if any.
        if not standing:
            choice = automatic_move(row, seats, position) if played or steps is None else None
            if choice is None and played:
                standing = standing_move(session, now, row, played[-1], position)
        if standing:
            choice = (standing.pop(0), MoveSource.CONDITIONAL, "")
        if choice is not None:
            step: Step | None = Step(*choice)
            automatic = True
        else:
            step = steps(row, position) if steps is not None else None
        if step is None:
            break
        played.append(apply_move(session, now, row, step.move, source=step.source,
                                 note=step.note, position=position))
    events: list[TurnEvent] = [MovePlayed(move) for move in played]
    if row.status == GameStatus.FINISHED and (played or opening):
        events.append(GameFinished(session, now, site, row, seats_of(session, row.id),
                                   position.game, position.state))
    elif row.status == GameStatus.ACTIVE and row.to_move is not None and (
            opening or (mover is not None and (row.to_move != mover or automatic))):
        events.append(TurnStarted(session, now, site, row, row.to_move, row.ply,
                                  None if opening else mover, position.game, position.state,
                                  quiet=quiet, played=tuple(played)))
    for event in events:
        EVENTS.publish(event)
    return events


def standing_move(session: Session, now: datetime, row: GameRecord, last: Move,
                  position: Position) -> list[Any]:
    """The steps the seat now to move left in advance as its answer to the move ``last``
    (another seat's) ended, if a feature keeps one
    (:class:`~pbem.services.events.StandingMove`); [] when none."""
    if row.status != GameStatus.ACTIVE or row.to_move is None or row.to_move == last.seat:
        return []
    asked = StandingMove(session, now, row, row.to_move, last, position.game, position.state)
    return next((list(answer) for answer in EVENTS.publish(asked) if answer), [])


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
    position: Position | None = None,
) -> list[TurnEvent]:
    """Play ``steps`` for ``seat``, the first at ``ply`` (the ply the player saw), ``note`` with
    the last; raises a ServiceError (:class:`TurnOver` among them) or engine.IllegalMove, whose
    message is the engine's reason, and the caller rolls back. ``holder``, when given, must
    still hold the seat (a replaced player's old link plays nothing). ``position``: the game's,
    when the caller decoded it (and wants it after the turn, for an email of its own)."""
    row = lock_game(session, game_id)
    numbered = iter(enumerate(steps))

    def step(row: GameRecord, position: Position) -> Step | None:
        number, text = next(numbered, (None, ""))
        if number is None:
            return None
        if number and (row.status != GameStatus.ACTIVE or row.to_move != seat):
            raise TurnOver(steps[:number], text, running=row.status == GameStatus.ACTIVE)
        check_turn(session, row, seat=seat, ply=ply if number == 0 else row.ply,
                   source=source, holder=holder)
        return Step(position.game.parse_move(text), source,
                    note if number == len(steps) - 1 else "")

    return play_moves(session, now, site, row, step, position=position)


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
    transaction (:func:`play_moves`)."""
    events = play_turn(session, now, site, game_id=game_id, seat=seat, ply=ply, steps=[text],
                       note=note, source=source, holder=holder)
    return next(event.move for event in events if isinstance(event, MovePlayed))
