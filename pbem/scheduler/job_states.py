"""The state of the scheduler's background jobs, shared with the web processes through the
database (table ``job_states``), and logged once per change.

Each run of a job (``deliver``: the outbox; ``fetch``: the IMAP mailbox) is recorded as worked or
failed with its error; ``/healthz`` and ``/metrics`` (:mod:`pbem.monitoring`) read the rows.
The log says a job started failing (one line, no traceback) and that it works again (one line),
not every tick: :class:`StateLog` remembers, per process, what it last said.

Errors are cleaned by :func:`public_error` before they are stored or logged: operators read
them, and so may whoever sees a monitoring page.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from pbem.db import Database
from pbem.logs import mask_secrets
from pbem.models import JobState

DELIVER = "deliver"
FETCH = "fetch"
MAX_ERROR = 300  # characters: one line in a log or a JSON field

_ADDRESS = re.compile(r"\b([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})")


def public_error(text: str, *secrets: str) -> str:
    """``text`` as one line an operator may see: no password of a URL (nor any of ``secrets``),
    no token of a reply or bounce address (:func:`pbem.logs.mask_secrets`, as in every log
    line), and no whole email address either: /healthz may be seen by more people than the log.

    >>> public_error("cannot log in to imaps://pbem:s3cret@imap.example.org/INBOX", "s3cret")
    'cannot log in to imaps://pbem:***@imap.example.org/INBOX'
    >>> public_error("553 <bounce+abcdefgh12345678@pbem.example.org>: sender rejected")
    '553 <bounce+…@pbem.example.org>: sender rejected'
    >>> public_error("{'ann.smith@example.org': (550, b'5.1.1 no such user')}")
    "{'a…@example.org': (550, b'5.1.1 no such user')}"
    """
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    text = mask_secrets(text)
    text = _ADDRESS.sub(r"\1…@\2", text)
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR else text[:MAX_ERROR - 1] + "…"


def describe_error(error: BaseException, *secrets: str) -> str:
    """``Type: message``, cleaned (see :func:`public_error`)."""
    message = str(error)
    return public_error(f"{type(error).__name__}: {message}" if message
                        else type(error).__name__, *secrets)


def record_run(database: Database, name: str, holder: str, now: datetime,
               error: str | None = None, *, failing: bool | None = None) -> None:
    """Record one run of job ``name`` by ``holder`` at ``now``: it worked (``error`` None), or
    it failed with ``error`` (already cleaned). ``failing=False`` keeps a run that met an
    error it need not be called failing for (one email refused for good) as working, with
    the error kept as the last one."""
    failed = error is not None if failing is None else failing
    try:
        with database.write() as session:
            row = session.exec(select(JobState).where(col(JobState.name) == name)
                               .with_for_update()).one_or_none()
            if row is None:
                row = JobState(name=name, last_run_at=now)
            row.holder, row.last_run_at = holder, now
            if failed:
                row.failing_since = row.failing_since or now
                row.failures += 1
            else:
                row.last_success_at, row.failing_since, row.failures = now, None, 0
            if error is not None:
                row.last_error, row.last_error_at = error[:MAX_ERROR], now
            session.add(row)
    except IntegrityError:  # another process inserted the first row at the same moment
        pass


def job_states(database: Database) -> dict[str, JobState]:
    """Every job's recorded state, by name."""
    with database.session() as session:
        return {row.name: row for row in session.exec(select(JobState))}


@dataclass
class StateLog:
    """What this process last logged about each job, so that it logs changes, not ticks.

    :meth:`failed` is True when a job starts failing (time to log it), False while it goes on
    failing, whatever the error; :meth:`worked` is True when it works again. A process that
    starts (or takes the lease over) knows nothing yet: its first failure is logged, its first
    success is not.
    """

    failing: set[str] = field(default_factory=set)  # the jobs last logged as failing
    lock: threading.Lock = field(default_factory=threading.Lock)

    def failed(self, name: str) -> bool:
        with self.lock:
            if name in self.failing:
                return False
            self.failing.add(name)
            return True

    def worked(self, name: str) -> bool:
        with self.lock:
            if name not in self.failing:
                return False
            self.failing.discard(name)
            return True
