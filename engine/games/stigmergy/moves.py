"""Stigmergy's move notation: a cell (``D5``), a replacement (``D5x``), a word, or the komi.

Kept apart from :mod:`engine.games.stigmergy.rules` so the rules and the drawing can both name the
move type without importing each other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.base import IllegalMove
from engine.games.stigmergy.state import WORD_ORDER
from engine.hexboard import HexMove
from engine.text import Text

# "komi 3" too: lists show a named komi so, and the word is the same in every language we speak.
_KOMI = re.compile(r"^(?:komi\s*)?([+-]?)\s*(\d{1,6})$", re.IGNORECASE)


@dataclass(frozen=True)
class KomiMove:
    """The first setup turn: naming the komi, written as a signed integer.

    >>> str(KomiMove.parse(" +4 ")), str(KomiMove(-3)), str(KomiMove.parse("Komi -2"))
    ('4', '-3', '-2')
    """

    value: int

    def __str__(self) -> str:
        return str(self.value)

    @classmethod
    def parse(cls, text: str) -> KomiMove:
        match = _KOMI.match(text.strip())
        if not match:
            raise IllegalMove(Text("%(move)s is not a komi (a whole number such as 7 or -3)",
                                   move=repr(text.strip())))
        return cls(int(match.group(1) + match.group(2)))


EXAMPLES = ("D5", "D5x", "pass", "take-button", "7")
"""Moves of each kind, for the answer to text that is no move at all."""

StigmergyMove = HexMove | KomiMove
"""``D5`` place, ``D5x`` replace, ``pass``, ``take-button``, ``play-second``, or a komi (``7``)."""


def parse_move(text: str) -> StigmergyMove:
    """Read Stigmergy notation.

    >>> [str(parse_move(t)) for t in ("d5", "D5 x", "Take-Button", "-3")]
    ['D5', 'D5x', 'take-button', '-3']
    """
    if _KOMI.match(text.strip()):
        return KomiMove.parse(text)
    move = HexMove.parse(text, WORD_ORDER, EXAMPLES)
    if move.origin is not None:
        raise IllegalMove(Text("%(move)s is not a Stigmergy move: stones never move "
                               "(try D5, D5x, pass or take-button)", move=repr(text.strip())))
    return move

