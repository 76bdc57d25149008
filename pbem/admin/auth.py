"""Logging in and out. Every dashboard POST, the login form's included, carries a CSRF token
(CSRFProtect checks it before any view runs)."""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_login import logout_user
from werkzeug.wrappers import Response

from pbem.admin.account_forms import LoginForm
from pbem.admin.accounts import authenticate
from pbem.admin.limits import forget_account_failures
from pbem.admin.second_step import ask_for_code, finish_login, needs_code
from pbem.admin.sessions import current_organiser, end_all_sessions, organiser_required
from pbem.clock.wall import utc_now
from pbem.web.redirects import safe_next
from pbem.web.support import database

bp = Blueprint("admin_auth", __name__, url_prefix="/admin")


def next_page(target: str | None) -> str:
    """Where to go after logging in: a path on this site (the app's one rule for every ``next``,
    :func:`pbem.web.redirects.safe_next`), else the games list."""
    return safe_next(target) or url_for("admin.games_list")


def _page(form: LoginForm, error: str, next_url: str, status: int) -> tuple[str, int]:
    return render_template("admin/login.html", form=form, error=error, next_url=next_url), status


@bp.route("/login", methods=["GET", "POST"])
def login() -> Response | tuple[str, int]:
    if current_organiser() is not None:  # a signed-in player logs in like anyone else
        return redirect(url_for("admin.games_list"))
    form = LoginForm()
    # The limiter (pbem.admin.limits) has counted this POST before the view runs.
    next_url = next_page(form.next.data if request.method == "POST" else request.args.get("next"))
    if request.method != "POST" or not form.validate():
        return _page(form, "", next_url, 200 if request.method != "POST" else 400)
    with database().write() as db_session:
        user = authenticate(db_session, utc_now(), form.email.data or "", form.password.data or "")
    if user is None:
        form.password.data = ""
        return _page(form, _("That email address and password do not match."), next_url, 401)
    forget_account_failures(current_app)
    if needs_code(user):  # two-factor sign-in: the code first (pbem.admin.second_step)
        return ask_for_code(user, next_url)
    return finish_login(user, next_url)


@bp.post("/logout")
@organiser_required
def logout() -> Response:
    # Logging out ends the account's every session: a copy of this cookie must not live on.
    organiser = current_organiser()
    assert organiser is not None and organiser.id is not None
    end_all_sessions(database(), organiser.id)
    logout_user()
    session.clear()
    return redirect(url_for("admin_auth.login"))
