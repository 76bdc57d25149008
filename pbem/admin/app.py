"""The dashboard wired into the app made by :func:`pbem.create_app`: Flask-Login (for
organisers and for players signed in by email alike), the dashboard blueprints under ``/admin``,
the login rate limits (and its two-factor step).
"""

from __future__ import annotations

from flask import Flask, redirect, request, url_for
from flask_login import LoginManager
from werkzeug.wrappers import Response

from pbem.admin import (
    account,
    audit_views,
    auth,
    challenges,
    chat,
    dashboard,
    game_actions,
    game_detail,
    limits,
    second_step,
    tournaments,
)
from pbem.admin.sessions import current_organiser, load_admin
from pbem.admin.words import word
from pbem.db import Database
from pbem.models import AdminUser
from pbem.web.player_sessions import SignedInPlayer, load_player


def init_app(app: Flask, database: Database) -> None:
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
    def load_user(user_id: str) -> AdminUser | SignedInPlayer | None:
        # One loader for both kinds of session: "admin:<id>:<version>" is an organiser (the
        # dashboard's), "player:<id>:<version>" a player signed in by email (pbem.web.signin).
        kind, _, rest = user_id.partition(":")
        if kind == "admin":
            return load_admin(database, rest)
        if kind == "player":
            return load_player(database, rest)
        return None  # a session from before the prefixes: log in again

    @login_manager.unauthorized_handler
    def to_login() -> Response:
        return redirect(url_for("admin_auth.login", next=request.full_path.rstrip("?")))

    app.add_template_global(word, "admin_word")
    app.add_template_global(current_organiser, "current_organiser")
    for blueprint in (auth.bp, second_step.bp, dashboard.bp, game_detail.bp, game_actions.bp,
                      audit_views.bp, account.bp, challenges.bp, tournaments.bp, chat.bp):
        app.register_blueprint(blueprint)
    limits.init_app(app, database)
