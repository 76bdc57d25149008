"""Open seeks: the list (filterable by game) and its join buttons, for signed-in players.

Joining is a POST with the page's CSRF token; two players joining the last seat at once get
one seat each at most (pbem.challenges.seeks), and the one too late is told so.
"""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext as _
from sqlmodel import select
from werkzeug.wrappers import Response

import engine
from pbem.challenges.seeks import SeatTaken, join_seek, open_seeks
from pbem.challenges.service import describe, people_of, players_by_id
from pbem.challenges.tables import Challenge
from pbem.clock.wall import utc_now
from pbem.errors import ServiceError
from pbem.models import Player
from pbem.services.common import shown_name
from pbem.web.challenges import rules
from pbem.web.csrf import check_csrf
from pbem.web.language import current_reader
from pbem.web.player_sessions import current_player
from pbem.web.support import damaged_link, database, shown_reason, site

bp = Blueprint("seeks", __name__)


def _seeks_page(game_type: str, error: str = "", status: int = 200,
                notice: str = "") -> tuple[str, int]:
    reader = current_reader()
    player = current_player()
    with database().session() as session:
        rows = open_seeks(session, utc_now(), game_type)
        lines = []
        for row in rows:
            assert row.id is not None
            people = people_of(session, row.id)
            players = players_by_id(session, [p.player_id for p in people])
            lines.append({**describe(row, reader, [shown_name(players[p.player_id], reader)
                                                   for p in people]),
                          "taken": len(people), "joined": player is not None and any(
                              p.player_id == player.id for p in people)})
    return render_template("seeks.html", lines=lines, games=list(engine.GAMES.values()),
                           chosen=game_type, error=error, notice=notice, player=player), status


@bp.get("/seeks")
def seeks() -> tuple[str, int]:
    game_type = (request.args.get("game") or "").strip()
    if game_type and game_type not in engine.GAMES:
        # Every seek rather than none, saying why: a silent "all" looks like a working filter.
        return _seeks_page("", notice=_("There is no game called %(game)s; showing every game.",
                                        game=game_type))
    return _seeks_page(game_type)


@bp.post("/seeks/<public_id>/join")
def join(public_id: str) -> tuple[str, int] | Response:
    check_csrf()
    player = current_player()
    if player is None:
        # Back to the seeks once signed in, with a word on why they were sent away.
        return redirect(url_for("signin.sign_in_page", next=url_for("seeks.seeks"), why="seek"),
                        303)
    game_type = (request.form.get("game") or "").strip()
    try:
        with database().write() as session:
            row = session.exec(select(Challenge).where(Challenge.public_id == public_id)).first()
            if row is None or row.id is None:
                return damaged_link()
            me = session.get(Player, player.id)
            assert me is not None
            join_seek(session, utc_now(), site(), rules(), challenge_id=row.id, player=me)
    except SeatTaken as error:
        return _seeks_page(game_type if game_type in engine.GAMES else "", shown_reason(error), 409)
    except ServiceError as error:
        return _seeks_page(game_type if game_type in engine.GAMES else "", shown_reason(error), 400)
    return redirect(url_for("challenges.challenge_page", public_id=public_id), 303)
