"""Slow, plain referees for cross-checking the engines, written from /work/shared/rules alone.

Each referee works on a dict ``cell label -> piece`` and spells every rule out with explicit
loops, so that a reader can hold it line by line against the rules text. They are deliberately
independent of the engines (and of engine.hexboard): even the board geometry is rebuilt here from
the README's description of labels.

The common interface of a referee (see :class:`Referee`): ``start()`` gives a position,
``legal(pos)`` the sorted canonical move strings, ``play(pos, text)`` a new position,
``to_move(pos)`` the seat or None, ``winners(pos)`` the winning seats once the game is over.

>>> board = Board(3, 3)
>>> board.labels[:5]
['A1', 'B1', 'C1', 'A2', 'B2']
>>> board.step("C2", "NW"), board.step("C2", "NE"), board.step("C2", "SW"), board.step("C2", "SE")
('C3', 'D3', 'B1', 'C1')
"""

from __future__ import annotations

from typing import Any, Protocol

# README "Hex boards": up-left of C2 is C3 (same column, next row), up-right is D3 (next column,
# next row), down-left is B1, down-right is C1, left and right are B2 and D2.
# Each direction is (column change, row change).
DIRECTIONS: dict[str, tuple[int, int]] = {
    "E": (1, 0),
    "W": (-1, 0),
    "NE": (1, 1),
    "NW": (0, 1),
    "SW": (-1, -1),
    "SE": (0, -1),
}


def label_of(column: int, row: int) -> str:
    """Column 0 is A, row 0 is row 1."""
    return chr(ord("A") + column) + str(row + 1)


class Board:
    """A hexagon with edges alternating a and b (a == b: the hexhex board of side a).

    README: rows from the bottom have b, b+1, ..., b+a-1 cells, then shrink by one per row down to
    a; while rows grow, each starts at column A; once they shrink, each starts one column further
    right.
    """

    def __init__(self, a: int, b: int) -> None:
        self.labels: list[str] = []
        self.position: dict[str, tuple[int, int]] = {}
        number_of_rows = a + b - 1
        first_column = 0
        length = b
        for row in range(number_of_rows):
            if row > 0:
                if row < a:
                    length += 1  # still growing: starts at column A again
                else:
                    length -= 1  # shrinking: starts one column further right
                    first_column += 1
            for column in range(first_column, first_column + length):
                label = label_of(column, row)
                self.labels.append(label)
                self.position[label] = (column, row)
        self.cell_at = {place: label for label, place in self.position.items()}
        # Rays and neighbours are remembered once found: the referees ask for them very often.
        self._rays: dict[tuple[str, str], list[str]] = {}
        self._neighbours: dict[str, list[str]] = {}

    def step(self, label: str, direction: str) -> str | None:
        """The neighbour of ``label`` in ``direction``, or None off the board."""
        column, row = self.position[label]
        dc, dr = DIRECTIONS[direction]
        return self.cell_at.get((column + dc, row + dr))

    def neighbours(self, label: str) -> list[str]:
        """The (up to six) adjacent cells."""
        if label in self._neighbours:
            return self._neighbours[label]
        found = []
        for direction in DIRECTIONS:
            other = self.step(label, direction)
            if other is not None:
                found.append(other)
        self._neighbours[label] = found
        return found

    def ray(self, label: str, direction: str) -> list[str]:
        """The cells from ``label`` outward in ``direction``, nearest first, up to the edge."""
        if (label, direction) in self._rays:
            return self._rays[label, direction]
        cells = []
        current = self.step(label, direction)
        while current is not None:
            cells.append(current)
            current = self.step(current, direction)
        self._rays[label, direction] = cells
        return cells


class Referee(Protocol):
    """What every referee offers; positions are opaque to the caller."""

    board: Board

    def start(self) -> Any: ...

    def legal(self, pos: Any) -> list[str]: ...

    def play(self, pos: Any, text: str) -> Any: ...

    def to_move(self, pos: Any) -> int | None: ...

    def winners(self, pos: Any) -> tuple[int, ...] | None: ...


def make_referee(game_id: str, options: dict[str, Any]) -> Referee:
    """The referee for ``game_id`` with ``options`` as ``engine.new_game`` takes them."""
    from . import mosey, refugia, stigmergy

    if game_id in mosey.GAMES:
        return mosey.MoseyReferee(game_id, int(options.get("order", 4)))
    if game_id == "refugia":
        return refugia.RefugiaReferee(str(options.get("board", "3-4")))
    if game_id == "stigmergy":
        return stigmergy.StigmergyReferee(int(options.get("size", 8)),
                                          str(options.get("komi", "negotiate")))
    raise KeyError(game_id)
