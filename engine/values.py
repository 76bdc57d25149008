"""The plain values of the engine contract that need nothing else from it: the JSON and link
types, a finished game's :class:`Outcome` and the :class:`Ending` that says how it came about,
and the :class:`NumberRange` that describes a range of number moves to a page. :mod:`engine.base`
re-exports them all, so ``from engine.base import Outcome`` keeps working.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine.text import NO_TEXT, Text

JSON = dict[str, Any]
"""A JSON-safe dict: what ``encode`` and ``view`` return."""

CellHref = Callable[[str], "str | None"]
"""Maps a cell label (as in the notation) to a link target, or None for no link."""


class Ending(StrEnum):
    """How a game ended: by its rules, or off the board, by what the players or the server did.

    >>> Ending("time"), str(Ending.RULES)
    (<Ending.TIME: 'time'>, 'rules')
    """

    RULES = "rules"
    """The rules ended it: the position says so (no seat is to move)."""
    RESIGNATION = "resignation"
    TIME = "time"
    """A seat ran out of time and forfeited."""
    ADJUDICATION = "adjudication"
    """An organiser decided the result."""
    ABORT = "abort"
    """Stopped without a result."""


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game.

    ``winners`` holds the winning seats (several for a shared win, none for a draw); ``scores``
    has one number per seat where the game keeps score; ``reason`` is a
    :class:`~engine.text.Text` for the players; ``ending`` says how the game ended: a game's
    own outcomes are all :attr:`Ending.RULES`, a server names the others.
    """

    winners: tuple[int, ...]
    scores: tuple[float, ...] | None = None
    reason: Text = NO_TEXT
    ending: Ending = Ending.RULES


_WHOLE_NUMBER = re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class NumberRange:
    """The whole numbers ``low..high`` that are legal moves where a seat names a number, e.g.
    Stigmergy's komi: a description for a page (which offers a number field instead of a button
    per number), never a move itself. Each number is a move of its own in ``legal_moves``, whose
    notation is the number (``7``, ``-3``).

    >>> komi = NumberRange("komi", -62, 62)
    >>> 7 in komi, 63 in komi, komi.covers("-62"), komi.covers("pass")
    (True, False, True, False)
    """

    name: str
    low: int
    high: int
    label: str = field(default="", compare=False)
    hint: str = field(default="", compare=False)
    """How to choose the number, for a player who has never had to (shown beside the field)."""

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int) and self.low <= value <= self.high

    def covers(self, move: object) -> bool:
        """Whether ``move`` (a move or its notation) is one of the numbers of this range."""
        notation = str(move)
        return _WHOLE_NUMBER.fullmatch(notation) is not None and int(notation) in self

    def pick(self, rng: random.Random) -> int:
        """A number of the range, uniformly (as ``Game.random_move`` draws it)."""
        return rng.randint(self.low, self.high)
