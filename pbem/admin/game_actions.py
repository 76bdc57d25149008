"""The organiser's actions on a game. Each has a confirm page (GET) whose form does it (POST).

Only a POST acts, and only with this session's CSRF token (CSRFProtect checks it before the view,
the action's FlaskForm again) and with parameters from the form body: GET and HEAD only show the
page, and the query string never fills in an action. So a stray link, a prefetch or a page on
another site cannot act in an organiser's name; each action is audit-logged with who did it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlmodel import Session
from werkzeug.wrappers import Response

from pbem.admin import actions
from pbem.admin.action_forms import (
    AbortForm,
    AdjudicateForm,
    ConfirmForm,
    ExtendForm,
    ReplaceForm,
    first_errors,
    typed_values,
)
from pbem.admin.game_detail import load_game
from pbem.admin.support import actor, admin_blueprint, current_admin, says
from pbem.admin.words import word
from pbem.clock.wall import utc_now
from pbem.models import GameRecord, GameStatus, SeatStatus
from pbem.positions import current_state
from pbem.services import PlayerSpec, ServiceError
from pbem.services.clock_actions import extend_deadline, pause_game, resume_game
from pbem.services.common import players_of, seats_of
from pbem.web.language import current_reader
from pbem.web.support import database, site

bp = admin_blueprint("admin_action")


@dataclass(frozen=True)
class Action:
    title: str  # the page's heading (lazy: said in the page's language)
    confirm: str  # the button that does it
    explain: str  # what will happen, said before it happens
    run: Callable[[Session, GameRecord, ConfirmForm], str]  # does it; returns what to tell
    form: type[ConfirmForm] = ConfirmForm  # what it asks for
    needs_running: bool = False  # only while the game is active (not invited or over)


def _extend(session: Session, row: GameRecord, form: ConfirmForm) -> str:
    assert isinstance(form, ExtendForm) and row.id is not None
    extend_deadline(session, row.id, by=form.duration(), now=utc_now(), actor=actor(),
                    site=site())
    return _("Deadline extended by %(time)s.", time=(form.by.data or "").strip())


def _pause(session: Session, row: GameRecord, form: ConfirmForm) -> str:
    assert row.id is not None
    pause_game(session, row.id, now=utc_now(), actor=actor(), site=site())
    return _("Game paused.")


def _resume(session: Session, row: GameRecord, form: ConfirmForm) -> str:
    assert row.id is not None
    resume_game(session, row.id, now=utc_now(), actor=actor(), site=site())
    return _("Game resumed.")


def _resend(session: Session, row: GameRecord, form: ConfirmForm) -> str:
    assert row.id is not None
    actions.resend_turn_email(session, utc_now(), site(), game_id=row.id, actor=actor())
    return _("The turn email is on its way again.")


def _replace(session: Session, row: GameRecord, form: ConfirmForm) -> str:
    assert isinstance(form, ReplaceForm) and row.id is not None
    seat, name, address = form.seat.data, form.name.data, form.email.data
    assert name is not None and address is not None  # both required by the form's validators
    actions.replace_player(session, utc_now(), site(), game_id=row.id, seat=seat,
                           new_player=PlayerSpec(name, address), actor=actor(),
                           admin_id=current_admin().id)
    return _("%(name)s <%(address)s> now plays seat %(seat)d; the old links no longer work.",
             name=name, address=address, seat=seat + 1)


def _adjudicate(session: Session, row: GameRecord, form: ConfirmForm) -> str:
    assert isinstance(form, AdjudicateForm) and row.id is not None
    actions.adjudicate(session, utc_now(), site(), game_id=row.id, winners=form.winner.data or [],
                       reason=form.reason.data or "", actor=actor())
    return _("Result recorded; the players are told.")


def _abort(session: Session, row: GameRecord, form: ConfirmForm) -> str:
    assert isinstance(form, AbortForm) and row.id is not None
    actions.abort(session, utc_now(), site(), game_id=row.id,
                  reason=(form.reason.data or "").strip(), actor=actor())
    return _("Game aborted; the players are told.")


ACTIONS: dict[str, Action] = {
    "resend": Action(_l("Resend the turn email"), _l("Confirm: resend the turn email"),
                     _l("The player to move gets their turn email again, with the same move "
                        "link."),
                     _resend, needs_running=True),
    "extend": Action(_l("Extend the deadline"), _l("Confirm: extend the deadline"),
                     _l("The player to move gets this much more time; everyone is told."),
                     _extend, ExtendForm, needs_running=True),
    "pause": Action(_l("Pause the game"), _l("Confirm: pause the game"),
                    _l("The clock stops and moves wait until you resume; everyone is told."),
                    _pause, needs_running=True),
    "resume": Action(_l("Resume the game"), _l("Confirm: resume the game"),
                     _l("The clock runs again with the time that was left."),
                     _resume, needs_running=True),
    "replace": Action(_l("Replace a player"), _l("Confirm: replace a player"),
                      _l("The new player takes over the seat and gets fresh links by email. "
                         "Links sent to the player they replace stop working."),
                      _replace, ReplaceForm),
    "adjudicate": Action(_l("Adjudicate the result"), _l("Confirm: adjudicate the result"),
                         _l("The game ends now with the result you choose; everyone is told."),
                         _adjudicate, AdjudicateForm, needs_running=True),
    "abort": Action(_l("Abort the game"), _l("Confirm: abort the game"),
                    _l("The game ends without a result; everyone is told."),
                    _abort, AbortForm),
}


def _lineup(row: GameRecord) -> list[tuple[int, str, object]]:
    """(seat, its label in this game, its player) in seat order."""
    assert row.id is not None
    with database().session() as session:
        seats = seats_of(session, row.id)
        players = players_of(session, seats)
    game, state = current_state(row)
    names = game.seat_names(state)
    reader = current_reader()
    return [(s.seat, reader.text(names[s.seat]) if s.seat < len(names)
             else _("Seat %(number)d", number=s.seat + 1), players[s.player_id]) for s in seats]


def _declined_seat(row: GameRecord) -> int | None:
    """The first seat whose invitee declined, while the game waits for answers: the seat the
    game page's "Replace the player who declined" is about."""
    if row.status != GameStatus.INVITED or row.id is None:
        return None
    with database().session() as session:
        seats = seats_of(session, row.id)
    return next((s.seat for s in seats if s.status == SeatStatus.DECLINED), None)


def _suggest(row: GameRecord, form: ConfirmForm) -> None:
    """Fill in what the confirm page suggests. Only for the page shown on GET: what a POST does
    still comes from its form body alone, and the organiser sees the choice before confirming."""
    if isinstance(form, ReplaceForm):
        form.seat.data = _declined_seat(row)


def _page(row: GameRecord, name: str, form: ConfirmForm, lineup: list[tuple[int, str, object]],
          status: int, problem: str = "") -> tuple[str, int]:
    errors = first_errors(form) | ({"form": problem} if problem else {})
    return render_template("admin/action.html", row=row, info=current_state(row)[0].info,
                           name=name, action=ACTIONS[name], values=typed_values(form),
                           errors=errors, lineup=lineup), status


@bp.route("/games/<int:game_id>/<name>", methods=["GET", "POST"])
def game_action(game_id: int, name: str) -> Response | tuple[str, int]:
    action = ACTIONS.get(name)
    if action is None:
        abort(404)
    row = load_game(game_id)
    lineup = _lineup(row)
    form = action.form()  # reads the POSTed body only; on GET and HEAD it holds the defaults
    form.prepare([(seat, label) for seat, label, _ in lineup])
    usable = row.status == GameStatus.ACTIVE if action.needs_running else row.status in (
        GameStatus.INVITED, GameStatus.ACTIVE)
    if not usable:
        return _page(row, name, form, lineup, 409,
                     _("This game is %(status)s: this action is not available.",
                       status=word(row.status)))
    if request.method != "POST":  # GET and HEAD only show what would happen
        _suggest(row, form)
        return _page(row, name, form, lineup, 200)
    if not form.validate():
        return _page(row, name, form, lineup, 422)
    try:
        with database().write() as session:
            message = action.run(session, row, form)
    except ServiceError as error:
        return _page(row, name, form, lineup, 409, says(error))
    flash(message)
    return redirect(url_for("admin_game.game_detail", game_id=game_id), 303)
