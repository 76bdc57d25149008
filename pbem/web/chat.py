"""Writing in a game's conversation (pbem.chat) from the seat page and the move page, and muting
its emails. Only a POST with the link's token and this browser's CSRF token acts: the seat link
or the move link names the seat, so only a player of the game writes, as that seat. A refused
message shows the page again with the text kept and the reason."""

from __future__ import annotations

from flask import Blueprint, redirect, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from pbem.chat.service import ChatRefused, post_message, set_muted
from pbem.clock.wall import utc_now
from pbem.models import GameStatus
from pbem.services.common import seats_of
from pbem.web.csrf import check_csrf
from pbem.web.games import render_game_page
from pbem.web.play import Page, move_page
from pbem.web.support import damaged_link, database, game_of_token, shown_reason, site

bp = Blueprint("chat", __name__)


def _post(game_id: int, seat: int, text: str) -> str:
    """Post ``text`` for ``seat``: "" once posted, else why not (in the page's language)."""
    try:
        with database().write() as session:
            post_message(session, utc_now(), site(), game_id=game_id, seat=seat, text=text)
    except ChatRefused as refusal:
        return shown_reason(refusal)
    return ""


@bp.post("/seat/<token>/chat")
def post_from_seat(token: str) -> Page:
    found = game_of_token("seat-view", token)
    if found is None:
        return damaged_link()
    check_csrf()
    row, fields = found
    assert row.id is not None
    text = request.form.get("message", "")
    error = _post(row.id, fields["seat"], text)
    if error:
        return render_game_page(row, fields["seat"], seat_token=token, status=422, draft=text,
                                chat_error=error)
    return redirect(url_for("games.seat_page", token=token, _anchor="conversation"), 303)


@bp.post("/play/<token>/chat")
def post_from_move_page(token: str) -> Page:
    """From the move page, while its turn is on. A spent move link (its turn is over) writes
    nothing, as it plays nothing: the game's page says so, with the message to copy."""
    found = game_of_token("move", token)
    if found is None or not {"seat", "ply"} <= found[1].keys():
        return damaged_link()
    check_csrf()
    row, fields = found
    assert row.id is not None
    text = request.form.get("message", "")
    if row.ply != fields["ply"] or row.status != GameStatus.ACTIVE \
            or row.to_move != fields["seat"]:
        return render_game_page(row, fields["seat"], status=409, notice=_(
            "Your message was not sent: the game has moved on since this move page was "
            "opened. Write it again on your page of the game: %(text)s", text=text))
    error = _post(row.id, fields["seat"], text)
    if error:
        return move_page(token, status=422, draft=text, chat_error=error)
    return redirect(url_for("play.move_page", token=token, _anchor="conversation"), 303)


@bp.post("/seat/<token>/chat/mute")
def mute(token: str) -> Response | tuple[str, int]:
    """``muted=1``: no more chat emails from this game for the seat's player; else they come
    again. The pages show the messages either way."""
    found = game_of_token("seat-view", token)
    if found is None:
        return damaged_link()
    check_csrf()
    row, fields = found
    assert row.id is not None
    with database().write() as session:
        holder = next(s.player_id for s in seats_of(session, row.id)
                      if s.seat == fields["seat"])
        set_muted(session, utc_now(), game_id=row.id, player_id=holder,
                  muted=request.form.get("muted") == "1")
    return redirect(url_for("games.seat_page", token=token, _anchor="conversation"), 303)
