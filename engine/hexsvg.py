"""Drawing a hex board as SVG: one function that every hex game calls with what stands where.

Stones differ by shape as well as by colour, so a reader with colour blindness, or a greyscale
print, tells them apart: "white" and "black" are discs, "neutral" is a grey diamond with a
white core.

>>> from engine.hexboard import hex_board
>>> svg = draw_hex_board(hex_board(2), stones={0: "white", 3: "black"}, marks=[3])
>>> svg.startswith("<svg") and svg.count("<path") == 4  # cells, white, black, coordinates
True

A move page passes ``chosen`` (the cells clicked so far) and ``targets`` (what the next click may
use): targets get a ring, captures a ring and a cross, chosen cells a dark outline, and each link
is named by what its cell holds.

Every shape of :mod:`engine.hexboard` is drawn alike. ``edge_colours`` marks some of the board's
edges, each with a band of its colour along the outside (the sides each player must join); a side
two edges share, at a blunt corner, is split halfway:

>>> from engine.hexboard import rhombus
>>> svg = draw_hex_board(rhombus(5), stones={}, edge_colours={"top": "#c0392b", "left": INK})
>>> svg.count('class="edge"')
2
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine.base import Game
from engine.hexboard import HexGrid
from engine.strokefont import stroke_text
from engine.svg import (
    BOARD,
    BOARD_EDGE,
    CAPTURE,
    CHOSEN,
    HIGHLIGHT,
    INK,
    PAPER,
    SQRT3,
    TARGET,
    circle_path,
    fmt,
    hexagon_path,
    hexagon_points,
    sub,
    svg_root,
    to_string,
)
from engine.text import ENGLISH, Text, Translator, Words, localize

STONE_KINDS = ("white", "black", "neutral")
WHITE_FILL = "#f6f3ea"
NEUTRAL_FILL = "#8c8c8c"
LABEL_INK = "#6b5a3e"

_LINE = 18  # height of a header or footer line
EDGE_BAND = 0.3
"""How far an edge's band shows outside its cells, in cell radii."""
# Each corner of a cell, counter-clockwise from the one at 30 degrees (upper right), from its
# centre in half cell widths across and half radii up: whole numbers, so that the corners two
# cells share are equal, and an edge's sides join up by their corners.
_CORNERS = ((1, 1), (0, 2), (-1, 1), (-1, -1), (0, -2), (1, -1))


def draw_hex_board(
    board: HexGrid,
    *,
    stones: Mapping[int, str],
    marks: Iterable[int] = (),
    dots: Mapping[int, str] | None = None,
    edge_colours: Mapping[str, str] | None = None,
    cell_href: Callable[[str], str | None] | None = None,
    header: Sequence[Words] = (),
    footer: Sequence[Words] = (),
    title: Words = "",
    radius: float = 18,
    names: Mapping[str, Words] | None = None,
    own: str | None = None,
    dot_names: Mapping[str, Words] | None = None,
    chosen: Iterable[int] | None = None,
    targets: Mapping[int, bool] | None = None,
    alt: Words = "",
    translator: Translator = ENGLISH,
) -> str:
    """A standalone SVG of ``board``.

    ``stones`` maps cell index to a kind in :data:`STONE_KINDS`; ``marks`` outlines cells (the last
    move); ``dots`` puts a small marker of a kind on a cell (e.g. who controls it);
    ``edge_colours`` maps names of the board's edges to colours, each drawn as a band along the
    outside of that edge (the sides a player must join); ``cell_href`` turns each cell whose label
    it maps to a URL into a link; ``header`` and ``footer`` are lines of text above and below the
    board.

    For a move page: ``chosen`` (cells clicked so far; None for a page that does not say) and
    ``targets`` (cell -> whether clicking it captures) are marked; ``names`` (stone kind -> "Light
    stone"), ``own`` (the viewer's kind) and ``dot_names`` name each link by its cell's content.
    ``alt`` is the text alternative (default: the title).

    Every text (header, footer, title, alt, the names) may be a :class:`~engine.text.Text`: it is
    said through ``translator``.

    CairoSVG spends its time per element, not per pixel, and every email carries a PNG of the board,
    so shapes of one style share one path: the cells, each kind of stone, the coordinates.
    """
    header = [localize(line, translator) for line in header]
    footer = [localize(line, translator) for line in footer]
    title, alt = localize(title, translator), localize(alt, translator)
    w = radius * SQRT3  # width of one cell
    xs = [w * (q - r / 2) for q, r in board.coords]
    ys = [-1.5 * radius * r for _, r in board.coords]
    # Narrow sides (just room for the row numbers) keep the default boards' cells 24 CSS px or
    # more apart when the board is scaled to a 390 px phone (tests/engine/test_board_size.py).
    # Edge bands push the coordinates out by their width.
    band = EDGE_BAND * radius if edge_colours else 0.0
    margin = side = radius + band
    left, top = min(xs) - side - w / 2, min(ys) - margin - radius
    # Whole units, so that the PNG's edge pixels are fully covered: a fractional width left a
    # partly drawn last column, a grey line down the right edge of every emailed board.
    exact_width = max(xs) - min(xs) + 2 * side + w
    # A header or footer line (13 px sans, about 7 px a character) must fit on a small board.
    exact_width = max([exact_width, *(7.2 * len(line) + 12 for line in (*header, *footer))])
    width = math.ceil(exact_width - 1e-6)
    left -= (width - exact_width) / 2
    board_height = max(ys) - min(ys) + 2 * margin + 2 * radius
    head = _LINE * len(header) + (6 if header else 0)
    height = math.ceil(head + board_height + _LINE * len(footer) + (6 if footer else 0) - 1e-6)

    def centre(i: int) -> tuple[float, float]:
        return xs[i] - left, ys[i] - top + head

    def at(q: float, r: float) -> tuple[float, float]:
        return w * (q - r / 2) - left, -1.5 * radius * r - top + head

    links = {label: cell_href(label) for label in board.labels} if cell_href else {}
    root = svg_root(width, height, title=title or None, label=alt or None,
                    interactive=any(links.values()))
    sub(root, "rect", width=width, height=height, fill=PAPER)
    for n, line in enumerate(header):
        sub(root, "text", line, x=width / 2, y=_LINE * (n + 1), font_size=13,
            text_anchor="middle", fill=INK)

    if edge_colours:
        _edge_bands(root, board, edge_colours, centre, radius)
    dots = dots or {}
    picked = set(chosen or ())
    targets = targets or {}
    plain = [i for i, label in enumerate(board.labels) if not links.get(label)]
    if plain:
        sub(root, "path", d="".join(hexagon_path(*centre(i), radius) for i in plain),
            fill=BOARD, stroke=BOARD_EDGE, stroke_width=1)
    if len(plain) < board.size:
        group = sub(root, "g", fill=BOARD, stroke=BOARD_EDGE, stroke_width=1)
        for i, label in enumerate(board.labels):
            if href := links.get(label):
                name = label if chosen is None else cell_name(
                    label, stones.get(i), dots.get(i), names or {}, own, dot_names or {},
                    targets.get(i, False), i in picked).render(translator)
                link = sub(group, "a", href=href, aria_label=name, data_cell=label)
                sub(link, "polygon", points=hexagon_points(*centre(i), radius))

    # Pieces let clicks through to the cell links beneath them.
    for kind in STONE_KINDS:
        _pieces(root, kind, [centre(i) for i, k in stones.items() if k == kind], radius * 0.72)
        _pieces(root, kind, [centre(i) for i, k in dots.items() if k == kind and i not in stones],
                radius * 0.2)

    for i in marks:
        sub(root, "polygon", points=hexagon_points(*centre(i), radius - 1.5), fill="none",
            stroke=HIGHLIGHT, stroke_width=3)
    _click_marks(root, stones, picked, targets, centre, radius)

    _coordinates(root, board, at, radius, band)
    for n, line in enumerate(footer):
        sub(root, "text", line, x=width / 2, y=head + board_height + _LINE * (n + 1) - 4,
            font_size=13, text_anchor="middle", fill=INK)
    return to_string(root)


def selection(
    game: Game[Any, Any], state: Any, board: HexGrid, chosen: Sequence[str] | None
) -> tuple[list[int] | None, dict[int, bool]]:
    """``chosen`` and the next click's targets as cell indexes, for :func:`draw_hex_board`."""
    if chosen is None:
        return None, {}
    targets = game.click_targets(state, chosen)
    return ([board.index(c) for c in chosen if c in board],
            {board.index(c): takes for c, takes in targets.items() if c in board})


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
    board: HexGrid,
    at: Callable[[float, float], tuple[float, float]],
    radius: float,
    band: float,
) -> None:
    """Row numbers at both ends of each row, column letters below each column's lowest cell, both
    ``band`` further out (the width of the edge bands, if any).

    A row number gives way where a column letter stands within half a cell of it: on a hexagon the
    lower-right edge carries the column letters, so rows below the widest one are numbered on the
    left only. All labels are one stroke-font path.
    """
    size = radius * 0.62
    dy = size * 0.5
    lowest: dict[int, int] = {}
    for q, r in board.coords:
        lowest[q] = min(r, lowest.get(q, r))
    below = 0.8 + band / (1.5 * radius)  # in rows
    beside = 0.74 + band / (SQRT3 * radius)  # in cells
    letters = [(chr(ord("A") + q), at(q, r - below)) for q, r in lowest.items()]
    clearance = radius * SQRT3 / 2
    paths = []
    for start, end in board.row_ranges():
        if start == end:
            continue
        (q0, r), (q1, _) = board.coords[start], board.coords[end - 1]
        for place in (q0 - beside, q1 + beside):
            x, y = at(place, r)
            if all(math.dist((x, y), spot) >= clearance for _, spot in letters):
                paths.append(stroke_text(str(r + 1), x, y + dy, size, anchor="middle"))
    for letter, (x, y) in letters:
        paths.append(stroke_text(letter, x, y + dy, size, anchor="middle"))
    # The links name their cells, so the labels are hidden from assistive technology.
    sub(root, "path", d="".join(paths), fill="none", stroke=LABEL_INK, stroke_width=1.3,
        stroke_linecap="round", stroke_linejoin="round", class_="coordinates",
        aria_hidden="true")


def _edge_bands(
    root: ET.Element,
    board: HexGrid,
    edge_colours: Mapping[str, str],
    centre: Callable[[int], tuple[float, float]],
    radius: float,
) -> None:
    """A band of its colour along the outside of each edge named in ``edge_colours``.

    Each band is the edge's outline stroked twice as wide as it shows, drawn beneath the cells,
    which cover its inner half. A side that two edges share (a blunt corner) is split at its
    middle, half to each, whether or not the other edge is coloured.
    """
    shared = Counter(side for edge in board.edges.values() for side in edge.sides)
    half_width = radius * SQRT3 / 2

    def corner(cell: int, k: int) -> tuple[float, float]:
        x, y = centre(cell)
        across, up = _CORNERS[k % 6]
        return x + across * half_width, y - up * radius / 2

    for name, colour in edge_colours.items():
        runs = []
        for run in _outline(board, board.edge(name).sides):
            points = [corner(cell, d - 1) for cell, d in run] + [corner(*run[-1])]
            if len(run) > 1 and shared[run[0]] > 1:
                points[0] = _middle(points[0], points[1])
            if len(run) > 1 and shared[run[-1]] > 1:
                points[-1] = _middle(points[-2], points[-1])
            runs.append("M" + "L".join(f"{fmt(x)} {fmt(y)}" for x, y in points))
        sub(root, "path", d="".join(runs), fill="none", stroke=colour,
            stroke_width=2 * EDGE_BAND * radius, stroke_linejoin="round", class_="edge",
            data_edge=name)


def _outline(board: HexGrid, sides: Sequence[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """``sides`` (cell, direction) joined end to end into runs along the board's outline, each
    counter-clockwise around the board: the side facing direction d runs from its cell's corner
    d - 1 to its corner d."""

    def vertex(cell: int, k: int) -> tuple[int, int]:
        q, r = board.coords[cell]
        across, up = _CORNERS[k % 6]
        return 2 * q - r + across, 3 * r + up

    after = {vertex(cell, d - 1): (cell, d) for cell, d in sides}
    ends = {vertex(cell, d) for cell, d in sides}
    # Runs start where no side ends; a closed loop (an edge all round) starts anywhere.
    heads = [side for side in sides if vertex(side[0], side[1] - 1) not in ends]
    runs: list[list[tuple[int, int]]] = []
    seen: set[tuple[int, int]] = set()
    for head in [*heads, *sides]:
        run: list[tuple[int, int]] = []
        side: tuple[int, int] | None = head
        while side is not None and side not in seen:
            seen.add(side)
            run.append(side)
            side = after.get(vertex(*side))
        if run:
            runs.append(run)
    return runs


def _middle(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    return (a[0] + b[0]) / 2, (a[1] + b[1]) / 2


def _click_marks(
    root: ET.Element,
    stones: Mapping[int, str],
    chosen: set[int],
    targets: Mapping[int, bool],
    centre: Callable[[int], tuple[float, float]],
    radius: float,
) -> None:
    """Rings on the cells the next click may use; a ring and a cross on a stone it would take
    (shape tells them apart, not only colour); a dark outline on the cells already clicked."""
    empty = [centre(i) for i, takes in targets.items() if not takes and i not in stones]
    held = [centre(i) for i, takes in targets.items() if not takes and i in stones]
    taken = [centre(i) for i, takes in targets.items() if takes]
    ring = radius * 0.82  # outside a stone (0.72), inside the cell (0.87 across the flats)
    style = {"fill": "none", "pointer_events": "none"}
    if empty or held:
        sub(root, "path", d="".join([*(circle_path(x, y, radius * 0.3) for x, y in empty),
                                     *(circle_path(x, y, ring) for x, y in held)]),
            stroke=TARGET, stroke_width=3, class_="target", **style)
    if taken:
        arm = radius * 0.4
        cross = "".join(f"M{fmt(x - arm)} {fmt(y - arm)}l{fmt(2 * arm)} {fmt(2 * arm)}"
                        f"M{fmt(x + arm)} {fmt(y - arm)}l{fmt(-2 * arm)} {fmt(2 * arm)}"
                        for x, y in taken)
        sub(root, "path", d=cross, stroke=PAPER, stroke_width=5.5, stroke_linecap="round",
            **style)
        sub(root, "path", d=cross + "".join(circle_path(x, y, ring) for x, y in taken),
            stroke=CAPTURE, stroke_width=2.5, stroke_linecap="round", class_="capture", **style)
    if chosen:
        sub(root, "path", d="".join(hexagon_path(*centre(i), radius - 2) for i in sorted(chosen)),
            stroke=CHOSEN, stroke_width=4, stroke_linejoin="round", class_="chosen", **style)


def cell_name(
    label: str,
    kind: str | None,
    dot: str | None,
    names: Mapping[str, str],
    own: str | None,
    dot_names: Mapping[str, str],
    capture: bool = False,
    chosen: bool = False,
) -> Text:
    """What a link on a cell is called: its label and what it holds.

    >>> cell_name("B1", "white", None, {"white": "Light stone"}, "white", {})
    'B1, your Light stone'
    >>> cell_name("D3", "black", None, {"black": "Dark stone"}, "white", {}, capture=True)
    'D3, capture: Dark stone'
    >>> cell_name("C3", None, None, {}, None, {})
    'C3, empty'
    """
    what: str
    if kind is None:
        what = (Text("empty, %(control)s", control=dot_names.get(dot, dot)) if dot
                else Text("empty"))
        what = Text("capture: %(what)s", what=what) if capture else what
    else:
        stone = names.get(kind) or Text("%(kind)s stone", kind=kind)
        what = (Text("capture: %(stone)s", stone=stone) if capture
                else Text("your %(stone)s", stone=stone) if kind == own else stone)
    if chosen:
        return Text("%(cell)s, %(what)s, chosen", cell=label, what=what)
    return Text("%(cell)s, %(what)s", cell=label, what=what)


def counted(singular: str, plural: str) -> tuple[str, str]:
    """Mark a message with plural forms where it is defined (``pybabel`` knows ``counted``);
    :meth:`Text.counted` says it with a number where it is shown."""
    return singular, plural


def stone_list(board: HexGrid, stones: Mapping[int, str], names: Mapping[str, Words],
               lists: Mapping[str, tuple[str, str]] | None = None) -> Text:
    """Where the stones are, for a text alternative.

    ``lists`` gives, per stone kind, the sentence with its plural (made with :func:`counted`), with
    ``%(cells)s`` for the cells; kinds without one are named from ``names``.

    >>> from engine.hexboard import hex_board
    >>> stone_list(hex_board(2), {0: "white", 3: "black", 1: "white"}, {"white": "Light stone"})
    'Light stones: A1, B1. black stone: B2.'
    """
    parts = []
    for kind in STONE_KINDS:
        cells = [board.labels[i] for i in sorted(stones) if stones[i] == kind]
        if not cells:
            continue
        listed = ", ".join(cells)
        if lists and kind in lists:
            parts.append(Text.counted(*lists[kind], len(cells), cells=listed))
        else:
            name = names.get(kind, f"{kind} stone")
            parts.append(Text.verbatim(f"{name}{'s' if len(cells) > 1 else ''}: {listed}."))
    return Text.joined(parts) if parts else Text("The board is empty.")
