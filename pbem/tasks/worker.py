"""``pbem worker``: a search worker, on any machine that reaches the site's PostgreSQL.

It takes one search job at a time from the queue (:mod:`pbem.tasks.jobs`), searches the game as
it stood at the job's ply, and plays the move found through the same service as the scheduler
does (:func:`pbem.scheduler.bots.play_turn`): only if the game is still at that ply, so a job run
twice (a worker thought dead that was only slow, a job queued twice) plays its move once; the
other run finds the game moved on and ends. A move that gives the turn to another computer
queues that search in its own transaction (:mod:`pbem.tasks.queueing`), so games between
computers go from worker to worker.

Procrastinate runs the search in a thread of this process while its event loop keeps the
worker's heartbeat (every :data:`~pbem.tasks.jobs.HEARTBEAT_SECONDS`); one search at a time a
process, so start one worker per core. When the database connection fails (a restart, a
dropped connection), the worker starts again after :data:`RESTART_SECONDS`; a job it was
running is retried, by the worker itself (:data:`RETRY_SECONDS`) or, when it was cut off, by the
scheduler's sweep once its heartbeat is :data:`~pbem.tasks.jobs.STALLED_SECONDS` old.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
from contextlib import suppress
from typing import Any

from procrastinate import App, BaseRetryStrategy, PsycopgConnector, RetryDecision
from procrastinate.jobs import Job
from psycopg_pool import AsyncConnectionPool
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from pbem.clock.wall import utc_now
from pbem.db import Database
from pbem.scheduler.bots import bot_turns, play_turn, report_failure
from pbem.scheduler.runner import BOT_RETRY
from pbem.services.common import Site
from pbem.tasks.jobs import HEARTBEAT_SECONDS, SEARCH_TASK, STALLED_SECONDS

log = logging.getLogger(__name__)
RETRY_SECONDS = 2  # a search that failed for want of the database is tried again this soon
RESTART_SECONDS = 1.0  # a worker that lost the database starts again after this
POOL_SECONDS = 3.0  # waiting longer than this for a connection counts as losing the database
# Looks for jobs this often besides being told of new ones (LISTEN/NOTIFY), which a job run
# again (a retry, or the search of a worker gone silent) is not.
POLL_SECONDS = 1.0


class BotFailed(RuntimeError):
    """The computer player could not choose or play a move (the organiser has been told)."""


class SearchRetry(BaseRetryStrategy):
    """A failed bot is tried again a minute later, as in the scheduler (the organiser has been
    alerted once); a search that failed for want of the database, at once."""

    def get_retry_decision(self, *, exception: BaseException, job: Job) -> RetryDecision | None:
        seconds = BOT_RETRY.total_seconds() if isinstance(exception, BotFailed) else RETRY_SECONDS
        return RetryDecision(retry_in={"seconds": int(seconds)})


def search_move(database: Database, site: Site, game_id: int, ply: int) -> str:
    """The job: play the computer's move in ``game_id`` at ``ply``, if it is still to be
    played; what came of it, which the worker's log says too."""
    outcome = _search_move(database, site, game_id, ply)
    log.info("worker: game %s, ply %s: %s", game_id, ply, outcome)
    return outcome


def _search_move(database: Database, site: Site, game_id: int, ply: int) -> str:
    turn = next((turn for turn in bot_turns(database, game_id) if turn.ply == ply), None)
    if turn is None:
        return "the game had moved on"
    try:
        played = play_turn(database, utc_now(), site, turn, moment=utc_now)
    except SQLAlchemyError:
        raise  # the database, not the bot: SearchRetry tries again soon
    except Exception as error:  # a broken bot must leave the game as it was
        log.exception("worker: the bot of game %s failed at ply %s", game_id, ply)
        report_failure(database, utc_now(), site, turn, error)
        raise BotFailed(f"game {game_id}: bot failed at ply {ply}: {error}") from error
    return "played" if played else "the game moved on during the search"


def conninfo(url: str) -> str:
    """libpq's form of a SQLAlchemy PostgreSQL URL (the worker's own connections).

    >>> conninfo("postgresql+psycopg://pbem:secret@db.example.org:5432/pbem")
    'postgresql://pbem:secret@db.example.org:5432/pbem'
    """
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def worker_app(database: Database, site: Site) -> App:
    """A Procrastinate app that knows the search task; its connections are made by
    :func:`run_worker`."""
    app = App(connector=PsycopgConnector())

    def search(game_id: int, ply: int) -> str:
        return search_move(database, site, game_id, ply)

    app.task(name=SEARCH_TASK, retry=SearchRetry())(search)
    return app


def worker_name() -> str:
    """This worker in logs: its machine and process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def run_worker(app: App, name: str, database: Database, *,
               search_path: str | None = None) -> None:
    """Run search jobs from ``database``'s PostgreSQL (in ``search_path``'s schema) until
    SIGTERM or SIGINT (waiting for the search under way), starting again whenever the
    database fails."""
    # Its line per failed reconnection would repeat what this module says once.
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
    kwargs: dict[str, Any] = {"options": f"-csearch_path={search_path}"} if search_path else {}
    asyncio.run(_run(app, name, conninfo(database.url), kwargs))
    # Leaving: Python's own shutdown gives a handled signal its default action back, and a
    # SIGTERM repeated then would still kill the process, with the exit status of a crash.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, signal.SIG_IGN)


async def _run(app: App, name: str, info: str, kwargs: dict[str, Any]) -> None:
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()

    def stop(_signum: int, _frame: object) -> None:
        if not loop.is_closed():  # a signal after the loop ended finds the worker leaving
            loop.call_soon_threadsafe(stopping.set)

    # Not loop.add_signal_handler: closing the loop gives a signal its default action back,
    # and a SIGTERM repeated while the worker closes its connections would kill it.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    failing = False
    while not stopping.is_set():
        # New connections each time: a pool that lost the database would try again on a
        # slowing schedule, where a new one tries at once (and a connector keeps the pool
        # it was first opened with).
        pool = AsyncConnectionPool(info, kwargs=kwargs, min_size=1, max_size=2,
                                   timeout=POOL_SECONDS, open=False,
                                   check=AsyncConnectionPool.check_connection)
        try:
            await pool.open(wait=True, timeout=POOL_SECONDS)
            with app.replace_connector(PsycopgConnector()):
                await app.open_async(pool=pool)
                working = asyncio.create_task(app.run_worker_async(
                    name=name, concurrency=1, install_signal_handlers=False,
                    delete_jobs="successful", update_heartbeat_interval=HEARTBEAT_SECONDS,
                    stalled_worker_timeout=STALLED_SECONDS,
                    fetch_job_polling_interval=POLL_SECONDS))
                if failing:
                    log.info("worker %s: the database answers again", name)
                    failing = False
                await _until_either(working, stopping)
                if stopping.is_set():
                    working.cancel()  # Procrastinate then waits for the search under way
                    with suppress(asyncio.CancelledError):
                        await working
                    return
                working.result()  # raises what stopped it
                # It stops by itself when its heartbeat cannot be written.
                raise ConnectionError("its heartbeat could not be written")
        except Exception as error:
            if not failing:  # once, until it works again
                log.warning("worker %s: the database failed (%s); starting again every %s s",
                            name, _reason(error), RESTART_SECONDS)
                failing = True
        finally:
            await pool.close()
        with suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), RESTART_SECONDS)


def _reason(error: BaseException) -> str:
    """The first line of the deepest cause (Procrastinate's own says "Database error.").

    >>> try:
    ...     raise RuntimeError("Database error.") from OSError("connection refused")
    ... except RuntimeError as error:
    ...     print(_reason(error))
    connection refused
    """
    while error.__cause__ is not None:
        error = error.__cause__
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


async def _until_either(working: asyncio.Task[None], stopping: asyncio.Event) -> None:
    stop = asyncio.create_task(stopping.wait())
    try:
        await asyncio.wait({working, stop}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
