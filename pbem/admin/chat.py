"""A game's conversation on the dashboard (pbem.chat): every message, the hidden ones marked,
a button that hides one from the players (audit-logged), and a form to write to the players as
the organiser. Only POSTs act, with this session's CSRF token (CSRFProtect checks it)."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from pbem.admin.game_detail import load_game
from pbem.admin.support import actor, admin_blueprint, says
from pbem.chat.service import ChatRefused, NoSuchMessage, hide_message, post_as_organiser
from pbem.clock.wall import utc_now
from pbem.web.support import database, site

bp = admin_blueprint("admin_chat")


def _back(game_id: int) -> Response:
    return redirect(url_for("admin_game.game_detail", game_id=game_id, _anchor="conversation"),
                    303)


@bp.post("/games/<int:game_id>/chat/write")
def write(game_id: int) -> Response:
    load_game(game_id)
    try:
        with database().write() as session:
            post_as_organiser(session, utc_now(), site(), game_id=game_id, organiser=actor(),
                              text=request.form.get("message", ""))
    except ChatRefused as refusal:
        flash(_("The message was not sent: %(reason)s.", reason=says(refusal)))
    else:
        flash(_("The message was sent to the players."))
    return _back(game_id)


@bp.post("/games/<int:game_id>/chat/hide")
def hide(game_id: int) -> Response:
    load_game(game_id)
    try:
        with database().write() as session:
            hide_message(session, utc_now(), game_id=game_id, organiser=actor(),
                         message_id=request.form.get("message_id", type=int) or 0)
    except NoSuchMessage as missing:
        flash(says(missing))
    else:
        flash(_("The message is hidden from the players."))
    return _back(game_id)
