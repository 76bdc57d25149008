"""Player pages refuse the links of a seat's former holder (the rule is in :mod:`pbem.links`)."""

from __future__ import annotations

from flask import Flask, request
from flask_babel import gettext as _

from pbem.db import Database
from pbem.links import Links, Purpose, refused_seat_token
from pbem.web.support import message_page

# The player-facing endpoints whose ``token`` names a seat, and the purpose it was signed for.
SEAT_ENDPOINTS: dict[str, Purpose] = {
    "play.move_page": "move",
    "play.confirm_page": "move",
    "turns.turn_page": "move",
    "play.resign_page": "resign",
    "games.seat_page": "seat-view",
    "notifications.mute_seat": "seat-view",
    "invites.invitation": "invite",
}


def replaced_page() -> tuple[str, int]:
    return message_page(
        _("This link is no longer yours"),
        _("The organiser has given your place in this game to another player, so the links in "
          "the emails you were sent about it no longer work. If you think this is a mistake, "
          "please write to the organiser."), 410)


def init_app(app: Flask, database: Database) -> None:
    @app.before_request
    def refuse_replaced_players() -> tuple[str, int] | None:
        purpose = SEAT_ENDPOINTS.get(request.endpoint or "")
        token = (request.view_args or {}).get("token")
        if purpose is None or not isinstance(token, str):
            return None
        links: Links = app.extensions["pbem.site"].links
        return replaced_page() if refused_seat_token(links, database, purpose, token) else None
