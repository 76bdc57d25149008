"""The last sweep's start and duration, for /metrics and /healthz in any web process.

Gunicorn's workers cannot see the scheduler process's memory, so the scheduler writes the numbers
to the database. They live in the ``scheduler_leases`` table as one more row (name
:data:`STATS_NAME`): ``renewed_at`` is when the sweep started and ``expires_at`` when it ended, so
no schema change was needed. :func:`pbem.scheduler.lease.take_lease` only ever reads its own row.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError

from pbem.db import Database
from pbem.models import SchedulerLease

STATS_NAME = "last-sweep"


@dataclass(frozen=True)
class SweepStats:
    holder: str
    started_at: datetime
    seconds: float


def record_sweep(database: Database, holder: str, started_at: datetime, seconds: float) -> None:
    """Keep ``seconds`` as the duration of the sweep ``holder`` started at ``started_at``."""
    ended = started_at + timedelta(seconds=max(seconds, 0.0))
    try:
        with database.write() as session:
            row = session.get(SchedulerLease, STATS_NAME)
            if row is None:
                row = SchedulerLease(name=STATS_NAME, holder=holder, renewed_at=started_at,
                                     expires_at=ended)
            row.holder, row.renewed_at, row.expires_at = holder, started_at, ended
            session.add(row)
    except IntegrityError:  # another process inserted the row at the same moment: theirs stands
        pass


def last_sweep(database: Database) -> SweepStats | None:
    """The last recorded sweep, or None when no scheduler has swept yet."""
    with database.session() as session:
        row = session.get(SchedulerLease, STATS_NAME)
    if row is None:
        return None
    return SweepStats(row.holder, row.renewed_at,
                      (row.expires_at - row.renewed_at).total_seconds())
