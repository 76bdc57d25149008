"""The public archive (/archive): finished, listed games, newest first, a page at a time.

Filters come from a plain GET form, so the page works without JavaScript and a search can be
bookmarked: the game id (``mosey``), part of a player's name (any case), and the days the game
finished between (UTC, both included). Unlisted games never appear, whatever is searched.
Each row links the game's replay and its record.

Paging is a small offset paginator of its own: the dashboard's (pbem.admin.queries) lives in
another package, and pbem's packages do not import each other (tests/test_layers.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from flask import Blueprint, render_template, request, url_for
from flask_babel import gettext as _
from sqlalchemy import bindparam
from sqlmodel import Session, col, func, select

import engine
from pbem.game_options import game_name
from pbem.models import GameRecord, GameStatus, Player, Seat
from pbem.services.common import players_of, seats_by_game, shown_name
from pbem.services.results import result_in
from pbem.web.language import current_reader
from pbem.web.replay import profile_url, record_links
from pbem.web.support import database
from pbem.web.terms import words

bp = Blueprint("archive", __name__)

PAGE_SIZE = 20
MAX_PAGE = 100_000  # beyond any real archive; keeps OFFSET a sane number
MAX_NAME = 100
# Matches counted at most: counting a million finished games for every page took longer than the
# page; beyond this the page says "more than" and offers the next page while pages are full.
# 10,000 was still 47 ms for a common part of a name (issue 36); 50 pages are as many as anyone
# pages through, and a narrower filter finds the rest.
COUNT_CAP = 1_000
# Players a name filter lists by id at most (see _named); PostgreSQL plans 20,000 in 10 ms.
MAX_NAMED = 50_000


@dataclass
class Filters:
    """What the form asked for (as typed, to show again) and what it means."""

    typed: dict[str, str]
    errors: dict[str, str] = field(default_factory=dict)
    game: str = ""
    player: str = ""
    since: date | None = None
    until: date | None = None
    page: int = 1


def _day(typed: str, name: str, errors: dict[str, str]) -> date | None:
    if not typed:
        return None
    try:
        return date.fromisoformat(typed)
    except ValueError:
        errors[name] = _("%(text)s is not a date like 2025-07-31", text=repr(typed[:40]))
        return None


def read_filters(args: Any) -> Filters:
    """The filters from the query string, each mistake said next to its field."""
    typed = {name: str(args.get(name, "")).strip()[:MAX_NAME]
             for name in ("game", "player", "from", "to", "page")}
    found = Filters(typed)
    errors = found.errors
    if typed["game"]:
        if typed["game"] in engine.GAMES:
            found.game = typed["game"]
        else:
            errors["game"] = _("there is no game called %(game)s", game=repr(typed["game"]))
    found.player = typed["player"]
    found.since = _day(typed["from"], "from", errors)
    found.until = _day(typed["to"], "to", errors)
    if found.since and found.until and found.since > found.until:
        errors["to"] = _("the last day comes before the first day")
    if typed["page"]:
        if typed["page"].isdigit() and 1 <= int(typed["page"]) <= MAX_PAGE:
            found.page = int(typed["page"])
        else:
            errors["page"] = _("%(text)s is not a page number", text=repr(typed["page"][:20]))
    return found


def archive_query(session: Session, filters: Filters) -> Any:
    """Finished, listed games matching ``filters`` (a select of Game, not yet ordered)."""
    query = select(GameRecord).where(GameRecord.status == GameStatus.FINISHED,
                                     col(GameRecord.listed).is_(True))
    if filters.game:
        query = query.where(GameRecord.game_type == filters.game)
    if filters.player:
        query = query.where(col(GameRecord.id).in_(
            select(Seat.game_id).where(_named(session, filters.player))))
    if filters.since:
        query = query.where(col(GameRecord.finished_at) >= datetime.combine(filters.since, time(),
                                                                      UTC))
    if filters.until:
        end = datetime.combine(filters.until + timedelta(days=1), time(), UTC)
        query = query.where(col(GameRecord.finished_at) < end)
    return query


def _named(session: Session, typed: str) -> Any:
    """Seats held by a player whose name contains ``typed`` (any case), as a condition.

    The matching players are looked up first and their ids written into the games' query
    (issue 36): as a subquery PostgreSQL guessed that a part of a name matches 2 players, so
    "player 9" (1,111 players, 120,000 games) sorted every one of their games to show 20,
    where walking the archive newest first and checking each game's seats takes a millisecond.
    Knowing the ids, it picks between the two by how many games they play.
    """
    # Case-insensitive substring; autoescape so that % and _ in a name are plain letters.
    matches = func.lower(Player.name).contains(typed.lower(), autoescape=True)
    ids = list(session.exec(select(Player.id).where(matches).limit(MAX_NAMED + 1)))
    if len(ids) > MAX_NAMED:  # planning a list this long costs more than the guess loses
        return col(Seat.player_id).in_(select(Player.id).where(matches))
    # Written into the statement (whole numbers only), so the list has no parameter limit.
    return col(Seat.player_id).in_(bindparam("named", ids, expanding=True,
                                             literal_execute=True))


def archive_page(session: Session, filters: Filters) -> tuple[list[GameRecord], int]:
    """One page of the archive, newest first, and how many games match in all, counted up to
    ``COUNT_CAP + 1`` (more than :data:`COUNT_CAP`)."""
    query = archive_query(session, filters)
    total = session.exec(select(func.count()).select_from(
        query.with_only_columns(col(GameRecord.id)).limit(COUNT_CAP + 1).subquery())).one()
    newest_first = (col(GameRecord.finished_at).desc(), col(GameRecord.id).desc())
    # The page's ids first, from ix_games_archive_rows alone, then only their rows: a filter
    # by player matches thousands of games, whose whole rows (positions) were read to sort them.
    page = (query.with_only_columns(col(GameRecord.id)).order_by(*newest_first)
            .offset((filters.page - 1) * PAGE_SIZE).limit(PAGE_SIZE).subquery())
    rows = session.exec(select(GameRecord).where(col(GameRecord.id).in_(select(page.c.id)))
                        .order_by(*newest_first)).all()
    return list(rows), int(total)


def _lines(session: Session, rows: list[GameRecord]) -> list[dict[str, Any]]:
    """The page's rows, their seats and players read in two queries for the whole page."""
    seats = seats_by_game(session, [row.id for row in rows if row.id is not None])
    players = players_of(session, [s for found in seats.values() for s in found])
    return [_line(row, seats.get(row.id or 0, []), players) for row in rows]


def _line(row: GameRecord, seats: list[Seat], players: dict[int, Player]) -> dict[str, Any]:
    """A row of the list: the game, its players (linked to their profiles), the result."""
    reader = current_reader()
    people = [players[s.player_id] for s in seats]
    return {
        "row": row, "title": game_name(row.game_type, reader),
        "players": [(shown_name(p, reader), profile_url(p)) for p in people],
        "result": result_in(row, seats, players, reader),
        "replay": url_for("replay.replay", public_id=row.public_id, ply=0),
        "downloads": record_links(row.public_id),
    }


@bp.get("/archive")
def archive() -> tuple[str, int]:
    filters = read_filters(request.args)
    lines: list[dict[str, Any]] = []
    total = 0
    if not filters.errors:
        with database().session() as session:
            rows, total = archive_page(session, filters)
            lines = _lines(session, rows)
    capped = total > COUNT_CAP
    # Past the cap the last page is unknown: another one is offered while this one is full.
    pages = (filters.page + (len(lines) == PAGE_SIZE) if capped
             else max(1, -(-total // PAGE_SIZE)))
    kept: dict[str, Any] = {k: v for k, v in filters.typed.items() if v and k != "page"}
    reader = current_reader()
    return render_template(
        "archive.html", filters=filters, lines=lines, total=total, page=filters.page,
        capped=capped, cap=COUNT_CAP,
        pages=pages, games=[(game_id, words(reader, info.name))
                            for game_id, info in engine.GAMES.items()],
        page_url=lambda number: url_for("archive.archive", **kept, page=number),
    ), 400 if filters.errors else 200
