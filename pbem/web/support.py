"""What the blueprints share: the database, the site, the clock, token pages and board drawing."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from flask import current_app, render_template
from markupsafe import Markup
from sqlmodel import select

import engine
from pbem.db import Database
from pbem.links import DamagedLink, Purpose
from pbem.models import Game, Seat
from pbem.services import Site


def database() -> Database:
    db: Database = current_app.extensions["pbem.database"]
    return db


def site() -> Site:
    value: Site = current_app.extensions["pbem.site"]
    return value


def utc_now() -> datetime:
    return datetime.now(UTC)


def load_token(purpose: Purpose, token: str) -> dict[str, Any]:
    return site().links.load(purpose, token)


def message_page(title: str, text: str, status: int = 200, **context: Any) -> tuple[str, int]:
    return render_template("message.html", title=title, text=text, **context), status


def damaged_link() -> tuple[str, int]:
    return message_page(
        "This link is damaged",
        "The link you followed is not one we sent, or part of it got lost on the way (long links "
        "are sometimes cut in two by mail programs). Please copy the whole link from the email "
        "into the address bar, or open the game from your games page.", 400)


def board_svg(
    game: engine.Game, state: Any, viewer: int | None, last_move: str | None = None,  # type: ignore[type-arg]
    cell_href: Callable[[str], str | None] | None = None, *,
    chosen: Sequence[str] | None = None,
) -> Markup:
    """The engine's SVG, inline so its cell links work without JavaScript; with ``chosen`` (the
    cells clicked so far, maybe none) the engine outlines them and marks where the next click
    can go, captures apart.

    The engine builds SVG with ElementTree, which escapes every text, so it is safe to inline.
    """
    return Markup(anchor_cells(game.render_svg(state, viewer, last_move, cell_href,
                                               chosen=chosen)))


# A cell link's target ends with "#cell-<label>" (see cell_anchor); giving the link that id makes
# the reloaded page scroll to it and start keyboard navigation there, where the click was.
_CELL_LINK = re.compile(r'(<a href="[^"#]*#(cell-[A-Za-z0-9_-]+)"[^>]*?)\s*(/?)>')


def cell_anchor(label: str) -> str:
    """The id of a cell's link (labels such as Rifugio's "2,-1" are not valid in ids as such)."""
    return "cell-" + re.sub(r"[^A-Za-z0-9_-]", "_", label.upper())


def anchor_cells(svg: str) -> str:
    return _CELL_LINK.sub(r'\1 id="\2"\3>', svg)


MIN_TARGET_PX = 24  # WCAG 2.5.8: pointer targets at least 24 by 24 CSS pixels
PHONE_BOARD_PX = 358  # a 390 px phone less the page's padding


def needs_zoom(svg: str) -> bool:
    """Whether the board's cells would be smaller than a finger-sized target on a phone, where
    the board is scaled to the page's width (so the page offers a wider, scrollable board)."""
    width = re.search(r'<svg[^>]*\swidth="([\d.]+)"', svg)
    shape = re.search(r'<a [^>]*>\s*<(?:polygon|path)[^>]*\s(?:points|d)="([^"]+)"', svg)
    if not width or not shape:
        return False
    xs = [float(x) for x in re.findall(r"(-?[\d.]+)[ ,]+-?[\d.]+", shape[1])]
    cell = max(xs) - min(xs) if xs else 0.0
    return cell * PHONE_BOARD_PX / float(width[1]) < MIN_TARGET_PX


def game_or_none(game_id: int) -> Game | None:
    with database().session() as session:
        return session.get(Game, game_id)


def game_of_token(purpose: Purpose, token: str) -> tuple[Game, dict[str, Any]] | None:
    """The game a link is about, with the link's fields; None for a damaged or unknown link,
    and for a seat the game does not have (seat 5 of a two-player game)."""
    try:
        fields = load_token(purpose, token)
    except DamagedLink:
        return None
    with database().session() as session:
        row = session.get(Game, fields["game"])
        if row is None or row.id is None:
            return None
        if "seat" in fields and session.exec(select(Seat.id).where(
                Seat.game_id == row.id, Seat.seat == fields["seat"])).first() is None:
            return None
    return row, fields


__all__ = ["DamagedLink"]


def seat_labels(row: Game, game: engine.Game, state: Any) -> list[str]:  # type: ignore[type-arg]
    """"Alice (Light)" for each seat: the player's name and the seat's colour."""
    from pbem.services.common import players_of, seats_of
    from pbem.web.terms import seat_label, seat_names

    with database().session() as session:
        seats = seats_of(session, row.id or 0)
        players = players_of(session, seats)
    names = seat_names(row.game_type, game.seat_names(state))
    return [seat_label(players[s.player_id].name, names[s.seat] if s.seat < len(names) else "")
            for s in seats]


def with_names(labels: list[str], text: str) -> str:
    """The engine's words with "Player 2" replaced by that seat's label."""
    from pbem.web.terms import name_generic_seats

    return name_generic_seats(text, labels)


def named_svg(labels: list[str], svg: Markup) -> Markup:
    """A board whose title and text alternative name players rather than "Player 1"."""
    from markupsafe import escape

    return Markup(with_names([str(escape(label)) for label in labels], str(svg)))
