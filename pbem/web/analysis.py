"""The analysis board (pbem.analysis): from a move link, a seat's game page, and the public game
page or replay, at any position. GET only, and nothing here is ever played: "Play the first
move" only opens the move link's confirm page.

The address holds everything: ``ply`` (the game's position the line starts from), ``line`` (its
steps, ``;`` between them), ``at`` (the step shown, 0: the start; the end of the line when
absent), ``cells`` (the cells clicked so far, as on the move page) and ``play`` (a move to play
at the step shown, from a button or typed: the page then redirects to the longer line). A line
whose address would be too long to share is kept (pbem.analysis.stored) and the address names it
by ``id`` instead of ``line``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext as _

import engine
from engine.text import Text
from pbem.addresses import has_control_characters
from pbem.analysis.line import (
    MAX_STEPS,
    SEPARATOR,
    DamagedLine,
    Line,
    branch,
    good_part,
    read_line,
    start_for,
)
from pbem.analysis.stored import MAX_ADDRESS, UnknownLine, keep_line, kept_steps
from pbem.conditional.service import allows_conditional_moves
from pbem.conditional.tree import STEP_JOIN
from pbem.models import GameRecord
from pbem.positions import (
    MoveMenu,
    TypedMove,
    current_state,
    engine_game,
    last_notation,
    move_menu,
    moves_of,
    resolve_typed,
    state_at,
)
from pbem.web.language import current_reader
from pbem.web.play import Page, turn_of_token
from pbem.web.replay import game_by_public_id
from pbem.web.support import (
    board_svg,
    cell_links,
    damaged_link,
    database,
    game_of_token,
    message_page,
    named_svg,
    needs_zoom,
    seat_labels,
    with_names,
)
from pbem.web.terms import seat_names

bp = Blueprint("analysis", __name__)

MAX_ECHO = 40  # characters of a bad step or number the page repeats
_UNSHOWN = MAX_STEPS + 1  # no step of any line: marks where a step's number goes in its address
_NUMBER = re.compile(r"[0-9]{1,9}")


@dataclass(frozen=True)
class Board:
    """Where an analysis starts and for whom: the game's position after ``ply`` moves, as
    ``viewer`` (a seat; None: the public) may know it, on the page ``endpoint`` with
    ``address`` (its path's arguments and the fixed part of its query)."""

    row: GameRecord
    game: engine.AnyGame
    start: Any
    viewer: int | None
    ply: int
    last: str | None  # the game's move that led to the start, marked on the board
    endpoint: str
    address: dict[str, Any]
    back_url: str
    token: str | None = None  # the link's token the page was opened with (a seat's)
    purpose: str | None = None  # its kind: "move" or "seat-view"
    confirm: Callable[[str], str] | None = None  # the confirm page of a first move
    links: dict[str, str] = field(default_factory=dict)
    kept: tuple[str, tuple[str, ...]] | None = None  # the kept line shown: its id and steps

    def url(self, steps: tuple[str, ...] = (), at: int | None = None, **query: Any) -> str:
        """This page with the line ``steps`` shown at step ``at`` (None: its end), by the
        kept line's id when it is that line."""
        at = None if at is None or at == len(steps) else at
        if self.kept is not None and steps and steps == self.kept[1]:
            return url_for(self.endpoint, **self.address, id=self.kept[0], at=at, **query)
        return url_for(self.endpoint, **self.address, line=SEPARATOR.join(steps) or None,
                       at=at, **query)

    def step_url(self, steps: tuple[str, ...]) -> Callable[[int], str]:
        """``lambda at: self.url(steps, at)``, the address built once (a page links each step
        of a line of hundreds, and each address holds the whole line)."""
        end = self.url(steps)
        marked = self.url(steps, _UNSHOWN)
        before, mark, after = marked.rpartition(f"at={_UNSHOWN}")
        assert mark, marked
        return lambda at: end if at == len(steps) else f"{before}at={at}{after}"

    def keeping(self, line_id: str, steps: tuple[str, ...]) -> Board:
        """This board showing the kept line ``line_id`` of ``steps``."""
        return replace(self, kept=(line_id, steps))

    def zoomed(self, zoom: bool) -> Board:
        """This board with its cells drawn twice as big (``zoom=2``, as on the move page), or
        fitted to the page."""
        address = {k: v for k, v in self.address.items() if k != "zoom"}
        return replace(self, address={**address, "zoom": 2} if zoom else address)

    def beside(self, other: tuple[str, ...] | None) -> Board:
        """This board keeping ``other``, the line it branched from (``was=``), or none."""
        address = {k: v for k, v in self.address.items() if k != "was"}
        kept = SEPARATOR.join(other) if other else ""
        # A long line is not kept beside another (it is a convenience): the address stays short.
        return replace(self, address={**address, "was": kept} if kept and
                       len(quote(kept)) < MAX_ADDRESS // 2 else address)

    def form_fields(self, steps: tuple[str, ...], at: int) -> dict[str, str]:
        """The hidden fields of a form that plays a move here (a GET form drops the query of
        its action)."""
        fields = {k: str(v) for k, v in self.address.items() if k in ("ply", "zoom", "was")}
        if self.kept is not None and steps and steps == self.kept[1]:
            fields["id"] = self.kept[0]
        elif steps:
            fields["line"] = SEPARATOR.join(steps)
        if at != len(steps):
            fields["at"] = str(at)
        return fields


@bp.get("/play/<token>/analysis")
def from_move(token: str) -> Page:
    """From the move page: the position of the player's turn, as they see it."""
    turn = turn_of_token(token)
    if not isinstance(turn, tuple) or not isinstance(turn[0], GameRecord):
        return turn
    row, seat, ply = turn
    game, state = current_state(row)
    assert row.id is not None
    with database().session() as session:
        last = last_notation(session, row.id) if ply else None
    return _page(Board(
        row, game, start_for(game, state, seat), seat, ply, last, "analysis.from_move",
        {"token": token}, url_for("play.move_page", token=token), token, "move",
        lambda move: url_for("play.confirm_page", token=token, move=move)))


@bp.get("/seat/<token>/analysis")
def from_seat(token: str) -> Page:
    """From a seat's game page, at any position of the game, as that seat sees it."""
    found = game_of_token("seat-view", token)
    if found is None:
        return damaged_link()
    row, fields = found
    seat = int(fields["seat"])
    return _from_record(row, seat, "analysis.from_seat", {"token": token},
                        lambda ply: url_for("games.seat_page", token=token, ply=ply),
                        token=token)


@bp.get("/g/<public_id>/analysis")
def from_game(public_id: str) -> Page:
    """From the public game page or the replay: what every player may see."""
    row = game_by_public_id(public_id)
    return _from_record(row, None, "analysis.from_game", {"public_id": public_id},
                        lambda ply: url_for("games.public_page", public_id=public_id, ply=ply))


def _from_record(row: GameRecord, viewer: int | None, endpoint: str, address: dict[str, Any],
                 back: Callable[[int], str], token: str | None = None) -> Page:
    assert row.id is not None
    with database().session() as session:
        moves = moves_of(session, row.id)
    total = len(moves)
    text = request.args.get("ply", "").strip()
    ply = total if not text else int(text) if _NUMBER.fullmatch(text) else -1
    if not 0 <= ply <= total:
        return message_page(
            _("There is no such position"),
            _("%(ply)s is not a position of this game: positions are numbered from 0 (the start) "
              "to %(total)d (after the last move).", ply=_echo(text), total=total), 400,
            game_url=back(total))
    game = engine_game(row)
    state = state_at(game, row, moves, ply)
    links = {"replay": url_for("replay.replay", public_id=row.public_id, ply=ply)}
    return _page(Board(row, game, start_for(game, state, viewer), viewer, ply,
                       moves[ply - 1].notation if ply else None, endpoint,
                       {**address, "ply": ply}, back(ply), token,
                       "seat-view" if token else None, None, links))


def _as_conditional(board: Board, line: Line) -> dict[str, str] | None:
    """The form that keeps the line as conditional moves, where it can be kept: from a seat's
    page at the game's position, the opponent to move, in a game that has them. The line's
    steps are read in pairs (their move, the seat's answer), a move being one seat's steps
    until the other's turn; an unanswered last move is left out. None where nothing can be
    kept."""
    if board.purpose != "seat-view" or board.token is None or board.viewer is None:
        return None
    if board.ply != board.row.ply or not allows_conditional_moves(board.game):
        return None
    runs: list[list[str]] = []  # the line's moves: each seat's steps until the other's turn
    previous: int | None = None
    for step, mover in zip(line.steps, line.movers, strict=True):
        if mover == previous:
            runs[-1].append(step)
        else:
            runs.append([step])
        previous = mover
    first = line.movers[0] if line.movers else board.viewer
    pairs = len(runs) // 2 if first != board.viewer else 0
    if not pairs:
        return None
    steps = [step for run in runs[:2 * pairs] for step in run]
    moves = [STEP_JOIN.join(run) for run in runs[:2 * pairs]]
    return {"text": "if " + " then ".join(moves),
            "url": url_for("conditional.keep", token=board.token),
            "moves": ", ".join(steps)}


def _echo(text: str) -> str:
    """What the page repeats of a bad part of its address: its start, every control character
    shown as \ufffd (the page says what was wrong, it does not pass on what was sent)."""
    return "".join(c if c.isprintable() else "\ufffd" for c in text[:MAX_ECHO])


def _step_number(text: str | None, steps: int) -> int | None:
    """The step ``at`` names: the line's end when absent, None when it is no step of it."""
    if text is None or not text.strip():
        return steps
    text = text.strip()
    if not _NUMBER.fullmatch(text) or int(text) > steps:
        return None
    return int(text)


def _page(board: Board) -> Page:
    game, reader = board.game, current_reader()
    board = board.zoomed(request.args.get("zoom") == "2")
    raw = request.args.get("line", "")
    line_id = request.args.get("id")
    if line_id is not None:
        assert board.row.id is not None
        try:
            with database().session() as session:
                raw = kept_steps(session, board.row.id, line_id.strip())
        except UnknownLine as error:
            return message_page(
                _("There is no such analysis line"),
                _("This address names an analysis line that was never kept for this game. "
                  "Check that the address was copied whole."),
                400 if error.malformed else 404, game_url=board.back_url)
    problem = ""
    try:
        line = read_line(game, board.start, raw)
    except DamagedLine as error:
        line = good_part(game, board.start, raw, error)
        line_id = None  # the address names the good part by its steps
        problem = _("Step %(number)d of the line in this address (%(step)s) cannot be played: "
                    "%(reason)s. The line is shown up to the step before it.",
                    number=error.number, step=_echo(error.step),
                    reason=reader.text(error.reason))
    if line_id is not None:
        board = board.keeping(line_id.strip(), line.steps)
    other = _other_line(game, board.start, request.args.get("was", ""), line)
    board = board.beside(other.steps if other else None)
    at = _step_number(request.args.get("at"), len(line.steps))
    if at is None:
        problem = problem or _(
            "%(at)s is not a step of this line: its steps are numbered from 0 (the start) to "
            "%(count)d (its end).", at=_echo(request.args.get("at", "")),
            count=len(line.steps))
        at = len(line.steps)
    shown = line.shown(at)
    running = line.open_at(at) and game.to_move(shown) is not None
    if problem:
        return _render(board, line, at, _menu(game, shown, (), running), status=400,
                       error=problem)
    played = request.args.get("play", "").strip()
    if played and not running:
        ended = Text("nothing can follow %(step)s here", step=line.steps[-1]) \
            if not line.open_at(at) else Text("the game is over")
        return _render(board, line, at, _menu(game, shown, (), running), status=422,
                       error=reader.text(ended))
    if played:
        typed = _typed(game, shown, played)
        if typed.move is not None:
            return redirect(_played(board, line, at, typed.move))
        return _render(board, line, at, _menu(game, shown, (), running), status=422,
                       error=reader.text(typed.reason), typed=typed, text=played)
    prefix = tuple(c for c in request.args.get("cells", "").upper().split(".") if c)
    menu = _menu(game, shown, prefix, running)
    if prefix and not menu.next_cells and not menu.complete:
        menu = _menu(game, shown, (), running)  # a stale or edited click: start the move over
    if menu.prefix and len(menu.complete) == 1 and not menu.next_cells:
        return redirect(_played(board, line, at, menu.complete[0]))
    return _render(board, line, at, menu, other=other)


def _other_line(game: engine.AnyGame, start: Any, raw: str, line: Line) -> Line | None:
    """The line this one branched from (``was=``), kept beside it to switch back to; a damaged
    or equal one is dropped (it is a convenience: the line itself is what the page is about)."""
    if not raw.strip():
        return None
    try:
        other = read_line(game, start, raw)
    except DamagedLine:
        return None
    return other if other.steps and other.steps != line.steps else None


def _played(board: Board, line: Line, at: int, move: str) -> str:
    """The address after ``move`` at step ``at``: a branch keeps the line it leaves beside it.
    A line too long for its address is kept, and the address names it."""
    steps, after = branch(line.steps, at, move)
    left = at < len(line.steps) and steps != line.steps  # the rest of the old line is left
    board = board.beside(line.steps) if left else board
    address = board.url(steps, after)
    if len(address) <= MAX_ADDRESS:
        return address
    assert board.row.id is not None
    with database().write() as session:
        line_id = keep_line(session, datetime.now(UTC), board.row.id, steps)
    return board.keeping(line_id, steps).url(steps, after)


def _menu(game: engine.AnyGame, state: Any, prefix: tuple[str, ...], running: bool) -> MoveMenu:
    if not running:
        return MoveMenu((), {}, [], [], [])
    return move_menu(game, state, prefix)


def _typed(game: engine.AnyGame, state: Any, text: str) -> TypedMove:
    if has_control_characters(text):
        return TypedMove(None, Text("a move is one line of text, without control characters"))
    return resolve_typed(game, state, text, reader=current_reader())


def _cell_links(board: Board, line: Line, at: int, menu: MoveMenu) -> Callable[[str], str | None]:
    return cell_links(menu.prefix, menu.next_cells, lambda cells, anchor: board.url(
        line.steps, at, cells=".".join(cells) or None, _anchor=anchor))


@dataclass(frozen=True)
class Switch:
    """The line a branch left: where they part (a step number from 1), its moves from there,
    and the address that shows it (keeping this line beside it in turn)."""

    step: int
    moves: tuple[str, ...]
    url: str


def _switch(board: Board, line: Line, other: Line) -> Switch:
    common = 0
    while common < min(len(line.steps), len(other.steps)) and \
            line.steps[common] == other.steps[common]:
        common += 1
    return Switch(common + 1, other.steps[common:],
                  board.beside(line.steps).url(other.steps, min(common + 1, len(other.steps))))


def _render(board: Board, line: Line, at: int, menu: MoveMenu, *, status: int = 200,
            error: str = "", typed: TypedMove | None = None, text: str = "",
            other: Line | None = None) -> Page:
    game, viewer, reader = board.game, board.viewer, current_reader()
    played = min(at, len(line.positions) - 1)  # the steps played for the position shown
    shown = line.positions[played]
    labels = seat_labels(board.row, game, shown)
    running = line.open_at(at) and game.to_move(shown) is not None
    links = _cell_links(board, line, at, menu) if running and (menu.next_cells or menu.prefix) \
        else None
    last = line.steps[played - 1] if played else board.last
    board_picture = named_svg(labels, board_svg(game, shown, viewer, last, links,
                                                chosen=menu.prefix if running else None))
    first = line.steps[0] if line.steps else None
    zoom = "zoom" in board.address
    step_url = board.step_url(line.steps)
    return render_template(
        "analysis.html", row=board.row, info=game.info, viewer=viewer, board=board_picture,
        names=seat_names(board.row.game_type, game.seat_names(shown), reader=reader),
        labels=labels, line=line, at=at, played=played, menu=menu, running=running,
        steps=[(labels[mover] if mover < len(labels) else str(mover + 1), step,
                step_url(number))
               for number, (mover, step) in enumerate(zip(line.movers, line.steps, strict=True),
                                                       1)],
        start_url=step_url(0), step_url=step_url,
        fields=board.form_fields(line.steps, at), action=url_for(board.endpoint,
                                                                 **board.address),
        clear_url=board.url(line.steps, at), restart_url=board.beside(None).url(),
        other=_switch(board, line, other) if other else None,
        stop=with_names(labels, line.stop) if line.stop and at == len(line.steps) else "",
        describe=with_names(labels, game.describe(shown, viewer)),
        text_board=with_names(labels, game.render_text(shown, viewer)),
        hidden=game.info.hidden_information, ply=board.ply, error=error, typed=typed,
        text=text, back_url=board.back_url, purpose=board.purpose,
        replay_url=board.links.get("replay"),
        first_move=first, confirm_url=board.confirm(first) if board.confirm and first else None,
        conditional=_as_conditional(board, line), zoom=zoom,
        zoom_url=board.zoomed(not zoom).url(line.steps, at, cells=".".join(menu.prefix) or None)
        if zoom or needs_zoom(board_picture) else None,
    ), status
