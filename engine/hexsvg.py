"""Drawing a hex board as SVG: one function that every hex game calls with what stands where.

Stones differ by shape as well as by colour, so a reader with colour blindness, or a greyscale
print, tells them apart: "white" and "black" are discs, "neutral" is a grey diamond with a
white core.

>>> from engine.hexboard import hex_board
>>> svg = draw_hex_board(hex_board(2), stones={0: "white", 3: "black"}, marks=[3])
>>> svg.startswith("<svg") and svg.count("<path") == 4  # cells, white, black, coordinates
True
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Mapping, Sequence

from engine.hexboard import HexBoard
from engine.strokefont import stroke_text
from engine.svg import (
    BOARD,
    BOARD_EDGE,
    HIGHLIGHT,
    INK,
    PAPER,
    SQRT3,
    circle_path,
    fmt,
    hexagon_path,
    hexagon_points,
    sub,
    svg_root,
    to_string,
)

STONE_KINDS = ("white", "black", "neutral")
WHITE_FILL = "#f6f3ea"
NEUTRAL_FILL = "#8c8c8c"
LABEL_INK = "#6b5a3e"

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

    CairoSVG spends its time per element, not per pixel, and every email carries a PNG of the board,
    so shapes of one style share one path: the cells, each kind of stone, the coordinates.
    """
    w = radius * SQRT3  # width of one cell
    xs = [w * (q - r / 2) for q, r in board.coords]
    ys = [-1.5 * radius * r for _, r in board.coords]
    margin = radius * 1.6
    left, top = min(xs) - margin - w / 2, min(ys) - margin - radius
    # Whole units, so that the PNG's edge pixels are fully covered: a fractional width left a
    # partly drawn last column, a grey line down the right edge of every emailed board.
    exact_width = max(xs) - min(xs) + 2 * margin + w
    width = math.ceil(exact_width - 1e-6)
    left -= (width - exact_width) / 2
    board_height = max(ys) - min(ys) + 2 * margin + 2 * radius
    head = _LINE * len(header) + (6 if header else 0)
    height = math.ceil(head + board_height + _LINE * len(footer) + (6 if footer else 0) - 1e-6)

    def centre(i: int) -> tuple[float, float]:
        return xs[i] - left, ys[i] - top + head

    def at(q: float, r: float) -> tuple[float, float]:
        return w * (q - r / 2) - left, -1.5 * radius * r - top + head

    root = svg_root(width, height, title=title or None)
    sub(root, "rect", width=width, height=height, fill=PAPER)
    for n, line in enumerate(header):
        sub(root, "text", line, x=width / 2, y=_LINE * (n + 1), font_size=13,
            text_anchor="middle", fill=INK)

    links = {label: cell_href(label) for label in board.labels} if cell_href else {}
    plain = [i for i, label in enumerate(board.labels) if not links.get(label)]
    if plain:
        sub(root, "path", d="".join(hexagon_path(*centre(i), radius) for i in plain),
            fill=BOARD, stroke=BOARD_EDGE, stroke_width=1)
    if len(plain) < board.size:
        group = sub(root, "g", fill=BOARD, stroke=BOARD_EDGE, stroke_width=1)
        for i, label in enumerate(board.labels):
            if href := links.get(label):
                link = sub(group, "a", href=href, aria_label=label)
                sub(link, "polygon", points=hexagon_points(*centre(i), radius))

    # Pieces let clicks through to the cell links beneath them.
    dots = dots or {}
    for kind in STONE_KINDS:
        _pieces(root, kind, [centre(i) for i, k in stones.items() if k == kind], radius * 0.72)
        _pieces(root, kind, [centre(i) for i, k in dots.items() if k == kind and i not in stones],
                radius * 0.2)

    for i in marks:
        sub(root, "polygon", points=hexagon_points(*centre(i), radius - 1.5), fill="none",
            stroke=HIGHLIGHT, stroke_width=3)

    _coordinates(root, board, at, radius)
    for n, line in enumerate(footer):
        sub(root, "text", line, x=width / 2, y=head + board_height + _LINE * (n + 1) - 4,
            font_size=13, text_anchor="middle", fill=INK)
    return to_string(root)


def _diamond_path(cx: float, cy: float, d: float) -> str:
    return (f"M{fmt(cx)} {fmt(cy - d)}L{fmt(cx + d)} {fmt(cy)}L{fmt(cx)} {fmt(cy + d)}"
            f"L{fmt(cx - d)} {fmt(cy)}Z")


def _pieces(root: ET.Element, kind: str, centres: list[tuple[float, float]], r: float) -> None:
    """All pieces of one kind and size as one path (a neutral stone adds its core)."""
    if not centres:
        return
    if kind == "white":
        sub(root, "path", d="".join(circle_path(x, y, r) for x, y in centres), fill=WHITE_FILL,
            stroke=INK, stroke_width=1.5, pointer_events="none")
    elif kind == "black":
        sub(root, "path", d="".join(circle_path(x, y, r) for x, y in centres), fill=INK,
            stroke=INK, stroke_width=1, pointer_events="none")
    elif kind == "neutral":
        sub(root, "path", d="".join(_diamond_path(x, y, r * 1.1) for x, y in centres),
            fill=NEUTRAL_FILL, stroke=INK, stroke_width=1, pointer_events="none")
        sub(root, "path", d="".join(circle_path(x, y, r * 0.3) for x, y in centres),
            fill=WHITE_FILL, pointer_events="none")
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
    the left only. All labels are one stroke-font path.
    """
    size = radius * 0.62
    dy = size * 0.5
    paths = []
    for start, end in board.row_ranges():
        (q0, r), (q1, _) = board.coords[start], board.coords[end - 1]
        ends = (q0 - 0.85, q1 + 0.85) if r >= board.a - 1 else (q0 - 0.85,)
        for q in ends:
            x, y = at(q, r)
            paths.append(stroke_text(str(r + 1), x, y + dy, size, anchor="middle"))
    lowest: dict[int, int] = {}
    for q, r in board.coords:
        lowest[q] = min(r, lowest.get(q, r))
    for q, r in lowest.items():
        x, y = at(q, r - 0.8)
        paths.append(stroke_text(chr(ord("A") + q), x, y + dy, size, anchor="middle"))
    sub(root, "path", d="".join(paths), fill="none", stroke=LABEL_INK, stroke_width=1.3,
        stroke_linecap="round", stroke_linejoin="round", aria_label="coordinates")
