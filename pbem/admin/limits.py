"""Slowing down people who guess organisers' passwords: Flask-Limiter, shared by every process.

Each login POST counts against its account and its client address *before* the password is
checked, in one atomic increment of a shared counter (Redis ``INCR``, or a database upsert), so
however many requests arrive at once and whichever worker takes them, at most ``LOGIN_LIMIT``
passwords per account and per address are ever checked in a window. A successful login clears its
account's count and takes its own hit back from the address's count: only failures count against
an address (an office behind one address may log in all day), and one person still may not spray
many accounts.

A login from a browser that signed in to that account before (a valid device cookie,
pbem.admin.devices) counts against that account *and device* instead of the account and the
address: a stranger's wrong passwords, from anywhere, never lock the organiser's own browser
out, while a guesser without the cookie meets the account's limit as before.

The two-factor code step (pbem.admin.second_step) is limited the same way, with counters of its
own: per account (or account and device) and per address, failures only.

Storage: Redis at ``PBEM_REDIS_URL`` when set, and pbem's database while Redis does not answer;
otherwise pbem's database (both in ``pbem.ratelimit``); process memory only for ``TESTING`` apps
(the test client is one process). Flask-Limiter's own ``in_memory_fallback`` would count in each
worker's memory (several times the limit across gunicorn's workers) and only its fallback
limits, and ``swallow_errors`` would stop limiting: neither is used.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, render_template, request
from flask_babel import ngettext
from flask_limiter import Limiter, RequestLimit
from flask_login import current_user

from pbem.admin.account import account_page
from pbem.admin.account_forms import CodeForm, LoginForm, PasswordForm, TwoFactorOffForm
from pbem.admin.devices import Device, recognised
from pbem.admin.pending_code import code_page, pending_user_id
from pbem.db import Database
from pbem.ratelimit import (
    take_back,  # its import registers pbem-db:// and pbem-redis:// with limits
)

LOGIN_LIMIT = "5 per 15 minutes"
ACCOUNT_SCOPE = "admin-login-account"
DEVICE_SCOPE = "admin-login-device"
ADDRESS_SCOPE = "admin-login-address"
CODE_ACCOUNT_SCOPE = "admin-code-account"
CODE_DEVICE_SCOPE = "admin-code-device"
CODE_ADDRESS_SCOPE = "admin-code-address"
CLEARED_BY_SUCCESS = (ACCOUNT_SCOPE, DEVICE_SCOPE, CODE_ACCOUNT_SCOPE, CODE_DEVICE_SCOPE)
TAKEN_BACK_BY_SUCCESS = (ADDRESS_SCOPE, CODE_ADDRESS_SCOPE)
LOGIN_ENDPOINT = "admin_auth.login"
CODE_ENDPOINT = "admin_second_step.login_code"
PASSWORD_ENDPOINT = "admin_account.new_password"
TWO_FACTOR_OFF_ENDPOINT = "admin_account.two_factor_off"


def client_address() -> str:
    """The client's address as the WSGI server (or ProxyFix, for trusted proxies only) saw it:
    never a header the client wrote itself."""
    return f"ip:{request.remote_addr or 'unknown'}"


def account_key() -> str:
    """The account a login names, hashed: keys stay short whatever is typed."""
    email = request.form.get("email", "").strip().lower()
    return "account:" + hashlib.sha256(email.encode()).hexdigest()[:32]


def login_device() -> Device | None:
    """This login POST's browser, if it signed in to the account it names before."""
    if request.method != "POST":
        return None
    return recognised(email=request.form.get("email", ""))


def device_key() -> str:
    device = login_device()
    return f"device:{device.account}:{device.device}" if device else "device:none"


def code_account() -> int | None:
    """The account this session owes a code for (pbem.admin.second_step)."""
    return pending_user_id()


def code_device() -> Device | None:
    account = code_account()
    if request.method != "POST" or account is None:
        return None
    return recognised(user_id=account)


def code_account_key() -> str:
    return f"code-account:{code_account()}"


def code_device_key() -> str:
    device = code_device()
    return f"code-device:{device.account}:{device.device}" if device else "code-device:none"


def signed_in_account() -> str:
    """The organiser typing their password on the account page (a new password, switching
    two-factor sign-in off): a copied session cookie may not guess it any faster than the login
    form allows."""
    return f"admin:{getattr(current_user, 'id', None) or 'anonymous'}"


def storage_settings(app: Flask, database: Database) -> tuple[str, dict[str, Any]]:
    """(storage URI, its options) for this app's limiter; ``RATELIMIT_STORAGE_URI`` (and
    ``RATELIMIT_STORAGE_OPTIONS``) in the app's settings choose another."""
    if app.config.get("RATELIMIT_STORAGE_URI"):
        return app.config["RATELIMIT_STORAGE_URI"], app.config.get(
            "RATELIMIT_STORAGE_OPTIONS", {})
    if app.config.get("REDIS_URL"):
        # Redis, and the database while Redis does not answer: never a 500 at the login.
        return "pbem-redis://", {"redis_url": app.config["REDIS_URL"], "database": database}
    if app.config.get("TESTING"):
        return "memory://", {}
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


def _too_many_codes(limit: RequestLimit) -> Response:
    """The code page again, saying how long to wait."""
    minutes = max(1, math.ceil((limit.reset_at - time.time()) / 60))
    error = ngettext("Too many wrong codes. Please wait %(num)d minute and try again.",
                     "Too many wrong codes. Please wait %(num)d minutes and try again.",
                     minutes)
    return Response(*code_page(CodeForm(formdata=None), error, 429))


def _wait(limit: RequestLimit) -> str:
    minutes = max(1, math.ceil((limit.reset_at - time.time()) / 60))
    return str(ngettext("Too many tries. Please wait %(num)d minute and try again.",
                        "Too many tries. Please wait %(num)d minutes and try again.", minutes))


def _too_many_passwords(limit: RequestLimit) -> Response:
    """The account page again, saying how long to wait."""
    form = PasswordForm()
    form.current.errors = [_wait(limit)]
    return Response(*account_page(password_form=form, status=429))


def _too_many_for_off(limit: RequestLimit) -> Response:
    form = TwoFactorOffForm()
    form.password.errors = [_wait(limit)]
    return Response(*account_page(off_form=form, status=429))


def init_app(app: Flask, database: Database) -> Limiter:
    """A limiter for ``app`` (in ``app.extensions["pbem.limiter"]``) guarding the login, its
    code step and the password views, which must be registered already."""
    uri, options = storage_settings(app, database)
    # One Redis may serve several sites: each counts under its own prefix.
    prefix = app.config.get("RATELIMIT_KEY_PREFIX") or "pbem:" + hashlib.sha256(
        app.config["BASE_URL"].encode()).hexdigest()[:12]
    limiter = Limiter(client_address, app=app, storage_uri=uri, storage_options=options,
                      strategy="fixed-window", key_prefix=prefix, headers_enabled=False)
    app.extensions["pbem.limiter"] = limiter

    def known(device: Callable[[], Device | None]) -> Callable[[], bool]:
        return lambda: device() is not None

    def unknown(device: Callable[[], Device | None]) -> Callable[[], bool]:
        return lambda: device() is None

    def no_code_owed() -> bool:
        return code_account() is None

    guards: dict[str, list[tuple[Callable[[], str], str, Callable[[], bool]]]] = {
        # (key, scope, exempt when): a known browser is counted per device instead.
        LOGIN_ENDPOINT: [(account_key, ACCOUNT_SCOPE, known(login_device)),
                         (device_key, DEVICE_SCOPE, unknown(login_device)),
                         (client_address, ADDRESS_SCOPE, known(login_device))],
        CODE_ENDPOINT: [(code_account_key, CODE_ACCOUNT_SCOPE,
                         lambda: no_code_owed() or code_device() is not None),
                        (code_device_key, CODE_DEVICE_SCOPE, unknown(code_device)),
                        (client_address, CODE_ADDRESS_SCOPE, known(code_device))],
    }
    breach = {LOGIN_ENDPOINT: _too_many, CODE_ENDPOINT: _too_many_codes}
    for endpoint, limits in guards.items():
        view: Any = app.view_functions[endpoint]
        for key, scope, exempt in limits:
            view = limiter.limit(LOGIN_LIMIT, key_func=key, scope=scope, methods=["POST"],
                                 exempt_when=exempt, on_breach=breach[endpoint])(view)
        app.view_functions[endpoint] = view
    # Guessing the password from a copied session cookie: no faster than at the login. Both
    # forms that ask for it share one count.
    for endpoint, on_breach in ((PASSWORD_ENDPOINT, _too_many_passwords),
                                (TWO_FACTOR_OFF_ENDPOINT, _too_many_for_off)):
        guarded: Any = limiter.limit(
            LOGIN_LIMIT, key_func=signed_in_account, scope=ACCOUNT_SCOPE, methods=["POST"],
            on_breach=on_breach)(app.view_functions[endpoint])
        app.view_functions[endpoint] = guarded
    return limiter


def forget_account_failures(app: Flask) -> None:
    """After the right password (or code): this account's (or device's) earlier wrong guesses no
    longer count, and this request's own hit is taken back from its address's count."""
    limiter: Limiter = app.extensions["pbem.limiter"]
    for current in limiter.current_limits:
        scope = current.request_args[-1] if current.request_args else ""
        if scope.endswith(CLEARED_BY_SUCCESS):
            limiter.limiter.clear(current.limit, *current.request_args)
        elif scope.endswith(TAKEN_BACK_BY_SUCCESS):
            take_back(limiter.limiter.storage, current.key)
