"""The organiser's actions on a game. Each has a confirm page (GET) whose form does it (POST).

No action happens on a GET or without this session's CSRF token, so a stray link or a page on
another site cannot act in an organiser's name; each action is audit-logged with who did it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from sqlmodel import Session
from werkzeug.wrappers import Response

from pbem.addresses import BadAddress, BadName, check_address, check_name
from pbem.admin import actions
from pbem.admin.game_detail import load_game
from pbem.admin.support import actor, admin_blueprint, current_admin
from pbem.clock.controls import BadTimeControl, parse_duration
from pbem.models import Game, GameStatus
from pbem.positions import current_state
from pbem.services import PlayerSpec, ServiceError
from pbem.services.common import players_of, seats_of
from pbem.web.support import database, site, utc_now

bp = admin_blueprint("admin_action")


class FormProblem(ValueError):
    """A field of an action's form that needs correcting; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Action:
    title: str  # the button and the page's heading
    explain: str  # what will happen, said before it happens
    run: Callable[[Session, Game, dict[str, str]], str]  # does it; returns what to tell
    needs_running: bool = False  # only while the game is active (not invited or over)


def _duration(values: dict[str, str]) -> timedelta:
    try:
        by = parse_duration(values.get("by", ""))
    except BadTimeControl as error:
        raise FormProblem("by", str(error)) from None
    if by <= timedelta(0):
        raise FormProblem("by", "give a time longer than zero, e.g. 1d or 12h")
    return by


def _extend(session: Session, row: Game, values: dict[str, str]) -> str:
    from pbem.services.clock_actions import extend_deadline

    by = _duration(values)
    assert row.id is not None
    extend_deadline(session, row.id, by=by, now=utc_now(), actor=actor(), site=site())
    return f"Deadline extended by {values['by']}."


def _pause(session: Session, row: Game, values: dict[str, str]) -> str:
    from pbem.services.clock_actions import pause_game

    assert row.id is not None
    pause_game(session, row.id, now=utc_now(), actor=actor(), site=site())
    return "Game paused."


def _resume(session: Session, row: Game, values: dict[str, str]) -> str:
    from pbem.services.clock_actions import resume_game

    assert row.id is not None
    resume_game(session, row.id, now=utc_now(), actor=actor(), site=site())
    return "Game resumed."


def _resend(session: Session, row: Game, values: dict[str, str]) -> str:
    assert row.id is not None
    actions.resend_turn_email(session, utc_now(), site(), game_id=row.id, actor=actor())
    return "The turn email is on its way again."


def _replace(session: Session, row: Game, values: dict[str, str]) -> str:
    assert row.id is not None
    seat = values.get("seat", "")
    if not seat.isdigit():
        raise FormProblem("seat", "choose the seat whose player you are replacing")
    try:
        address = check_address(values.get("email", ""))
    except BadAddress as error:
        raise FormProblem("email", str(error)) from None
    try:
        name = check_name(values.get("name", ""), default=address.partition("@")[0])
    except BadName as error:
        raise FormProblem("name", str(error)) from None
    actions.replace_player(session, utc_now(), site(), game_id=row.id, seat=int(seat),
                           new_player=PlayerSpec(name, address), actor=actor(),
                           admin_id=current_admin().id)
    return f"{name} <{address}> now plays seat {int(seat) + 1}; the old links no longer work."


def _adjudicate(session: Session, row: Game, values: dict[str, str]) -> str:
    assert row.id is not None
    winners = [int(w) for w in request.form.getlist("winner") if w.isdigit()]
    reason = values.get("reason", "").strip()
    if not reason:
        raise FormProblem("reason", "say why, for the players (it is in their email)")
    actions.adjudicate(session, utc_now(), site(), game_id=row.id, winners=winners,
                       reason=reason, actor=actor())
    return "Result recorded; the players are told."


def _abort(session: Session, row: Game, values: dict[str, str]) -> str:
    assert row.id is not None
    actions.abort(session, utc_now(), site(), game_id=row.id, reason=values.get("reason", ""),
                  actor=actor())
    return "Game aborted; the players are told."


ACTIONS: dict[str, Action] = {
    "resend": Action("Resend the turn email",
                     "The player to move gets their turn email again, with the same move link.",
                     _resend, needs_running=True),
    "extend": Action("Extend the deadline",
                     "The player to move gets this much more time; everyone is told.",
                     _extend, needs_running=True),
    "pause": Action("Pause the game", "The clock stops and moves wait until you resume; "
                    "everyone is told.", _pause, needs_running=True),
    "resume": Action("Resume the game", "The clock runs again with the time that was left.",
                     _resume, needs_running=True),
    "replace": Action("Replace a player",
                      "The new player takes over the seat and gets fresh links by email. Links "
                      "sent to the player they replace stop working.", _replace),
    "adjudicate": Action("Adjudicate the result",
                         "The game ends now with the result you choose; everyone is told.",
                         _adjudicate, needs_running=True),
    "abort": Action("Abort the game", "The game ends without a result; everyone is told.",
                    _abort),
}


def _page(row: Game, name: str, values: dict[str, str], errors: dict[str, str],
          status: int) -> tuple[str, int]:
    assert row.id is not None
    with database().session() as session:
        seats = seats_of(session, row.id)
        players = players_of(session, seats)
    game, state = current_state(row)
    names = game.seat_names(state)
    lineup = [(s.seat, names[s.seat] if s.seat < len(names) else f"Seat {s.seat + 1}",
               players[s.player_id]) for s in seats]
    return render_template("admin/action.html", row=row, info=game.info, name=name,
                           action=ACTIONS[name], values=values, errors=errors,
                           lineup=lineup), status


@bp.route("/games/<int:game_id>/<name>", methods=["GET", "POST"])
def game_action(game_id: int, name: str) -> Response | tuple[str, int]:
    action = ACTIONS.get(name)
    if action is None:
        abort(404)
    row = load_game(game_id)
    values: dict[str, Any] = {k: v for k, v in request.values.items() if k != "csrf_token"}
    usable = row.status == GameStatus.ACTIVE if action.needs_running else row.status in (
        GameStatus.INVITED, GameStatus.ACTIVE)
    if not usable:
        return _page(row, name, values, {"form": f"This game is {row.status}: "
                                                 "this action is not available."}, 409)
    if request.method == "GET":
        return _page(row, name, values, {}, 200)
    try:
        with database().write() as session:
            message = action.run(session, row, values)
    except FormProblem as problem:
        return _page(row, name, values, {problem.field: str(problem)}, 422)
    except ServiceError as error:
        return _page(row, name, values, {"form": str(error)}, 409)
    flash(message)
    return redirect(url_for("admin_game.game_detail", game_id=game_id), 303)
