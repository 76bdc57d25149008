"""The organisers' dashboard: accounts, games, players, mail and audit logs.

``init_app`` wires it into the app made by :func:`pbem.create_app`: Flask-Login, the dashboard
blueprints under ``/admin``.
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

    from pbem.admin import audit_views, auth, dashboard, game_actions, game_detail
    from pbem.admin.accounts import LoginLimiter
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
    login_manager.session_protection = "strong"
    login_manager.init_app(app)

    @login_manager.user_loader
    def load_user(user_id: str) -> AdminUser | None:
        if not user_id.isdigit():
            return None
        with database.session() as session:
            user = session.get(AdminUser, int(user_id))
        return user if user is not None and user.active else None

    @login_manager.unauthorized_handler
    def to_login() -> Response:
        return redirect(url_for("admin_auth.login", next=request.full_path.rstrip("?")))

    app.extensions["pbem.login_limiter"] = LoginLimiter()
    for blueprint in (auth.bp, dashboard.bp, game_detail.bp, game_actions.bp, audit_views.bp):
        app.register_blueprint(blueprint)
