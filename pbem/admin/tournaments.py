"""The dashboard's tournaments: the list, the create form, and a tournament's page with its
standings, rounds and the organiser's actions (start, close the round, withdraw a player,
cancel). Every action is a POST with this session's CSRF token, its parameters from the form
body only, done in one write transaction and audit-logged with the organiser's address.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from sqlmodel import Session, col, select
from werkzeug.wrappers import Response

import engine
from pbem.admin.actions import welcome_new_players
from pbem.admin.forms import default_language
from pbem.admin.support import actor, admin_blueprint, says
from pbem.admin.tournament_forms import ActionForm, blank_form, read_form
from pbem.clock.wall import utc_now
from pbem.models import Player
from pbem.services import ServiceError
from pbem.tournaments.queries import entries_of, points_text, standings_view
from pbem.tournaments.service import (
    ROUND_ROBINS,
    all_tournaments,
    cancel_tournament,
    close_round,
    create_tournament,
    start_tournament,
    withdraw_player,
)
from pbem.tournaments.tables import Tournament, TournamentStatus
from pbem.web.support import database, site
from pbem.web.tournaments import game_name_here

bp = admin_blueprint("admin_tournaments")


@bp.get("/tournaments")
def tournaments_list() -> str:
    with database().session() as session:
        shown = all_tournaments(session)
    return render_template("admin/tournaments.html", tournaments=shown, game_name=game_name_here)


@bp.route("/tournaments/new", methods=["GET", "POST"])
def new_tournament() -> Response | tuple[str, int]:
    game_type = (request.form if request.method == "POST" else request.args).get("game", "")
    info = engine.GAMES.get(game_type)
    if info is None:
        error = _("There is no game %(game)s.", game=repr(game_type)) if game_type else ""
        return render_template("admin/tournament_choose.html", games=engine.GAMES,
                               error=error), 404 if game_type else 200
    if request.method != "POST":
        return render_template("admin/tournament_new.html", form=blank_form(info)), 200
    form = read_form(info)
    if not form.errors:
        now = utc_now()
        try:
            with database().write() as session:
                language = form.values.get("language") or default_language()
                # Before the tournament: its first emails go out in each player's language.
                welcome_new_players(session, now, form.players, language)
                tournament = create_tournament(
                    session, now, site(), name=form.values["name"], game_type=info.id,
                    players=form.players, fmt=form.values["format"], options=form.options,
                    rounds=form.number("rounds"), table_size=form.number("table_size"),
                    time_control=form.time_control,
                    timeout_policy=form.values.get("timeout_policy") or None,
                    listed=form.values.get("listed") == "on",
                    rated=form.values.get("rated") == "on", created_by=actor(),
                    language=language)
                tournament_id = tournament.id
        except ServiceError as error:
            form.errors["form"] = says(error)
        else:
            flash(_("Tournament created; the players have been told they are in. Start it "
                    "when you are ready."))
            return redirect(url_for(".tournament_detail", tournament_id=tournament_id), 303)
    return render_template("admin/tournament_new.html", form=form), 422


def _load(session: Session, tournament_id: int) -> Tournament:
    tournament = session.get(Tournament, tournament_id)
    if tournament is None:
        abort(404)
    return tournament


@bp.get("/tournaments/<int:tournament_id>")
def tournament_detail(tournament_id: int) -> str:
    with database().session() as session:
        tournament = _load(session, tournament_id)
        view = standings_view(session, tournament)
        entries = entries_of(session, tournament_id)
        ids = [e.player_id for e in entries]
        players = {p.id: p for p in session.exec(select(Player).where(col(Player.id).in_(ids)))}
    running = tournament.status in (TournamentStatus.PENDING, TournamentStatus.RUNNING)
    can_close = (tournament.status == TournamentStatus.RUNNING
                 and tournament.format not in ROUND_ROBINS
                 and tournament.current_round < tournament.rounds)
    return render_template("admin/tournament.html", view=view, entries=entries,
                           players=players, running=running, can_close=can_close,
                           points_text=points_text, game_name=game_name_here(tournament.game_type))


def _act(run: Callable[[Session, int, ActionForm], str]) -> Response:
    """Do one action on the tournament named in the form body, in one write transaction; say
    what happened, or why it did not. The URL names only the action (so every dashboard POST
    has a URL of its own without parameters, and the form body is the one source of them)."""
    form = ActionForm()
    form.validate()
    if form.errors.get("csrf_token"):  # CSRFProtect refuses first; this is the form's own check
        abort(400)
    tournament_id = form.tournament_id.data
    if not isinstance(tournament_id, int):
        abort(404)
    if form.errors.get("player_id"):
        form.player_id.data = None
    try:
        with database().write() as session:
            _load(session, tournament_id)
            message = run(session, tournament_id, form)
    except ServiceError as error:
        message = says(error)
    flash(message)
    return redirect(url_for(".tournament_detail", tournament_id=tournament_id), 303)


@bp.post("/tournaments/start")
def start() -> Response:
    def run(session: Session, tournament_id: int, form: ActionForm) -> str:
        start_tournament(session, utc_now(), site(), tournament_id=tournament_id, actor=actor())
        return _("Tournament started: the games are made and the players told.")

    return _act(run)


@bp.post("/tournaments/close-round")
def close() -> Response:
    def run(session: Session, tournament_id: int, form: ActionForm) -> str:
        if not isinstance(form.round.data, int):
            abort(400)  # the page's form always names the round it closes
        close_round(session, utc_now(), site(), tournament_id=tournament_id,
                    round_number=form.round.data, actor=actor())
        return _("Round closed: the next round is paired. Games still running go on and count "
                 "when they end.")

    return _act(run)


@bp.post("/tournaments/withdraw")
def withdraw() -> Response:
    def run(session: Session, tournament_id: int, form: ActionForm) -> str:
        if form.player_id.data is None:
            raise ServiceError(_("choose the player who withdraws"))
        withdraw_player(session, utc_now(), site(), tournament_id=tournament_id,
                        player_id=form.player_id.data, actor=actor())
        return _("The player has withdrawn; their games still running were forfeited.")

    return _act(run)


@bp.post("/tournaments/cancel")
def cancel() -> Response:
    def run(session: Session, tournament_id: int, form: ActionForm) -> str:
        cancel_tournament(session, utc_now(), site(), tournament_id=tournament_id,
                          actor=actor(), reason=str(form.reason.data or "").strip()[:500])
        return _("Tournament cancelled: its running games were aborted and the players told.")

    return _act(run)
