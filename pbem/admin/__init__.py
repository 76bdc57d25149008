"""The organisers' dashboard: accounts, games, players, mail and audit logs.

``init_app`` wires it into the app made by :func:`pbem.create_app`: Flask-Login, the dashboard
blueprints under ``/admin``, the login rate limits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask

    from pbem.db import Database


def init_app(app: Flask, database: Database) -> None:
    from flask import redirect, request, url_for
    from flask_login import LoginManager
    from werkzeug.wrappers import Response

    from pbem.admin import (
        account,
        audit_views,
        auth,
        dashboard,
        game_actions,
        game_detail,
        limits,
    )
    from pbem.admin.sessions import load_admin
    from pbem.admin.words import word
    from pbem.models import AdminUser

    production = app.config["ENV"] == "production"
    https = app.config["BASE_URL"].startswith("https://")
    app.config.update(
        SESSION_COOKIE_SECURE=production or https,
        REMEMBER_COOKIE_SECURE=production or https,
        REMEMBER_COOKIE_HTTPONLY=True,
        REMEMBER_COOKIE_SAMESITE="Lax",
    )
    login_manager = LoginManager()
    # Off: it fingerprints clients with X-Forwarded-For, which anyone can write. Sessions are
    # bound to their client and revocable in pbem.admin.sessions instead.
    login_manager.session_protection = None
    login_manager.init_app(app)

    @login_manager.user_loader
    def load_user(user_id: str) -> AdminUser | None:
        return load_admin(database, user_id)

    @login_manager.unauthorized_handler
    def to_login() -> Response:
        return redirect(url_for("admin_auth.login", next=request.full_path.rstrip("?")))

    app.add_template_global(word, "admin_word")
    for blueprint in (auth.bp, dashboard.bp, game_detail.bp, game_actions.bp, audit_views.bp,
                      account.bp):
        app.register_blueprint(blueprint)
    limits.init_app(app, database)
