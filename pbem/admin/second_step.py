"""The end of a login: straight in, or first a code for an organiser with two-factor sign-in.

After the right password (pbem.admin.auth) an organiser without two-factor sign-in gets a fresh
session (:func:`finish_login`); one with it gets the code page instead, and the session only
remembers who is half-way in (:data:`~pbem.admin.pending_code.PENDING`: the account, its
session version, this client, where to go next, and until when: :data:`CODE_TIME`). The code
form posts to
``/admin/login/code`` (CSRF-checked like every form), limited like the password
(pbem.admin.limits). A device cookie (pbem.admin.devices) does not skip the code: it is set by
every complete login and lives for a year, so skipping would turn a stolen cookie plus a
phished password into a way in, and that pair is what the second factor is there to stop. It
only keeps a stranger's wrong codes from locking the organiser out, as it does for passwords.
"""

from __future__ import annotations

import hmac
import time
from dataclasses import dataclass
from datetime import timedelta

from flask import Blueprint, current_app, flash, redirect, session, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from pbem.admin.account_forms import CodeForm
from pbem.admin.devices import remember
from pbem.admin.limits import forget_account_failures
from pbem.admin.pending_code import PENDING, code_page
from pbem.admin.sessions import client_fingerprint, start_session
from pbem.admin.two_factor import check_code, is_on
from pbem.clock.wall import utc_now
from pbem.models import AdminUser
from pbem.web.support import database

bp = Blueprint("admin_second_step", __name__, url_prefix="/admin")
CODE_TIME = timedelta(minutes=5)


@dataclass(frozen=True)
class Pending:
    """An organiser who gave the right password and still owes a code."""

    user_id: int
    next_url: str


def needs_code(user: AdminUser) -> bool:
    assert user.id is not None
    with database().session() as db_session:
        return is_on(db_session, user.id)


def finish_login(user: AdminUser, next_url: str) -> Response:
    """A fresh session for ``user``, this browser remembered (pbem.admin.devices), and on to
    ``next_url`` (a path of this site, checked by the caller)."""
    assert user.id is not None
    start_session(user)
    response = redirect(next_url)
    remember(response, user.id)
    return response


def ask_for_code(user: AdminUser, next_url: str) -> tuple[str, int]:
    """The code page; until the code comes, this session is nobody's (the session it then
    gets is a fresh one: :func:`finish_login`)."""
    session[PENDING] = {"user": user.id, "version": user.session_version,
                        "client": client_fingerprint(), "next": next_url,
                        "until": time.time() + CODE_TIME.total_seconds()}
    return code_page(CodeForm(formdata=None), "", 200)


def _pending() -> tuple[Pending, AdminUser] | None:
    """The half-finished login of this session, if it is still good: in time, from this client,
    and the account not signed out everywhere (or given a new password) meanwhile."""
    pending = session.get(PENDING)
    if not isinstance(pending, dict) or type(pending.get("user")) is not int:
        return None
    if not isinstance(pending.get("until"), int | float) or time.time() > pending["until"]:
        return None
    if not hmac.compare_digest(str(pending.get("client", "")), client_fingerprint()):
        return None
    with database().session() as db_session:
        user = db_session.get(AdminUser, pending["user"])
    if user is None or not user.active or user.session_version != pending.get("version"):
        return None
    return Pending(pending["user"], str(pending.get("next") or url_for("admin.games_list"))), user


@bp.post("/login/code")
def login_code() -> Response | tuple[str, int]:
    # The limiter (pbem.admin.limits) has counted this POST before the view runs.
    found = _pending()
    if found is None:
        session.pop(PENDING, None)
        flash(_("The time to enter the code is over. Please log in again."))
        return redirect(url_for("admin_auth.login"), 303)
    pending, user = found
    form = CodeForm()
    with database().write() as db_session:
        right = check_code(db_session, pending.user_id, form.code.data or "", utc_now())
    if not right:
        form.code.data = ""
        return code_page(form, _("That code is not right, or it was used already."), 401)
    forget_account_failures(current_app)
    return finish_login(user, pending.next_url)
