"""Small helpers to build SVG with ElementTree (never by pasting strings together).

Text from anywhere (player names, labels) goes through ElementTree, which escapes it.

>>> root = svg_root(100, 50, title="x < y")
>>> _ = sub(root, "circle", cx=10, cy=10, r=5, fill="#000")
>>> to_string(root)[:60]
'<svg xmlns="http://www.w3.org/2000/svg" width="100" height="'
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"

# A palette that stays apart in greyscale and for red-green colour blindness.
INK = "#1d1d1b"
PAPER = "#fbfaf6"
BOARD = "#e9dcc0"
BOARD_EDGE = "#8a7350"
HIGHLIGHT = "#d3302f"
# Marks for a player picking a move; each keeps at least 3:1 (WCAG) against every cell colour it
# can sit on (the board, and the link fills of templates/base.html): see
# tests/engine/test_board_marks.py.
TARGET = "#1f4e9a"  # a ring on each cell the next click may use
CAPTURE = "#8b1a10"  # a ring with four ticks (a crosshair) around a stone a click would take
CHOSEN = "#1d1d1b"  # a double outline on the cells already clicked
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"

SQRT3 = math.sqrt(3)


def fmt(value: float | int | str) -> str:
    """Numbers with at most one decimal, so the SVG stays small."""
    if isinstance(value, str):
        return value
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def svg_root(
    width: float, height: float, *, title: str | None = None, label: str | None = None,
    interactive: bool = False,
) -> ET.Element:
    """The root element, scalable (``viewBox``; CSS ``width: 100%; height: auto`` keeps its shape).

    ``label`` is the text alternative (default: the title). A picture is ``role="img"``; a board
    with links inside is ``role="group"``, since an image's children are presentational and links
    there would be nested-interactive.
    """
    root = ET.Element("svg", {
        "xmlns": SVG_NS,
        "width": fmt(width),
        "height": fmt(height),
        "viewBox": f"0 0 {fmt(width)} {fmt(height)}",
        "preserveAspectRatio": "xMidYMid meet",
        "font-family": FONT,
        "role": "group" if interactive else "img",
    })
    if label or title:
        root.set("aria-label", label or title or "")
    if title:
        ET.SubElement(root, "title").text = title
    return root


def sub(
    parent: ET.Element, tag: str, text: str | None = None, **attrs: float | int | str
) -> ET.Element:
    """Add a child; attribute names use ``_`` for ``-`` (``font_size`` -> ``font-size``)."""
    element = ET.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): fmt(v)
                                          for k, v in attrs.items()})
    if text is not None:
        element.text = text
    return element


def hexagon_points(cx: float, cy: float, radius: float) -> str:
    """The corners of a pointy-topped hexagon."""
    corners = []
    for k in range(6):
        angle = math.radians(60 * k - 90)
        corners.append(f"{fmt(cx + radius * math.cos(angle))},{fmt(cy + radius * math.sin(angle))}")
    return " ".join(corners)


def hexagon_path(cx: float, cy: float, radius: float) -> str:
    """A pointy-topped hexagon as path data (many of them share one <path>)."""
    return f"M{hexagon_points(cx, cy, radius)}Z"


def circle_path(cx: float, cy: float, r: float) -> str:
    """A circle as path data: two half-circle arcs."""
    # The radius is rounded first so that it is exactly half the chord: a radius a hair longer
    # than half the chord bulges each "large" arc past a semicircle.
    r = round(r, 1)
    return (f"M{fmt(cx - r)} {fmt(cy)}a{fmt(r)} {fmt(r)} 0 1 0 {fmt(2 * r)} 0"
            f"a{fmt(r)} {fmt(r)} 0 1 0 {fmt(-2 * r)} 0Z")


def to_string(root: ET.Element) -> str:
    return ET.tostring(root, encoding="unicode")
