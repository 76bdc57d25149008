"""Game pages by unguessable URL (public view), a seat's own view, and the game record."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, jsonify, render_template, request, url_for
from sqlmodel import select

import engine
from pbem.clock.controls import Fischer
from pbem.clock.deadlines import POLICY_LABELS, default_timeout_policy, time_control_of
from pbem.models import Game, GameStatus, Move
from pbem.positions import engine_game, moves_of, state_at
from pbem.services.common import players_of, seats_of
from pbem.web.support import board_svg, damaged_link, database, game_of_token, site

bp = Blueprint("games", __name__)


@bp.get("/")
def index() -> str:
    return render_template("index.html", games=engine.GAMES)


def _load(public_id: str) -> Game:
    with database().session() as session:
        row = session.exec(select(Game).where(Game.public_id == public_id)).one_or_none()
    if row is None:
        abort(404)
    return row


def _clock_text(row: Game) -> dict[str, str]:
    """The game's time control and timeout policy in words, for its page."""
    control = time_control_of(row)
    if control is None:
        return {}
    policy = row.timeout_policy or default_timeout_policy(row.game_type)
    per = "" if isinstance(control, Fischer) else " per move"
    return {"time_control": f"{control}{per}", "policy_text": POLICY_LABELS[policy]}


def render_game_page(
    row: Game, viewer: int | None, *, notice: str = "", status: int = 200,
    seat_token: str | None = None,
) -> tuple[str, int]:
    """The game as ``viewer`` (a seat, or None for the public) may see it, at ``?ply=``."""
    assert row.id is not None
    with database().session() as session:
        moves = moves_of(session, row.id)
        seats = seats_of(session, row.id)
        players = players_of(session, seats)
    game = engine_game(row)
    shown = request.args.get("ply", type=int)
    if shown is None or not 0 <= shown <= len(moves):
        shown = len(moves)
    state = state_at(game, row, moves, shown)
    names = game.seat_names(state)
    links = site().links
    move_url = None
    if viewer is not None and row.status == GameStatus.ACTIVE and row.to_move == viewer:
        move_url = links.move_url(row.id, viewer, row.ply, holder=seats[viewer].player_id)
    return render_template(
        "game.html",
        row=row, info=game.info, options=game.options, moves=moves, names=names,
        lineup=[(s, players[s.player_id]) for s in seats],
        board=board_svg(game, state, viewer, moves[shown - 1].notation if shown else None),
        describe=game.describe(state, viewer), shown=shown, viewer=viewer, notice=notice,
        move_url=move_url, seat_token=seat_token, **_clock_text(row),
        resign_url=links.resign_url(row.id, viewer, holder=seats[viewer].player_id)
        if viewer is not None
        and row.status == GameStatus.ACTIVE else None,
        record_json=url_for("games.record_json", public_id=row.public_id),
        record_text=url_for("games.record_text", public_id=row.public_id),
    ), status


@bp.get("/g/<public_id>")
def public_page(public_id: str) -> tuple[str, int]:
    return render_game_page(_load(public_id), None)


@bp.get("/seat/<token>")
def seat_page(token: str) -> tuple[str, int]:
    """A player's own page of a game: with hidden information, it shows what they may see."""
    found = game_of_token("seat-view", token)
    if found is None:
        return damaged_link()
    row, fields = found
    notice = "Your move was played." if request.args.get("played") else ""
    return render_game_page(row, fields["seat"], notice=notice, seat_token=token)


def game_record(row: Game, moves: list[Move], names: list[str]) -> dict[str, Any]:
    finished = row.status in (GameStatus.FINISHED, GameStatus.ABORTED)
    return {
        "game": row.game_type,
        "options": row.options,
        "players": names,
        "moves": [m.notation for m in moves],
        "notes": {str(m.ply): m.note for m in moves if m.note},
        "status": row.status,
        "winners": row.winners if row.status == GameStatus.FINISHED else None,
        "result": row.result,
        "seed_commitment": row.seed_commitment,
        "seed": row.seed if finished else None,  # revealed at the end, to check the draws
    }


def _record(public_id: str) -> dict[str, Any]:
    row = _load(public_id)
    assert row.id is not None
    with database().session() as session:
        moves = moves_of(session, row.id)
        seats = seats_of(session, row.id)
        players = players_of(session, seats)
    return game_record(row, moves, [players[s.player_id].name for s in seats])


@bp.get("/g/<public_id>/record.json")
def record_json(public_id: str) -> Response:
    return jsonify(_record(public_id))


@bp.get("/g/<public_id>/record.txt")
def record_text(public_id: str) -> Response:
    record = _record(public_id)
    lines = [f"Game: {record['game']}",
             "Options: " + ", ".join(f"{k}={v}" for k, v in record["options"].items()),
             *(f"Seat {n + 1}: {name}" for n, name in enumerate(record["players"])),
             f"Status: {record['status']}"]
    if record["result"]:
        lines.append(f"Result: {record['result']}")
    lines.append("")
    lines += [f"{n + 1}. {move}" + (f"  {{{record['notes'][str(n)]}}}" if str(n) in record["notes"]
                                    else "") for n, move in enumerate(record["moves"])]
    return Response("\n".join(lines) + "\n", mimetype="text/plain")
