"""Public leaderboards: /ratings lists the games with ratings, /ratings/<game_id> ranks players.

Who is ranked: only players with at least one rated game appear. Players with fewer than
:data:`pbem.ratings.model.PROVISIONAL_GAMES` rated games have a *provisional* rating: a few
results say little, and the shown rating (μ − 3σ) is still low because the uncertainty is high.
They are listed after the ranked players, without a rank and marked "provisional", so that a
lucky first game never puts someone above players with a long record, and nobody with a
provisional rating is hidden either. Both parts keep the service's order, best first.

A leaderboard shows at most :data:`LIMIT` players (a note says so when there are more): the
page stays light on a phone. Public pages show names only, never an email address.

The player's own ratings, with the graph of each (pbem.web.rating_graph), are on their games
page (:func:`rating_lines`); a rated game's page shows each player's rating (:func:`seat_ratings`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flask import Blueprint, abort, current_app, render_template, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from markupsafe import Markup
from sqlmodel import Session, col, func, select

import engine
from pbem.models import GameRecord, Seat
from pbem.ratings.model import PROVISIONAL_GAMES, Rating
from pbem.ratings.service import Entry, history, leaderboard, ratings_of
from pbem.ratings.tables import PlayerRating
from pbem.web.language import current_reader
from pbem.web.rating_graph import history_svg
from pbem.web.support import database
from pbem.web.terms import words

bp = Blueprint("ratings", __name__)

LIMIT = 100


def rated_game_types(session: Session) -> dict[str, int]:
    """Game id -> how many players have a rating there (at least one rated game)."""
    rows = session.exec(
        select(PlayerRating.game_type, func.count(col(PlayerRating.id)))
        .where(PlayerRating.games > 0).group_by(col(PlayerRating.game_type))).all()
    return {game_type: count for game_type, count in rows}


@bp.get("/ratings")
def ratings_index() -> str:
    reader = current_reader()
    with database().session() as session:
        counts = rated_game_types(session)
    games = [(game_id, words(reader, info.name), counts[game_id])
             for game_id, info in engine.GAMES.items() if game_id in counts]
    return render_template("ratings.html", games=games)


@bp.get("/ratings/<game_id>")
def leaderboard_page(game_id: str) -> str:
    info = engine.GAMES.get(game_id)
    if info is None:
        abort(404)
    with database().session() as session:
        entries = [entry for entry in leaderboard(session, game_id, LIMIT + 1)
                   if entry.rating.games > 0]
    more = len(entries) > LIMIT
    entries = entries[:LIMIT]
    ranked = [entry for entry in entries if not entry.rating.provisional]
    rows: list[tuple[int | None, Entry]] = list(enumerate(ranked, start=1))
    rows += [(None, entry) for entry in entries if entry.rating.provisional]
    return render_template("ratings_game.html", game_id=game_id,
                           name=words(current_reader(), info.name), rows=rows, more=more,
                           limit=LIMIT, provisional_games=PROVISIONAL_GAMES,
                           rules_url=url_for("rules.rules_page", game_id=game_id)
                           if "rules.rules_page" in current_app.view_functions else None)


def rating_lines(session: Session, player_id: int, *, owner: str | None = None
                 ) -> list[dict[str, Any]]:
    """The player's rating in each game they have rated games in, in the catalogue's order,
    each with its history graph and its leaderboard's address. ``owner`` names the player in
    the graph's title (a profile); without it the title says "Your" (their own games page)."""
    reader = current_reader()
    ratings = ratings_of(session, player_id)
    lines = []
    for game_id, info in engine.GAMES.items():
        rating = ratings.get(game_id)
        if rating is None or rating.games < 1:
            continue
        name = words(reader, info.name)
        lines.append({"game_id": game_id, "name": name, "rating": rating,
                      "graph": rating_graph(history(session, player_id, game_id), name,
                                            owner=owner),
                      "url": url_for("ratings.leaderboard_page", game_id=game_id)})
    return lines


def rating_graph(points: Sequence[Any], game_name: str, *, owner: str | None = None) -> Markup:
    """The history graph, its words in the page's language; ElementTree escapes every text, so
    the SVG is safe to inline."""
    if not points:
        return Markup("")
    first, last, count = points[0].shown, points[-1].shown, len(points)
    summary = (_("Rating %(rating)d after one rated game", rating=last) if count == 1 else
               ngettext("Rating %(first)d to %(last)d over %(num)d game",
                        "Rating %(first)d to %(last)d over %(num)d games", count,
                        first=first, last=last))
    title = (_("Your %(game)s rating, game by game", game=game_name) if owner is None else
             _("%(player)s's %(game)s rating, game by game", player=owner, game=game_name))
    return Markup(history_svg(
        points, title=title, summary=summary,
        # Under the axis's "1": one game reads "1 rated game", not "1 rated games".
        x_label=ngettext("rated game", "rated games", count),
        point_title=lambda number, rating: _("Game %(number)d: %(rating)d", number=number,
                                             rating=rating)))


def seat_ratings(session: Session, row: GameRecord, seats: Sequence[Seat]) -> list[Rating | None]:
    """Each seat's player's current rating in the game's id, seat by seat (None: no rated game
    yet); nothing for a game that is not rated."""
    if not row.rated:
        return []
    found = []
    for seat in seats:
        rating = ratings_of(session, seat.player_id).get(row.game_type)
        found.append(rating if rating is not None and rating.games > 0 else None)
    return found
