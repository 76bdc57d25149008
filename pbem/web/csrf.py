"""CSRF protection for every form of the site: Flask-WTF's CSRFProtect, app-wide.

Move links already carry a signed token, but that token sits in an email a scanner may have read;
the CSRF token proves the POST came from a page this browser opened. Every POST (PUT, PATCH,
DELETE) needs the ``csrf_token`` field of this session, checked before any view runs; GET, HEAD
and OPTIONS never change anything, so they need none. Forms write the token with the Jinja global
``csrf_token()`` (or a FlaskForm's ``form.csrf_token``).
"""

from __future__ import annotations

from flask import Flask, g, render_template, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf.csrf import CSRFError, CSRFProtect, validate_csrf
from wtforms import ValidationError

REFUSED = _l("This form has expired or did not come from this site. "
             "Please go back, reload the page and try again.")

csrf = CSRFProtect()


def check_csrf() -> None:
    """Refuse this POST (400) unless it carries this session's token.

    CSRFProtect has already checked every POST before its view ran (``g.csrf_valid``); this is
    for views that want to say so where they act, and for a view exempted from the automatic
    check."""
    if g.get("csrf_valid"):
        return
    try:
        validate_csrf(request.form.get("csrf_token", ""))
    except ValidationError:
        raise CSRFError(str(REFUSED)) from None
    g.csrf_valid = True


def _refused(error: CSRFError) -> tuple[str, int]:
    return render_template("message.html", title=_("Form refused"), text=str(REFUSED)), 400


def init_app(app: Flask) -> None:
    # Tokens live as long as the session: a player may leave a confirm page open for a day.
    app.config.setdefault("WTF_CSRF_TIME_LIMIT", None)
    # Flask-WTF's "strict" HTTPS mode wants a same-site Referer, which our Referrer-Policy
    # (no-referrer: links carry secrets) never sends; the token and SameSite=Lax are the check.
    app.config.setdefault("WTF_CSRF_SSL_STRICT", False)
    csrf.init_app(app)
    # A mail client's one-click unsubscribe (RFC 8058) comes without our cookie: the signed link
    # is the authority there, and the worst a forger can do is stop optional updates.
    csrf.exempt("pbem.web.players.unsubscribe")
    app.register_error_handler(CSRFError, _refused)
