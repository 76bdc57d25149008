"""A player's rating history as a small line graph: SVG drawn by us with ElementTree.

x is the rated game's number (1, 2, ...), y the shown rating after it, with a few labelled
gridlines. The picture is inline on the page: no script, and only presentation attributes (no
``<style>``), so it needs nothing from the site's Content-Security-Policy (pbem.web.security).
Words come in already translated (the caller knows the reader); numbers are drawn as digits.

    >>> svg = history_svg([1500, 1540, 1523], title="Mosey", summary="Rating 1500 to 1523")
    >>> root, ns = ET.fromstring(svg), "{http://www.w3.org/2000/svg}"
    >>> root.get("aria-label"), len(list(root.iter(ns + "circle")))
    ('Rating 1500 to 1523', 3)
    >>> [t.text for t in root.iter(ns + "text")]  # gridlines, then the games' numbers
    ['1540', '1530', '1520', '1510', '1500', '1', '3']
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from typing import Protocol

from engine.svg import INK, PAPER, fmt, sub, svg_root, to_string

LINE = "#2a5d8f"  # the site's link colour: 6.6:1 on the paper
GRID = "#c9c4b8"
NICE_STEPS = (10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000)
MAX_GRIDLINES = 5
MIN_SPAN = 40  # a flat history still gets a readable scale, not one squashed to a line
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 12, 26  # room for the labels


class HasShown(Protocol):
    @property
    def shown(self) -> int: ...


def history_svg(
    points: Sequence[int | HasShown], *, width: int = 400, height: int = 170, title: str,
    summary: str | None = None, x_label: str = "",
    point_title: Callable[[int, int], str] | None = None,
) -> str:
    """The graph of ``points`` (shown ratings, or anything with ``.shown``, oldest first).

    ``title`` becomes the SVG's ``<title>``; ``summary`` its ``aria-label`` (default, in English:
    "Rating 1500 to 1623 over 12 games"); ``x_label`` is written under the x axis and
    ``point_title(number, rating)`` gives each dot a tooltip. One point is drawn as a dot alone.
    No points: an empty string.
    """
    values = [p if isinstance(p, int) else p.shown for p in points]
    if not values:
        return ""
    if summary is None:
        summary = (f"Rating {values[0]} to {values[-1]} over {len(values)} "
                   f"game{'s' if len(values) != 1 else ''}")
    root = svg_root(width, height, title=title, label=summary)
    sub(root, "rect", x=0, y=0, width=width, height=height, fill=PAPER)
    low, high, step = scale(values)
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM

    def y_of(value: float) -> float:
        return TOP + plot_h * (high - value) / (high - low)

    def x_of(index: int) -> float:
        if len(values) == 1:
            return LEFT + plot_w / 2
        return LEFT + plot_w * index / (len(values) - 1)

    grid = sub(root, "g", stroke=GRID, stroke_width=1)
    labels = sub(root, "g", fill=INK, font_size=12, text_anchor="end")
    for value in range(high, low - 1, -step):
        y = y_of(value)
        sub(grid, "line", x1=LEFT, y1=y, x2=width - RIGHT, y2=y)
        sub(labels, "text", str(value), x=LEFT - 6, y=y + 4)
    axis = sub(root, "g", fill=INK, font_size=12, text_anchor="middle")
    numbers = [0] if len(values) == 1 else [0, len(values) - 1]
    for index in numbers:
        sub(axis, "text", str(index + 1), x=x_of(index), y=height - BOTTOM + 14)
    if x_label:
        sub(axis, "text", x_label, x=LEFT + plot_w / 2, y=height - 3)
    if len(values) > 1:
        sub(root, "polyline", fill="none", stroke=LINE, stroke_width=2,
            stroke_linejoin="round",
            points=" ".join(f"{fmt(x_of(i))},{fmt(y_of(v))}" for i, v in enumerate(values)))
    # Many games: smaller dots, so the line stays visible between them.
    radius = 3.5 if len(values) <= 40 else 2
    dots = sub(root, "g", fill=LINE)
    for index, value in enumerate(values):
        dot = sub(dots, "circle", cx=x_of(index), cy=y_of(value), r=radius)
        if point_title is not None:
            ET.SubElement(dot, "title").text = point_title(index + 1, value)
    return to_string(root)


def scale(values: Sequence[int]) -> tuple[int, int, int]:
    """The y axis: (lowest gridline, highest gridline, step), the gridlines at round numbers
    and no more than :data:`MAX_GRIDLINES` of them.

    >>> scale([1500, 1623]), scale([1500]), scale([1180, 1990])
    ((1500, 1650, 50), (1480, 1520, 10), (1000, 2000, 250))
    """
    low, high = min(values), max(values)
    if high - low < MIN_SPAN:
        middle = (low + high) / 2
        low, high = math.floor(middle - MIN_SPAN / 2), math.ceil(middle + MIN_SPAN / 2)
    for step in NICE_STEPS:
        bottom, top = step * math.floor(low / step), step * math.ceil(high / step)
        if (top - bottom) // step + 1 <= MAX_GRIDLINES:
            return bottom, top, step
    step = NICE_STEPS[-1]
    return step * math.floor(low / step), step * math.ceil(high / step), step
