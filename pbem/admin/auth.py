"""Logging in and out. Every dashboard POST, the login form's included, carries a CSRF token."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for
from flask_login import current_user, login_required, login_user, logout_user
from werkzeug.wrappers import Response

from pbem.admin.accounts import LoginLimiter, authenticate
from pbem.web.csrf import check_csrf, csrf_token
from pbem.web.support import database, utc_now

bp = Blueprint("admin_auth", __name__, url_prefix="/admin")


def _limiter() -> LoginLimiter:
    limiter: LoginLimiter = current_app.extensions["pbem.login_limiter"]
    return limiter


def _safe_next(target: str | None) -> str:
    """Only a path on this site: never send someone to another site after logging in."""
    if target and target.startswith("/") and not target.startswith("//"):
        parts = urlsplit(target)
        if not parts.scheme and not parts.netloc:
            return target
    return url_for("admin.games_list")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Response | tuple[str, int]:
    if current_user.is_authenticated:
        return redirect(url_for("admin.games_list"))
    next_url = _safe_next(request.values.get("next"))
    if request.method == "GET":
        return render_template("admin/login.html", email="", error="", next_url=next_url), 200
    check_csrf()
    email = request.form.get("email", "").strip()
    password = request.form.get("password", "")
    ip = request.remote_addr or "unknown"
    now = utc_now()
    limiter = _limiter()
    retry_at = limiter.blocked(email, ip, now)
    if retry_at is not None:
        minutes = max(1, round((retry_at - now).total_seconds() / 60))
        error = f"Too many failed logins. Please wait {minutes} minutes and try again."
        return render_template("admin/login.html", email=email, error=error,
                               next_url=next_url), 429
    with database().write() as db_session:
        user = authenticate(db_session, now, email, password)
    if user is None:
        limiter.fail(email, ip, now)
        return render_template("admin/login.html", email=email, next_url=next_url,
                               error="That email address and password do not match."), 401
    limiter.succeed(email)
    session.clear()  # a fresh session on login: nothing chosen before it carries over
    login_user(user)
    csrf_token()
    return redirect(next_url)


@bp.post("/logout")
@login_required
def logout() -> Response:
    check_csrf()
    logout_user()
    session.clear()
    return redirect(url_for("admin_auth.login"))
