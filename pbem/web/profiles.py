"""Player profiles (/players/<id>): name, ratings with their history, games and results.

Public pages show names only, never an address. Only listed games appear (an unlisted game is
reachable by its link alone), and only games that started: an invitation nobody answered is
nobody's business. A player may hide their profile on their games page; others then get a 404
that says so, while the player, signed in, still sees it (with a note that it is hidden).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, render_template, url_for
from flask_babel import gettext as _
from sqlmodel import Session, col, select

from pbem.game_options import game_name
from pbem.models import GameRecord, GameStatus, Player, Seat
from pbem.positions import current_state
from pbem.services.common import players_of, seats_of, shown_names
from pbem.services.results import outcome_for, result_in
from pbem.web.language import current_reader
from pbem.web.player_sessions import current_player
from pbem.web.ratings import rating_lines
from pbem.web.replay import profile_url
from pbem.web.support import database, message_page
from pbem.web.terms import label_seats, seat_names

bp = Blueprint("profiles", __name__)

MAX_FINISHED = 50  # the rest are in the archive, searched by the player's name


@bp.get("/players/<int:player_id>")
def profile(player_id: int) -> tuple[str, int]:
    with database().session() as session:
        player = session.get(Player, player_id)
        if player is None:
            abort(404)
        visitor = current_player()
        own = visitor is not None and visitor.id == player_id
        if player.profile_hidden and not own:
            return message_page(_("This profile is hidden"),
                                _("This player chose not to show their profile."), 404)
        active, finished = _games(session, player_id)
        ratings = _ratings(session, player)
    return render_template(
        "profile.html", player=player, own=own, ratings=ratings, active=active,
        finished=finished[:MAX_FINISHED], more=len(finished) > MAX_FINISHED,
        limit=MAX_FINISHED,
        archive_url=url_for("archive.archive", player=player.name)), 200


def _games(session: Session, player_id: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The player's listed games in progress (newest first) and finished (latest first)."""
    rows = session.exec(
        select(GameRecord, Seat).join(Seat, col(Seat.game_id) == col(GameRecord.id))
        .where(Seat.player_id == player_id, col(GameRecord.listed).is_(True),
               col(GameRecord.status).in_((GameStatus.ACTIVE, GameStatus.FINISHED)))
        .order_by(col(GameRecord.finished_at).desc(), col(GameRecord.started_at).desc(),
                  col(GameRecord.id).desc())
    ).all()
    active = [(game, seat) for game, seat in rows if game.status == GameStatus.ACTIVE]
    # One more than is shown, so the page knows to point to the archive for the rest.
    finished = [(game, seat) for game, seat in rows
                if game.status == GameStatus.FINISHED][:MAX_FINISHED + 1]
    return ([_line(session, game, seat) for game, seat in active],
            [_line(session, game, seat) for game, seat in finished])


def _outcome_word(outcome: str) -> str:
    # Spelled out so that extraction finds each word.
    words_of: dict[str, str] = {"won": _("won"), "lost": _("lost"), "shared": _("shared the win"),
                                "draw": _("draw")}
    return words_of[outcome]


def _line(session: Session, row: GameRecord, seat: Seat) -> dict[str, Any]:
    """One game: its name, the others (linked to their profiles), the outcome for this player
    and the result in words, with a link to its page or its replay."""
    assert row.id is not None
    seats = seats_of(session, row.id)
    players = players_of(session, seats)
    reader = current_reader()
    try:
        game, state = current_state(row)
        names = seat_names(row.game_type, game.seat_names(state), reader=reader)
    except Exception:  # a list of games must not fail on one unreadable stored game
        names = []
    people = shown_names(seats, players, reader)
    others = [(label, profile_url(players[s.player_id]))
              for s, label in zip(seats, label_seats(seats, people, names), strict=True)
              if s.seat != seat.seat]
    finished = row.status == GameStatus.FINISHED
    return {
        "row": row, "title": game_name(row.game_type, reader),
        "side": names[seat.seat] if seat.seat < len(names) else "",
        "others": others,
        "outcome": _outcome_word(outcome_for(row.winners, seat.seat)) if finished else "",
        "result": result_in(row, seats, players, reader)
        if finished else "",
        "url": url_for("replay.replay", public_id=row.public_id, ply=0) if finished
        else url_for("games.public_page", public_id=row.public_id),
    }


def _ratings(session: Session, player: Player) -> list[dict[str, Any]]:
    """The player's rating in each game they played rated games of, with its history graph."""
    assert player.id is not None
    return rating_lines(session, player.id, owner=player.name)
