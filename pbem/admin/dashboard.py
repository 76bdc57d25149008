"""The games list and the create-game form."""

from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

import engine
from pbem.admin.actions import welcome_new_players
from pbem.admin.forms import blank_form, read_form
from pbem.admin.queries import BOUNCED, STATUSES, GameFilter, count_bounced, list_games
from pbem.admin.support import PAGE_SIZE, actor, admin_blueprint, says
from pbem.clock.wall import utc_now
from pbem.services import ServiceError, create_game
from pbem.services.common import audit
from pbem.web.support import database, site

bp = admin_blueprint("admin")


@bp.get("/")
def games_list() -> str:
    wanted = GameFilter(status=request.args.get("status", ""),
                        game_type=request.args.get("game", ""),
                        player=request.args.get("player", ""),
                        page=request.args.get("page", 1, type=int) or 1)
    now = utc_now()
    with database().session() as session:
        page = list_games(session, now, wanted, PAGE_SIZE)
        # Counted over every game, whatever the filter: the summary is the organiser's to-do.
        bounced = count_bounced(session)
    query = {k: v for k, v in (("status", wanted.status), ("game", wanted.game_type),
                               ("player", wanted.player)) if v}
    return render_template("admin/games.html", page=page, wanted=wanted, statuses=STATUSES,
                           games=engine.GAMES, query=query, now=now, bounced=bounced,
                           bounced_status=BOUNCED)


@bp.route("/games/new", methods=["GET", "POST"])
def new_game() -> Response | tuple[str, int]:
    # A POST takes everything from its form body, never from the query string.
    game_type = (request.form if request.method == "POST" else request.args).get("game", "")
    info = engine.GAMES.get(game_type)
    if info is None:
        error = _("There is no game %(game)s.", game=repr(game_type)) if game_type else ""
        return render_template("admin/choose_game.html", games=engine.GAMES,
                               error=error), 404 if game_type else 200
    if request.method != "POST":  # GET and HEAD only show the form
        return render_template("admin/new_game.html", form=blank_form(info)), 200
    form = read_form(info)
    if not form.errors:
        now = utc_now()
        try:
            with database().write() as session:
                # Before the game: its invitations are written in each player's language.
                welcome_new_players(session, now, form.players, form.language)
                row = create_game(session, now, site(), game_type=info.id, players=form.players,
                                  options=form.options,
                                  random_seats=form.values.get("seat_order") == "random",
                                  **form.service_args)
                audit(session, now, "admin: game created", game_id=row.id, actor=actor())
        except ServiceError as error:
            form.errors["form"] = says(error)
        else:
            flash(_("Game created; the invitations are on their way."))
            return redirect(url_for("admin_game.game_detail", game_id=row.id), 303)
    return render_template("admin/new_game.html", form=form), 422
