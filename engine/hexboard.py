"""Hex boards of any shape, their labels and edges, and the move notation shared by all hex games.

Cells are pointy-topped hexagons in rows numbered from 1 at the bottom; letters name the columns of
axial coordinates (up-left of C2 is C3, up-right is D3), exactly as Ludii labels hex boards.
A cell's index counts row by row from the bottom, left to right, from 0.

>>> board = hex_board(3)
>>> board.labels[:5]
('A1', 'B1', 'C1', 'A2', 'B2')
>>> [board.labels[n] for n in board.adjacent[board.index("C2")]]
['D2', 'D3', 'C3', 'B2', 'B1', 'C1']
>>> str(HexMove.parse(" c2 x e4 "))
'C2xE4'

A board is any set of cells (:class:`HexGrid`), and three shapes are built in, each shared
through a cached function: the hexagon (:class:`HexBoard`, :func:`hex_board`), the rhombus of
connection games such as Hex (:class:`Rhombus`, :func:`rhombus`) and the rectangle of offset rows
(:class:`HexRectangle`, :func:`hex_rectangle`). Every shape has the same labels, neighbours, rays,
``between``, rows and bitboards, so a new game picks a shape and subclasses nothing. Boards name
their edges, for games won by joining sides; :func:`engine.hexsvg.draw_hex_board` colours them
(``edge_colours``):

>>> hex5 = rhombus(5)
>>> list(hex5.edges)
['bottom', 'right', 'top', 'left']
>>> [hex5.labels[i] for i in hex5.edge("left").cells]
['A1', 'A2', 'A3', 'A4', 'A5']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from types import MappingProxyType

from engine.base import IllegalMove
from engine.text import Text

__all__ = [
    "DIRECTIONS", "STEPS", "BadBoard", "BitLayout", "Edge", "HexBoard", "HexGrid", "HexMove",
    "HexRectangle", "Rhombus", "UnknownEdge", "cell_label", "hex_board", "hex_rectangle",
    "rhombus", "set_bits", "shift_back", "shift_forward",
]

DIRECTIONS = ("E", "NE", "NW", "W", "SW", "SE")
"""The six directions, counter-clockwise from east; the opposite of d is (d + 3) % 6."""

# Axial (column, row) steps for each direction: NE keeps the diagonal, NW keeps the column.
STEPS = ((1, 0), (1, 1), (0, 1), (-1, 0), (-1, -1), (0, -1))

# Notation has one letter per column and at most two digits per row.
MAX_COLUMNS, MAX_ROWS = 26, 99


class BadBoard(ValueError):
    """A board that cannot be built: too small, off the labels' range, or an edge facing no side."""


class UnknownEdge(ValueError):
    """An edge name the board does not have."""


@dataclass(frozen=True)
class Edge:
    """One side of a board.

    ``cells``: the cells along it, in index order. ``sides``: the board's outline along it, as
    (cell, direction) pairs, each the side of ``cell`` facing ``DIRECTIONS[direction]`` where no
    cell is. A corner cell lies on both its edges; the side at a blunt corner (a hexagon's, or a
    rhombus's two wide ones) belongs to both edges, and a drawing gives each edge half of it.
    """

    cells: tuple[int, ...]
    sides: tuple[tuple[int, int], ...]


class HexGrid:
    """A board of any shape: the cells at some axial (column, row) coordinates, from (0, 0).

    ``facings`` names the board's edges by the way each faces, in degrees counter-clockwise from the
    drawing's right (0: right, 90: top, 270: bottom; a multiple of 30). An edge's cells are those
    with no neighbour straight out that way (in the one direction within 30 degrees, or in both);
    its sides are theirs that face within 60 degrees of it onto no cell.

    >>> shape = HexGrid([(0, 0), (1, 0), (2, 0), (0, 1), (1, 1)], facings={"bottom": 270})
    >>> shape.labels
    ('A1', 'B1', 'C1', 'A2', 'B2')
    >>> [shape.labels[i] for i in shape.edge("bottom").cells]
    ['A1', 'B1', 'C1']
    >>> shape.labels[shape.between(shape.index("A1"), shape.index("C1"))]
    'B1'

    Everything a playout needs is precomputed here once.
    """

    def __init__(self, cells: Iterable[tuple[int, int]],
                 facings: Mapping[str, int] | None = None) -> None:
        coords = sorted(set(cells), key=lambda cell: (cell[1], cell[0]))
        if not coords:
            raise BadBoard("a hex board needs at least one cell")
        for q, r in coords:
            if not (0 <= q < MAX_COLUMNS and 0 <= r < MAX_ROWS):
                raise BadBoard(f"cell ({q}, {r}) is outside columns 0-{MAX_COLUMNS - 1} and "
                               f"rows 0-{MAX_ROWS - 1}, which notation can name")
        self.coords: tuple[tuple[int, int], ...] = tuple(coords)
        self.size = len(coords)
        self.num_rows = coords[-1][1] + 1
        self.labels: tuple[str, ...] = tuple(cell_label(q, r) for q, r in coords)
        self._index = {label: i for i, label in enumerate(self.labels)}
        at = {c: i for i, c in enumerate(coords)}

        def step(i: int, d: int) -> int:
            q, r = coords[i]
            dq, dr = STEPS[d]
            return at.get((q + dq, r + dr), -1)

        # neighbours[i][d]: the cell in direction d, or -1 off the board.
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(step(i, d) for d in range(6)) for i in range(self.size)
        )
        self.adjacent: tuple[tuple[int, ...], ...] = tuple(
            tuple(n for n in ns if n >= 0) for ns in self.neighbours
        )
        self.neighbour_mask: tuple[int, ...] = tuple(
            sum(1 << n for n in ns) for ns in self.adjacent
        )
        rays: list[tuple[tuple[int, ...], ...]] = []
        for i in range(self.size):
            per_direction = []
            for d in range(6):
                ray, j = [], step(i, d)
                while j >= 0:
                    ray.append(j)
                    j = step(j, d)
                per_direction.append(tuple(ray))
            rays.append(tuple(per_direction))
        # rays[i][d]: the cells from i outward in direction d, nearest first, up to the edge.
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(rays)
        self.all_mask = (1 << self.size) - 1
        # Read-only: boards are shared between games (hex_board and the other factories cache).
        self.edges: Mapping[str, Edge] = MappingProxyType(
            {name: self._edge(facing) for name, facing in (facings or {}).items()})

    def __repr__(self) -> str:
        return f"<HexGrid of {self.size} cells>"

    def _edge(self, facing: int) -> Edge:
        if facing % 30 or not 0 <= facing < 360:
            raise BadBoard(f"an edge faces a multiple of 30 degrees from 0 to 330, not {facing}")

        def away(d: int) -> int:  # degrees between direction d and the way the edge faces
            turn = abs(60 * d - facing)
            return min(turn, 360 - turn)

        straight = [d for d in range(6) if away(d) <= 30]
        cells = tuple(i for i, ns in enumerate(self.neighbours) if all(ns[d] < 0 for d in straight))
        sides = tuple((i, d) for i in cells for d in range(6)
                      if away(d) <= 60 and self.neighbours[i][d] < 0)
        return Edge(cells, sides)

    def edge(self, name: str) -> Edge:
        """The edge called ``name``; raises UnknownEdge (naming the board's edges) otherwise."""
        try:
            return self.edges[name]
        except KeyError:
            raise UnknownEdge(f"{self!r} has no edge {name!r}; its edges: "
                              f"{', '.join(self.edges) or 'none'}") from None

    def index(self, label: str) -> int:
        """The index of a cell label (any case); raises IllegalMove for a cell not on this board."""
        try:
            return self._index[label.strip().upper()]
        except KeyError:
            raise IllegalMove(Text("%(cell)s is not a cell of this board",
                                   cell=label.strip().upper())) from None

    def __contains__(self, label: object) -> bool:
        return isinstance(label, str) and label.strip().upper() in self._index

    def direction(self, origin: int, target: int) -> tuple[int, int] | None:
        """(direction, distance) when ``target`` lies on a straight line from ``origin``."""
        for d in range(6):
            ray = self.rays[origin][d]
            if target in ray:
                return d, ray.index(target) + 1
        return None

    def between(self, origin: int, target: int) -> int | None:
        """The cell jumped over from ``origin`` to ``target`` two cells away in a line, else None.

        >>> board = hex_board(3)
        >>> board.labels[board.between(board.index("A1"), board.index("C1"))]
        'B1'
        """
        line = self.direction(origin, target)
        return self.neighbours[origin][line[0]] if line is not None and line[1] == 2 else None

    @cached_property
    def layout(self) -> BitLayout:
        """The bitboard layout fast playouts use."""
        return BitLayout(self)

    def row_ranges(self) -> list[tuple[int, int]]:
        """(first index, one past the last) for each row, bottom first (empty for a row of none)."""
        ranges, start = [], 0
        for row in range(self.num_rows):
            end = start
            while end < self.size and self.coords[end][1] == row:
                end += 1
            ranges.append((start, end))
            start = end
        return ranges


class HexBoard(HexGrid):
    """A hexagon of rows whose six edges alternate in length ``a`` and ``b``.

    ``a == b == n`` is the hexhex board of side n. Rows from the bottom have b, b+1, ...
    b+a-1 cells, then shrink by one per row down to a. Its edges, counter-clockwise: bottom,
    lower-right, upper-right, top, upper-left, lower-left.

    >>> board = hex_board(3, 4)
    >>> [board.labels[i] for i in board.edge("lower-right").cells]
    ['D1', 'E2', 'F3']
    """

    def __init__(self, a: int, b: int) -> None:
        if a < 2 or b < 2:
            raise BadBoard("a hex board needs edges of at least 2 cells")
        self.a, self.b = a, b
        cells: list[tuple[int, int]] = []
        for row in range(a + b - 1):
            first = 0 if row < a else row - a + 1
            length = b + row if row < a else b + a - 2 - (row - a)
            cells.extend((first + k, row) for k in range(length))
        super().__init__(cells, facings={"bottom": 270, "lower-right": 330, "upper-right": 30,
                                         "top": 90, "upper-left": 150, "lower-left": 210})

    def __repr__(self) -> str:
        return f"HexBoard({self.a}, {self.b})"


class Rhombus(HexGrid):
    """``columns`` cells by ``rows``, each row half a cell left of the one below (Hex's board).

    Its corners at A1 and at the top right are blunt (120 degrees), the other two sharp. Its edges:
    bottom (row 1), right (the last column), top (the last row) and left (column A).

    >>> board = rhombus(5, 4)
    >>> board.size, board.labels[-1]
    (20, 'E4')
    >>> [board.labels[i] for i in board.edge("right").cells]
    ['E1', 'E2', 'E3', 'E4']
    """

    def __init__(self, columns: int, rows: int) -> None:
        if columns < 2 or rows < 2:
            raise BadBoard("a rhombus needs sides of at least 2 cells")
        self.columns, self.rows = columns, rows
        super().__init__(((q, r) for r in range(rows) for q in range(columns)),
                         facings={"bottom": 270, "right": 30, "top": 90, "left": 210})

    def __repr__(self) -> str:
        return f"Rhombus({self.columns}, {self.rows})"


class HexRectangle(HexGrid):
    """``height`` rows of ``width`` cells, the second, fourth, ... half a cell to the right.

    Labels stay axial, so a row starts one letter further every second row up. Its edges: bottom,
    right (each row's last cell), top and left (each row's first).

    >>> board = hex_rectangle(3, 4)
    >>> [board.labels[start] for start, _ in board.row_ranges()]
    ['A1', 'B2', 'B3', 'C4']
    >>> [board.labels[i] for i in board.edge("left").cells]
    ['A1', 'B2', 'B3', 'C4']
    """

    def __init__(self, width: int, height: int) -> None:
        if width < 2 or height < 2:
            raise BadBoard("a rectangle of hexes needs sides of at least 2 cells")
        self.width, self.height = width, height
        super().__init__((((r + 1) // 2 + k, r) for r in range(height) for k in range(width)),
                         facings={"bottom": 270, "right": 0, "top": 90, "left": 180})

    def __repr__(self) -> str:
        return f"HexRectangle({self.width}, {self.height})"


class BitLayout:
    """The board as bitboards: cell (q, r) sits at bit r * width + q, with one spare column, so
    that a step in each direction is a fixed shift (``shifts``, in DIRECTIONS order) that never
    wraps onto another cell.

    >>> layout = hex_board(3, 4).layout
    >>> layout.width, layout.shifts
    (7, (1, 8, 7, -1, -8, -7))
    >>> layout.to_cells(layout.to_bits(0b1011)) == 0b1011
    True
    """

    def __init__(self, board: HexGrid) -> None:
        self.width = max(q for q, _ in board.coords) + 2
        self.bits = tuple(r * self.width + q for q, r in board.coords)  # cell index -> bit
        cell = [-1] * (self.width * board.num_rows)
        for i, bit in enumerate(self.bits):
            cell[bit] = i
        self.cell = tuple(cell)  # bit -> cell index (-1 for the spare column)
        self.full = sum(1 << bit for bit in self.bits)
        self.shifts = tuple(dr * self.width + dq for dq, dr in STEPS)

    def mask(self, cells: Iterable[int]) -> int:
        """The bitboard of some cell indices."""
        return sum(1 << self.bits[i] for i in cells)

    def cells(self, mask: int) -> list[int]:
        """The cell indices of a bitboard, in index order."""
        return sorted(self.cell[bit] for bit in set_bits(mask))

    def to_bits(self, cell_mask: int) -> int:
        """A mask over cell indices (bit i: cell i), as a bitboard."""
        return _remap(cell_mask, self.bits)

    def to_cells(self, mask: int) -> int:
        """A bitboard as a mask over cell indices."""
        return _remap(mask, self.cell)


def set_bits(mask: int) -> list[int]:
    """The positions of the bits set in ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def shift_back(mask: int, shift: int) -> int:
    """The bits b such that b + shift is in ``mask``: "my neighbour in that direction is in it"."""
    return mask >> shift if shift > 0 else mask << -shift


def shift_forward(mask: int, shift: int) -> int:
    """Every bit moved one step of ``shift``."""
    return mask << shift if shift > 0 else mask >> -shift


def _remap(mask: int, table: Sequence[int]) -> int:
    out = 0
    for bit in set_bits(mask):
        out |= 1 << table[bit]
    return out


@cache
def hex_board(a: int, b: int | None = None) -> HexBoard:
    """The (shared, cached) board with edges a and b; ``hex_board(n)`` is the hexhex of side n."""
    return HexBoard(a, a if b is None else b)


@cache
def rhombus(columns: int, rows: int | None = None) -> Rhombus:
    """The (shared, cached) rhombus of ``columns`` by ``rows``; ``rhombus(n)`` is n by n."""
    return Rhombus(columns, columns if rows is None else rows)


@cache
def hex_rectangle(width: int, height: int) -> HexRectangle:
    """The (shared, cached) rectangle of ``height`` rows of ``width`` cells."""
    return HexRectangle(width, height)


def cell_label(column: int, row: int) -> str:
    """``cell_label(2, 1)`` is 'C2': column from 0, row from 0 at the bottom."""
    return f"{chr(ord('A') + column)}{row + 1}"


_CELL = r"([A-Za-z])\s*(\d{1,2})"
_MOVE = re.compile(rf"^{_CELL}\s*([-x])\s*{_CELL}$|^{_CELL}\s*(x?)$", re.IGNORECASE)


@dataclass(frozen=True, order=True)
class HexMove:
    """A move on a hex board, in the notation of shared/rules/README.md.

    - ``pass`` (and other single words a game allows, e.g. ``take-button``): ``word`` is set;
    - ``D4``: place on ``target``; ``D4x``: replace the stone on ``target`` (``capture``);
    - ``C2-E2``: move the piece on ``origin`` to ``target``; ``C2xE4``: the same, capturing.

    >>> HexMove.parse("d4x")
    HexMove(origin=None, target='D4', capture=True, word=None)
    >>> str(HexMove(origin="C2", target="E2"))
    'C2-E2'
    """

    origin: str | None = None
    target: str | None = None
    capture: bool = False
    word: str | None = None

    def __str__(self) -> str:
        if self.word is not None:
            return self.word
        mark = "x" if self.capture else "-"
        if self.origin is None:
            return f"{self.target}{'x' if self.capture else ''}"
        return f"{self.origin}{mark}{self.target}"

    @property
    def cells(self) -> tuple[str, ...]:
        """The cells a player clicks for this move, in order."""
        return tuple(c for c in (self.origin, self.target) if c is not None)

    @classmethod
    def parse(cls, text: str, words: tuple[str, ...] = ("pass",),
              examples: Sequence[str] = ()) -> HexMove:
        """Read a move; ``words`` are the single-word moves the game knows, ``examples`` a few
        moves of the game (its own: a placement game does not suggest C2-E2) that the answer to
        text that is no move at all suggests.

        >>> HexMove.parse("jump", examples=("D4", "pass"))
        Traceback (most recent call last):
        ...
        engine.base.IllegalMove: 'jump' is not a move (try e.g. D4, pass)
        """
        cleaned = " ".join(text.split()).lower()
        if cleaned in words:
            return cls(word=cleaned)
        match = _MOVE.match(cleaned.replace(" ", ""))
        if not match and examples:
            raise IllegalMove(Text("%(move)s is not a move (try e.g. %(examples)s)",
                                   move=repr(text.strip()), examples=", ".join(examples)))
        if not match:
            raise IllegalMove(Text("%(move)s is not a move", move=repr(text.strip())))
        if match.group(1):
            return cls(
                origin=f"{match.group(1).upper()}{int(match.group(2))}",
                target=f"{match.group(4).upper()}{int(match.group(5))}",
                capture=match.group(3).lower() == "x",
            )
        return cls(target=f"{match.group(6).upper()}{int(match.group(7))}",
                   capture=bool(match.group(8)))

