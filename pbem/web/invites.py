"""Answering an invitation: the link shows the game and two buttons; only the POST records."""

from __future__ import annotations

from flask import Blueprint, render_template, request

from pbem.models import GameStatus
from pbem.positions import engine_game
from pbem.services import ServiceError, respond_to_invitation
from pbem.services.common import players_of, seats_of
from pbem.web.csrf import check_csrf
from pbem.web.support import (
    damaged_link,
    database,
    game_of_token,
    message_page,
    site,
    utc_now,
)

bp = Blueprint("invites", __name__)


@bp.route("/invite/<token>", methods=["GET", "POST"])
def invitation(token: str) -> tuple[str, int]:
    found = game_of_token("invite", token)
    if found is None or found[0].id is None:
        return damaged_link()
    row, fields = found
    with database().session() as session:
        seats = seats_of(session, row.id)
        players = players_of(session, seats)
    seat = seats[fields["seat"]]
    if request.method == "POST":
        check_csrf()
        answer = request.form.get("answer")
        if answer not in ("accept", "decline"):
            return message_page("Please choose", "Choose accept or decline.", 400)
        game_id = row.id
        try:
            with database().write() as session:
                answered = respond_to_invitation(session, utc_now(), site(), game_id=game_id,
                                                 seat=seat.seat, accept=answer == "accept")
                # Read while the session is open: never touch its objects once it has ended.
                started = answered.status == GameStatus.ACTIVE
        except ServiceError as error:
            return message_page("Your answer was not recorded", str(error), 409)
        if answer == "decline":
            return message_page("Invitation declined", "You declined. The other players and the "
                                "organiser will be told. Thank you for answering.")
        return message_page("Invitation accepted", "The game has started: watch your mail."
                            if started else "Thanks! The game starts when everyone has accepted.",
                            game_url=site().links.seat_view_url(game_id, seat.seat,
                                                                  holder=seat.player_id))
    game = engine_game(row)
    return render_template(
        "invite.html", row=row, info=game.info, options=game.options, seat=seat, token=token,
        lineup=[(s, players[s.player_id]) for s in seats],
        open=row.status == GameStatus.INVITED,
    ), 200
