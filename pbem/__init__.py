"""pbem: a play-by-email server for correspondence board games.

``create_app`` is the application factory (Flask's tutorial and microblog pattern)::

    app = create_app({"DATABASE_URL": "sqlite:///instance/test.db"})
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask


def create_app(overrides: Mapping[str, Any] | None = None, *, read_env: bool = True) -> Flask:
    """The web app; ``overrides`` replace settings read from the environment (tests use them)."""
    # Imported here so that `import pbem.models` (Alembic, the CLI's db commands) needs no engine.
    from pbem.config import check_config, load_config
    from pbem.db import Database
    from pbem.services.common import site_from_config
    from pbem.templating import TEMPLATES, local_time

    config = load_config(None if read_env else {}, read_dotenv=read_env)
    config.update(overrides or {})
    check_config(config)

    app = Flask(__name__, template_folder=str(TEMPLATES), static_folder=None)
    app.config.update(config)
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    database = config.get("DATABASE") or Database(
        config["DATABASE_URL"], search_path=config.get("DATABASE_SEARCH_PATH"))
    app.extensions["pbem.database"] = database
    # Seat links carry the seat holder's id, so replacing a player kills their old links.
    app.extensions["pbem.site"] = site_from_config(database, config)
    app.jinja_env.filters["local_time"] = local_time
    proxies = int(config.get("TRUSTED_PROXIES") or 0)
    if proxies:
        # Behind nginx (deploy/): the client's address, for the login rate limit, and the scheme
        # come from the X-Forwarded headers of this many trusted proxies. Never without a proxy:
        # anyone could then pick their own address.
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)  # type: ignore[method-assign]

    from pbem import admin, monitoring
    from pbem.web import csrf, dev, games, invites, play, players, replaced, security

    security.init_app(app)
    csrf.init_app(app)
    admin.init_app(app, database)
    replaced.init_app(app, database)
    monitoring.init_app(app, database)
    for blueprint in (games.bp, play.bp, invites.bp, players.bp):
        app.register_blueprint(blueprint)
    if config["ENV"] == "development":
        app.register_blueprint(dev.bp)  # /dev/mail shows every caught message: never in production

    return app
