"""Answering an invitation: the link shows the game and two buttons; only the POST records."""

from __future__ import annotations

from flask import Blueprint, current_app, render_template, request, url_for
from flask_babel import gettext as _

from pbem.clock.deadlines import clock_of
from pbem.clock.tables import GameClock
from pbem.clock.wall import utc_now
from pbem.models import GameRecord, GameStatus, Player, Seat
from pbem.positions import current_state
from pbem.services import ServiceError, respond_to_invitation
from pbem.services.common import players_of, seats_of, shown_names
from pbem.web.csrf import check_csrf
from pbem.web.games import clock_text
from pbem.web.language import current_reader
from pbem.web.support import (
    board_svg,
    damaged_link,
    database,
    game_of_token,
    message_page,
    named_svg,
    shown_reason,
    site,
)
from pbem.web.terms import label_seats, seat_names, terms_for

bp = Blueprint("invites", __name__)


@bp.route("/invite/<token>", methods=["GET", "POST"])
def invitation(token: str) -> tuple[str, int]:
    found = game_of_token("invite", token)
    if found is None:
        return damaged_link()
    row, fields = found
    if row.id is None:
        return damaged_link()
    with database().session() as session:
        seats = seats_of(session, row.id)
        players = players_of(session, seats)
        organiser = session.get(Player, row.organiser_id) if row.organiser_id else None
        organiser_name = organiser.name if organiser else ""
        clock = clock_of(session, row.id)
    seat = seats[fields["seat"]]
    if request.method == "POST":
        check_csrf()
        answer = request.form.get("answer")
        if answer not in ("accept", "decline"):
            return message_page(_("Please choose"), _("Choose accept or decline."), 400)
        game_id = row.id
        try:
            with database().write() as session:
                answered = respond_to_invitation(session, utc_now(), site(), game_id=game_id,
                                                 seat=seat.seat, accept=answer == "accept")
                # Read while the session is open: never touch its objects once it has ended.
                started = answered.status == GameStatus.ACTIVE
        except ServiceError as error:
            return message_page(_("Your answer was not recorded"), shown_reason(error), 409)
        if answer == "decline":
            return message_page(_("Invitation declined"), _(
                "You declined. The other players and the organiser will be told. Thank you for "
                "answering."))
        return message_page(_("Invitation accepted"), _("The game has started: watch your mail.")
                            if started else
                            _("Thanks! The game starts when everyone has accepted."),
                            game_url=site().links.seat_view_url(game_id, seat.seat,
                                                                  holder=seat.player_id))
    return _invitation_page(row, clock, seat, token, seats, players, organiser_name)


def _invitation_page(row: GameRecord, clock: GameClock, seat: Seat, token: str,
                     seats: list[Seat], players: dict[int, Player],
                     organiser: str) -> tuple[str, int]:
    """Everything a player weighs before accepting: who plays which colour, the clock and what
    happens when it runs out, who organises, the rules, and the board they will play on."""
    game, state = current_state(row)  # drawn as the public sees it: no one's secrets
    reader = current_reader()
    names = seat_names(row.game_type, game.seat_names(state), reader=reader)
    labels = label_seats(seats, shown_names(seats, players, reader), names)
    return render_template(
        "invite.html", row=row, info=game.info, options=game.options, seat=seat, token=token,
        lineup=list(zip(seats, labels, strict=True)), organiser=organiser,
        open=row.status == GameStatus.INVITED,
        board=named_svg(labels, board_svg(game, state, None)),
        terms=terms_for(row.game_type, game.options, reader=reader),
        rules_url=url_for("rules.rules_page", game_id=row.game_type)
        if "rules.rules_page" in current_app.view_functions else None,
        **clock_text(clock, row.game_type, len(seats)),
    ), 200
