"""Drawing a hex board as SVG: one function that every hex game calls with what stands where.

Stones differ by shape as well as by colour, so a reader with colour blindness, or a greyscale
print, tells them apart: "white" and "black" are discs, "neutral" is a grey diamond with a
white core.

>>> from engine.hexboard import hex_board
>>> svg = draw_hex_board(hex_board(2), stones={0: "white", 3: "black"}, marks=[3])
>>> svg.startswith("<svg") and svg.count("<polygon") >= 7
True
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Mapping, Sequence

from engine.hexboard import HexBoard
from engine.svg import (
    BOARD,
    BOARD_EDGE,
    HIGHLIGHT,
    INK,
    PAPER,
    SQRT3,
    hexagon_points,
    sub,
    svg_root,
    to_string,
)

STONE_KINDS = ("white", "black", "neutral")
WHITE_FILL = "#f6f3ea"
NEUTRAL_FILL = "#8c8c8c"

_LINE = 18  # height of a header or footer line


def draw_hex_board(
    board: HexBoard,
    *,
    stones: Mapping[int, str],
    marks: Iterable[int] = (),
    dots: Mapping[int, str] | None = None,
    cell_href: Callable[[str], str | None] | None = None,
    header: Sequence[str] = (),
    footer: Sequence[str] = (),
    title: str = "",
    radius: float = 18,
) -> str:
    """A standalone SVG of ``board``.

    ``stones`` maps cell index to a kind in :data:`STONE_KINDS`; ``marks`` outlines cells (the last
    move); ``dots`` puts a small marker of a kind on a cell (e.g. who controls it); ``cell_href``
    turns each cell whose label it maps to a URL into a link; ``header`` and ``footer`` are lines of
    text above and below the board.
    """
    w = radius * SQRT3  # width of one cell
    xs = [w * (q - r / 2) for q, r in board.coords]
    ys = [-1.5 * radius * r for _, r in board.coords]
    margin = radius * 1.6
    left, top = min(xs) - margin - w / 2, min(ys) - margin - radius
    width = max(xs) - min(xs) + 2 * margin + w
    board_height = max(ys) - min(ys) + 2 * margin + 2 * radius
    head = _LINE * len(header) + (6 if header else 0)
    height = head + board_height + _LINE * len(footer) + (6 if footer else 0)

    def centre(i: int) -> tuple[float, float]:
        return xs[i] - left, ys[i] - top + head

    def at(q: float, r: float) -> tuple[float, float]:
        return w * (q - r / 2) - left, -1.5 * radius * r - top + head

    root = svg_root(width, height, title=title or None)
    sub(root, "rect", width=width, height=height, fill=PAPER)
    for n, line in enumerate(header):
        sub(root, "text", line, x=width / 2, y=_LINE * (n + 1), font_size=13,
            text_anchor="middle", fill=INK)

    cells = sub(root, "g", stroke=BOARD_EDGE, stroke_width=1, fill=BOARD)
    dots = dots or {}
    for i, label in enumerate(board.labels):
        x, y = centre(i)
        href = cell_href(label) if cell_href else None
        parent = cells
        if href:
            parent = sub(cells, "a", href=href, aria_label=label)
        sub(parent, "polygon", points=hexagon_points(x, y, radius))
        if i in stones:
            _stone(parent, stones[i], x, y, radius * 0.72)
        elif i in dots:
            _stone(parent, dots[i], x, y, radius * 0.2)

    for i in marks:
        x, y = centre(i)
        sub(root, "polygon", points=hexagon_points(x, y, radius - 1.5), fill="none",
            stroke=HIGHLIGHT, stroke_width=3)

    _coordinates(root, board, at, radius)
    for n, line in enumerate(footer):
        sub(root, "text", line, x=width / 2, y=head + board_height + _LINE * (n + 1) - 4,
            font_size=13, text_anchor="middle", fill=INK)
    return to_string(root)


def _stone(parent: ET.Element, kind: str, x: float, y: float, r: float) -> None:
    if kind == "white":
        sub(parent, "circle", cx=x, cy=y, r=r, fill=WHITE_FILL, stroke=INK, stroke_width=1.5)
    elif kind == "black":
        sub(parent, "circle", cx=x, cy=y, r=r, fill=INK, stroke=INK, stroke_width=1)
    elif kind == "neutral":
        d = r * 1.1
        sub(parent, "polygon", points=f"{x:.1f},{y - d:.1f} {x + d:.1f},{y:.1f} "
            f"{x:.1f},{y + d:.1f} {x - d:.1f},{y:.1f}", fill=NEUTRAL_FILL, stroke=INK,
            stroke_width=1)
        sub(parent, "circle", cx=x, cy=y, r=r * 0.3, fill=WHITE_FILL, stroke="none")
    else:
        raise ValueError(f"unknown stone kind {kind!r}; use one of {STONE_KINDS}")


def _coordinates(
    root: ET.Element,
    board: HexBoard,
    at: Callable[[float, float], tuple[float, float]],
    radius: float,
) -> None:
    """Row numbers at both ends of each row, column letters below each column's lowest cell.

    The lower-right edge carries the column letters, so rows below the widest one are numbered on
    the left only.
    """
    labels = sub(root, "g", font_size=round(radius * 0.6), fill="#6b5a3e", text_anchor="middle")
    dy = radius * 0.22
    for start, end in board.row_ranges():
        (q0, r), (q1, _) = board.coords[start], board.coords[end - 1]
        ends = (q0 - 0.85, q1 + 0.85) if r >= board.a - 1 else (q0 - 0.85,)
        for q in ends:
            x, y = at(q, r)
            sub(labels, "text", str(r + 1), x=x, y=y + dy)
    lowest: dict[int, int] = {}
    for q, r in board.coords:
        lowest[q] = min(r, lowest.get(q, r))
    for q, r in lowest.items():
        x, y = at(q, r - 0.8)
        sub(labels, "text", chr(ord("A") + q), x=x, y=y + dy)
