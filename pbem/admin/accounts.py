"""Creating organisers, checking their passwords, and slowing down people who guess.

The limiter counts failures per account and per IP address in this process's memory: enough for
one web process (the usual deployment); each extra process allows its own few guesses.

>>> from datetime import UTC
>>> limiter = LoginLimiter(max_failures=2, window=timedelta(minutes=15))
>>> t = datetime(2025, 1, 1, tzinfo=UTC)
>>> limiter.fail("a@x", "1.2.3.4", t); limiter.fail("a@x", "1.2.3.4", t)
>>> limiter.blocked("a@x", "5.6.7.8", t) is not None
True
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache

from sqlmodel import Session, select

from pbem.admin.passwords import WeakPassword, check_password, check_strength, hash_password
from pbem.models import AdminUser


@cache
def _dummy_hash() -> str:
    """Checked when the address is unknown, so a wrong address costs as long as a wrong password
    and the time taken does not reveal which addresses have accounts."""
    return hash_password("not a real password")


class AccountError(ValueError):
    """An account that cannot be made as asked (bad address, weak password)."""


def create_admin(session: Session, now: datetime, email: str, password: str) -> AdminUser:
    """A new organiser, or a new password for an existing one."""
    email = email.strip().lower()
    if "@" not in email or " " in email:
        raise AccountError(f"{email!r} is not an email address")
    try:
        check_strength(password)
    except WeakPassword as error:
        raise AccountError(f"password too weak: {error}") from None
    user = session.exec(select(AdminUser).where(AdminUser.email == email)).one_or_none()
    if user is None:
        user = AdminUser(email=email, password_hash="", created_at=now)
    user.password_hash = hash_password(password)
    user.active = True
    session.add(user)
    session.flush()
    return user


def authenticate(session: Session, now: datetime, email: str, password: str) -> AdminUser | None:
    """The active organiser with this address and password, or None."""
    user = session.exec(
        select(AdminUser).where(AdminUser.email == email.strip().lower())).one_or_none()
    if user is None:
        check_password(password, _dummy_hash())
        return None
    if not check_password(password, user.password_hash) or not user.active:
        return None
    user.last_login_at = now
    session.add(user)
    return user


MAX_TRACKED = 10_000


@dataclass
class LoginLimiter:
    """At most ``max_failures`` failed logins per account and per IP within ``window``."""

    max_failures: int = 5
    window: timedelta = timedelta(minutes=15)
    _failures: dict[str, deque[datetime]] = field(default_factory=lambda: defaultdict(deque))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _keys(self, email: str, ip: str) -> tuple[str, str]:
        return f"account:{email.strip().lower()}", f"ip:{ip}"

    def _recent(self, key: str, now: datetime) -> deque[datetime]:
        times = self._failures[key]
        while times and times[0] <= now - self.window:
            times.popleft()
        return times

    def blocked(self, email: str, ip: str, now: datetime) -> datetime | None:
        """When the next try is allowed, if it is not allowed now."""
        with self._lock:
            for key in self._keys(email, ip):
                times = self._recent(key, now)
                if len(times) >= self.max_failures:
                    return times[0] + self.window
        return None

    def fail(self, email: str, ip: str, now: datetime) -> None:
        with self._lock:
            for key in self._keys(email, ip):
                self._recent(key, now).append(now)
            if len(self._failures) > MAX_TRACKED:
                # Someone is trying many addresses: forget whatever has aged out, so the table
                # stays as small as the attack is fast.
                for key in list(self._failures):
                    if not self._recent(key, now):
                        del self._failures[key]

    def succeed(self, email: str) -> None:
        with self._lock:
            self._failures.pop(self._keys(email, "")[0], None)
