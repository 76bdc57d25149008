"""What the blueprints share: the database, the site, the clock, token pages and board drawing."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Sequence
from datetime import datetime
from email.utils import make_msgid
from typing import Any

from flask import current_app, g, render_template, request
from flask_babel import gettext as _
from flask_babel import refresh
from limits import parse as parse_limit
from markupsafe import Markup, escape
from sqlalchemy import or_
from sqlmodel import col, select

import engine
from engine.text import Words
from pbem.db import Database
from pbem.errors import reason_of
from pbem.i18n import Reader
from pbem.links import DamagedLink, Purpose
from pbem.models import GameRecord, OutboxEmail, Player, Seat
from pbem.positions import played_this_turn
from pbem.services import Site
from pbem.services.common import players_of, seats_of, shown_names
from pbem.templating import render_email
from pbem.web.language import current_reader, read_as
from pbem.web.terms import label_seats, name_numbered_players, seat_names


def database() -> Database:
    db: Database = current_app.extensions["pbem.database"]
    return db


def site() -> Site:
    value: Site = current_app.extensions["pbem.site"]
    return value


def load_token(purpose: Purpose, token: str) -> dict[str, Any]:
    return site().links.load(purpose, token)


def message_page(title: str, text: str, status: int = 200, **context: Any) -> tuple[str, int]:
    return render_template("message.html", title=title, text=text, **context), status


def shown_reason(error: Exception) -> str:
    """Why ``error`` refused, in the page's language (an engine's or a service's Text)."""
    return current_reader().text(reason_of(error))


def damaged_link() -> tuple[str, int]:
    return message_page(
        _("This link is damaged"),
        _("The link you followed is not one we sent, or part of it got lost on the way (long "
          "links are sometimes cut in two by mail programs). Please copy the whole link from the "
          "email into the address bar, or open the game from your games page."), 400)


def read_as_player(player: Player) -> Reader:
    """This page is for ``player`` (their link was followed): in their language and time zone.

    The page's language switcher (which would change nothing here) gives way to a note that the
    language is chosen on their games page, unless ``player`` is the one signed in to this
    browser (base.html): their pages offer their account's languages. A game or move link
    someone forwards must not change the player's settings."""
    reader = Reader.of(player, current_app.config.get("DEFAULT_LANGUAGE", "en"))
    read_as(reader)
    refresh()  # Flask-Babel may have looked at the visitor's language already
    g.pbem_reader_id = player.id
    return reader


def read_as_seat(game_id: int, seat: int) -> Reader | None:
    """This page is for whoever holds ``seat`` of the game (None: nobody does)."""
    with database().session() as session:
        player = session.exec(
            select(Player).join(Seat, col(Seat.player_id) == col(Player.id))
            .where(Seat.game_id == game_id, Seat.seat == seat)).first()
    return None if player is None else read_as_player(player)


def board_svg(
    game: engine.AnyGame, state: Any, viewer: int | None, last_move: str | None = None,
    cell_href: Callable[[str], str | None] | None = None, *,
    chosen: Sequence[str] | None = None, ending: engine.Ending | None = None,
) -> Markup:
    """The engine's SVG, inline so its cell links work without JavaScript; with ``chosen`` (the
    cells clicked so far, maybe none) the engine outlines them and marks where the next click
    can go, captures apart. ``ending``: how the game ended, at its last position (None: it
    runs, or another position is shown); where it ended off the board (a resignation, a
    timeout, an adjudication), the board says "game over" rather than who is to move.

    The engine builds SVG with ElementTree, which escapes every text, so it is safe to inline.
    """
    return Markup(anchor_cells(game.render_svg(state, viewer, last_move, cell_href,
                                               chosen=chosen, ending=ending,
                                               translator=current_reader().catalog)))


def side_table(game: engine.AnyGame, state: Any, viewer: int | None) -> engine.SideTable | None:
    """The table the game's picture draws beside the board (None: none), in the page's
    language, for _side_table.html: a phone cannot read it in the scaled picture."""
    return game.side_table(state, viewer, translator=current_reader().catalog)


# A cell link's target ends with "#cell-<label>" (see cell_anchor); giving the link that id makes
# the reloaded page scroll to it and start keyboard navigation there, where the click was.
_CELL_LINK = re.compile(r'(<a href="[^"#]*#(cell-[A-Za-z0-9_-]+)"[^>]*?)\s*(/?)>')


def cell_anchor(label: str) -> str:
    """The id of a cell's link (labels such as Rifugio's "2,-1" are not valid in ids as such)."""
    return "cell-" + re.sub(r"[^A-Za-z0-9_-]", "_", label.upper())


def anchor_cells(svg: str) -> str:
    return _CELL_LINK.sub(r'\1 id="\2"\3>', svg)


def cell_links(prefix: tuple[str, ...], next_cells: dict[str, tuple[str, ...]],
               page: Callable[[tuple[str, ...], str], str]) -> Callable[[str], str | None]:
    """Where each cell of a clickable board links: ``page(cells, anchor)``, the same page with
    that cell clicked after ``prefix`` (a cell of ``prefix`` clicked again takes it back, and
    the clicks after it), scrolled to the cell so that keyboard and screen reader users go on
    from there; None for a cell no click may use (``next_cells``: clickable cell -> the new
    clicks, as :class:`pbem.positions.MoveMenu` has them)."""

    def cell_href(label: str) -> str | None:
        key = label.upper()
        if key in prefix:
            cells: tuple[str, ...] | None = prefix[: prefix.index(key)]
        else:
            cells = next_cells.get(key)
        if cells is None:
            return None
        return page(cells, cell_anchor(key))

    return cell_href


MIN_TARGET_PX = 24  # WCAG 2.5.8: pointer targets at least 24 by 24 CSS pixels
PHONE_BOARD_PX = 358  # a 390 px phone less the page's padding


TAP_PX = 26  # what a board of links is drawn at least: 24 px cells, and a pixel to spare
_SVG_WIDTH = re.compile(r'<svg[^>]*\swidth="([\d.]+)"')


def _cell_width(svg: str) -> float | None:
    """The width of the board's first cell link, in the SVG's own units (None: no links)."""
    shape = re.search(r'<a [^>]*>\s*<(?:polygon|path)[^>]*\s(?:points|d)="([^"]+)"', svg)
    if not shape:
        return None
    xs = [float(x) for x in re.findall(r"(-?[\d.]+)[ ,]+-?[\d.]+", shape[1])]
    return max(xs) - min(xs) if xs else None


def needs_zoom(svg: str) -> bool:
    """Whether the board's cells would be smaller than a finger-sized target on a phone, where
    the board is scaled to the page's width (so the page offers a wider, scrollable board)."""
    width, cell = _SVG_WIDTH.search(svg), _cell_width(svg)
    if not width or not cell:
        return False
    return cell * PHONE_BOARD_PX / float(width[1]) < MIN_TARGET_PX


def board_size(svg: str) -> Markup:
    """The style of a board's box (``<div class="board" {{ board | board_size }}>``): the
    board's own width (``--drawn``) and, if its cells are links, the width at which they are
    finger-sized (``--tap``), for base.html's CSS: a small board is not blown up to the page's
    width, and a large one starts tappable on a phone, panning in its box. The SVG itself stays
    the engine's, byte for byte."""
    width = _SVG_WIDTH.search(svg)
    if not width:
        return Markup("")
    drawn = float(width[1])
    style = f"--drawn: {drawn:g}px"
    if cell := _cell_width(svg):
        style += f"; --tap: {math.ceil(drawn * TAP_PX / cell)}px"
    return Markup(f'style="{style}"')


def game_or_none(game_id: int) -> GameRecord | None:
    with database().session() as session:
        return session.get(GameRecord, game_id)


def seat_out_of_game(game_id: int, seat: int) -> bool:
    """Whether ``seat`` has resigned or forfeited, so the computer plays it now."""
    with database().session() as session:
        return session.exec(select(Seat.id).where(
            Seat.game_id == game_id, Seat.seat == seat,
            or_(col(Seat.resigned), col(Seat.forfeited)))).first() is not None


def steps_played(row: GameRecord, seat: int) -> list[str]:
    """What ``seat`` has played so far in the turn it is still making (see
    :func:`pbem.positions.played_this_turn`), so that its next page says the turn goes on."""
    if row.id is None or not row.ply or row.to_move != seat:
        return []
    with database().session() as session:
        return played_this_turn(session, row.id, seat)


def game_of_token(purpose: Purpose, token: str) -> tuple[GameRecord, dict[str, Any]] | None:
    """The game a link is about, with the link's fields; None for a damaged or unknown link,
    and for a seat the game does not have (seat 5 of a two-player game)."""
    try:
        fields = load_token(purpose, token)
    except DamagedLink:
        return None
    with database().session() as session:
        row = session.get(GameRecord, fields["game"])
        if row is None or row.id is None:
            return None
        if "seat" in fields and session.exec(select(Seat.id).where(
                Seat.game_id == row.id, Seat.seat == fields["seat"])).first() is None:
            return None
    if "seat" in fields:  # a seat's link: the page is in its player's language
        read_as_seat(row.id, fields["seat"])
    return row, fields


__all__ = ["DamagedLink"]


def seat_labels(row: GameRecord, game: engine.AnyGame, state: Any) -> list[str]:
    """"Alice (Light)" for each seat: the player's name and the seat's colour."""
    with database().session() as session:
        seats = seats_of(session, row.id or 0)
        players = players_of(session, seats)
    reader = current_reader()
    names = seat_names(row.game_type, game.seat_names(state), reader=reader)
    return label_seats(seats, shown_names(seats, players, reader), names)


def with_names(labels: list[str], text: Words) -> str:
    """The engine's words, in the page's language, with "Player 2" replaced by that seat's
    label."""
    return name_numbered_players(current_reader().text(text), labels)


def named_svg(labels: list[str], svg: Markup) -> Markup:
    """A board whose title and text alternative name players rather than "Player 1"; the labels
    are escaped, as everything else in the engine's SVG is."""
    return Markup(with_names([str(escape(label)) for label in labels], str(svg)))


def within_limits(scope: str, limit: str, address: str, *, count: bool = True) -> bool:
    """Count this request against the email ``address`` and the client's IP in ``scope`` (a
    form that sends mail: games page links, sign-in links); False once either is over
    ``limit`` ("5 per hour"). Both are always counted, so a client cycling addresses still
    spends its own allowance. With ``count=False`` only ask whether one more would fit (a form
    checked before it is counted, so a refused one costs nothing). Without the dashboard's
    limiter nothing is counted."""
    limiter = current_app.extensions.get("pbem.limiter")
    if limiter is None:
        return True
    item = parse_limit(limit)
    site_key = hashlib.sha256(current_app.config["BASE_URL"].encode()).hexdigest()[:12]
    keys = ("address:" + hashlib.sha256(address.encode()).hexdigest()[:32],
            f"ip:{request.remote_addr or 'unknown'}")
    check = limiter.limiter.hit if count else limiter.limiter.test
    results = [check(item, f"{scope}:{site_key}", key) for key in keys]
    return all(results)


def queue_player_mail(session: Any, now: datetime, player: Player, *, kind: str,
                      subject: Callable[[Reader], str], **context: Any) -> None:
    """An email to ``player`` about no game (their games page link, a sign-in link), in their
    language: ``email/<kind>.txt`` and ``.html`` with ``context``, the subject made for them."""
    assert player.id is not None
    reader = Reader.of(player, current_app.config.get("DEFAULT_LANGUAGE", "en"))
    values = {"player": player, "subject": subject(reader), **context}
    session.add(OutboxEmail(
        player_id=player.id, kind=kind, to_address=player.email, to_name=player.name,
        subject=values["subject"],
        text_body=render_email(f"email/{kind}.txt", reader, **values),
        html_body=render_email(f"email/{kind}.html", reader, **values),
        message_id=make_msgid(idstring=kind.replace("_", ""), domain=site().mail_domain),
        next_attempt_at=now, created_at=now))


def unknown_game_reason(game_id: str) -> str:
    """Why ``game_id`` is refused ("unknown game ..., choose one of ..."): a stale form or a
    typo in an address; "" when none was given or the game exists."""
    if not game_id:
        return ""
    try:
        engine.game_class(game_id)
    except engine.UnknownGame as error:
        return reason_of(error)
    return ""
