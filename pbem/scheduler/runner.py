"""The APScheduler jobs: the sweep every minute, outbox delivery every few seconds, and the
computer players' moves every two seconds (so a person playing the computer has its reply within
seconds, not at the next sweep).

Both jobs first take (or renew) the database lease (:mod:`pbem.scheduler.lease`); a process that
does not hold it does nothing, so a second ``pbem scheduler`` is a hot standby. ``coalesce`` and
``max_instances=1`` keep a slow run from piling up: a tick missed while the previous one still
runs is dropped, not queued.

``pbem scheduler`` runs them in a :class:`BlockingScheduler`; ``pbem dev`` in a
:class:`BackgroundScheduler` beside the web app.

The log says what changes, not what every tick finds: one line when this process takes the lease
(and from whom), stands by (and for whom) or loses it; one line when delivery or the IMAP fetch
starts failing (with the reason, the relay's or mailbox's address, no traceback) and one when it
works again. Their state goes to the database too (:mod:`pbem.scheduler.job_states`), for
``/healthz`` and ``/metrics``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from apscheduler.schedulers.background import BackgroundScheduler  # type: ignore[import-untyped]
from apscheduler.schedulers.base import BaseScheduler  # type: ignore[import-untyped]
from apscheduler.schedulers.blocking import BlockingScheduler  # type: ignore[import-untyped]

from pbem.channels.delivery import deliver_channels
from pbem.clock.wall import utc_now
from pbem.db import Database
from pbem.inbound.imap import describe_url, fetch_pass, url_password
from pbem.inbound.service import receive
from pbem.mail.outbox import CLAIM_FOR, DeliveryReport, SmtpSettings, deliver_pending
from pbem.scheduler.bots import BotResult, play_bots
from pbem.scheduler.job_states import (
    DELIVER,
    FETCH,
    StateLog,
    describe_error,
    public_error,
    record_run,
)
from pbem.scheduler.lease import (
    LEASE_TIME,
    LeaseState,
    acquire_lease,
    lease_holder,
    new_holder_id,
    release_lease,
)
from pbem.scheduler.search_process import SearchProcess
from pbem.scheduler.stats import record_sweep
from pbem.scheduler.sweep import SweepSummary, sweep
from pbem.services.common import Site, site_from_config

log = logging.getLogger(__name__)
SWEEP_EVERY_SECONDS = 60
DELIVER_EVERY_SECONDS = 5
BOT_EVERY_SECONDS = 2
BOT_RETRY = timedelta(minutes=1)  # a failed bot's next try at the same position


@dataclass
class SchedulerJobs:
    """What one scheduler process does at each tick; ``now`` is injectable for tests."""

    database: Database
    site: Site
    smtp: SmtpSettings
    holder: str = field(default_factory=new_holder_id)
    clock: Callable[[], datetime] = utc_now
    lease_time: Any = LEASE_TIME
    # False when `pbem deliver --loop` processes deliver (PBEM_SCHEDULER_DELIVERS, --no-deliver).
    delivers: bool = True
    claim_for: timedelta = CLAIM_FOR  # PBEM_DELIVER_CLAIM_SECONDS
    imap_url: str = ""  # play by reply: the mailbox the fetch job reads (PBEM_IMAP_URL)
    # The bots' searches run here, out of this process (whose threads, and under pbem dev the
    # web app, would otherwise wait on the interpreter lock for seconds at a time).
    searches: SearchProcess = field(default_factory=SearchProcess)
    # With PBEM_TASKS, workers elsewhere search (pbem.tasks): the bots job then calls this
    # instead, to queue each computer turn that no job waits for; what it did, which is
    # logged when it is something.
    queue_bots: Callable[[], object] | None = None
    bot_failures: dict[tuple[int, int], datetime] = field(default_factory=dict)  # -> when
    # What the log last said: the lease ("active", or who holds it while this one stands by)
    # and each job's failure, so that each change is logged once.
    lease_said: tuple[str, str | None] | None = field(default=None, compare=False)
    # Held while the lease is taken or given up, and what the log says of it: the jobs ask
    # from several threads (one line per change), and a tick still running when the stop
    # released the lease must not take it back.
    lease_lock: threading.Lock = field(default_factory=threading.Lock, compare=False)
    job_log: StateLog = field(default_factory=StateLog, compare=False)
    stopped: bool = field(default=False, compare=False)

    def is_active(self, now: datetime) -> bool:
        with self.lease_lock:
            if self.stopped:
                return False
            state = acquire_lease(self.database, self.holder, now, duration=self.lease_time)
            self._log_lease(state)
        return state.held

    def _log_lease(self, state: LeaseState) -> None:
        """One line when this process takes the lease, stands by, or loses it (under
        ``lease_lock``)."""
        if state.holder is None:  # a race for the first row: the next tick will say
            return
        now_said: tuple[str, str | None] = ("active", None) if state.held else (
            "standby", state.holder)
        before, self.lease_said = self.lease_said, now_said
        if before == now_said:
            return
        if state.held:
            log.info("scheduler %s takes the lease%s: it runs the jobs", self.holder,
                     f" over from {state.previous}" if state.previous else "")
        elif before is not None and before[0] == "active":
            log.warning("scheduler %s lost the lease to %s: standing by", self.holder,
                        state.holder)
        else:
            log.info("scheduler %s stands by: %s holds the lease", self.holder, state.holder)

    def sweep_tick(self, now: datetime | None = None) -> SweepSummary | None:
        """Sweep if this process holds the lease; None when standing by."""
        now = now or self.clock()
        if not self.is_active(now):
            return None
        began = time.monotonic()
        # The bots job plays the computers: a sweep doing it too would search the same
        # positions twice at once, one move then dropped as stale.
        summary = sweep(self.database, now, self.site, bots=False)
        # For /metrics: web workers read it from the database (they cannot see this process).
        record_sweep(self.database, self.holder, now, time.monotonic() - began)
        if summary.work_done or summary.errors:
            log.info("sweep at %s: %s", now.isoformat(), summary)
        return summary

    def bots_tick(self, now: datetime | None = None) -> int | None:
        """Play the computer players waiting to move if this process holds the lease (or, with
        ``queue_bots``, queue their searches for the workers); the moves made here (None when
        standing by). It only reads the lease, which the other jobs
        renew: a write every two seconds would queue behind the web's writers for nothing."""
        # Each move is stamped when it is made, unless a test fixed the time.
        moment = None if now else self.clock
        now = now or self.clock()
        if lease_holder(self.database, now) != self.holder:
            return None
        if self.queue_bots is not None:
            if queued := self.queue_bots():
                log.info("computer players: %s", queued)
            return 0
        results: list[BotResult] = []
        # A bot that failed at a ply is tried again a minute later, not at every tick: the
        # organiser has been alerted, and the log should not repeat the failure every 2 s.
        self.bot_failures = {key: at for key, at in self.bot_failures.items()
                             if now - at < BOT_RETRY}
        play_bots(self.database, now, self.site, results.append, run=self.searches.run,
                  workers=self.searches.workers,
                  skip=lambda turn: (turn.game_id, turn.ply) in self.bot_failures,
                  moment=moment)
        for result in results:
            if result.failed is not None:
                self.bot_failures[(result.failed.game_id, result.failed.ply)] = now
        moves = sum(result.moves for result in results)
        if moves or any(result.error for result in results):
            log.info("computer players: %s moves, %s failed", moves,
                     sum(1 for result in results if result.error))
        return moves

    def delivery_tick(self, now: datetime | None = None) -> DeliveryReport | None:
        """Deliver due mail, then the messages to players' other channels (pbem.channels, by
        the same rules), if this process holds the lease; the mail's report, None when
        standing by."""
        now = now or self.clock()
        if not self.is_active(now):
            return None
        report = deliver_pending(self.database, self.smtp, now, holder=self.holder,
                                 claim_for=self.claim_for)
        if report.attempted:  # nothing was due: nothing to say, nor to write
            record_delivery(self.database, self.smtp, self.holder, self.job_log, report, now)
        deliver_channels(self.database, self.site, now, holder=self.holder,
                         claim_for=self.claim_for)
        return report

    def fetch_tick(self, now: datetime | None = None) -> int | None:
        """One pass over the IMAP mailbox if this process holds the lease; messages handled."""
        now = now or self.clock()
        if not self.imap_url or not self.is_active(now):
            return None
        mailbox = describe_url(self.imap_url)
        try:
            result = fetch_pass(self.imap_url, lambda raw: log.info(
                "inbound: %s", receive(self.database, self.clock(), self.site, raw)))
        except Exception as failure:  # the server, the network, the login: all the same to us
            error = describe_error(failure, url_password(self.imap_url))
            record_run(self.database, FETCH, self.holder, now, error)
            if self.job_log.failed(FETCH):
                log.warning("fetching mail from %s fails: %s", mailbox, error)
            return None
        record_run(self.database, FETCH, self.holder, now)
        if self.job_log.worked(FETCH):
            log.info("fetching mail from %s works again", mailbox)
        if result.handled or result.failed:
            log.info("fetched mail: %s handled, %s failed", result.handled, result.failed)
        return result.handled

    def stop(self) -> None:
        with self.lease_lock:
            self.stopped = True
            release_lease(self.database, self.holder)
        if self.lease_said == ("active", None):
            log.info("scheduler %s released the lease", self.holder)
        self.searches.close()


def record_delivery(database: Database, smtp: SmtpSettings, holder: str, job_log: StateLog,
                    report: DeliveryReport, now: datetime) -> None:
    """Record and log how a delivery pass went, for /healthz, /metrics and the operator.

    Delivery fails when the relay could not be used, or took none of the emails and
    deferred some (a relay that answers "later" to everything is down too); one email
    refused for good is that email's problem, not the relay's."""
    secrets = (smtp.password,)
    last = report.relay_error or (report.errors[-1] if report.errors else "")
    stalled = report.relay_error or (last if not report.sent and report.deferred else "")
    error = public_error(last, *secrets) if last else None
    record_run(database, DELIVER, holder, now, error, failing=bool(stalled))
    relay = smtp.relay
    if stalled:
        if job_log.failed(DELIVER):
            log.warning("delivery via %s fails: %s (%s emails wait for a retry)", relay,
                        public_error(stalled, *secrets), report.deferred)
        if not report.sent and not report.failed:
            return  # said once; the emails' own rows keep the rest
    elif job_log.worked(DELIVER):
        log.info("delivery via %s works again", relay)
    if report.sent or report.failed or report.errors:
        log.info("delivery via %s: sent %s, deferred %s, failed %s%s", relay, report.sent,
                 report.deferred, report.failed, f"; last error: {error}" if error else "")


def jobs_from_config(database: Database, config: Mapping[str, Any]) -> SchedulerJobs:
    return SchedulerJobs(database, site_from_config(database, config),
                         SmtpSettings.from_config(config), imap_url=str(config.get("IMAP_URL", "")),
                         searches=SearchProcess(int(config.get("BOT_WORKERS", 2))),
                         delivers=bool(config.get("SCHEDULER_DELIVERS", True)),
                         claim_for=timedelta(seconds=int(config.get("DELIVER_CLAIM_SECONDS",
                                                                    600))))


def build_scheduler(jobs: SchedulerJobs, *, blocking: bool,
                    sweep_every: float = SWEEP_EVERY_SECONDS,
                    deliver_every: float = DELIVER_EVERY_SECONDS,
                    fetch_every: float = 0,
                    bot_every: float = BOT_EVERY_SECONDS) -> BaseScheduler:
    """A scheduler (not started) with its jobs, in UTC: sweep, delivery, the computer players,
    and the IMAP fetch when ``fetch_every`` is set and the jobs have a mailbox."""
    # APScheduler logs every tick (the computer players' come every 2 s), and warns of each tick
    # skipped while a long run goes on, which max_instances=1 means to happen: the log keeps
    # what our jobs say when they did something, and errors.
    logging.getLogger("apscheduler").setLevel(logging.ERROR)
    scheduler: BaseScheduler = (BlockingScheduler(timezone=UTC) if blocking
                                else BackgroundScheduler(timezone=UTC))
    defaults = {"coalesce": True, "max_instances": 1, "misfire_grace_time": 30}
    ticks: list[tuple[str, Callable[[], object], float]] = [
        ("sweep", jobs.sweep_tick, sweep_every), ("bots", jobs.bots_tick, bot_every)]
    if jobs.delivers:
        ticks.append(("deliver", jobs.delivery_tick, deliver_every))
    if fetch_every > 0 and jobs.imap_url:
        ticks.append(("fetch", jobs.fetch_tick, fetch_every))
    for name, tick, every in ticks:
        scheduler.add_job(_guarded(tick, jobs.job_log), "interval", seconds=every, id=name,
                          next_run_time=utc_now(), **defaults)
    return scheduler


def _guarded(tick: Callable[[], object], said: StateLog) -> Callable[[], None]:
    """A job that logs its failure and lets the next tick retry (a database restart, say):
    the first failure with its traceback, then nothing until it works again, which is one more
    line (the bots job ticks every two seconds: a traceback each time would bury the rest)."""
    name = getattr(tick, "__name__", str(tick))

    def run() -> None:
        try:
            tick()
        except Exception:
            if said.failed(f"job:{name}"):
                log.exception("scheduler job %s failed (logged again only once it works)", name)
            return
        if said.worked(f"job:{name}"):
            log.info("scheduler job %s works again", name)

    return run
