"""Public tournament pages: /tournaments lists the listed ones that have started, and
/tournaments/<slug> shows one tournament's standings, tie-breaks, crosstable and rounds, every
game linked to its public page.

An unlisted tournament is never listed; its page is reached only by its slug, which is
unguessable (like a game's public id), so the organiser decides who gets the address. Public
pages show names only, never an email address.
"""

from __future__ import annotations

from flask import Blueprint, abort, render_template
from sqlmodel import col, select

from pbem.game_options import game_name
from pbem.models import Player
from pbem.tournaments.queries import points_text, standings_view
from pbem.tournaments.service import listed_tournaments, tournament_by_slug
from pbem.web.language import current_reader
from pbem.web.replay import profile_url
from pbem.web.support import database

bp = Blueprint("tournaments", __name__)


def game_name_here(game_type: str) -> str:
    """The game's name in the page's language (the id itself for a game no longer offered)."""
    return game_name(game_type, current_reader())


@bp.get("/tournaments")
def tournaments_index() -> str:
    with database().session() as session:
        shown = listed_tournaments(session)
    return render_template("tournaments.html", tournaments=shown, game_name=game_name_here)


@bp.get("/tournaments/<slug>")
def tournament_page(slug: str) -> str:
    with database().session() as session:
        tournament = tournament_by_slug(session, slug)
        if tournament is None:
            abort(404)
        view = standings_view(session, tournament)
        people = session.exec(select(Player).where(col(Player.id).in_(list(view.names))))
        profiles = {p.id: profile_url(p) for p in people}
    return render_template("tournament.html", view=view, points_text=points_text,
                           profiles=profiles, game_name=game_name_here(view.tournament.game_type))
