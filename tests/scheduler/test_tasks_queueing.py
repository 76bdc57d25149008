"""Searches queued as jobs in PostgreSQL (PBEM_TASKS=procrastinate), without a worker: a job is
queued in the transaction of the move that makes it the computer's turn (and goes with it on a
rollback), once a turn, and a move commits even when its job cannot be queued; the scheduler's
sweep queues what no job waits for, runs again the search of a worker gone silent, and searches
nothing itself. The setting, the job tables and the workers are checked."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, text

from pbem.config import ConfigError, check_config, load_config
from pbem.doctor import Finding, diagnose
from pbem.mail.outbox import SmtpSettings
from pbem.positions import current_state
from pbem.scheduler.runner import SchedulerJobs
from pbem.services import Site, submit_move
from pbem.tasks.jobs import defer_search, driver_connection
from pbem.tasks.queueing import requeue
from tests.scheduler.tasks_support import (
    NOW,
    TaskDatabase,
    game_against,
    game_between_computers,
    jobs,
    moves,
    person_moves,
    row_of,
    task_database,
)
from tests.support import free_port, postgres_url


def tasks_url() -> str:
    url, problem = postgres_url()
    if url is None:
        pytest.skip(problem)
    return url


@pytest.fixture
def tasks() -> Iterator[TaskDatabase]:
    with task_database() as made:
        yield made


def turns_queued(tasks: TaskDatabase) -> list[tuple[int, int]]:
    return [(job["args"]["game_id"], job["args"]["ply"]) for job in jobs(tasks.database)
            if job["status"] == "todo"]


def test_a_persons_move_queues_the_computers_search_in_its_own_transaction(
    tasks: TaskDatabase, site: Site,
) -> None:
    game_id = game_against(tasks.database, site, "normal")
    assert turns_queued(tasks) == []  # Ann moves first: nothing for the computer yet
    ply = person_moves(tasks.database, site, game_id)
    assert turns_queued(tasks) == [(game_id, ply)]
    assert [m.ply for m in moves(tasks.database, game_id)] == [0]  # queued, not played


def test_a_move_rolled_back_queues_nothing(tasks: TaskDatabase, site: Site) -> None:
    game_id = game_against(tasks.database, site, "normal")
    row = row_of(tasks.database, game_id)
    game, state = current_state(row)
    with pytest.raises(RuntimeError), tasks.database.write() as session:
        submit_move(session, NOW, site, game_id=game_id, seat=0, ply=0,
                    text=str(game.legal_moves(state)[0]))
        raise RuntimeError("the request failed after the move")
    assert turns_queued(tasks) == [] and moves(tasks.database, game_id) == []


def test_a_game_between_computers_queues_its_first_search_when_it_starts(
    tasks: TaskDatabase, site: Site,
) -> None:
    game_id = game_between_computers(tasks.database, site, "easy")
    assert turns_queued(tasks) == [(game_id, 0)]


def test_a_move_commits_even_when_its_search_cannot_be_queued(tasks: TaskDatabase,
                                                               site: Site) -> None:
    game_id = game_against(tasks.database, site, "easy")
    with tasks.database.write() as session:  # the job table is gone (a botched upgrade)
        session.execute(text("ALTER TABLE procrastinate_jobs RENAME TO jobs_elsewhere"))
    ply = person_moves(tasks.database, site, game_id)
    assert [m.ply for m in moves(tasks.database, game_id)] == [0]  # Ann's move stands
    with tasks.database.write() as session:
        session.execute(text("ALTER TABLE jobs_elsewhere RENAME TO procrastinate_jobs"))
    assert turns_queued(tasks) == []
    assert requeue(tasks.database).queued == 1  # the scheduler's next sweep
    assert turns_queued(tasks) == [(game_id, ply)]


def test_the_sweep_queues_a_lost_turn_once_and_searches_nothing_itself(
    tasks: TaskDatabase, site: Site,
) -> None:
    game_id = game_against(tasks.database, site, "easy")
    ply = person_moves(tasks.database, site, game_id)
    with tasks.database.write() as session:  # the job is lost (deleted by hand)
        session.execute(text("DELETE FROM procrastinate_jobs"))
    scheduler = SchedulerJobs(tasks.database, site, SmtpSettings("127.0.0.1", 9, "x@y.test"),
                              holder="active", queue_bots=lambda: requeue(tasks.database))
    assert scheduler.sweep_tick(NOW) is not None  # takes the lease
    assert scheduler.bots_tick(NOW + timedelta(seconds=2)) == 0  # no move made here
    assert turns_queued(tasks) == [(game_id, ply)]
    assert not requeue(tasks.database)  # a job waits for that turn: nothing more
    assert turns_queued(tasks) == [(game_id, ply)]
    assert len(moves(tasks.database, game_id)) == 1  # still Ann's move only


def test_a_turn_is_queued_once_however_often_it_is_asked_for(
    tasks: TaskDatabase, site: Site,
) -> None:
    game_id = game_against(tasks.database, site, "easy")
    ply = person_moves(tasks.database, site, game_id)
    with tasks.database.write() as session:
        connection = driver_connection(session)
        assert not defer_search(connection, game_id, ply)  # the queueing lock refuses it
        session.execute(text("SELECT 1"))  # and the transaction goes on
    assert turns_queued(tasks) == [(game_id, ply)]


def test_the_search_of_a_silent_worker_is_run_again(tasks: TaskDatabase, site: Site) -> None:
    game_id = game_against(tasks.database, site, "easy")
    ply = person_moves(tasks.database, site, game_id)
    with tasks.database.write() as session:  # a worker took it, then fell silent a minute ago
        worker = session.execute(text(
            "INSERT INTO procrastinate_workers (last_heartbeat) VALUES (now() - interval '1"
            " minute') RETURNING id")).scalar_one()
        session.execute(text("UPDATE procrastinate_jobs SET status = 'doing', worker_id = :w"),
                        {"w": worker})
    done = requeue(tasks.database)
    assert (done.retried, done.queued) == (1, 0)
    assert turns_queued(tasks) == [(game_id, ply)]
    assert not requeue(tasks.database)


def test_a_silent_workers_search_queued_again_meanwhile_is_dropped(tasks: TaskDatabase,
                                                                   site: Site) -> None:
    game_id = game_against(tasks.database, site, "easy")
    ply = person_moves(tasks.database, site, game_id)
    with tasks.database.write() as session:
        worker = session.execute(text(
            "INSERT INTO procrastinate_workers (last_heartbeat) VALUES (now() - interval '1"
            " minute') RETURNING id")).scalar_one()
        session.execute(text("UPDATE procrastinate_jobs SET status = 'doing', worker_id = :w"),
                        {"w": worker})
        # The same turn queued again beside it (by hand: pbem itself would not, while a job
        # is "doing" for it).
        assert defer_search(driver_connection(session), game_id, ply)
    done = requeue(tasks.database)
    assert (done.retried, done.queued) == (0, 0)
    assert [job["status"] for job in jobs(tasks.database)] == ["todo"]
    assert turns_queued(tasks) == [(game_id, ply)]


def test_a_live_workers_search_is_left_alone(tasks: TaskDatabase, site: Site) -> None:
    game_id = game_against(tasks.database, site, "easy")
    person_moves(tasks.database, site, game_id)
    with tasks.database.write() as session:
        worker = session.execute(text(
            "INSERT INTO procrastinate_workers DEFAULT VALUES RETURNING id")).scalar_one()
        session.execute(text("UPDATE procrastinate_jobs SET status = 'doing', worker_id = :w"),
                        {"w": worker})
    assert not requeue(tasks.database)
    assert [job["status"] for job in jobs(tasks.database)] == ["doing"]


@pytest.mark.parametrize(("settings", "words"), [
    ({"PBEM_TASKS": "celery"}, "PBEM_TASKS must be empty"),
    ({"PBEM_TASKS": "procrastinate", "PBEM_DATABASE_URL": "sqlite:///instance/pbem.db"},
     "PBEM_TASKS=procrastinate needs PostgreSQL"),
])
def test_the_setting_is_checked(settings: dict[str, str], words: str) -> None:
    with pytest.raises(ConfigError, match=words) as refused:
        check_config(load_config(settings, read_dotenv=False))
    assert "\n" not in str(refused.value)


def test_procrastinate_on_postgresql_is_accepted() -> None:
    config = load_config({"PBEM_TASKS": " Procrastinate ",
                          "PBEM_DATABASE_URL": "postgresql+psycopg://pbem@db/pbem"},
                         read_dotenv=False)
    check_config(config)
    assert config["TASKS"] == "procrastinate"


def test_doctor_says_whether_a_worker_is_heard_of(tasks: TaskDatabase) -> None:
    config = load_config({"PBEM_DATABASE_URL": tasks.url, "PBEM_TASKS": "procrastinate",
                          "PBEM_DATABASE_SEARCH_PATH": tasks.schema,
                          "PBEM_SMTP_PORT": str(free_port())}, read_dotenv=False)

    def finding() -> Finding:
        found = diagnose(config, timeout=1, dns_lookup=lambda _name, _kind: None)
        return next(f for f in found if f.check == "search workers")

    silent = finding()
    assert silent.status == "fail" and "start pbem worker" in silent.fix, silent.line()
    with tasks.database.write() as session:  # a worker's heartbeat, just now
        session.execute(text("INSERT INTO procrastinate_workers DEFAULT VALUES"))
    assert finding().status == "ok"


def test_a_worker_refuses_to_start_without_the_job_tables(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    from pbem.cli import main

    url = tasks_url()
    schema = f"pbem_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))  # no job tables in it
    monkeypatch.chdir(tmp_path)  # no .env of the checkout's
    try:
        refused = CliRunner().invoke(main, ["worker"], env={
            "PBEM_DATABASE_URL": url, "PBEM_DATABASE_SEARCH_PATH": schema,
            "PBEM_TASKS": "procrastinate"})
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
    assert refused.exit_code == 1
    assert refused.output.strip().splitlines() == [
        "Error: PBEM_TASKS: the database has no job tables yet: run pbem db upgrade"]
