"""pbem: a play-by-email server for correspondence board games.

``create_app`` is the application factory (Flask's tutorial and microblog pattern)::

    app = create_app({"DATABASE_URL": "sqlite:///instance/test.db"})

Its functions import the web app when they run, not at the top: every module of pbem imports
this package first, a computer player's search worker among them (see pbem.entry). Measured:
``import pbem`` takes 0.01 s of CPU and 11 MB; with what ``create_app`` imports, 1.5 s and 100 MB.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported in create_app (see the module's doc)
    from flask import Flask


def N_(message: str) -> str:
    """Marks a message for translation where it is shown (engine.text.N_, without importing
    the engine: ``import pbem.models`` must not need it)."""
    return message


def create_app(overrides: Mapping[str, Any] | None = None, *, read_env: bool = True) -> Flask:
    """The web app; ``overrides`` replace settings read from the environment (tests use them)."""
    # Imported here, not at the top: see the module's doc.
    from flask import Flask

    from pbem.config import check_config, load_config
    from pbem.db import Database
    from pbem.features import connect
    from pbem.resources import shipped
    from pbem.services.common import site_from_config
    from pbem.templating import COMPILED_PAGES, TEMPLATES

    config = load_config(None if read_env else {}, read_dotenv=read_env)
    config.update(overrides or {})
    check_config(config)

    connect()  # ratings, tournaments and rematches react to games that end
    # static/ holds the one script (board.js), served from our own origin: CSP script-src 'self'.
    app = Flask(__name__, template_folder=str(TEMPLATES), static_folder=str(shipped("static")),
                static_url_path="/static")
    app.jinja_options = {**app.jinja_options, "bytecode_cache": COMPILED_PAGES}
    # Before any blueprint adds a rule: an id no table can hold is no page (404), not a query
    # that fails (SQLite cannot bind it, PostgreSQL's integer column refuses it: 500).
    from pbem.web.converters import RowId

    app.url_map.converters["int"] = RowId
    app.config.update(config)
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    database = config.get("DATABASE") or Database.from_config(config)
    app.extensions["pbem.database"] = database
    if config.get("TASKS"):  # a move that leaves a computer to move queues its search
        from pbem.tasks.queueing import queue_with_writes

        queue_with_writes(database)
    # Seat links carry the seat holder's id, so replacing a player kills their old links.
    app.extensions["pbem.site"] = site_from_config(database, config)
    proxies = int(config.get("TRUSTED_PROXIES") or 0)
    if proxies:
        # Behind nginx (deploy/): the client's address, for the login rate limit, and the scheme
        # come from the X-Forwarded headers of this many trusted proxies. Never without a proxy:
        # anyone could then pick their own address.
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)  # type: ignore[method-assign]

    import pbem.admin.app
    from pbem import monitoring
    from pbem.web import (
        analysis,
        archive,
        calendar,
        catalogue,
        challenges,
        channels,
        chat,
        computer,
        conditional,
        csrf,
        dev,
        games,
        invites,
        language,
        notifications,
        play,
        players,
        profiles,
        ratings,
        replaced,
        replay,
        rules,
        security,
        seeks,
        signin,
        signup,
        tournaments,
        turns,
    )

    language.init_app(app)
    security.init_app(app)
    csrf.init_app(app)
    pbem.admin.app.init_app(app, database)
    replaced.init_app(app, database)
    monitoring.init_app(app, database)
    rules.init_app(app)
    for blueprint in (games.bp, play.bp, turns.bp, invites.bp, players.bp, computer.bp,
                      ratings.bp, signin.bp, signup.bp, archive.bp, replay.bp, profiles.bp,
                      tournaments.bp, challenges.bp, seeks.bp, catalogue.bp, channels.bp,
                      calendar.bp, analysis.bp, conditional.bp, chat.bp,
                      notifications.bp):
        app.register_blueprint(blueprint)
    if config["ENV"] == "development":
        app.register_blueprint(dev.bp)  # /dev/mail shows every caught message: never in production
    for code in ERROR_PAGES:
        app.register_error_handler(code, error_page)
    from pbem.logs import mask_link_tokens

    # Once every rule is there: the tokens of its link routes are masked in every log line.
    mask_link_tokens(app.url_map)
    return app


# Flask's own error pages have no layout, no language and no viewport (tiny on phones, and
# flagged by accessibility checkers): these read like the rest of the site.
# The words are marked with N_ here and translated when a page shows them (in the visitor's
# language: an error page has no player).
ERROR_PAGES = {
    404: (N_("Page not found"), N_("There is no page at this address. Perhaps the link was cut "
                                   "in two by a mail program, or the page has moved.")),
    405: (N_("Not allowed"), N_("This page cannot be used that way (a form sent to a page that "
                                "only shows, or the other way round). Nothing was changed.")),
    500: (N_("Something went wrong"), N_("The server failed to answer this request. Nothing was "
                                         "changed; please try again in a moment.")),
}


def error_page(error: Exception) -> Any:
    from flask import make_response, render_template
    from flask_babel import gettext
    from werkzeug.exceptions import HTTPException, MethodNotAllowed

    code = error.code if isinstance(error, HTTPException) and error.code else 500
    title, text = ERROR_PAGES.get(code, ERROR_PAGES[500])
    response = make_response(render_template("errors/error.html", code=code,
                                             title=gettext(title), text=gettext(text)), code)
    if isinstance(error, MethodNotAllowed) and error.valid_methods:
        response.headers["Allow"] = ", ".join(error.valid_methods)  # RFC 9110 wants it
    return response
