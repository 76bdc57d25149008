"""What the core of the service tells the features built on it, without knowing them.

The core (games, moves, clocks, resignations) publishes an event when something happens that a
feature may care about; ratings, tournaments and rematch links subscribe
(:func:`pbem.features.connect`, called where a process starts: the app factory, the ``pbem``
command, the tests). Handlers run at once, in the order they were subscribed, inside the caller's
transaction: what they write (a rating, a tournament's next round, its emails in the outbox) is
committed with the game's end, or not at all. No app context is needed, so the scheduler, the
command line and mail received by reply publish the same way as a web request.

>>> from dataclasses import dataclass, field
>>> @dataclass(frozen=True)
... class Rang:
...     times: int
>>> bell = Dispatcher()
>>> bell.subscribe(Rang, lambda event: "ding" * event.times)
>>> bell.publish(Rang(2))
['dingding']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import event as orm_event
from sqlmodel import Session

import engine
from pbem.models import GameRecord, Move, OutboxEmail, Seat
from pbem.services.common import Site

Event = TypeVar("Event")


@dataclass(frozen=True)
class GameFinished:
    """``row`` has just ended, however (its rules, a resignation, a forfeit, an adjudication):
    published in the transaction that ends it. ``game`` and ``state`` are its final position,
    for whoever writes about it (the game-over emails are written by the first handler, so they
    precede what the others write, such as a tournament's next round)."""

    session: Session
    now: datetime
    site: Site
    row: GameRecord
    seats: list[Seat]
    game: engine.AnyGame = field(compare=False, repr=False)
    state: Any = field(compare=False, repr=False)


@dataclass(frozen=True)
class GameOverEmail:
    """The game-over email to ``seat`` is being written: each answer (a dict) adds values to its
    template, such as the link that offers a rematch."""

    site: Site
    row: GameRecord
    seat: Seat


@dataclass(frozen=True)
class MovePlayed:
    """A move was applied (a player's, a computer's, or the server's own)."""

    move: Move


@dataclass(frozen=True)
class TurnStarted:
    """``seat`` is to move in ``row`` at ``ply``, ``game`` and ``state`` the position: after
    ``mover``'s turn, or the game's first turn (``mover`` None). ``quiet``: the caller tells the
    players of this first turn itself (a tournament's round email lists each player's new games
    with their move links), so nobody is mailed about it here."""

    session: Session
    now: datetime
    site: Site
    row: GameRecord
    seat: int
    ply: int
    mover: int | None
    game: engine.AnyGame = field(compare=False, repr=False)
    state: Any = field(compare=False, repr=False)
    quiet: bool = False
    played: tuple[Move, ...] = field(default=(), compare=False, repr=False)  # the turn's moves


@dataclass(frozen=True)
class EmailQueued:
    """``email`` is being written to the outbox in ``session``'s transaction (at the flush that
    inserts it, its ``created_at`` the moment it was queued): what a handler adds to the session
    is written with it, or not at all. Other channels (pbem.channels) follow the turn notices,
    reminders and game-over emails this way."""

    session: Session
    email: OutboxEmail


@dataclass(frozen=True)
class StandingMove:
    """``seat`` is to move in the locked ``row`` right after another seat played ``last``:
    a feature may answer with the steps that seat left in advance for this (a conditional
    move, pbem.conditional; one step, or the first steps of a turn of several), to be played
    at once and in order in the same transaction, or None. Asked by
    :func:`pbem.services.turns.play_moves`; a handler may write (a stored answer used up or
    dropped) in ``session``'s transaction. ``game`` and ``state`` are the position now."""

    session: Session
    now: datetime
    row: GameRecord
    seat: int
    last: Move
    game: Any
    state: Any


@dataclass(frozen=True)
class SeatEmail:
    """The email ``kind`` ("turn", "conditional_played") to ``seat`` of ``row`` is being
    written: each answer (a dict) adds values to its template (what became of the seat's
    conditional moves)."""

    session: Session
    row: GameRecord
    seat: Seat
    kind: str


@dataclass(frozen=True)
class ReplySaid:
    """A reply by mail (pbem.inbound) carried lines for the game's other players (``say:``),
    from the player holding ``seat``, in ``session``'s transaction. A handler that cannot pass
    them on answers with why not (a :class:`~engine.text.Text`), which the reply's answer says;
    None when it did."""

    session: Session
    now: datetime
    site: Site
    row: GameRecord
    seat: Seat
    text: str


# What playing a turn can cause, in the order it happened (pbem.services.turns).
TurnEvent = MovePlayed | TurnStarted | GameFinished


class Dispatcher:
    """Handlers by the type of event they take, each subscribed once, called in order."""

    def __init__(self) -> None:
        self._handlers: dict[type[Any], list[Callable[[Any], Any]]] = {}

    def subscribe(self, kind: type[Event], handler: Callable[[Event], Any]) -> None:
        handlers = self._handlers.setdefault(kind, [])
        if handler not in handlers:
            handlers.append(handler)

    def handlers(self, kind: type[Any]) -> tuple[Callable[[Any], Any], ...]:
        return tuple(self._handlers.get(kind, ()))

    def publish(self, event: object) -> list[Any]:
        """Call every handler of ``event``'s type with it; their answers, in order."""
        return [handler(event) for handler in self.handlers(type(event))]


EVENTS = Dispatcher()


def _publish_queued_emails(session: Session, _context: Any, _instances: Any) -> None:
    """Every email (:mod:`pbem.services.notify` and the features' mail alike) reaches the
    outbox through the session; this tells :class:`EmailQueued` of each before it is written.
    Handlers may read and add rows: the session does not flush again meanwhile."""
    emails = [row for row in session.new if isinstance(row, OutboxEmail)]
    if not emails or not EVENTS.handlers(EmailQueued):
        return
    with session.no_autoflush:
        for email in emails:
            EVENTS.publish(EmailQueued(session, email))


orm_event.listen(Session, "before_flush", _publish_queued_emails)
