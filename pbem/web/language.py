"""Which language a page is in, and the switcher that lets a visitor choose.

A page reached through a player's link is in that player's language (a view calls
:func:`read_as`), and every page a signed-in player opens is in their account's
(:func:`pbem.web.signin.read_as_account`), whatever the cookie or the browser says. Otherwise the
visitor's choice from the switcher (a cookie), else the browser's ``Accept-Language``, else
``PBEM_DEFAULT_LANGUAGE``.

The switcher's links (``GET /language/<code>``) only set that cookie: a GET stores nothing. A
signed-in player's pages offer buttons instead, whose POST changes the account's language
(:func:`pbem.web.players.account_language`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import Blueprint, Flask, current_app, g, redirect, request
from flask_babel import Babel, get_locale
from werkzeug.wrappers import Response

from pbem.i18n import LANGUAGE_COOKIE, LANGUAGES, TRANSLATIONS, Reader, supported
from pbem.web.redirects import safe_next

bp = Blueprint("language", __name__)

ONE_YEAR = 365 * 24 * 3600


def read_as(reader: Reader) -> None:
    """This request's page is for ``reader`` (a player whose link was followed)."""
    g.pbem_reader = reader


def current_reader() -> Reader:
    """Who this request's page is for."""
    reader = g.get("pbem_reader")
    if isinstance(reader, Reader):
        return reader
    # Chosen once a request: a page asks for every move it names (an analysis line: hundreds),
    # and the choice reads the cookie and the Accept-Language header.
    chosen = g.get("pbem_chosen_reader")
    if not isinstance(chosen, Reader):
        chosen = g.pbem_chosen_reader = Reader(choose_language())
    return chosen


def choose_language() -> str:
    reader = g.get("pbem_reader")
    if isinstance(reader, Reader):
        return reader.language
    default = current_app.config.get("DEFAULT_LANGUAGE", "en")
    chosen = request.cookies.get(LANGUAGE_COOKIE)
    if chosen and supported(chosen, ""):
        return supported(chosen)
    best = request.accept_languages.best_match(list(LANGUAGES))
    return supported(best, default)


def _choose_time_zone() -> str:
    reader = g.get("pbem_reader")
    return reader.time_zone if isinstance(reader, Reader) else "UTC"


def local_time(moment: datetime | None, time_zone: str | None = None) -> str:
    """The page's moment filter: in the page's language and ``time_zone`` (the reader's)."""
    reader = current_reader()
    return Reader(reader.language, time_zone or reader.time_zone).when(moment)


@bp.get("/language/<code>")
def choose(code: str) -> Response:
    """Remember the visitor's language and go back where they were (same site only). For a
    signed-in player the account's language still wins; the cookie counts once they sign out."""
    response = redirect(safe_next(request.args.get("next")) or "/")  # never another site
    if code in LANGUAGES:
        remember_language(response, code)
    return response


def remember_language(response: Response, code: str) -> None:
    """The switcher's cookie, for a year."""
    response.set_cookie(LANGUAGE_COOKIE, code, max_age=ONE_YEAR, samesite="Lax",
                        httponly=True, secure=request.is_secure)


def _template_values() -> dict[str, Any]:
    return {"LANGUAGES": LANGUAGES, "page_language": str(get_locale() or "en"),
            "reader": current_reader()}


def init_app(app: Flask) -> None:
    Babel(app, locale_selector=choose_language, timezone_selector=_choose_time_zone,
          default_translation_directories=str(TRANSLATIONS))
    app.jinja_env.filters["local_time"] = local_time
    app.jinja_env.filters["local_date"] = lambda day: current_reader().day(day)
    app.context_processor(_template_values)
    app.register_blueprint(bp)
