"""The scheduler's log says what changes, not what every tick finds: which scheduler holds the
lease (one line when a process takes it, naming the one it took over from; one when it stands by,
naming the holder; one when it loses it), and a job that fails (its traceback once, one line when
it works again). SQLite and PostgreSQL; times are passed in.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from pbem.db import Database
from pbem.scheduler.runner import SchedulerJobs, build_scheduler
from tests.support import ClockGames, SmtpServer

T0 = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)


def test_taking_over_standing_by_and_losing_the_lease_are_logged_once_each(
    clock_games: ClockGames, smtp_server: SmtpServer, caplog: pytest.LogCaptureFixture,
) -> None:
    database, site, smtp = clock_games.database, clock_games.site, smtp_server.settings()
    first = SchedulerJobs(database, site, smtp, holder="host-a:101:aaaa")
    second = SchedulerJobs(database, site, smtp, holder="host-b:202:bbbb")
    caplog.set_level(logging.INFO, logger="pbem.scheduler")

    def said() -> list[str]:
        lines = [r.getMessage() for r in caplog.records if "lease" in r.getMessage()]
        caplog.clear()
        return lines

    # The first one up takes the lease from nobody; its next ticks say nothing.
    for tick in range(3):
        assert first.delivery_tick(T0 + tick * 5 * SECOND) is not None
    assert said() == ["scheduler host-a:101:aaaa takes the lease: it runs the jobs"]

    # The second stands by, naming the holder, once however many ticks.
    for tick in range(3):
        assert second.delivery_tick(T0 + (tick * 5 + 1) * SECOND) is None
        assert second.sweep_tick(T0 + (tick * 5 + 2) * SECOND) is None
    assert said() == ["scheduler host-b:202:bbbb stands by: host-a:101:aaaa holds the lease"]

    # The first stops renewing (hung); after the lease time the second takes over, naming it.
    takeover = T0 + 10 * SECOND + timedelta(seconds=91)
    assert second.delivery_tick(takeover) is not None
    assert second.delivery_tick(takeover + 5 * SECOND) is not None
    assert said() == ["scheduler host-b:202:bbbb takes the lease over from host-a:101:aaaa: "
                      "it runs the jobs"]

    # The first comes back: it lost the lease, says so once, at WARNING, and stands by.
    assert first.delivery_tick(takeover + 6 * SECOND) is None
    lost = [r for r in caplog.records if "lost" in r.getMessage()]
    assert len(lost) == 1 and lost[0].levelno == logging.WARNING
    assert first.sweep_tick(takeover + 7 * SECOND) is None
    assert said() == ["scheduler host-a:101:aaaa lost the lease to host-b:202:bbbb: standing by"]

    # A clean stop releases the lease and says so; the standby takes it at its next tick.
    second.stop()
    assert said() == ["scheduler host-b:202:bbbb released the lease"]
    assert first.delivery_tick(takeover + 8 * SECOND) is not None
    assert said() == ["scheduler host-a:101:aaaa takes the lease: it runs the jobs"]


def test_a_failing_job_logs_its_traceback_once_and_its_recovery_once(
    clock_games: ClockGames, smtp_server: SmtpServer, closed_port: int,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The database goes away under the scheduler (here: a server nothing answers for)."""
    database = clock_games.database
    jobs = SchedulerJobs(database, clock_games.site, smtp_server.settings(), holder="h:1:a")
    scheduler = build_scheduler(jobs, blocking=False)
    run = {job.id: job.func for job in scheduler.get_jobs()}
    caplog.set_level(logging.INFO, logger="pbem.scheduler")
    jobs.database = Database(f"postgresql+psycopg://pbem@127.0.0.1:{closed_port}/pbem")
    for _ in range(4):
        run["bots"]()
        run["deliver"]()
    failures = [r for r in caplog.records if "failed" in r.getMessage()]
    assert sorted(r.getMessage().split()[2] for r in failures) == ["bots_tick", "delivery_tick"]
    assert all(r.exc_info is not None for r in failures)  # unexpected: the traceback helps
    caplog.clear()
    jobs.database.dispose()
    jobs.database = database
    for _ in range(3):
        run["bots"]()
        run["deliver"]()
    assert sorted(r.getMessage() for r in caplog.records if "works again" in r.getMessage()
                  ) == ["scheduler job bots_tick works again",
                        "scheduler job delivery_tick works again"]
