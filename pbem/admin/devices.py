"""Browsers an organiser signed in with before: a long-lived signed cookie that names them.

The login is limited per account (pbem.admin.limits), so a stranger's five wrong passwords
would keep the organiser out too. The cookie lets the organiser's own browser through: a login
that carries a valid device cookie for the account it names is counted per account *and device*
instead of per account (and not per client address), so nobody else's guessing uses up its
allowance, while a guesser without the cookie is limited as before.

The cookie (``pbem_organiser_device``, path ``/admin``, HttpOnly, SameSite=Lax, Secure where the
session cookie is) is set after every complete login, for a year. It holds the account's id, a
random device id and the account's ``devices_version`` (:class:`OrganiserSecurity`), signed
with the app's secret key (itsdangerous, its own salt, timed), so it cannot be forged or moved
to another account. A new password and "sign out everywhere" add one to ``devices_version``:
every browser remembered before is a stranger again. Logging out keeps it (it ends sessions,
not the browser's standing). The cookie is no password: it never signs anyone in, and a login
that needs a two-factor code still asks for one (pbem.admin.second_step).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from flask import current_app, g, request
from itsdangerous import BadData, URLSafeTimedSerializer
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session
from werkzeug.wrappers import Response

from pbem.db import conflict_insert
from pbem.models import AdminUser
from pbem.models.organisers import OrganiserSecurity
from pbem.web.support import database

COOKIE = "pbem_organiser_device"
LIFETIME = timedelta(days=365)
_SALT = "pbem-organiser-device"


@dataclass(frozen=True)
class Device:
    """A browser recognised for an organiser: ``account`` is their id, ``device`` the random id
    its cookie carries."""

    account: int
    device: str


def devices_version(session: Session, user_id: int) -> int:
    row = session.get(OrganiserSecurity, user_id)
    return row.devices_version if row is not None else 0


def forget_devices(session: Session, user_id: int) -> None:
    """Every browser remembered for this organiser is a stranger again (in ``session``'s
    transaction). Counted up in SQL: two at once both count."""
    table = OrganiserSecurity.__table__  # type: ignore[attr-defined]
    session.execute(conflict_insert(session, table)
                    .values(admin_user_id=user_id, devices_version=1)
                    .on_conflict_do_update(index_elements=[table.c.admin_user_id],
                                           set_={"devices_version":
                                                 table.c.devices_version + 1}))
    # Only this row is read again: expiring everything would drop other objects' unsaved changes.
    loaded = session.identity_map.get(identity_key(OrganiserSecurity, user_id))
    if loaded is not None:
        session.expire(loaded, ["devices_version"])


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.secret_key or "", salt=_SALT)


def _cookie() -> dict[str, Any] | None:
    """This request's device cookie, if we signed it and it is not too old."""
    raw = request.cookies.get(COOKIE)
    if not raw:
        return None
    try:
        data = _serializer().loads(raw, max_age=int(LIFETIME.total_seconds()))
    except BadData:
        return None
    valid = (isinstance(data, dict) and type(data.get("a")) is int
             and type(data.get("v")) is int and isinstance(data.get("d"), str) and data["d"])
    return data if valid else None


def recognised(*, email: str | None = None, user_id: int | None = None) -> Device | None:
    """This browser, if its device cookie is valid now for the active organiser with this
    address (as typed in a login) or id. Looked up once per request."""
    cache: dict[tuple[str | None, int | None], Device | None] = g.setdefault(
        "pbem_devices", {})
    if (email, user_id) not in cache:
        cache[email, user_id] = _recognised(email, user_id)
    return cache[email, user_id]


def _recognised(email: str | None, user_id: int | None) -> Device | None:
    data = _cookie()
    if data is None or (user_id is not None and data["a"] != user_id):
        return None
    with database().session() as session:
        user = session.get(AdminUser, data["a"])
        if user is None or user.id is None or not user.active:
            return None
        if email is not None and user.email != email.strip().lower():
            return None
        if devices_version(session, user.id) != data["v"]:
            return None
    return Device(user.id, str(data["d"]))


def remember(response: Response, user_id: int) -> None:
    """Set (or renew for another year) this browser's device cookie for the organiser; a browser
    that had one for them keeps its device id."""
    data = _cookie()
    device = str(data["d"]) if data is not None and data["a"] == user_id else (
        secrets.token_urlsafe(16))
    with database().session() as session:
        version = devices_version(session, user_id)
    value = _serializer().dumps({"a": user_id, "d": device, "v": version})
    response.set_cookie(COOKIE, value, max_age=int(LIFETIME.total_seconds()), path="/admin",
                        secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")),
                        httponly=True, samesite="Lax")
