"""A game's replay (/games/<public id>/replay?ply=N) and its record downloads.

The address holds the game's unguessable public id, as its page (/g/<public id>) does: an
unlisted game stays out of the archive and the profiles, yet whoever has its link can replay it.

What a replay shows: while the game runs, only what every player may see (the public view, at
every ply: nobody learns a hand or the pile from an old position). Once it is over (finished or
aborted) the hidden information is revealed: the board can be seen as each seat saw it
(``&as=2``), with that seat's cards, and the full stored position (Rifugio's blind pile in
order) is listed under the board. The engine decides what each view holds (``view``,
``render_svg`` with a viewer); this module only decides who may ask for which view.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Blueprint, Response, abort, jsonify, render_template, request, url_for
from flask_babel import gettext as _
from sqlmodel import select

from pbem.i18n import ENGLISH, Reader
from pbem.models import GameRecord, Move, Player, Seat
from pbem.positions import engine_game, moves_of, state_at
from pbem.services.common import players_of, seats_of, shown_names
from pbem.services.records import game_record, is_over, record_sgf, record_text
from pbem.services.results import ending_of, result_in
from pbem.web.language import current_reader
from pbem.web.support import board_svg, database, message_page, named_svg, with_names
from pbem.web.terms import label_seats, seat_names

bp = Blueprint("replay", __name__)

_NUMBER = re.compile(r"[0-9]{1,9}")


def game_by_public_id(public_id: str) -> GameRecord:
    """The game at this address, or the site's 404 page."""
    with database().session() as session:
        query = select(GameRecord).where(GameRecord.public_id == public_id)
        row = session.exec(query).one_or_none()
    if row is None or row.id is None:
        abort(404)
    return row


def profile_url(player: Player) -> str | None:
    """A link to the player's profile, unless they hid it (their name is then plain text)."""
    if player.profile_hidden or player.id is None:
        return None
    return url_for("profiles.profile", player_id=player.id)


def _number_arg(name: str) -> int | str | None:
    """A whole number from the query string; None when absent; the text itself when it is not a
    number (the page says so)."""
    text = request.args.get(name)
    if text is None or text == "":
        return None
    return int(text) if _NUMBER.fullmatch(text.strip()) else text


def _lineup(row: GameRecord, moves: list[Move]) -> tuple[list[Seat], dict[int, Player], list[str]]:
    assert row.id is not None
    with database().session() as session:
        seats = seats_of(session, row.id)
        players = players_of(session, seats)
    game = engine_game(row)
    final = state_at(game, row, moves, len(moves))
    reader = current_reader()
    names = seat_names(row.game_type, game.seat_names(final), reader=reader)
    labels = label_seats(seats, shown_names(seats, players, reader), names)
    return seats, players, labels


@bp.get("/games/<public_id>/replay")
def replay(public_id: str) -> tuple[str, int]:
    row = game_by_public_id(public_id)
    assert row.id is not None
    with database().session() as session:
        moves = moves_of(session, row.id)
    seats, players, labels = _lineup(row, moves)
    total, over = len(moves), is_over(row)
    back = url_for("replay.replay", public_id=public_id)
    shown = _number_arg("ply")
    if shown is None:
        shown = total
    if isinstance(shown, str) or not 0 <= shown <= total:
        return message_page(
            _("There is no such position"),
            _("%(ply)s is not a position of this game: positions are numbered from 0 (the start) "
              "to %(total)d (after the last move).", ply=str(request.args.get("ply"))[:20],
              total=total), 400, game_url=back)
    seat = _number_arg("as")
    if seat is not None:
        if not over:
            return message_page(
                _("Hidden until the game ends"),
                _("While the game runs, a replay shows only what every player may see. Each "
                  "player's own view is shown here once the game is over."), 403, game_url=back)
        if isinstance(seat, str) or not 1 <= seat <= len(seats):
            return message_page(
                _("There is no such seat"),
                _("This game has seats 1 to %(seats)d.", seats=len(seats)), 400, game_url=back)
    viewer = seat - 1 if isinstance(seat, int) else None
    # Stepping keeps the chosen view: the next position as the same player saw it.
    seat_arg: dict[str, Any] = {"as": seat} if isinstance(seat, int) else {}
    game = engine_game(row)
    state = state_at(game, row, moves, shown)
    # ended off the board at the position shown: the board says so, not who is to move
    board = named_svg(labels, board_svg(game, state, viewer,
                                        moves[shown - 1].notation if shown else None,
                                        ending=ending_of(row, seats, game, state)
                                        if over and shown == total else None))
    reader = current_reader()
    return render_template(
        "replay.html", row=row, info=game.info, moves=moves, shown=shown, total=total,
        labels=labels, board=board, over=over, viewer=viewer,
        lineup=[(s, players[s.player_id], profile_url(players[s.player_id])) for s in seats],
        # At the end of a game that was resigned, forfeited or adjudicated the engine still
        # says who is to move; the result above says how it ended instead.
        describe="" if over and shown == total
        else with_names(labels, game.describe(state, viewer)),
        result=result_in(row, seats, players, reader)
        if over else "",
        # The whole stored position, hidden parts included: only once nothing is secret.
        revealed=json.dumps(game.encode(state), indent=1, sort_keys=True) if over else None,
        as_seat=seat if isinstance(seat, int) else None,
        page_url=lambda ply: url_for("replay.replay", public_id=public_id, ply=ply,
                                     **seat_arg),
        game_url=url_for("games.public_page", public_id=public_id),
        downloads=record_links(public_id)), 200


def record_links(public_id: str) -> list[tuple[str, str]]:
    """The record's formats with their addresses, for the game, replay and archive pages."""
    return [(label, url_for(f"replay.record_{kind}", public_id=public_id))
            for label, kind in (("JSON", "json"), (_("text"), "txt"), ("SGF", "sgf_download"))]


def _record(public_id: str, reader: Reader = ENGLISH) -> tuple[GameRecord, dict[str, Any]]:
    """The game and its record, its words (sides, result) for ``reader``: English, as data, in
    the JSON and SGF files; the page's language in the text one, which is for people."""
    row = game_by_public_id(public_id)
    with database().session() as session:
        return row, game_record(session, row, reader)


def _download(row: GameRecord, body: str | Response, extension: str, content_type: str) -> Response:
    """A record as a file to save: named after the game, so several downloads never clash."""
    # content_type, not mimetype: with mimetype Werkzeug appends "; charset=utf-8" to a text
    # type that already names its charset.
    response = body if isinstance(body, Response) else Response(body, content_type=content_type)
    name = f"pbem-{row.game_type}-{row.public_id}.{extension}"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


# The game page's older addresses stay as aliases: Werkzeug redirects them (308) to these.
@bp.get("/g/<public_id>/record.json", alias=True)
@bp.get("/games/<public_id>/record.json")
def record_json(public_id: str) -> Response:
    row, record = _record(public_id)
    return _download(row, jsonify(record), "json", "application/json")


@bp.get("/g/<public_id>/record.txt", alias=True)
@bp.get("/games/<public_id>/record.txt")
def record_txt(public_id: str) -> Response:
    reader = current_reader()
    row, record = _record(public_id, reader)
    return _download(row, record_text(record, reader), "txt",
                     "text/plain; charset=utf-8")


@bp.get("/games/<public_id>/record.sgf")
def record_sgf_download(public_id: str) -> Response:
    row, record = _record(public_id)
    return _download(row, record_sgf(record), "sgf", "application/x-go-sgf; charset=utf-8")
