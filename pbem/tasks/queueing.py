"""Queueing the computer players' searches: with every write that leaves a computer to move,
and, for whatever that missed, in the scheduler's sweep.

:func:`queue_with_writes` subscribes to ``database``'s write transactions (SQLAlchemy's session
events): when a transaction wrote a game, a seat or a move, and one of those games now waits for
a computer, the search job is queued just before the commit, in the same transaction, so the job
exists exactly when the move that asks for it does (a rollback takes both). This catches every
way a turn passes to a computer (a person's move, a computer's own move in a game between
computers, a timeout, a stand-in, a game that starts or resumes) without the services knowing of
jobs. Queueing happens in a savepoint: if it fails, the move still commits, and the sweep
queues the search a moment later.

:func:`requeue` is the scheduler's sweep over the queue (every ``PBEM_BOT_EVERY`` seconds, by the
scheduler holding the lease): it runs again the searches of workers not heard of for
:data:`~pbem.tasks.jobs.STALLED_SECONDS`, and queues each computer turn that no job waits for.
So no turn waits longer than a search plus that, whatever was lost.
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, event
from sqlmodel import Session

from pbem.db import Database
from pbem.models import GameRecord, Move, Seat
from pbem.scheduler.bots import waiting_turns
from pbem.tasks.jobs import (
    STALLED_SECONDS,
    defer_search,
    driver_connection,
    retry_stalled,
    savepoint,
    waiting_searches,
)

log = logging.getLogger(__name__)
_GAMES = "pbem.tasks.games"  # session.info: the games the transaction wrote so far
# The pools of the databases whose writes queue searches (a process may open others: tests,
# whose databases drop out of here with their pools).
_WATCHED: weakref.WeakSet[Any] = weakref.WeakSet()


def queue_with_writes(database: Database) -> None:
    """From now on, each write transaction on ``database`` that leaves a computer player to
    move queues that search before it commits. Calling it again changes nothing."""
    if database.is_sqlite:
        raise ValueError("search jobs live in PostgreSQL, not SQLite")
    if not event.contains(Session, "after_flush", _note_games):
        event.listen(Session, "after_flush", _note_games)
        event.listen(Session, "before_commit", _queue_searches)
    _WATCHED.add(database.engine.pool)
    if not event.contains(database.engine, "engine_disposed", _watch_new_pool):
        event.listen(database.engine, "engine_disposed", _watch_new_pool)


def _watch_new_pool(engine: Engine) -> None:
    """dispose() gives an engine a new pool: watch that one too."""
    _WATCHED.add(engine.pool)


def _watched(session: Session) -> bool:
    bind = session.bind
    return bind is not None and getattr(bind, "pool", None) in _WATCHED


def _note_games(session: Session, _context: Any) -> None:
    """Remember the games this flush wrote (their rows, seats or moves)."""
    if not _watched(session):
        return
    games: set[int] = session.info.setdefault(_GAMES, set())
    for row in (*session.new, *session.dirty):
        if isinstance(row, GameRecord) and row.id is not None:
            games.add(row.id)
        elif isinstance(row, (Seat, Move)):
            games.add(row.game_id)


def _queue_searches(session: Session) -> None:
    """Queue, in this transaction, the search of each game it wrote that waits for a computer
    and has none queued."""
    if not _watched(session):
        return
    session.flush()  # the last writes' games are noted too
    games = session.info.pop(_GAMES, None)
    if not games:
        return
    try:
        connection = driver_connection(session)
        with savepoint(connection):
            turns = waiting_turns(session, games)
            waiting = waiting_searches(connection) if turns else set()
            for turn in turns:
                if (turn.game_id, turn.ply) not in waiting:
                    defer_search(connection, turn.game_id, turn.ply)
    except Exception:  # the move matters more: the sweep queues its search a moment later
        log.exception("could not queue the computer's search for games %s", sorted(games))


@dataclass(frozen=True)
class Requeued:
    """What one pass of :func:`requeue` did."""

    retried: int = 0  # searches of silent workers, run again
    queued: int = 0  # computer turns that had no job

    def __bool__(self) -> bool:
        return bool(self.retried or self.queued)

    def __str__(self) -> str:
        """What the scheduler's log says.

        >>> str(Requeued(1, 2))
        '2 searches queued that no job waited for, 1 run again after its worker fell silent'
        """
        return (f"{self.queued} searches queued that no job waited for, {self.retried} run "
                f"again after its worker fell silent")


def requeue(database: Database, stalled_after: float = STALLED_SECONDS) -> Requeued:
    """One pass of the sweep over the queue (see the module's docstring), in one transaction."""
    with database.write() as session:
        connection = driver_connection(session)
        retried = retry_stalled(connection, stalled_after)
        waiting = waiting_searches(connection)
        queued = sum(defer_search(connection, turn.game_id, turn.ply)
                     for turn in waiting_turns(session)
                     if (turn.game_id, turn.ply) not in waiting)
    return Requeued(retried, queued)
