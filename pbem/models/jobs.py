"""How the scheduler's background jobs last went, for ``/healthz`` and ``/metrics``.

The scheduler is a process of its own; the web workers that answer ``/healthz`` cannot see its
memory, so each job (``deliver``: the outbox, ``fetch``: the IMAP mailbox) writes its state here.

Imported back into :mod:`pbem.models`, so ``from pbem.models import JobState`` works.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from pbem.models.columns import time_column

__all__ = ["JobState"]


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
