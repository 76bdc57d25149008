"""Public tournament pages: /tournaments lists the listed ones that have started, and
/tournaments/<slug> shows one tournament's standings, tie-breaks, crosstable (for a Swiss, a table
of each player's rounds) and rounds, every game linked to its public page.

An unlisted tournament is never listed; its page is reached only by its slug, which is
unguessable (like a game's public id), so the organiser decides who gets the address. Public
pages show names only, never an email address.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from flask import Blueprint, abort, render_template, url_for
from flask_babel import gettext as _
from markupsafe import Markup, escape
from sqlmodel import col, select

from pbem.game_options import game_name
from pbem.models import GameStatus, Player
from pbem.tournaments.queries import StandingsView, points_text, standings_view
from pbem.tournaments.service import listed_tournaments, tournament_by_slug
from pbem.web.language import current_reader
from pbem.web.replay import profile_url
from pbem.web.support import database

bp = Blueprint("tournaments", __name__)


def game_name_here(game_type: str) -> str:
    """The game's name in the page's language (the id itself for a game no longer offered)."""
    return game_name(game_type, current_reader())


def _game_links() -> Callable[[str], str]:
    """A game's link by its public id, escaped, asked of url_for once a game: a table shows each
    game once for each of its players."""
    return cache(lambda public_id: str(escape(url_for("games.public_page", public_id=public_id))))


@bp.app_template_global()
def crosstable_cells(view: StandingsView) -> list[Markup]:
    """The crosstable's cells (tournament_standings.html), one run of them per row in the
    standings' order, the columns in that order too: what the row's player scored against the
    column's, each score linked to its game, and a dash where the player meets themself.

    Written here, not by a loop in the template: a table of every pair of 200 players has 40,000
    cells, and Jinja took a quarter of a second to write them one by one. Each column's
    empty cell is written once and reused; only the cells of games played are written per row.
    The HTML is the template's, character for character."""
    labels = [escape(f"{row.standing.rank}. {row.name}") for row in view.rows]
    column = {row.standing.player: n for n, row in enumerate(view.rows)}
    empty = [f'\n<td data-label="{label}"></td>\n' for label in labels]
    link = _game_links()
    runs = []
    for me, row in enumerate(view.rows):
        cells = list(empty)
        cells[me] = '\n<td class="self">&mdash;</td>\n'
        for opponent, scores in view.cross.get(row.standing.player, {}).items():
            them = column[opponent]
            played = " ".join(f'<a href="{link(public_id)}">{escape(points_text(points))}</a>'
                              for points, public_id in scores)
            cells[them] = f'\n<td data-label="{labels[them]}">{played}</td>\n'
        runs.append(Markup("".join(cells)))
    return runs


@bp.app_template_global()
def round_by_round_cells(view: StandingsView) -> list[Markup]:
    """A Swiss's table of rounds (tournament_standings.html), one run of cells per row in the
    standings' order, a cell per round made so far: the rank of each opponent met there and the
    points scored, linked to the game (or the word for a game still running); a bye; or
    nothing, for a round the player sat out.

    Written here for the crosstable's reason (:func:`crosstable_cells`): a 200-player Swiss of
    seven rounds has 1,400 cells, too many for a loop in the template."""
    rank = {row.standing.player: row.standing.rank for row in view.rows}
    numbers = range(1, view.tournament.current_round + 1)
    labels = {n: escape(_("Round %(round)d", round=n)) for n in numbers}
    running, aborted, bye = escape(_("playing")), escape(_("aborted")), escape(_("bye"))
    played = view.round_by_round
    link = _game_links()
    runs = []
    for row in view.rows:
        mine = played.get(row.standing.player, {})
        cells = []
        for number in numbers:
            cell = mine.get(number)
            if cell is None:
                shown = ""
            elif cell.game is None:
                shown = bye
            else:
                outcome = (escape(points_text(cell.points)) if cell.points is not None
                           else aborted if cell.game.status == GameStatus.ABORTED else running)
                shown = (", ".join(str(rank[p]) for p in cell.opponents)
                         + f': <a href="{link(cell.game.public_id)}">{outcome}</a>')
            cells.append(f'<td data-label="{labels[number]}">{shown}</td>')
        runs.append(Markup("".join(cells)))
    return runs


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
