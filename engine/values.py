"""The plain values of the engine contract that need nothing else from it: the JSON and link
types, a finished game's :class:`Outcome`, and the :class:`NumberChoice` that stands for a range of
numbers among the legal moves. :mod:`engine.base` re-exports them all, so ``from engine.base import
Outcome`` keeps working.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]
"""A JSON-safe dict: what ``encode`` and ``view`` return."""

CellHref = Callable[[str], "str | None"]
"""Maps a cell label (as in the notation) to a link target, or None for no link."""


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game.

    ``winners`` holds the winning seats (several for a shared win, none for a draw); ``scores``
    has one number per seat where the game keeps score; ``reason`` is a
    :class:`~engine.text.Text` for the players.
    """

    winners: tuple[int, ...]
    scores: tuple[float, ...] | None = None
    reason: str = ""


@dataclass(frozen=True)
class NumberChoice:
    """A legal "move" that stands for every whole number in a range, e.g. Stigmergy's komi.

    ``legal_moves`` lists it instead of hundreds of numbers; ``play`` accepts any integer in
    ``low..high``; a web page offers a number field. ``str`` gives the marker the reference
    records use.

    >>> str(NumberChoice("komi", -62, 62))
    '<komi>'
    >>> 7 in NumberChoice("komi", -62, 62)
    True
    """

    name: str
    low: int
    high: int
    label: str = field(default="", compare=False)
    hint: str = field(default="", compare=False)
    """How to choose the number, for a player who has never had to (shown beside the field)."""

    def __str__(self) -> str:
        return f"<{self.name}>"

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int) and self.low <= value <= self.high

    def pick(self, rng: random.Random) -> int:
        return rng.randint(self.low, self.high)
