"""``/calendar/<token>``: a player's calendar of deadlines (pbem.calendar), for calendar apps.

The token is the player's own (``calendar``, of their links version): whoever has the address
sees their turns and move links, so it dies with their other email links when they replace
them. A damaged or replaced address gets the same pages as a games-page link's."""

from __future__ import annotations

from flask import Blueprint, Response

from pbem.calendar.feed import feed
from pbem.clock.wall import utc_now
from pbem.links import DamagedLink, ReplacedPlayerLink
from pbem.models import Player
from pbem.web.players import replaced_link
from pbem.web.support import damaged_link, database, load_token, site

bp = Blueprint("calendar", __name__)


@bp.get("/calendar/<token>")
def calendar_feed(token: str) -> Response | tuple[str, int]:
    try:
        fields = load_token("calendar", token)
    except ReplacedPlayerLink:
        return replaced_link()
    except DamagedLink:
        return damaged_link()
    with database().session() as session:
        player = session.get(Player, fields["player"])
        if player is None or player.bot_level is not None:
            return damaged_link()
        if fields.get("v", 0) != player.links_version:
            return replaced_link()
        text = feed(session, site().links, player, utc_now())
    return Response(text, mimetype="text/calendar",
                    headers={"Content-Disposition": 'inline; filename="pbem.ics"'})
