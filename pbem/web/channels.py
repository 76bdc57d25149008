"""A signed-in player's channels and calendar (``/account/channels``): the services besides
email that tell them of their turns (pbem.channels), each added by its Apprise address, tested
with a button, given the news it wants, removed; and the address of their calendar of deadlines
(pbem.calendar, served by :mod:`pbem.web.calendar`).

An address is never shown back: not after it is saved (the page lists the service, scheme and
host), nor in the form after a refusal. Adding and testing are limited per player and client,
so that nobody makes the server knock on other people's doors in a loop.
"""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from pbem.channels.messages import FOLLOWED, GAME_OVER, REMINDER, TURN
from pbem.channels.service import (
    MAX_CHANNELS,
    NoSuchChannel,
    add_channel,
    channels_of,
    follow,
    remove_channel,
    try_channel,
)
from pbem.channels.urls import ChannelRefused, check_channel_url
from pbem.clock.wall import utc_now
from pbem.models import Player
from pbem.web.csrf import check_csrf
from pbem.web.language import current_reader
from pbem.web.player_sessions import current_player
from pbem.web.support import database, read_as_player, shown_reason, site, within_limits

bp = Blueprint("channels", __name__)

TRIES_LIMIT = "20 per hour"  # adding and testing, per player and per client


def news_words() -> dict[str, str]:
    return {TURN: _("Your turn"), REMINDER: _("Reminders before a deadline"),
            GAME_OVER: _("Game over")}


@bp.get("/account/channels")
def settings() -> Response | tuple[str, int]:
    return _page()


@bp.post("/account/channels/new")
def add() -> Response | tuple[str, int]:
    check_csrf()
    player = _signed_in()
    if player is None:
        return redirect(url_for("signin.sign_in_page"), 303)
    if not request.form.get("url", "").strip():
        return _page(error=_("Nothing was added: give the address of a channel."), status=400)
    if not within_limits("pbem-channels", TRIES_LIMIT, player.email):
        return _page(error=_("Too many tries. Please try again in an hour."), status=429)
    try:
        checked = check_channel_url(request.form["url"],
                                    private_hosts=current_app.config.get("ENV") == "development")
        with database().write() as session:
            add_channel(session, utc_now(), site(), player_id=player.id or 0, checked=checked,
                        news=_chosen())
    except ChannelRefused as refusal:
        return _page(error=_("Nothing was added: %(reason)s.", reason=shown_reason(refusal)),
                     status=400)
    return redirect(url_for("channels.settings", saved=1), 303)


@bp.post("/account/channels/<int:channel_id>")
def change(channel_id: int) -> Response | tuple[str, int]:
    """One channel's buttons: ``action`` test, save (its news) or remove."""
    check_csrf()
    player = _signed_in()
    if player is None:
        return redirect(url_for("signin.sign_in_page"), 303)
    action = request.form.get("action", "")
    if action not in ("test", "save", "remove"):
        return _page(error=_("Nothing was changed."), status=400)
    if action == "test" and not within_limits("pbem-channels", TRIES_LIMIT, player.email):
        return _page(error=_("Too many tries. Please try again in an hour."), status=429)
    assert player.id is not None
    try:
        if action == "test":
            tried = try_channel(database(), utc_now(), site(), player_id=player.id,
                                channel_id=channel_id)
            return _page(tested=channel_id, sent=tried.sent,
                         reason=current_reader().text(tried.reason))
        with database().write() as session:
            if action == "remove":
                remove_channel(session, utc_now(), player_id=player.id, channel_id=channel_id)
            else:
                follow(session, utc_now(), player_id=player.id, channel_id=channel_id,
                       news=_chosen())
    except NoSuchChannel as missing:
        return _page(error=shown_reason(missing), status=404)
    return redirect(url_for("channels.settings", saved=1), 303)


def _signed_in() -> Player | None:
    signed = current_player()
    if signed is None:
        return None
    with database().session() as session:
        return session.get(Player, signed.id)


def _chosen() -> list[str]:
    return [kind for kind in FOLLOWED if request.form.get(f"news-{kind}") == "on"]


def _page(*, error: str = "", status: int = 200, **shown: object) -> Response | tuple[str, int]:
    player = _signed_in()
    if player is None or player.id is None:
        return redirect(url_for("signin.sign_in_page"), 303)
    read_as_player(player)
    with database().session() as session:
        channels = channels_of(session, player.id)
    links = site().links
    calendar_url = links.calendar_url(player.id, version=player.links_version)
    return render_template(
        "channels.html", player=player, channels=channels, news=news_words(), error=error,
        saved=request.args.get("saved") == "1", max_channels=MAX_CHANNELS,
        calendar_url=calendar_url,
        webcal_url="webcal://" + calendar_url.partition("://")[2], **shown), status
