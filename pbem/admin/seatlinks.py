"""Links bound to the player on a seat, so replacing a player kills the links they were sent.

Tokens signed by the app carry the seat holder's player id (see :mod:`pbem.links`). Tokens made
before a replacement without that id (invitations are signed while the game's seats are still
being written) are refused once the seat has a recorded replacement.
"""

from __future__ import annotations

from flask import Flask, request
from sqlmodel import select

from pbem.admin.models import SeatReplacement
from pbem.db import Database
from pbem.links import DamagedLink, Links, Purpose, ReplacedSeatLink, SeatHolder
from pbem.models import Seat
from pbem.web.support import message_page

# The player-facing endpoints whose ``token`` names a seat, and the purpose it was signed for.
SEAT_ENDPOINTS: dict[str, Purpose] = {
    "play.move_page": "move",
    "play.confirm_page": "move",
    "play.resign_page": "resign",
    "games.seat_page": "seat-view",
    "invites.invitation": "invite",
}


def seat_holder_for(database: Database) -> SeatHolder:
    def holder(game: int, seat: int) -> int | None:
        with database.session() as session:
            return session.exec(select(Seat.player_id).where(
                Seat.game_id == game, Seat.seat == seat)).first()
    return holder


def _was_replaced(database: Database, game: int, seat: int) -> bool:
    with database.session() as session:
        return session.exec(select(SeatReplacement.id).where(
            SeatReplacement.game_id == game, SeatReplacement.seat == seat)).first() is not None


def check_seat_token(links: Links, database: Database, purpose: Purpose, token: str) -> bool:
    """False when the token is for a seat its player no longer holds."""
    try:
        fields = links.load(purpose, token)
    except ReplacedSeatLink:
        return False
    except DamagedLink:
        return True  # the page itself says the link is damaged
    if "p" in fields or "game" not in fields or "seat" not in fields:
        return True
    return not _was_replaced(database, fields["game"], fields["seat"])


def replaced_page() -> tuple[str, int]:
    return message_page(
        "This link is no longer yours",
        "The organiser has given your place in this game to another player, so the links in the "
        "emails you were sent about it no longer work. If you think this is a mistake, please "
        "write to the organiser.", 410)


def init_app(app: Flask, database: Database) -> None:
    @app.before_request
    def refuse_replaced_players() -> tuple[str, int] | None:
        purpose = SEAT_ENDPOINTS.get(request.endpoint or "")
        token = (request.view_args or {}).get("token")
        if purpose is None or not isinstance(token, str):
            return None
        links: Links = app.extensions["pbem.site"].links
        return None if check_seat_token(links, database, purpose, token) else replaced_page()
