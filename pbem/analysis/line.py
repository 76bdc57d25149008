"""An analysis line: moves played one after another from a start, for every side in turn.

Hidden information stays hidden, for every game alike. The start is a position the viewer
cannot tell from the real one (the game's :meth:`engine.base.Search.determinize`, with a fixed
guess): the true pile and the other seats' hidden values are never played through, so nothing
the line shows can depend on them (a board that shows a commitment to a hidden seed shows the
guess's). A move that would reveal something (a draw from a pile,
:meth:`engine.base.Game.reveals_hidden`) ends the line unplayed, with what it would do; so does
a move that ends a game with hidden information, whose result would count values the viewer
cannot see.

>>> import engine
>>> game = engine.new_game("mosey", order=4)
>>> line = read_line(game, game.start(), "G5xF4; b1-c2")
Traceback (most recent call last):
...
pbem.analysis.line.DamagedLine: step 2 (b1-c2): B1 is not your stone
>>> line = read_line(game, game.start(), "G5xF4")
>>> line.steps, line.open_at(1), line.movers
(('G5xF4',), True, (0,))
>>> branch(line.steps, 0, "G5-F5"), branch(line.steps, 0, "G5xF4")
((('G5-F5',), 1), (('G5xF4',), 1))
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from engine import AnyGame
from engine.text import NO_TEXT, Text
from pbem.positions import resolve_typed

SEPARATOR = ";"
MAX_STEPS = 400  # more than a long game's worth of analysis; a bound on the work one URL asks
GUESS_SEED = 34  # the same guess of the hidden parts on every request: a line reads back alike


class DamagedLine(ValueError):
    """A step of the line in an address that is not a legal move where it stands (the address
    was changed by hand, or cut): ``number`` counts steps from 1, ``reason`` is a Text."""

    def __init__(self, number: int, step: str, reason: Text) -> None:
        super().__init__(f"step {number} ({step}): {reason}")
        self.number, self.step, self.reason = number, step, reason


@dataclass(frozen=True)
class Line:
    """The steps of a line (notations) and the position after each: ``positions[i]`` is the
    position after ``i`` steps. A line that ``stop`` ends has one position fewer than steps
    and one: its last step is not played, and ``stop`` (a Text) says what it would do."""

    steps: tuple[str, ...]
    positions: tuple[Any, ...]
    movers: tuple[int, ...]  # the seat that makes each step
    stop: str = ""

    def shown(self, at: int) -> Any:
        """The position shown at step ``at`` (after ``at`` steps; before a stopping step)."""
        return self.positions[min(at, len(self.positions) - 1)]

    def open_at(self, at: int) -> bool:
        """Whether a move can be played after ``at`` steps (nothing stops the line there)."""
        return not (self.stop and at >= len(self.steps))


def start_for(game: AnyGame, state: Any, viewer: int | None) -> Any:
    """The position to analyse: ``state`` where nothing is hidden, else one that ``viewer`` (a
    seat; None: the public) cannot tell from it, its hidden parts guessed. For the public the
    guess is made twice, from seat 0's view and then from seat 1's: the second guesses seat 0's
    values too, so no seat's true values are left."""
    search = game.search()
    if not search.hidden or game.to_move(state) is None:  # once over, nothing is hidden
        return state
    rng = random.Random(GUESS_SEED)
    seats = [viewer] if viewer is not None else [0, 1]
    for seat in seats:
        state = search.determinize(state, seat, rng)
    return state


def split_line(raw: str) -> list[str]:
    """The steps of an address's ``line``, separated by ``;``."""
    return [s.strip() for s in raw.split(SEPARATOR) if s.strip()]


def stop_reason(game: AnyGame, state: Any, move: Any) -> Text:
    """Why the line cannot go on after ``move`` (legal at ``state``): "" when it can."""
    if game.reveals_hidden(state, move):
        return game.hidden_effect(state, move)
    if game.info.hidden_information and game.to_move(game.apply(state, move)) is None:
        return Text("this move ends the game, whose result counts what is hidden from you")
    return NO_TEXT


def read_line(game: AnyGame, start: Any, raw: str) -> Line:
    """The line of an address from ``start``; :class:`DamagedLine` at its first step that is
    not legal there (the steps before it are good: ``error.number - 1`` of them)."""
    texts = split_line(raw)
    steps: list[str] = []
    positions = [start]
    movers: list[int] = []
    for number, text in enumerate(texts, 1):
        here = positions[-1]
        if number > MAX_STEPS:
            raise DamagedLine(number, text, Text("a line has at most %(count)d steps",
                                                 count=MAX_STEPS))
        if len(positions) == len(steps):  # the previous step stopped the line
            raise DamagedLine(number, text, Text("nothing can follow %(step)s here",
                                                 step=steps[-1]))
        mover = game.to_move(here)
        if mover is None:
            raise DamagedLine(number, text, Text("the game is over"))
        typed = resolve_typed(game, here, text)
        if typed.move is None:
            raise DamagedLine(number, text, typed.reason)
        move = game.parse_move(typed.move)
        steps.append(typed.move)
        movers.append(mover)
        stop = stop_reason(game, here, move)
        if stop:
            if number < len(texts):
                raise DamagedLine(number + 1, texts[number],
                                  Text("nothing can follow %(step)s here", step=typed.move))
            return Line(tuple(steps), tuple(positions), tuple(movers), stop)
        positions.append(game.apply(here, move))
    return Line(tuple(steps), tuple(positions), tuple(movers))


def good_part(game: AnyGame, start: Any, raw: str, error: DamagedLine) -> Line:
    """The steps of a damaged line before its first bad one."""
    return read_line(game, start, SEPARATOR.join(split_line(raw)[: error.number - 1]))


def branch(steps: tuple[str, ...], at: int, move: str) -> tuple[tuple[str, ...], int]:
    """The line and step after playing ``move`` at step ``at``: the line's own next move
    follows the line; another move starts a branch there (the rest of the old line is left)."""
    if at < len(steps) and steps[at] == move:
        return steps, at + 1
    return (*steps[:at], move), at + 1
