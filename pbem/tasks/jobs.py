"""The computer players' searches as Procrastinate jobs in the site's PostgreSQL: what a job is,
and the queries that queue, find and retry jobs on a connection pbem already has open, inside
its transaction (so a job is queued with the move that asks for it, or not at all).

A job is ``search_move(game_id, ply)``: search the game as it stands at ``ply`` and play the
move found, if the game is still there (the worker's side is :mod:`pbem.tasks.worker`). Its
queueing lock names the game and the ply, so a turn waits in the queue once at most.

Everything here runs Procrastinate's own queries and functions (its schema is its own, applied
by ``pbem db upgrade``), but for a few plain looks at its tables (:func:`waiting_searches`,
:func:`live_workers`) and the removal of a stalled job that another one replaced.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import psycopg
from procrastinate import App, SyncPsycopgConnector, sql
from procrastinate.exceptions import AlreadyEnqueued, ConnectorException
from procrastinate.schema import SchemaManager
from sqlmodel import Session

from pbem.db import Database

SEARCH_TASK = "pbem.search_move"
HEARTBEAT_SECONDS = 2.0  # a worker says it lives this often
# A worker silent this long is taken for dead, and its search is run again: five missed
# heartbeats, so that a loaded machine is not mistaken for a dead one.
STALLED_SECONDS = 10.0

# Never opened: every query below runs on a connection it is given (pbem's own, in its
# transaction), so this app holds no pool of its own.
_APP = App(connector=SyncPsycopgConnector())
_QUERIES = _APP.connector.get_sync_connector()


def queueing_lock(game_id: int, ply: int) -> str:
    """The lock that keeps one job at most waiting for a turn.

    >>> queueing_lock(12, 7)
    'pbem-search:12:7'
    """
    return f"pbem-search:{game_id}:{ply}"


def driver_connection(session: Session) -> psycopg.Connection[Any]:
    """The psycopg connection under ``session``, in its transaction."""
    return cast(psycopg.Connection[Any], session.connection().connection.driver_connection)


@contextmanager
def savepoint(connection: psycopg.Connection[Any]) -> Iterator[None]:
    """A failed statement inside rolls back to here, not the caller's whole transaction (a
    queueing lock already taken is an error in PostgreSQL's eyes, and ends a transaction).
    Plain SQL rather than psycopg's ``transaction()``, which would commit a transaction that
    SQLAlchemy began but had not yet sent a statement in."""
    connection.execute("SAVEPOINT pbem_tasks")
    try:
        yield
    except BaseException:
        connection.execute("ROLLBACK TO SAVEPOINT pbem_tasks")
        raise
    connection.execute("RELEASE SAVEPOINT pbem_tasks")


def defer_search(connection: psycopg.Connection[Any], game_id: int, ply: int) -> bool:
    """Queue the search for ``game_id`` at ``ply`` in ``connection``'s transaction; False when
    a job for that turn already waits."""
    try:
        with savepoint(connection):
            _APP.configure_task(SEARCH_TASK, connection=connection,
                                queueing_lock=queueing_lock(game_id, ply)
                                ).defer(game_id=game_id, ply=ply)
    except AlreadyEnqueued:
        return False
    return True


def waiting_searches(connection: psycopg.Connection[Any]) -> set[tuple[int, int]]:
    """(game, ply) of every search queued or running (a failed one waits for its retry)."""
    rows = connection.execute(
        "SELECT args FROM procrastinate_jobs WHERE task_name = %(task)s"
        " AND status IN ('todo', 'doing')", {"task": SEARCH_TASK}).fetchall()
    return {(int(args["game_id"]), int(args["ply"])) for (args,) in rows}


def retry_stalled(connection: psycopg.Connection[Any], seconds: float = STALLED_SECONDS) -> int:
    """Queue again each search whose worker has not been heard of for ``seconds`` (killed, its
    machine gone, cut off from the database); how many. The search starts over on another
    worker; should the first one come back and finish too, its move finds the game moved on."""
    stalled = _QUERIES.execute_query_all_with_connection(
        connection, sql.queries["select_stalled_jobs_by_heartbeat"], queue=None,
        task_name=SEARCH_TASK, seconds_since_heartbeat=seconds)
    retried = 0
    for job in stalled:
        try:
            with savepoint(connection):
                _QUERIES.execute_query_all_with_connection(
                    connection, sql.queries["retry_job"], job_id=job["id"], retry_at=None,
                    new_priority=None, new_queue_name=None, new_lock=None)
            retried += 1
        except ConnectorException:
            # Another sweep ran it again first (it is no longer "doing"), or the same turn was
            # queued again meanwhile (its queueing lock is taken): that job runs; this one goes.
            connection.execute("DELETE FROM procrastinate_jobs WHERE id = %(id)s"
                               " AND status = 'doing'", {"id": job["id"]})
    return retried


def live_workers(connection: psycopg.Connection[Any]) -> int:
    """The workers heard of in the last :data:`STALLED_SECONDS` (``pbem doctor``)."""
    row = connection.execute(
        "SELECT count(*) FROM procrastinate_workers"
        " WHERE last_heartbeat > now() - make_interval(secs => %(seconds)s)",
        {"seconds": STALLED_SECONDS}).fetchone()
    return int(row[0]) if row else 0


def has_job_tables(database: Database) -> bool:
    """Whether Procrastinate's tables are in ``database`` (its search path)."""
    with database.session() as session:
        found = _QUERIES.execute_query_all_with_connection(
            driver_connection(session), sql.queries["check_connection"])
    return bool(found and found[0]["check"])


def make_job_tables(database: Database) -> bool:
    """Apply Procrastinate's schema to ``database`` unless it is there; whether it was applied.
    Only a fresh schema: after upgrading Procrastinate, apply the SQL migrations its release
    notes name (docs/bots.md)."""
    if has_job_tables(database):
        return False
    with database.write() as session:
        # Many statements in one: psycopg runs them as one simple query when given no values.
        driver_connection(session).execute(SchemaManager.get_schema())
    return True
