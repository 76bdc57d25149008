"""Endpoints for operators: ``GET /healthz`` (always) and ``GET /metrics`` (``PBEM_METRICS=on``).

Both read the database at request time rather than counting in memory: gunicorn runs several
worker processes and the scheduler runs in another, so any one process's counters would be a
fraction of the truth (and reset at every restart). Neither counts the tables that only grow at
each request: /healthz counts the emails waiting (from the outbox's status index), and /metrics
counts the moves and emails in two parts (:class:`Tallies`): the rows up to a mark, and the rows
after it, counted at each scrape. A scrape thus reads the rows written lately, not every move and
email of the site's life.

The moves' part up to the mark is kept in the database (``metric_tallies``, row ``moves``), one
for every process, and advanced every :data:`RECOUNT` by the first scrape that finds it older
(:func:`advance_moves`): it adds the moves with ids in (``through``, ``pending``] and moves the
marks up, ``through`` to ``pending`` and ``pending`` to the highest id now. Why not up to the
highest id at once: a move written by a transaction still open when the highest id is read may
have a lower id than it, and commit just after; counted up to that id, it would never be counted.
Ids up to ``pending`` were all handed out at least :data:`RECOUNT` before ``pending`` becomes the
mark, and their transactions have long ended: pbem's are short (it waits inside them for nothing
but the database and its own work), and PostgreSQL ends a session idle in a transaction after
``PBEM_DATABASE_IDLE_TRANSACTION_SECONDS`` (60). A scrape answers the stored counts plus the
moves after ``through`` (at most about two periods' moves, read through the primary key), so
it is exact at each scrape. The very first count of a site (no row yet: the first scrape after
migration 0029) is the only count of every move, and it needs no waiting: it reads the highest id
while no move can be in a transaction still open (SQLite's write lock; on PostgreSQL a SHARE lock
on the moves, which waits for the transactions writing moves to end, for at most two seconds),
so every move up to it is committed (:func:`settle_moves`). Two processes advancing at once add
the moves once: the update changes the row only if its marks are still those it counted from.
An advance that fails (the database locked, the SHARE lock not granted) fails nothing else: the
scrape answers from the stored row (or, before the first, by counting every move) and a later
scrape advances. The emails' mark is kept per process (see :class:`Tallies`).

The scheduler's jobs record how they last went in the database for the same reason
(:mod:`pbem.scheduler.job_states`). Redis, when set, is asked at each request. See
docs/deploy.md, "Monitoring".

Nothing secret is shown: errors are stored cleaned of passwords, tokens and addresses, and the
relay, mailbox and Redis are named by host and port only.
"""

from __future__ import annotations

import json
import logging
import threading
import time as monotonic_time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import case, func, text, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session, col, select

from pbem.clock.wall import utc_now
from pbem.db import Database
from pbem.inbound.imap import describe_url
from pbem.models import (
    JobState,
    MailStatus,
    MetricTally,
    Move,
    MoveSource,
    OutboxEmail,
    SchedulerLease,
)
from pbem.ratelimit import redis_address, redis_client, redis_status
from pbem.scheduler.job_states import DELIVER, FETCH, describe_error, job_states
from pbem.scheduler.lease import LEASE_NAME
from pbem.scheduler.stats import last_sweep

log = logging.getLogger(__name__)
bp = Blueprint("monitoring", __name__)
PENDING = (MailStatus.QUEUED, MailStatus.RETRYING, MailStatus.SENDING)
# Seconds between advances of the moves' tally (one for the site), and between full counts of
# the emails (per web process).
RECOUNT = 600.0
MOVES = "moves"  # the moves' row of metric_tallies
SETTLE_LOCK_TIMEOUT = "2s"  # how long the first count waits on PostgreSQL for the moves' lock


@dataclass(frozen=True)
class Limits:
    """Beyond these, /healthz says 503 (settings ``PBEM_HEALTH_*``). ``mail_age`` bounds how
    long mail may wait: an email never tried, an email retrying, and a failing IMAP fetch."""

    lease_age: float = 300
    mail_age: float = 900
    backlog: int = 1000

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Limits:
        return cls(lease_age=float(config.get("HEALTH_MAX_LEASE_AGE", 300)),
                   mail_age=float(config.get("HEALTH_MAX_MAIL_AGE", 900)),
                   backlog=int(config.get("HEALTH_MAX_BACKLOG", 1000)))


@dataclass(frozen=True)
class OutboxCounts:
    by_status: dict[str, int]
    retries: int  # attempts after the first, over all emails
    oldest_queued_at: datetime | None  # the oldest email never tried yet
    oldest_retrying_at: datetime | None = None  # the oldest email tried and waiting to be again

    @property
    def backlog(self) -> int:
        return sum(self.by_status.get(status, 0) for status in PENDING)


def outbox_counts(session: Session, tallies: Tallies | None = None) -> OutboxCounts:
    """Every email by status, and the retries: counted in two parts by ``tallies`` (see the
    module docstring); without them, only the emails waiting are counted (what /healthz needs),
    from the status index."""
    if tallies is None:
        by_status = {str(status): int(count) for status, count in session.exec(
            select(OutboxEmail.status, func.count())
            .where(col(OutboxEmail.status).in_(PENDING)).group_by(col(OutboxEmail.status)))}
        retries = 0
    else:
        by_status, retries = tallies.outbox(session)
    return OutboxCounts(by_status, retries, _oldest(session, MailStatus.QUEUED),
                        _oldest(session, MailStatus.RETRYING))


def _outbox_tally(session: Session, above: int, through: int | None) -> dict[str, int]:
    """Emails by status with ids in (above, through], and their retries under ``""``."""
    query = select(OutboxEmail.status, func.count(), func.coalesce(func.sum(
        case((col(OutboxEmail.attempts) > 1, col(OutboxEmail.attempts) - 1), else_=0)), 0)
    ).where(col(OutboxEmail.id) > above)
    if through is not None:
        query = query.where(col(OutboxEmail.id) <= through)
    found: dict[str, int] = {"": 0}
    for status, count, retries in session.exec(query.group_by(col(OutboxEmail.status))):
        found[str(status)] = int(count)
        found[""] += int(retries)
    return found


def _moves_tally(session: Session, above: int, through: int | None) -> dict[str, int]:
    """Moves by source with ids in (above, through], read through the primary key: grouped by
    ``source || ''``, not by ``source``, which SQLite would read from ix_moves_source whole (every
    move's entry, 20 ms for 500,000 moves) rather than the ids after ``above`` alone."""
    source = col(Move.source).concat("").label("source")
    query = select(source, func.count()).where(col(Move.id) > above)
    if through is not None:
        query = query.where(col(Move.id) <= through)
    return {str(found): int(count) for found, count in session.exec(query.group_by(source))}


def _add(first: dict[str, int], second: dict[str, int]) -> dict[str, int]:
    return {key: first.get(key, 0) + second.get(key, 0) for key in {*first, *second}}


def tally_counts(tally: MetricTally | None) -> dict[str, int]:
    """The counts a tally holds (none without one).

    >>> tally_counts(MetricTally(name="moves", counts='{"link": 3, "bot": 1}'))
    {'link': 3, 'bot': 1}
    """
    if tally is None:
        return {}
    return {str(key): int(value) for key, value in json.loads(tally.counts).items()}


def _counts_text(counts: dict[str, int]) -> str:
    return json.dumps(counts, sort_keys=True, separators=(",", ":"))


def settle_moves(database: Database, now: datetime) -> MetricTally | None:
    """The site's first tally of the moves, written: every move up to the highest id, which is
    read while no transaction writing a move is open (module docstring), so through = pending =
    that id. None when another process wrote the row first. Raises what the database raises
    (SQLite locked, PostgreSQL's lock not granted in :data:`SETTLE_LOCK_TIMEOUT`)."""
    with database.write() as session:  # on SQLite, BEGIN IMMEDIATE: the only writer
        if not database.is_sqlite:
            session.execute(text(f"SET LOCAL lock_timeout = '{SETTLE_LOCK_TIMEOUT}'"))
            session.execute(text(f"LOCK TABLE {Move.__tablename__} IN SHARE MODE"))
        high = session.exec(select(func.max(Move.id))).one() or 0
    # The lock is let go before the long count: moves written since have higher ids.
    with database.session() as session:
        counts = _moves_tally(session, 0, high)
    tally = MetricTally(name=MOVES, through=high, pending=high, counts=_counts_text(counts),
                        advanced_at=now)
    try:
        with database.write() as session:
            session.add(tally)
    except IntegrityError:  # another process settled it meanwhile
        return None
    return tally


def advance_moves(database: Database, tally: MetricTally, now: datetime) -> MetricTally | None:
    """``tally`` advanced and written: the moves in (through, pending] added, through moved to
    pending and pending to the highest id now. The moves are counted outside the write, which
    only changes the row if its marks are still those of ``tally``: None when another process
    advanced it first (its row is then the one to read)."""
    with database.session() as session:
        added = _moves_tally(session, tally.through, tally.pending)
        high = session.exec(select(func.max(Move.id))).one() or 0
    advanced = MetricTally(name=MOVES, through=tally.pending, pending=max(high, tally.pending),
                           counts=_counts_text(_add(tally_counts(tally), added)),
                           advanced_at=now)
    with database.write() as session:
        result = session.execute(
            update(MetricTally)
            .where(col(MetricTally.name) == MOVES, col(MetricTally.through) == tally.through,
                   col(MetricTally.pending) == tally.pending)
            .values(through=advanced.through, pending=advanced.pending,
                    counts=advanced.counts, advanced_at=now))
        changed = int(getattr(result, "rowcount", 0))
    return advanced if changed else None


@dataclass
class Tally:
    """Counts of the rows with ids up to ``through``, made at ``made`` (monotonic seconds)."""

    through: int
    counts: dict[str, int]
    made: float


@dataclass
class Tallies:
    """The moves and emails counted for /metrics in two parts: the rows up to a mark, and the
    rows after it, counted at each scrape.

    Moves never change source: their part up to the mark is the site's tally in the database,
    advanced every ``recount`` seconds by whichever process scrapes first (module docstring).
    An email's status changes until it is sent or given up on, so the emails' mark is below the
    oldest one still waiting, and this process counts the emails up to it every ``recount``
    seconds: the part counted at each scrape holds every email that may still change. What
    that recount cannot see at once: an email sent long ago that bounces later moves from
    ``sent`` to ``bounced`` at the next recount, and an email written by a transaction still
    open at a recount (with an id below the mark) is counted from the next one."""

    recount: float = RECOUNT
    outbox_part: Tally | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _stale(self, part: Tally | None) -> bool:
        return part is None or monotonic_time.monotonic() - part.made >= self.recount

    def moves(self, database: Database, now: datetime) -> dict[str, int]:
        """The moves by source: the site's tally (advanced first when it is ``recount`` old or
        missing) plus the moves after its ``through``."""
        with database.session() as session:
            tally = session.get(MetricTally, MOVES)
            if tally is not None and (now - tally.advanced_at).total_seconds() < self.recount:
                return _add(tally_counts(tally), _moves_tally(session, tally.through, None))
        written: MetricTally | None = None
        try:
            written = (settle_moves(database, now) if tally is None
                       else advance_moves(database, tally, now))
        except SQLAlchemyError as error:  # locked, or the lock not granted: answer all the same
            log.warning("the moves' tally for /metrics was not advanced: %s",
                        describe_error(error))
        with database.session() as session:
            # None written: another process did (or the write failed): its row, or the last one.
            tally = written or session.get(MetricTally, MOVES) or tally
            return _add(tally_counts(tally),
                        _moves_tally(session, tally.through if tally else 0, None))

    def outbox(self, session: Session) -> tuple[dict[str, int], int]:
        with self.lock:
            if self._stale(self.outbox_part):
                waiting = session.exec(select(func.min(OutboxEmail.id))
                                       .where(col(OutboxEmail.status).in_(PENDING))).one()
                through = (waiting - 1 if waiting is not None else session.exec(
                    select(func.max(OutboxEmail.id))).one() or 0)
                self.outbox_part = Tally(through, _outbox_tally(session, 0, through),
                                         monotonic_time.monotonic())
            part = self.outbox_part
        assert part is not None
        found = _add(part.counts, _outbox_tally(session, part.through, None))
        retries = found.pop("")
        return found, retries


def _oldest(session: Session, status: str) -> datetime | None:
    """When the oldest email of ``status`` was written."""
    oldest = session.exec(select(func.min(OutboxEmail.created_at))
                          .where(OutboxEmail.status == status)).one()
    if isinstance(oldest, str):  # SQLite's MIN() loses the column type: parse it back
        oldest = datetime.fromisoformat(oldest)
    if oldest is not None and oldest.tzinfo is None:
        oldest = oldest.replace(tzinfo=UTC)
    return oldest


def _age(now: datetime, then: datetime | None) -> float | None:
    return None if then is None else round((now - then).total_seconds(), 3)


def _scheduler_health(session: Session, now: datetime, limits: Limits) -> dict[str, Any]:
    lease = session.get(SchedulerLease, LEASE_NAME)
    age = _age(now, lease.renewed_at if lease else None)
    # No lease row: no scheduler is running (a clean stop deletes it), which is unhealthy too.
    return {"ok": age is not None and age <= limits.lease_age,
            "holder": lease.holder if lease else None, "lease_age_seconds": age,
            "max_lease_age_seconds": limits.lease_age}


def _moment(then: datetime | None) -> str | None:
    return None if then is None else then.isoformat()


def _job_report(job: JobState | None) -> dict[str, Any]:
    """What /healthz shows of a job's recorded state (all None before its first run)."""
    return {"last_error": (job.last_error or None) if job else None,
            "last_error_at": _moment(job.last_error_at) if job else None,
            "failing_since": _moment(job.failing_since) if job else None}


def _outbox_health(session: Session, now: datetime, limits: Limits,
                   deliver: JobState | None, relay: str) -> dict[str, Any]:
    counts = outbox_counts(session)
    queued = _age(now, counts.oldest_queued_at)
    retrying = _age(now, counts.oldest_retrying_at)
    return {"ok": counts.backlog <= limits.backlog
            and all(age is None or age <= limits.mail_age for age in (queued, retrying)),
            "backlog": counts.backlog, "retrying": counts.by_status.get(MailStatus.RETRYING, 0),
            "oldest_queued_age_seconds": queued, "oldest_retrying_age_seconds": retrying,
            "max_backlog": limits.backlog, "max_queued_age_seconds": limits.mail_age,
            "max_retrying_age_seconds": limits.mail_age,
            **({"relay": relay} if relay else {}), **_job_report(deliver)}


def _fetch_health(now: datetime, limits: Limits, fetch: JobState | None,
                  mailbox: str) -> dict[str, Any]:
    failing = _age(now, fetch.failing_since if fetch else None)
    return {"ok": failing is None or failing <= limits.mail_age,
            **({"mailbox": mailbox} if mailbox else {}),
            "last_run_at": _moment(fetch.last_run_at) if fetch else None,
            "last_success_at": _moment(fetch.last_success_at) if fetch else None,
            "failing_for_seconds": failing, "failures": fetch.failures if fetch else 0,
            "max_failing_seconds": limits.mail_age, **_job_report(fetch)}


@dataclass(frozen=True)
class Parts:
    """What this site uses besides the database, as the web process's settings say: the relay
    (``host:port``), the IMAP mailbox the scheduler fetches from (``""``: none) and Redis."""

    relay: str = ""
    mailbox: str = ""
    redis_url: str = ""
    redis: Any = None  # a client for redis_url (pbem.ratelimit.redis_client)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Parts:
        fetching = config.get("IMAP_URL") and int(config.get("FETCH_EVERY") or 0) > 0
        redis_url = str(config.get("REDIS_URL") or "")
        return cls(relay=f"{config.get('SMTP_HOST', '')}:{config.get('SMTP_PORT', '')}",
                   mailbox=describe_url(str(config["IMAP_URL"])) if fetching else "",
                   redis_url=redis_url, redis=redis_client(redis_url) if redis_url else None)

    def redis_health(self) -> dict[str, Any]:
        error = redis_status(self.redis, self.redis_url)
        return {"ok": error is None, "address": redis_address(self.redis_url),
                **({"error": error, "fallback": "database"} if error else {})}


def health(database: Database, now: datetime, limits: Limits,
           parts: Parts | None = None) -> dict[str, Any]:
    """Every check with its numbers; ``status`` is ``ok`` only when all of them are. ``fetch``
    is there when the scheduler fetches mail (PBEM_FETCH_EVERY, or it did lately), ``redis``
    when PBEM_REDIS_URL is set."""
    parts = parts or Parts()
    try:
        with database.session() as session:
            session.exec(text("SELECT 1"))  # type: ignore[call-overload]
            jobs = job_states(database)
            checks = {"database": {"ok": True},
                      "scheduler": _scheduler_health(session, now, limits),
                      "outbox": _outbox_health(session, now, limits, jobs.get(DELIVER),
                                               parts.relay)}
            fetch = jobs.get(FETCH)
            # Fetching as the settings say, or lately: a fetch switched off is no longer news.
            if parts.mailbox or (fetch and (now - fetch.last_run_at).total_seconds()
                                 <= limits.mail_age):
                checks["fetch"] = _fetch_health(now, limits, fetch, parts.mailbox)
    except Exception as error:  # whatever the driver raises, the answer is "unreachable"
        checks = {"database": {"ok": False, "error": describe_error(error)}}
    if parts.redis is not None:
        checks["redis"] = parts.redis_health()
    ok = all(check["ok"] for check in checks.values())
    return {"status": "ok" if ok else "unhealthy", "checks": checks}


@bp.get("/healthz")
def healthz() -> Response:
    database: Database = current_app.extensions["pbem.database"]
    parts: Parts = current_app.extensions["pbem.monitored_parts"]
    report = health(database, utc_now(), Limits.from_config(current_app.config), parts)
    response = jsonify(report)
    response.status_code = 200 if report["status"] == "ok" else 503
    response.headers["Cache-Control"] = "no-store"
    return response


class DatabaseCollector(Collector):
    """Prometheus metrics computed from the tables at each scrape (right across processes; the
    moves and emails in two parts, see :class:`Tallies`)."""

    def __init__(self, database: Database, parts: Parts | None = None) -> None:
        self.database = database
        self.parts = parts or Parts()
        self.tallies = Tallies()

    def collect(self) -> Iterator[Metric]:
        now = utc_now()
        moves = self.tallies.moves(self.database, now)
        with self.database.session() as session:
            outbox = outbox_counts(session, self.tallies)
        sweep = last_sweep(self.database)
        jobs = job_states(self.database)

        committed = CounterMetricFamily("pbem_moves_committed", "Moves committed, by source",
                                        labels=["source"])
        # Every known source, 0 included, so that rates work from the first scrape.
        known = {str(source): 0 for source in MoveSource}
        for source, count in sorted({**known, **moves}.items()):
            committed.add_metric([str(source)], int(count))
        yield committed
        for status, what in ((MailStatus.SENT, "sent"), (MailStatus.FAILED, "given up on")):
            yield CounterMetricFamily(f"pbem_emails_{status}", f"Emails {what}",
                                      value=outbox.by_status.get(status, 0))
        yield CounterMetricFamily("pbem_emails_retried", "Delivery attempts after the first",
                                  value=outbox.retries)
        backlog = GaugeMetricFamily("pbem_outbox_backlog", "Emails waiting, by status",
                                    labels=["status"])
        for status in PENDING:
            backlog.add_metric([status], outbox.by_status.get(status, 0))
        yield backlog
        yield CounterMetricFamily("pbem_bounces", "Emails a delivery report said never arrived",
                                  value=outbox.by_status.get(MailStatus.BOUNCED, 0))
        yield GaugeMetricFamily("pbem_sweep_duration_seconds", "Duration of the last sweep",
                                value=sweep.seconds if sweep else 0)
        yield GaugeMetricFamily("pbem_sweep_last_start_timestamp_seconds",
                                "When the last sweep started (Unix time)",
                                value=sweep.started_at.timestamp() if sweep else 0)
        oldest = GaugeMetricFamily("pbem_outbox_oldest_age_seconds",
                                   "Age of the oldest email waiting, by status (0: none)",
                                   labels=["status"])
        for status, then in ((MailStatus.QUEUED, outbox.oldest_queued_at),
                             (MailStatus.RETRYING, outbox.oldest_retrying_at)):
            oldest.add_metric([status], _age(now, then) or 0)
        yield oldest
        yield from _job_metrics(jobs)
        if self.parts.redis is not None:
            yield GaugeMetricFamily("pbem_redis_up", "Whether Redis (PBEM_REDIS_URL) answers",
                                    value=0 if redis_status(self.parts.redis,
                                                            self.parts.redis_url) else 1)


def _job_metrics(jobs: dict[str, JobState]) -> Iterator[Metric]:
    """The scheduler's jobs (deliver, fetch) as they last went; a job that never ran has none."""
    up = GaugeMetricFamily("pbem_job_up", "Whether the job's last run worked", labels=["job"])
    success = GaugeMetricFamily("pbem_job_last_success_timestamp_seconds",
                                "When the job last worked (Unix time; 0: never)", labels=["job"])
    failures = GaugeMetricFamily("pbem_job_failures", "Runs in a row that failed",
                                 labels=["job"])
    error_at = GaugeMetricFamily("pbem_job_last_error_timestamp_seconds",
                                 "When the job last met an error (Unix time; 0: never)",
                                 labels=["job"])
    error = GaugeMetricFamily("pbem_job_last_error_info", "The job's last error, as a label",
                              labels=["job", "error"])
    for name, job in sorted(jobs.items()):
        up.add_metric([name], 0 if job.failing_since else 1)
        success.add_metric([name], job.last_success_at.timestamp() if job.last_success_at
                           else 0)
        failures.add_metric([name], job.failures)
        error_at.add_metric([name], job.last_error_at.timestamp() if job.last_error_at else 0)
        if job.last_error:
            error.add_metric([name, job.last_error], 1)
    yield from (up, success, failures, error_at, error)


def metrics_view(registry: CollectorRegistry) -> Any:
    def metrics() -> Response:
        return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST,
                        headers={"Cache-Control": "no-store"})
    return metrics


def init_app(app: Flask, database: Database) -> None:
    """Register /healthz, and /metrics when ``METRICS`` is on (otherwise it is a 404)."""
    app.register_blueprint(bp)
    parts = app.extensions["pbem.monitored_parts"] = Parts.from_config(app.config)
    if app.config.get("METRICS"):
        # A registry per app, not the global one: no process metrics that differ per worker,
        # and tests can make many apps.
        registry = CollectorRegistry(auto_describe=False)
        registry.register(DatabaseCollector(database, parts))
        app.add_url_rule("/metrics", "metrics", metrics_view(registry))
