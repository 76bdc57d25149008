"""A lease row in the database: which scheduler process is the active one.

Every tick, a process calls :func:`acquire_lease` (or :func:`take_lease`, the same as a yes or
no): it gets (or renews) the lease if nobody holds it,
if it holds it already, if the holder let it expire (it died or hung), or if the holder was a
process of this host that no longer exists (killed, then restarted by systemd). A second process
thus stands by, ticking harmlessly, and takes over within one lease time after the first one
stops. Whoever takes the lease over also releases the mail the old holder had claimed.
"""

from __future__ import annotations

import os
import socket
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from pbem.db import Database
from pbem.mail.outbox import release_claims
from pbem.models import SchedulerLease

LEASE_NAME = "scheduler"
LEASE_TIME = timedelta(seconds=90)  # more than a tick or two: a slow sweep does not lose it


def new_holder_id() -> str:
    """Unique per process start: host, pid, and a random part (pids are reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def holder_is_dead(holder: str) -> bool:
    """Whether ``holder`` (see :func:`new_holder_id`) was a process of this host that is gone:
    then its lease need not run out first (systemd restarts a killed scheduler in seconds, the
    lease lasts 90). Unknown or other hosts' holders count as alive; a reused pid only means
    waiting for the lease as before.

    >>> holder_is_dead(new_holder_id())
    False
    """
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return True
    except OSError:  # exists, but belongs to someone else
        return False
    return False


@dataclass(frozen=True)
class LeaseState:
    """What one try at the lease found. ``held``: this process holds it now; ``holder``: who
    holds it now (None when unknown: another process made the first row at the same moment);
    ``previous``: who held it before this process took it (None when nobody did, or when this
    process held it already)."""

    held: bool
    holder: str | None
    previous: str | None = None
    expires_at: datetime | None = None


def acquire_lease(database: Database, holder: str, now: datetime, *, name: str = LEASE_NAME,
                  duration: timedelta = LEASE_TIME) -> LeaseState:
    """Take or renew the lease for ``holder`` when it may (see the module docstring), and say
    who holds it."""
    try:
        with database.write() as session:
            lease = session.exec(select(SchedulerLease).where(SchedulerLease.name == name)
                                 .with_for_update()).one_or_none()
            if lease is None:
                session.add(SchedulerLease(name=name, holder=holder, expires_at=now + duration,
                                           renewed_at=now))
                return LeaseState(True, holder, expires_at=now + duration)
            if lease.holder != holder and lease.expires_at > now and not holder_is_dead(
                    lease.holder):
                return LeaseState(False, lease.holder, expires_at=lease.expires_at)
            previous = lease.holder if lease.holder != holder else None
            if previous is not None:
                # Taking over from a holder that stopped renewing (killed, hung): the mail it had
                # claimed would otherwise wait for the claim to expire (minutes more).
                release_claims(session, previous, now)
            lease.holder, lease.expires_at, lease.renewed_at = holder, now + duration, now
            session.add(lease)
            return LeaseState(True, holder, previous, now + duration)
    except IntegrityError:  # another process inserted the first lease row at the same moment
        return LeaseState(False, None)


def take_lease(database: Database, holder: str, now: datetime, *, name: str = LEASE_NAME,
               duration: timedelta = LEASE_TIME) -> bool:
    """Whether ``holder`` holds the lease until ``now + duration`` (taken or renewed now)."""
    return acquire_lease(database, holder, now, name=name, duration=duration).held


def release_lease(database: Database, holder: str, *, name: str = LEASE_NAME) -> None:
    """Give the lease up at a clean shutdown, so a standby takes over at its next tick."""
    with database.write() as session:
        lease = session.get(SchedulerLease, name)
        if lease is not None and lease.holder == holder:
            session.delete(lease)


def lease_holder(database: Database, now: datetime, *, name: str = LEASE_NAME) -> str | None:
    """Who holds an unexpired lease, if anyone (for status pages)."""
    with database.session() as session:
        lease = session.get(SchedulerLease, name)
        return lease.holder if lease is not None and lease.expires_at > now else None
