"""How the scheduler's background jobs last went, for ``/healthz`` and ``/metrics``, and the
counts ``/metrics`` keeps for every process.

The scheduler is a process of its own; the web workers that answer ``/healthz`` cannot see its
memory, so each job (``deliver``: the outbox, ``fetch``: the IMAP mailbox) writes its state here.
Likewise the settled part of the moves' count (:class:`MetricTally`) is kept here, shared by the
web workers, rather than counted again by each one (:mod:`pbem.monitoring`).

Imported back into :mod:`pbem.models`, so ``from pbem.models import JobState`` works.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from pbem.models.columns import time_column

__all__ = ["JobState", "MetricTally"]


class JobState(SQLModel, table=True):
    """One background job: its last run, last success, and since when it fails (if it does).

    ``last_error`` is for operators' eyes (``/healthz``): it is stored already cleaned of
    passwords, tokens and addresses (:func:`pbem.scheduler.job_states.public_error`).
    """

    __tablename__ = "job_states"

    name: str = Field(primary_key=True)  # deliver, fetch
    holder: str = ""  # the scheduler process that ran it last
    last_run_at: datetime = time_column()
    last_success_at: datetime | None = time_column(nullable=True)
    failing_since: datetime | None = time_column(nullable=True)  # None: the last run worked
    failures: int = 0  # runs in a row that failed
    last_error: str = ""
    last_error_at: datetime | None = time_column(nullable=True)


class MetricTally(SQLModel, table=True):
    """The rows of a table counted once for every process (``moves``: the moves by source).

    ``counts`` (JSON text, ``{"link": 12, ...}``) counts the rows with ids up to ``through``;
    ``pending`` is the highest id when the tally last advanced, at ``advanced_at``: the next
    advance adds the rows in (``through``, ``pending``] and moves ``through`` to ``pending``
    (:func:`pbem.monitoring.advance_moves`, which says why that is safe).
    """

    __tablename__ = "metric_tallies"

    name: str = Field(primary_key=True)  # moves
    through: int = 0
    pending: int = 0
    counts: str = "{}"
    advanced_at: datetime = time_column()
