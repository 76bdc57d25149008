"""Mosey positions: the state every game of the family reads, and the opening setups.

Kept apart from :mod:`engine.games.mosey.rules` (the games) and :mod:`engine.games.mosey.drawing`
(their pictures and words), which both read positions.
"""

from __future__ import annotations

from dataclasses import dataclass

LIGHT, DARK = 0, 1

# Every third cell in a 3-colouring: Light and Dark take two colours, the third starts empty.
SETUPS: dict[int, tuple[str, str]] = {
    4: ("B1 A2 D2 C3 F3 B4 E4 D5 G5 C6 F6 E7",
        "C1 B2 E2 A3 D3 C4 F4 B5 E5 D6 G6 F7"),
    5: ("A1 D1 C2 F2 B3 E3 A4 D4 G4 C5 F5 I5 B6 E6 H6 D7 G7 F8 I8 E9 H9",
        "B1 E1 A2 D2 C3 F3 B4 E4 H4 A5 D5 G5 C6 F6 I6 E7 H7 D8 G8 F9 I9"),
    6: ("A1 D1 C2 F2 B3 E3 H3 A4 D4 G4 C5 F5 I5 B6 E6 H6 K6 D7 G7 J7 C8 F8 I8 E9 H9 K9 G10 J10 "
        "F11 I11",
        "C1 F1 B2 E2 A3 D3 G3 C4 F4 I4 B5 E5 H5 A6 D6 G6 J6 C7 F7 I7 E8 H8 K8 D9 G9 J9 F10 I10 "
        "H11 K11"),
}


@dataclass(frozen=True)
class MoseyState:
    """A position: bitmasks of Light's and Dark's stones over cell indices, and whose turn it is.

    ``over`` says that ``mover`` has no move: the game has ended. Build states with
    :meth:`MoseyGame.position` (or ``start``/``play``), which work it out.
    """

    light: int
    dark: int
    mover: int = LIGHT
    ply: int = 0
    over: bool = False
