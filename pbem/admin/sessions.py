"""Organisers' sessions: which cookie still opens the dashboard, and how to end them all.

The session cookie is signed, not stored, so a copy of it would work for as long as the
organiser's account does. Two checks on every request close that:

- Flask-Login's user id in the session is ``"admin:<id>:<session_version>"``
  (``AdminUser.get_id``; a signed-in player's is ``"player:..."``, pbem.web.signin).
  Logging out, a new password and "sign out everywhere" add one to the version in the database,
  so every session made before, and every copy of its cookie, stops loading.
- The session remembers the client it was made for (its address, as the WSGI server or a trusted
  proxy saw it, and its browser); a cookie replayed from elsewhere is not logged in. Flask-Login's
  own "strong" protection is off because it takes the address from ``X-Forwarded-For``, which
  any client can write.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import current_app, request, session
from flask_login import current_user, login_user
from flask_login.config import EXEMPT_METHODS
from sqlalchemy import update

from pbem.db import Database
from pbem.models import AdminUser

CLIENT_KEY = "_pbem_client"


def client_fingerprint() -> str:
    """This client: ``request.remote_addr`` (right behind ``TRUSTED_PROXIES`` proxies, thanks
    to ProxyFix; never a header otherwise) and its User-Agent."""
    seen = f"{request.remote_addr or ''}|{request.headers.get('User-Agent', '')}"
    return hashlib.sha256(seen.encode()).hexdigest()


def current_organiser() -> AdminUser | None:
    """The organiser signed in to this session; None for nobody and for a signed-in player
    (Flask-Login's one ``current_user`` is either: a player must never pass for an organiser)."""
    user = current_user._get_current_object()
    return user if isinstance(user, AdminUser) else None


def organiser_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Flask-Login's ``login_required``, for organisers only: anyone else (a signed-in player
    too) is sent to the dashboard's login."""
    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if request.method in EXEMPT_METHODS or current_app.config.get("LOGIN_DISABLED"):
            return view(*args, **kwargs)
        if current_organiser() is None:
            return current_app.login_manager.unauthorized()  # type: ignore[attr-defined]
        return view(*args, **kwargs)
    return guarded


def load_admin(database: Database, user_id: str) -> AdminUser | None:
    """The organiser whose session this is, if the session is still theirs; ``user_id`` is what
    follows ``admin:`` in the session."""
    number, _, version = user_id.partition(":")
    if not number.isdigit() or not version.isdigit():
        return None  # a session from before versions: log in again
    if not hmac.compare_digest(str(session.get(CLIENT_KEY, "")), client_fingerprint()):
        return None
    with database.session() as db_session:
        user = db_session.get(AdminUser, int(number))
    if user is None or not user.active or user.session_version != int(version):
        return None
    return user


def start_session(user: AdminUser) -> None:
    """A fresh session for ``user``: nothing chosen before it carries over, and a new CSRF
    token."""
    session.clear()
    login_user(user)
    session[CLIENT_KEY] = client_fingerprint()


def end_all_sessions(database: Database, user_id: int) -> AdminUser:
    """Every session of this organiser, everywhere, stops working; returns the account as it
    is now (to start a new session with, if wanted)."""
    table = AdminUser.__table__  # type: ignore[attr-defined]
    with database.write() as db_session:
        # Counted up in SQL, not read and written back: two at once both count.
        db_session.execute(update(table).where(table.c.id == user_id)
                           .values(session_version=table.c.session_version + 1))
        user = db_session.get(AdminUser, user_id)
        assert user is not None
    return user
