"""Slowing down people who guess organisers' passwords: Flask-Limiter, shared by every process.

Each login POST counts against its account and its client address *before* the password is
checked, in one atomic increment of a shared counter (Redis ``INCR``, or a database upsert), so
however many requests arrive at once and whichever worker takes them, at most ``LOGIN_LIMIT``
passwords per account and per address are ever checked in a window. A successful login clears its
account's count (the address's stays: one person may not spray many accounts).

Storage: Redis at ``PBEM_REDIS_URL`` when set; otherwise pbem's database (``pbem.ratelimit``);
process memory only for ``TESTING`` apps (the test client is one process).
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any

from flask import Flask, Response, render_template, request
from flask_babel import ngettext
from flask_limiter import Limiter, RequestLimit
from flask_login import current_user

from pbem.admin.account_forms import LoginForm, PasswordForm, SignOutEverywhereForm
from pbem.admin.passwords import MIN_PASSWORD_LENGTH
from pbem.db import Database

LOGIN_LIMIT = "5 per 15 minutes"
ACCOUNT_SCOPE = "admin-login-account"
ADDRESS_SCOPE = "admin-login-address"
LOGIN_ENDPOINT = "admin_auth.login"
PASSWORD_ENDPOINT = "admin_account.new_password"


def client_address() -> str:
    """The client's address as the WSGI server (or ProxyFix, for trusted proxies only) saw it:
    never a header the client wrote itself."""
    return f"ip:{request.remote_addr or 'unknown'}"


def account_key() -> str:
    """The account a login names, hashed: keys stay short whatever is typed."""
    email = request.form.get("email", "").strip().lower()
    return "account:" + hashlib.sha256(email.encode()).hexdigest()[:32]


def signed_in_account() -> str:
    """The organiser changing their password: a copied session cookie may not guess the current
    one any faster than the login form allows."""
    return f"admin:{getattr(current_user, 'id', None) or 'anonymous'}"


def storage_settings(app: Flask, database: Database) -> tuple[str, dict[str, Any]]:
    """(storage URI, its options) for this app's limiter; ``RATELIMIT_STORAGE_URI`` (and
    ``RATELIMIT_STORAGE_OPTIONS``) in the app's settings choose another."""
    if app.config.get("RATELIMIT_STORAGE_URI"):
        return app.config["RATELIMIT_STORAGE_URI"], app.config.get(
            "RATELIMIT_STORAGE_OPTIONS", {})
    if app.config.get("REDIS_URL"):
        return app.config["REDIS_URL"], {}
    if app.config.get("TESTING"):
        return "memory://", {}
    import pbem.ratelimit  # noqa: F401  (registers the pbem-db:// storage with limits)

    return "pbem-db://", {"database": database}


def _too_many(limit: RequestLimit) -> Response:
    """The login page again, saying how long to wait."""
    minutes = max(1, math.ceil((limit.reset_at - time.time()) / 60))
    form = LoginForm()
    error = ngettext("Too many failed logins. Please wait %(num)d minute and try again.",
                     "Too many failed logins. Please wait %(num)d minutes and try again.",
                     minutes)
    return Response(render_template("admin/login.html", form=form, error=error,
                                    next_url=request.form.get("next", "")), 429)


def _too_many_passwords(limit: RequestLimit) -> Response:
    """The account page again, saying how long to wait."""
    minutes = max(1, math.ceil((limit.reset_at - time.time()) / 60))
    form = PasswordForm()
    form.current.errors = [ngettext("Too many tries. Please wait %(num)d minute and try again.",
                                    "Too many tries. Please wait %(num)d minutes and try again.",
                                    minutes)]
    return Response(render_template("admin/account.html", form=form,
                                    everywhere=SignOutEverywhereForm(),
                                    min_length=MIN_PASSWORD_LENGTH), 429)


def init_app(app: Flask, database: Database) -> Limiter:
    """A limiter for ``app`` (in ``app.extensions["pbem.limiter"]``) guarding the login and
    password views, which must be registered already."""
    uri, options = storage_settings(app, database)
    # One Redis may serve several sites: each counts under its own prefix.
    prefix = app.config.get("RATELIMIT_KEY_PREFIX") or "pbem:" + hashlib.sha256(
        app.config["BASE_URL"].encode()).hexdigest()[:12]
    limiter = Limiter(client_address, app=app, storage_uri=uri, storage_options=options,
                      strategy="fixed-window", key_prefix=prefix, headers_enabled=False)
    app.extensions["pbem.limiter"] = limiter
    view: Any = app.view_functions[LOGIN_ENDPOINT]
    for key, scope in ((account_key, ACCOUNT_SCOPE), (client_address, ADDRESS_SCOPE)):
        view = limiter.limit(LOGIN_LIMIT, key_func=key, scope=scope, methods=["POST"],
                             on_breach=_too_many)(view)
    app.view_functions[LOGIN_ENDPOINT] = view
    app.view_functions[PASSWORD_ENDPOINT] = limiter.limit(
        LOGIN_LIMIT, key_func=signed_in_account, scope=ACCOUNT_SCOPE, methods=["POST"],
        on_breach=_too_many_passwords)(
        app.view_functions[PASSWORD_ENDPOINT])
    return limiter


def forget_account_failures(app: Flask) -> None:
    """After a successful login: this account's earlier wrong guesses no longer count."""
    limiter: Limiter = app.extensions["pbem.limiter"]
    for current in limiter.current_limits:
        if current.request_args and current.request_args[-1].endswith(ACCOUNT_SCOPE):
            limiter.limiter.clear(current.limit, *current.request_args)
