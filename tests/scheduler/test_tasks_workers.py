"""Real ``pbem worker`` processes on PostgreSQL (PBEM_TASKS=procrastinate), under faults: every
computer move is played exactly once, at the ply it was searched for.

- a worker answers a person's move, with the very move a search of that position finds;
- a worker told to stop (SIGTERM, again and again) mid-search: it plays that move and exits 0;
- a worker killed (SIGKILL) mid-search: the scheduler's sweep runs the search again once the
  worker's heartbeat is old, and another worker plays it, once;
- two workers on one job (queued twice on purpose), and a game between computers played out
  by two workers (each move queueing the next search): each ply once;
- a computer player that fails: the organiser told once, the job tried again a minute later;
- the database gone for a while mid-search (a relay between the worker and PostgreSQL cuts
  every connection and refuses new ones, then lets them through again: the PostgreSQL here is
  shared, so that stands in for a database restart): the worker starts again, and the move
  is still played, once.

The sweep is called by the test where the scheduler would call it every 2 s, with the
stalled-worker threshold shortened from 10 s to 3 s to keep the test short.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlmodel import select

from pbem.models import AuditEntry, GameStatus, MoveSource
from pbem.positions import current_state
from pbem.scheduler.bots import FAILED
from pbem.services import Site, submit_move
from pbem.tasks.jobs import driver_connection
from pbem.tasks.queueing import requeue
from tests.scheduler.tasks_support import (
    NOW,
    DatabaseOutage,
    TaskDatabase,
    Worker,
    doing,
    game_against,
    game_between_computers,
    jobs,
    moves,
    person_moves,
    row_of,
    searched_move,
    task_database,
    wait_for,
    workers,
)

STALLED_AFTER = 3.0  # the sweep's threshold here (10 s in service)


@pytest.fixture
def tasks() -> Iterator[TaskDatabase]:
    with task_database() as made:
        yield made


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Worker]]:
    """Two workers running on a schema of their own, shared by the tests that harm neither (a
    worker takes seconds to start: the pbem command's imports)."""
    with task_database() as made, workers(made, tmp_path_factory.mktemp("pair"),
                                          count=2) as both:
        yield both


def reply_at(tasks: TaskDatabase, game_id: int, ply: int) -> str | None:
    """The computer's move at ``ply`` once it is there."""
    return next((m.notation for m in moves(tasks.database, game_id)
                 if m.ply == ply and m.source == MoveSource.BOT), None)


def test_a_worker_answers_a_persons_move(pair: list[Worker], site: Site) -> None:
    tasks = pair[0].tasks
    game_id = game_against(tasks.database, site, "normal")
    ply = person_moves(tasks.database, site, game_id)
    played = wait_for(lambda: reply_at(tasks, game_id, ply))
    assert played == searched_move(tasks.database, game_id, ply, "normal")
    assert row_of(tasks.database, game_id).ply == ply + 1
    wait_for(lambda: not jobs(tasks.database))  # done, and the job deleted


@pytest.mark.early
def test_a_worker_killed_mid_search_costs_a_retry_not_a_move(
    tasks: TaskDatabase, site: Site, tmp_path: Path,
) -> None:
    game_id = game_against(tasks.database, site, "strong")
    # The first worker thinks 15 s a move (so it is surely killed mid-search); the second plays
    # strong's fixed 2000 playouts, which makes its move one the test can search for too.
    with workers(tasks, tmp_path, strong_seconds=15) as [slow]:
        ply = person_moves(tasks.database, site, game_id)
        job = wait_for(lambda: doing(tasks.database))[0]
        assert job["worker_id"] == slow.worker_id
        slow.kill()
    with workers(tasks, tmp_path, strong_seconds=0) as [second]:
        retried = wait_for(lambda: requeue(tasks.database, STALLED_AFTER).retried)
        assert retried == 1
        played = wait_for(lambda: reply_at(tasks, game_id, ply))
        assert played == searched_move(tasks.database, game_id, ply, "strong")
        wait_for(lambda: not jobs(tasks.database))
    assert [m.ply for m in moves(tasks.database, game_id)] == [0, 1]
    assert row_of(tasks.database, game_id).ply == ply + 1
    assert second.process.returncode == 0, second.output()  # SIGTERM: a clean stop


def test_a_stopping_worker_finishes_its_search_through_repeated_sigterms(
    tasks: TaskDatabase, site: Site, tmp_path: Path,
) -> None:
    game_id = game_against(tasks.database, site, "strong")
    with workers(tasks, tmp_path, strong_seconds=2) as [worker]:
        ply = person_moves(tasks.database, site, game_id)
        wait_for(lambda: doing(tasks.database))
        # An impatient operator (or a supervisor) signals again and again while the worker
        # waits for its search and then closes its connections: each later SIGTERM is the
        # same request to stop, never a kill.
        while worker.process.poll() is None:
            worker.process.send_signal(signal.SIGTERM)
            time.sleep(0.02)  # the signals keep coming while the worker process stops
        worker.terminated = True
    assert worker.process.returncode == 0, worker.output()
    assert reply_at(tasks, game_id, ply) is not None  # the search under way was played
    assert worker.output().count(f"game {game_id}, ply {ply}: played") == 1


def test_two_workers_on_one_job_play_its_move_once(pair: list[Worker], site: Site) -> None:
    tasks = pair[0].tasks
    game_id = game_against(tasks.database, site, "normal")
    # Two jobs for the computer's turn (as a worker thought dead but only slow would leave),
    # queued with Ann's move, so both workers search the same position at once (her move then
    # queues no third: a job waits for that turn).
    row = row_of(tasks.database, game_id)
    game, state = current_state(row)
    ply = row.ply + 1
    with tasks.database.write() as session:
        submit_move(session, NOW, site, game_id=game_id, seat=0, ply=row.ply,
                    text=str(game.legal_moves(state)[0]))
        job = "('default', 'pbem.search_move', 0, NULL, NULL, %(args)s::jsonb, NULL)"
        driver_connection(session).execute(
            f"SELECT procrastinate_defer_jobs_v1(ARRAY[{job}, {job}]"
            "::procrastinate_job_to_defer_v1[])",
            {"args": f'{{"game_id": {game_id}, "ply": {ply}}}'})
    wait_for(lambda: not jobs(tasks.database))  # both jobs ran and succeeded
    played = [m for m in moves(tasks.database, game_id) if m.ply == ply]
    assert [m.notation for m in played] == [searched_move(tasks.database, game_id, ply,
                                                          "normal")]
    assert row_of(tasks.database, game_id).ply == ply + 1
    said = "".join(worker.output() for worker in pair)
    assert said.count(f"game {game_id}, ply {ply}: played") == 1
    assert said.count(f"game {game_id}, ply {ply}: the game") == 1  # ... moved on


def test_a_game_between_computers_is_played_out_by_the_workers_each_ply_once(pair: list[Worker],
                                                             site: Site) -> None:
    tasks = pair[0].tasks
    game_id = game_between_computers(tasks.database, site, "easy")
    wait_for(lambda: row_of(tasks.database, game_id).status == GameStatus.FINISHED)
    played = moves(tasks.database, game_id)
    assert [m.ply for m in played] == list(range(row_of(tasks.database, game_id).ply))
    for move in played[:6]:  # the first moves, each as searched at its ply
        assert move.notation == searched_move(tasks.database, game_id, move.ply, "easy")
    said = "".join(worker.output() for worker in pair)
    assert [said.count(f"game {game_id}, ply {m.ply}: played") for m in played] == \
        [1] * len(played)


def test_a_failing_bot_is_reported_once_and_tried_again_a_minute_later(
    pair: list[Worker], site: Site,
) -> None:
    tasks = pair[0].tasks
    game_id = game_against(tasks.database, site, "easy")
    row = row_of(tasks.database, game_id)
    game, state = current_state(row)
    with tasks.database.write() as session:  # Ann's move leaves a position no bot can read
        submit_move(session, NOW, site, game_id=game_id, seat=0, ply=row.ply,
                    text=str(game.legal_moves(state)[0]))
        session.execute(text("UPDATE games SET state = '{\"broken\": true}' WHERE id = :id"),
                        {"id": game_id})

    def retried() -> dict[str, Any] | None:
        return next((job for job in jobs(tasks.database)
                     if job["args"]["game_id"] == game_id and job["attempts"] == 1), None)

    job = wait_for(retried)
    assert job["status"] == "todo"
    with tasks.database.session() as session:
        waits = session.execute(text(
            "SELECT scheduled_at - now() FROM procrastinate_jobs WHERE id = :id"),
            {"id": job["id"]}).scalar_one()
        failures = session.exec(select(AuditEntry).where(
            AuditEntry.game_id == game_id, AuditEntry.action == FAILED)).all()
    assert timedelta(seconds=50) < waits <= timedelta(minutes=1)
    assert [entry.detail["ply"] for entry in failures] == [1]  # (the organiser told once)
    assert len(moves(tasks.database, game_id)) == 1  # the game waits as it was
    with tasks.database.write() as session:  # leave nothing for the other tests to wait for
        session.execute(text("DELETE FROM procrastinate_jobs WHERE id = :id"),
                        {"id": job["id"]})


@pytest.mark.early
def test_a_database_outage_mid_search_still_plays_the_move_once(
    tasks: TaskDatabase, site: Site, tmp_path: Path,
) -> None:
    game_id = game_against(tasks.database, site, "strong")
    outage = DatabaseOutage(tasks.url)
    try:
        with workers(tasks, tmp_path, strong_seconds=2, url=outage.url) as [worker]:
            ply = person_moves(tasks.database, site, game_id)
            wait_for(lambda: doing(tasks.database))
            outage.switch_off()  # the search ends while the database is away: its move fails
            try:  # until the worker has noticed (its heartbeat fails) and starts again
                wait_for(lambda: "the database failed" in worker.output())
            finally:
                outage.switch_on()
            wait_for(lambda: "the database answers again" in worker.output())

            def sweep_until_played() -> str | None:
                requeue(tasks.database, STALLED_AFTER)
                return reply_at(tasks, game_id, ply)

            wait_for(sweep_until_played)  # by the same worker, connected again: the only one
            assert worker.process.poll() is None
    finally:
        outage.switch_off()
    assert [m.ply for m in moves(tasks.database, game_id)] == [0, 1]
