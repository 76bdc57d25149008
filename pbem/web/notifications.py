"""A player's mail settings (pbem.notifications) on their pages: the account page's
"Email from pbem" section, which POSTs to ``/account/notifications``, and the mute switch on a
player's own page of a game (``/seat/<token>``), which POSTs to ``/seat/<token>/mute``.

The seat page's link is the authority for muting, as it is for seeing the seat's hidden
information: whoever holds the seat's link may mute that game for the seat's holder (a
replaced holder's link is refused, pbem.web.replaced).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlmodel import select
from werkzeug.wrappers import Response

from pbem.clock.wall import utc_now
from pbem.errors import ServiceError
from pbem.links import DamagedLink
from pbem.models import Seat
from pbem.notifications.policy import is_muted
from pbem.notifications.service import checked_hour, checked_mode, choose, mute
from pbem.notifications.tables import Mode
from pbem.web.csrf import check_csrf
from pbem.web.player_sessions import current_player
from pbem.web.support import (
    damaged_link,
    database,
    load_token,
    message_page,
    shown_reason,
)

bp = Blueprint("notifications", __name__)

# The choices of the account page, in its order.
MODE_WORDS = {
    Mode.ALL: _l("Every event: your turns, the other players' moves, game ends and the rest"),
    Mode.TURNS: _l("Only when it is my turn, and when a game ends"),
    Mode.DIGEST: _l("One email a day listing every game that waits for me, at"),
    Mode.OFF: _l("Off: I follow my games on this site"),
}


@bp.app_context_processor
def mail_settings() -> dict[str, Any]:
    """What the account section and the seat page show: the choices (the player's own is read
    with the account page's, pbem.web.players), whether a seat's game is muted."""
    return {"notification_modes": MODE_WORDS, "game_muted": _muted}


def _seat_of(token: str) -> Seat | None:
    try:
        fields = load_token("seat-view", token)
    except DamagedLink:
        return None
    with database().session() as session:
        return session.exec(select(Seat).where(Seat.game_id == fields.get("game"),
                                               Seat.seat == fields.get("seat"))).first()


def _muted(token: str) -> bool:
    seat = _seat_of(token)
    if seat is None:
        return False
    with database().session() as session:
        return is_muted(session, seat.player_id, seat.game_id)


@bp.post("/account/notifications")
def choose_notifications() -> Response | tuple[str, int]:
    check_csrf()
    player = current_player()
    if player is None:
        return redirect(url_for("signin.sign_in_page"), 303)
    try:
        mode = checked_mode(request.form.get("mode", ""))
        hour = checked_hour(request.form.get("digest_hour", "")) if mode == Mode.DIGEST \
            or request.form.get("digest_hour") else None
        with database().write() as session:
            choose(session, utc_now(), player_id=player.id, mode=mode, digest_hour=hour)
    except ServiceError as error:
        return message_page(_("Nothing was saved"), _(
            "%(problem)s. Nothing was saved; go back, correct it and save again.",
            problem=shown_reason(error)), 400, game_url=url_for("signin.account"))
    return redirect(url_for("signin.account", saved=1, _anchor="notifications"), 303)


@bp.post("/seat/<token>/mute")
def mute_seat(token: str) -> Response | tuple[str, int]:
    """Mute or unmute (``muted``: "1" or "0") the game of a player's own page."""
    check_csrf()
    seat = _seat_of(token)
    if seat is None:
        return damaged_link()
    with database().write() as session:
        mute(session, utc_now(), player_id=seat.player_id, game_id=seat.game_id,
             muted=request.form.get("muted") == "1")
    return redirect(url_for("games.seat_page", token=token), 303)
