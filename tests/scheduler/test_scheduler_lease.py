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
    deadline = clock_games.clock(game_id).deadline

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


def test_a_tick_still_running_when_the_scheduler_stops_leaves_the_lease_released(
    clock_games: ClockGames, smtp_server: SmtpServer,
) -> None:
    """The jobs run in the scheduler's threads: one may reach the lease after the main thread's
    stop released it (a SIGTERM mid-tick). It must not take the lease back for a dead process."""
    jobs = SchedulerJobs(clock_games.database, clock_games.site, smtp_server.settings(),
                         holder="leaving")
    standby = SchedulerJobs(clock_games.database, clock_games.site, smtp_server.settings(),
                            holder="standby")
    assert jobs.sweep_tick(T0) is not None
    jobs.stop()
    assert jobs.sweep_tick(T0 + SECOND) is None
    assert jobs.delivery_tick(T0 + SECOND) is None and jobs.bots_tick(T0 + SECOND) is None
    assert lease_holder(clock_games.database, T0 + SECOND) is None
    assert standby.sweep_tick(T0 + 2 * SECOND) is not None


def test_the_jobs_never_pile_up(clock_games: ClockGames, smtp_server: SmtpServer) -> None:
    jobs = SchedulerJobs(clock_games.database, clock_games.site, smtp_server.settings())
    scheduler = build_scheduler(jobs, blocking=False, sweep_every=60, deliver_every=5)
    found = {job.id: job for job in scheduler.get_jobs()}
    assert set(found) == {"sweep", "deliver", "bots"}
    for job in found.values():
        assert job.coalesce is True and job.max_instances == 1
    assert found["sweep"].trigger.interval == timedelta(seconds=60)
    assert found["deliver"].trigger.interval == timedelta(seconds=5)
    assert found["bots"].trigger.interval == timedelta(seconds=2)


def test_the_active_scheduler_records_each_sweep_for_the_web_processes(
    clock_games: ClockGames, smtp_server: SmtpServer,
) -> None:
    from pbem.scheduler.stats import last_sweep

    database = clock_games.database
    jobs = SchedulerJobs(database, clock_games.site, smtp_server.settings(), holder="active")
    standby = SchedulerJobs(database, clock_games.site, smtp_server.settings(), holder="standby")
    assert last_sweep(database) is None
    assert jobs.sweep_tick(T0) is not None
    first = last_sweep(database)
    assert first is not None and first.holder == "active" and first.started_at == T0
    assert 0 <= first.seconds < 60
    assert standby.sweep_tick(T0 + SECOND) is None and last_sweep(database) == first
    assert jobs.sweep_tick(T0 + 60 * SECOND) is not None
    again = last_sweep(database)
    assert again is not None and again.started_at == T0 + 60 * SECOND
    # The stats row is no lease: the lease is still the active one's, and released as usual.
    assert lease_holder(database, T0 + 61 * SECOND) == "active"
    jobs.stop()
    assert take_lease(database, "standby", T0 + 62 * SECOND)


def test_taking_over_sends_the_mail_the_dead_scheduler_had_claimed_at_once(
    clock_games: ClockGames, smtp_server: SmtpServer,
) -> None:
    from pbem.mail.outbox import CLAIM_FOR, claim_due

    database = clock_games.database
    dead = SchedulerJobs(database, clock_games.site, smtp_server.settings(), holder="dead")
    heir = SchedulerJobs(database, clock_games.site, smtp_server.settings(), holder="heir")
    clock_games.start("mosey", T0)
    assert dead.is_active(T0)
    claimed = claim_due(database, T0, 100, "dead")  # then it is SIGKILLed mid-pass
    assert claimed and heir.delivery_tick(T0 + SECOND) is None
    takeover = T0 + timedelta(seconds=91)  # the lease ran out; the claims would last 10 minutes
    assert takeover < T0 + CLAIM_FOR
    report = heir.delivery_tick(takeover)
    assert report is not None and report.sent == len(claimed)
    assert {e.status for e in clock_games.emails()} == {"sent"}
    assert len(smtp_server.messages) == len(claimed)


def test_a_live_holder_keeps_its_claims(clock_games: ClockGames, smtp_server: SmtpServer) -> None:
    from pbem.mail.outbox import claim_due

    database = clock_games.database
    clock_games.start("mosey", T0)
    assert take_lease(database, "busy", T0)
    claimed = claim_due(database, T0, 100, "busy")
    assert take_lease(database, "busy", T0 + 60 * SECOND)  # renewing releases nothing
    other = SchedulerJobs(database, clock_games.site, smtp_server.settings(), holder="other")
    assert other.delivery_tick(T0 + 61 * SECOND) is None
    assert all(e.status == "sending" and e.claimed_by == "busy" for e in clock_games.emails()
               if e.id in claimed)


def test_a_killed_process_of_this_host_is_replaced_without_waiting_for_its_lease(
    clock_games: ClockGames,
) -> None:
    import os
    import socket
    import subprocess
    import sys

    from pbem.scheduler.lease import new_holder_id

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # its pid now names no process
    dead = f"{socket.gethostname()}:{gone.pid}:deadbeef"
    database = clock_games.database
    assert take_lease(database, dead, T0)
    assert take_lease(database, "restarted", T0 + SECOND)  # long before T0 + 90 s
    live = new_holder_id()  # this very process
    assert not take_lease(database, live, T0 + 2 * SECOND)  # "restarted" is not known dead
    assert take_lease(database, live, T0 + 100 * SECOND)  # its lease ran out
    twin = f"{socket.gethostname()}:{gone.pid}:cafe"
    assert not take_lease(database, twin, T0 + 101 * SECOND)  # a live pid keeps its lease
    assert os.getpid() == int(live.split(":")[1])
