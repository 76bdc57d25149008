"""A whole turn of several steps (Rifugio: take, lay, steps, build, end) built on one page.

Without JavaScript the steps chosen so far travel in the URL (``steps=take 1;lay 0,1 r3``); the
page shows the position after them, played on a copy, offers the next step, an undo, and one
"Confirm the whole turn" POST that plays every step in one transaction: all of them or none.

A step that would reveal hidden information (a blind draw, a refilled display) is never played
for the page: it ends the preview, is shown as the last step with what it will do, and the player
confirms the turn so far. The next part of the turn then continues on this page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup

import engine
from engine.text import NO_TEXT, Text
from pbem.models import GameRecord
from pbem.positions import MoveMenu, move_menu, resolve_typed
from pbem.web.language import current_reader
from pbem.web.play import (
    OpenTurn,
    Page,
    Played,
    note_problem,
    open_turn,
    paused,
    play_steps,
    played_page,
)
from pbem.web.support import (
    board_svg,
    cell_links,
    named_svg,
    seat_labels,
    side_table,
    site,
    steps_played,
    with_names,
)
from pbem.web.terms import seat_names

bp = Blueprint("turns", __name__)

SEPARATOR = ";"
MAX_STEPS = 40  # longer than any real turn; a bound on the work one URL can ask for
_ROTATION = re.compile(r"^(?P<base>.*\S)\s+r(?P<turn>\d)$")
ROTATIONS = 6  # hexagonal tiles turn in sixths


@dataclass
class Built:
    """The steps of the URL that are legal one after the other, and what the page may show."""

    steps: list[str] = field(default_factory=list)
    shown: Any = None  # the position after the steps that may be previewed
    effect: str = ""  # what a last, revealing step will do (it is not played for the page)
    problem: str = ""  # why the rest of the steps in the URL were dropped (a Text)
    turn_over: bool = False  # after the steps it is someone else's turn, or the game is over

    @property
    def open(self) -> bool:
        """Whether another step can be added."""
        return not self.effect and not self.turn_over


def split_steps(raw: str) -> list[str]:
    return [s.strip() for s in raw.split(SEPARATOR) if s.strip()][:MAX_STEPS]


def build(game: engine.AnyGame, state: Any, seat: int, texts: list[str]) -> Built:
    built = Built(shown=state)
    for text in texts:
        if not built.open:
            built.problem = Text("nothing can follow %(step)s in this turn",
                                 step=built.steps[-1])
            break
        typed = resolve_typed(game, built.shown, text)
        if typed.move is None:
            built.problem = Text("%(step)s: %(reason)s", step=text, reason=typed.reason)
            break
        move = game.parse_move(typed.move)
        built.steps.append(typed.move)
        if game.reveals_hidden(built.shown, move):
            built.effect = game.hidden_effect(built.shown, move)  # a Text
            # Whether it ends the turn is public (Rifugio's end, never its blind take), so the
            # page can say "confirm" rather than "you continue afterwards".
            built.turn_over = game.to_move(game.play(built.shown, move, seat=seat)) != seat
            break
        built.shown = game.play(built.shown, move, seat=seat)
        built.turn_over = game.to_move(built.shown) != seat
    return built


def _url(token: str, steps: list[str], **args: Any) -> str:
    return url_for("turns.turn_page", token=token, steps=SEPARATOR.join(steps) or None, **args)


@bp.route("/play/<token>/turn", methods=["GET", "POST"])
def turn_page(token: str) -> Page:
    turn = open_turn(token)
    if not isinstance(turn, OpenTurn):
        return turn
    row, seat, ply, game, state = turn.row, turn.seat, turn.ply, turn.game, turn.state
    built = build(game, state, seat, split_steps(request.values.get("steps", "")))
    added = request.args.get("add", "").strip()
    if request.method != "POST" and added and built.open:
        return redirect(_url(token, [*built.steps, added]))
    if request.method != "POST":
        return _show(row, seat, token, game, built)
    if built.problem or not built.steps:
        return _show(row, seat, token, game, built, status=422,
                     error=built.problem or _("choose a step first"))
    if paused(row):
        return _show(row, seat, token, game, built, status=409)
    note = request.form.get("note", "")
    problem = note_problem(note)
    if problem:
        return _show(row, seat, token, game, built, status=400, error=problem)
    return _commit(row, seat, ply, built.steps, note)


def _show(row: GameRecord, seat: int, token: str, game: engine.AnyGame,
          built: Built, *, status: int = 200, error: str = "") -> Page:
    prefix = tuple(c for c in request.args.get("cells", "").upper().split(".") if c)
    menu = move_menu(game, built.shown, prefix if built.open else ())
    if built.open and prefix and not menu.next_cells and not menu.complete:
        menu = move_menu(game, built.shown, ())  # a stale click: start the step over
    if built.open and menu.prefix and len(menu.complete) == 1 and not menu.next_cells:
        return redirect(_url(token, [*built.steps, menu.complete[0]]))
    links = _cell_links(token, built, menu) if built.open else None
    labels = seat_labels(row, game, built.shown)
    reader = current_reader()
    return render_template(
        "turn.html", row=row, seat=seat, token=token, info=game.info, built=built, menu=menu,
        error=reader.text(error or built.problem), effect=reader.text(built.effect),
        paused=paused(row), note=request.form.get("note", ""), played=steps_played(row, seat),
        names=seat_names(row.game_type, game.seat_names(built.shown), reader=reader),
        describe=with_names(labels, game.describe(built.shown, seat)),
        board=named_svg(labels, board_svg(game, built.shown, seat, built.steps[-1]
                                          if built.steps and not built.effect else None, links,
                                          chosen=menu.prefix if built.open else None)),
        side=side_table(game, built.shown, seat), side_labels=labels,
        undo=_url(token, built.steps[:-1]) if built.steps else None,
        choices=_choices(game, built, seat, menu) if built.open else [],
        missing=_missing(game, built.shown, menu) if built.open else [],
        add_url=lambda move: _url(token, [*built.steps, move]),
    ), status


def _cell_links(token: str, built: Built, menu: MoveMenu) -> Any:
    return cell_links(menu.prefix, menu.next_cells, lambda cells, anchor: _url(
        token, built.steps, cells=".".join(cells) or None, _anchor=anchor))


@dataclass(frozen=True)
class Choice:
    """One way to finish the step at the clicked cells (e.g. a rotation), with a picture of the
    position after it when that reveals nothing."""

    move: str
    picture: Markup | None


def _choices(game: engine.AnyGame, built: Built, seat: int,
             menu: MoveMenu) -> list[Choice]:
    if len(menu.complete) < 2:
        return [Choice(m, None) for m in menu.complete]
    pictures = []
    for text in menu.complete:
        move = game.parse_move(text)
        picture = None
        if not game.reveals_hidden(built.shown, move):
            picture = board_svg(game, game.play(built.shown, move, seat=seat), seat, text)
        pictures.append(Choice(text, picture))
    return pictures


def _missing(game: engine.AnyGame, state: Any, menu: MoveMenu) -> list[str]:
    """Why the rotations that are not offered at the clicked cell are missing, from the engine."""
    found = [_ROTATION.match(m) for m in menu.complete]
    bases = {m["base"] for m in found if m}
    if len(bases) != 1:
        return []
    base = bases.pop()
    offered = {int(m["turn"]) for m in found if m}
    reasons = []
    for turn in range(ROTATIONS):
        if turn in offered:
            continue
        try:
            why: Text = game.why_illegal(state, game.parse_move(f"{base} r{turn}")) or NO_TEXT
        except engine.IllegalMove as error:
            why = error.text
        reasons.append(current_reader().gettext("%(step)s: %(reason)s", step=f"r{turn}",
                                                reason=current_reader().text(why)))
    return reasons


def _commit(row: GameRecord, seat: int, ply: int, steps: list[str], note: str) -> Page:
    assert row.id is not None
    played = play_steps(row.id, seat, ply, steps, note, title=_("Your turn was not played"),
                        refusal=lambda reason: _("Nothing was played: %(reason)s.",
                                                 reason=reason))
    if not isinstance(played, Played):
        return played
    if played.running and played.to_move == seat:
        # The turn goes on after a step whose result was hidden: build the rest here.
        return redirect(site().links.move_url(row.id, seat, played.ply) + "/turn", 303)
    return played_page(row.id, seat)
