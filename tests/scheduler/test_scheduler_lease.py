"""Two scheduler processes: one active through the database lease, the other standing by.

Two job runners with their own holder ids stand for two processes; every tick gets its ``now``.
Runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pbem.scheduler.lease import lease_holder, release_lease, take_lease
from pbem.scheduler.runner import SchedulerJobs, build_scheduler
from tests.support import ClockGames, SmtpServer

T0 = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)


def test_the_lease_goes_to_one_holder_until_it_expires(clock_games: ClockGames) -> None:
    database = clock_games.database
    assert take_lease(database, "a", T0)
    assert not take_lease(database, "b", T0 + SECOND)
    assert take_lease(database, "a", T0 + 60 * SECOND)  # renewed
    assert not take_lease(database, "b", T0 + 149 * SECOND)  # a's lease runs to T0 + 150 s
    assert take_lease(database, "b", T0 + 151 * SECOND)  # a stopped renewing: b takes over
    assert not take_lease(database, "a", T0 + 152 * SECOND)
    assert lease_holder(database, T0 + 152 * SECOND) == "b"
    release_lease(database, "b")  # a clean shutdown hands over at once
    assert take_lease(database, "a", T0 + 153 * SECOND)


def test_a_standby_scheduler_does_nothing_then_takes_over(
    clock_games: ClockGames, smtp_server: SmtpServer,
) -> None:
    first = SchedulerJobs(clock_games.database, clock_games.site, smtp_server.settings(),
                          holder="first")
    second = SchedulerJobs(clock_games.database, clock_games.site, smtp_server.settings(),
                           holder="second")
    game_id = clock_games.start("mosey", T0, timeout_policy="random")
    deadline = clock_games.game(game_id).deadline

    assert first.delivery_tick(T0) is not None  # first one up is active
    assert second.delivery_tick(T0 + SECOND) is None  # standing by
    assert second.sweep_tick(T0 + 2 * SECOND) is None
    outbox = clock_games.emails()
    assert len(smtp_server.messages) == len(outbox) and all(e.status == "sent" for e in outbox)

    # "first" dies; the timeout falls due while nobody sweeps.
    late = deadline + timedelta(minutes=5)
    summary = second.sweep_tick(late)
    assert summary is not None and summary.timeouts == {"random": 1}
    assert first.sweep_tick(late + SECOND) is None  # back from the dead: now it stands by
    assert clock_games.game(game_id).ply == 1
    report = second.delivery_tick(late + 2 * SECOND)
    assert report is not None and report.sent > 0


def test_the_jobs_never_pile_up(clock_games: ClockGames, smtp_server: SmtpServer) -> None:
    jobs = SchedulerJobs(clock_games.database, clock_games.site, smtp_server.settings())
    scheduler = build_scheduler(jobs, blocking=False, sweep_every=60, deliver_every=5)
    found = {job.id: job for job in scheduler.get_jobs()}
    assert set(found) == {"sweep", "deliver"}
    for job in found.values():
        assert job.coalesce is True and job.max_instances == 1
    assert found["sweep"].trigger.interval == timedelta(seconds=60)
    assert found["deliver"].trigger.interval == timedelta(seconds=5)
