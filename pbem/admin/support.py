"""What the dashboard's blueprints share: a login on every request, the acting organiser.

CSRF tokens are checked app-wide by CSRFProtect (:mod:`pbem.web.csrf`) before any view runs.
"""

from __future__ import annotations

from flask import Blueprint
from flask_login import current_user
from werkzeug.wrappers import Response

from engine.text import Text
from pbem.admin.sessions import organiser_required
from pbem.models import AdminUser
from pbem.web.language import current_reader

PAGE_SIZE = 25


def admin_blueprint(name: str) -> Blueprint:
    """A blueprint under /admin whose every view needs a logged-in organiser."""
    bp = Blueprint(name, __name__, url_prefix="/admin")

    @bp.before_request
    @organiser_required  # a signed-in player is no organiser
    def guard() -> None:
        return None

    @bp.after_request
    def private(response: Response) -> Response:
        # Players' addresses and their signed links: never kept by a shared cache or browser.
        response.headers["Cache-Control"] = "no-store"
        return response

    return bp


def current_admin() -> AdminUser:
    user: AdminUser = current_user._get_current_object()
    return user


def actor() -> str:
    """How the audit log names the organiser acting now."""
    return current_admin().email


def says(error: BaseException) -> str:
    """What ``error`` says, in the page's language: a message written as a
    :class:`~engine.text.Text` (or an engine error's ``text``) is translated, others are shown
    as they are."""
    message = getattr(error, "text", None)
    if not isinstance(message, Text):
        message = error.args[0] if error.args else ""
    if isinstance(message, Text):
        return current_reader().text(message)
    return str(error)
