"""Endpoints for operators: ``GET /healthz`` (always) and ``GET /metrics`` (``PBEM_METRICS=on``).

Both read the database at request time rather than counting in memory: gunicorn runs several
worker processes and the scheduler runs in another, so any one process's counters would be a
fraction of the truth (and reset at every restart). See docs/deploy.md, "Monitoring".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import func, text
from sqlmodel import Session, col, select

from pbem.db import Database
from pbem.models import MailStatus, Move, MoveSource, OutboxEmail, SchedulerLease
from pbem.scheduler.lease import LEASE_NAME
from pbem.scheduler.stats import last_sweep

bp = Blueprint("monitoring", __name__)
PENDING = (MailStatus.QUEUED, MailStatus.RETRYING, MailStatus.SENDING)


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Limits:
    """Beyond these, /healthz says 503 (settings ``PBEM_HEALTH_*``)."""

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

    @property
    def backlog(self) -> int:
        return sum(self.by_status.get(status, 0) for status in PENDING)


def outbox_counts(session: Session) -> OutboxCounts:
    by_status = {str(status): int(count) for status, count in session.exec(
        select(OutboxEmail.status, func.count()).group_by(col(OutboxEmail.status)))}
    retries = session.exec(select(func.coalesce(func.sum(col(OutboxEmail.attempts) - 1), 0))
                           .where(col(OutboxEmail.attempts) > 1)).one()
    oldest = session.exec(select(func.min(OutboxEmail.created_at))
                          .where(OutboxEmail.status == MailStatus.QUEUED)).one()
    if isinstance(oldest, str):  # SQLite's MIN() loses the column type: parse it back
        oldest = datetime.fromisoformat(oldest)
    if oldest is not None and oldest.tzinfo is None:
        oldest = oldest.replace(tzinfo=UTC)
    return OutboxCounts(by_status, int(retries), oldest)


def _age(now: datetime, then: datetime | None) -> float | None:
    return None if then is None else round((now - then).total_seconds(), 3)


def _scheduler_health(session: Session, now: datetime, limits: Limits) -> dict[str, Any]:
    lease = session.get(SchedulerLease, LEASE_NAME)
    age = _age(now, lease.renewed_at if lease else None)
    # No lease row: no scheduler is running (a clean stop deletes it), which is unhealthy too.
    return {"ok": age is not None and age <= limits.lease_age,
            "holder": lease.holder if lease else None, "lease_age_seconds": age,
            "max_lease_age_seconds": limits.lease_age}


def _outbox_health(session: Session, now: datetime, limits: Limits) -> dict[str, Any]:
    counts = outbox_counts(session)
    age = _age(now, counts.oldest_queued_at)
    return {"ok": counts.backlog <= limits.backlog and (age is None or age <= limits.mail_age),
            "backlog": counts.backlog, "retrying": counts.by_status.get(MailStatus.RETRYING, 0),
            "oldest_queued_age_seconds": age, "max_backlog": limits.backlog,
            "max_queued_age_seconds": limits.mail_age}


def health(database: Database, now: datetime, limits: Limits) -> dict[str, Any]:
    """Every check with its numbers; ``status`` is ``ok`` only when all of them are."""
    try:
        with database.session() as session:
            session.exec(text("SELECT 1"))  # type: ignore[call-overload]
            checks = {"database": {"ok": True},
                      "scheduler": _scheduler_health(session, now, limits),
                      "outbox": _outbox_health(session, now, limits)}
    except Exception as error:  # whatever the driver raises, the answer is "unreachable"
        checks = {"database": {"ok": False, "error": f"{type(error).__name__}: {error}"[:300]}}
    ok = all(check["ok"] for check in checks.values())
    return {"status": "ok" if ok else "unhealthy", "checks": checks}


@bp.get("/healthz")
def healthz() -> Response:
    database: Database = current_app.extensions["pbem.database"]
    report = health(database, utc_now(), Limits.from_config(current_app.config))
    response = jsonify(report)
    response.status_code = 200 if report["status"] == "ok" else 503
    response.headers["Cache-Control"] = "no-store"
    return response


class DatabaseCollector(Collector):
    """Prometheus metrics computed from the tables at each scrape (right across processes)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    def collect(self) -> Iterator[Metric]:
        with self.database.session() as session:
            moves = dict(session.exec(select(Move.source, func.count())
                                      .group_by(col(Move.source))).all())
            outbox = outbox_counts(session)
        sweep = last_sweep(self.database)

        committed = CounterMetricFamily("pbem_moves_committed", "Moves committed, by source",
                                        labels=["source"])
        # Every known source, 0 included, so that rates work from the first scrape.
        known = {v: 0 for k, v in vars(MoveSource).items() if k.isupper()}
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


def metrics_view(registry: CollectorRegistry) -> Any:
    def metrics() -> Response:
        return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST,
                        headers={"Cache-Control": "no-store"})
    return metrics


def init_app(app: Flask, database: Database) -> None:
    """Register /healthz, and /metrics when ``METRICS`` is on (otherwise it is a 404)."""
    app.register_blueprint(bp)
    if app.config.get("METRICS"):
        # A registry per app, not the global one: no process metrics that differ per worker,
        # and tests can make many apps.
        registry = CollectorRegistry(auto_describe=False)
        registry.register(DatabaseCollector(database))
        app.add_url_rule("/metrics", "metrics", metrics_view(registry))
