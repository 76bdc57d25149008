"""A CSRF token per browser session: forms carry it, POST handlers check it.

Move links already carry a signed token, but that token sits in an email a scanner may have read;
the CSRF token proves the POST came from a page this browser opened.
"""

from __future__ import annotations

import hmac
import secrets

from flask import Flask, abort, request, session


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return str(session["csrf"])


def check_csrf() -> None:
    sent = request.form.get("csrf_token", "")
    expected = session.get("csrf", "")
    if not expected or not hmac.compare_digest(str(sent), str(expected)):
        abort(400, description="This form has expired or did not come from this site. "
                               "Please go back, reload the page and try again.")


def init_app(app: Flask) -> None:
    app.jinja_env.globals["csrf_token"] = csrf_token
