"""Creating organisers, checking and changing their passwords.

A new password ends every session of the account (``session_version``, see
:mod:`pbem.admin.sessions`) and makes every browser remembered for it a stranger again
(:mod:`pbem.admin.devices`). Guessing is slowed down by :mod:`pbem.admin.limits`.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache

from sqlmodel import Session, select

from pbem.admin.devices import forget_devices
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
    else:
        user.session_version += 1  # whoever had the old password is signed out
        assert user.id is not None
        forget_devices(session, user.id)
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


def change_password(session: Session, user_id: int, current: str,
                    new: str) -> AdminUser | None:
    """Give the organiser ``new`` if ``current`` is their password (None if it is not); every
    session of theirs ends. ``new`` must be strong enough (:func:`check_strength`)."""
    user = session.get(AdminUser, user_id)
    if user is None or not check_password(current, user.password_hash):
        return None
    check_strength(new)
    user.password_hash = hash_password(new)
    user.session_version += 1
    forget_devices(session, user_id)
    session.add(user)
    session.flush()
    return user
