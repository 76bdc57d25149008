"""Issue #16: the coordinate font tells look-alikes apart, and boards scale to a phone.

Each glyph of a confusable pair is drawn as a bitmap; the pixels where exactly one of the two has
ink must be at least half of the pixels where either has ink. The old font failed this for every
pair (O/0 0.28, G/6 0.33, I/1 0.42, 8/B 0.23).
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import cairosvg
import pytest
from PIL import Image

from engine import GAMES, new_game
from engine.strokefont import stroke_text

CONFUSABLE = ["O0", "G6", "I1", "8B", "S5", "Z2", "D0", "Q0", "69", "B3", "OQ"]
# Q is an O with a tail by design; S and the square 5 differ by corners against curves, which
# moves fewer pixels.
THRESHOLD = {"OQ": 0.4, "S5": 0.45}
PHONE = 390  # CSS px: the board scaled to a phone's width
TARGET = 24  # CSS px between cell centres (WCAG 2.5.8's spacing)


def _ink(ch: str, size: float = 40) -> list[bool]:
    d = stroke_text(ch, 10, 50, size)
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="60" height="60">'
           '<rect width="60" height="60" fill="#fff"/>'
           f'<path d="{d}" fill="none" stroke="#000" stroke-width="3" stroke-linecap="round" '
           'stroke-linejoin="round"/></svg>')
    image = Image.open(io.BytesIO(cairosvg.svg2png(bytestring=svg.encode()))).convert("L")
    return [p < 128 for p in image.tobytes()]


def difference(a: str, b: str) -> float:
    x, y = _ink(a), _ink(b)
    pairs = list(zip(x, y, strict=True))
    return sum(p != q for p, q in pairs) / sum(p or q for p, q in pairs)


@pytest.mark.parametrize("pair", CONFUSABLE)
def test_confusable_glyphs_differ_clearly(pair: str) -> None:
    a, b = pair
    assert difference(a, b) > THRESHOLD.get(pair, 0.5), pair


def test_every_label_glyph_is_drawn() -> None:
    for ch in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,-":
        assert sum(_ink(ch)) > 20, ch


def _cell_spacing(gid: str, options: dict[str, object]) -> tuple[float, float]:
    """(the SVG's width, the distance between neighbouring cell centres) in SVG units."""
    game = new_game(gid, **options)
    root = ET.fromstring(game.render_svg(game.start(seed=1), cell_href=lambda c: "#"))
    link = next(e for e in root.iter() if e.tag.endswith("}a"))
    shape = next(iter(link))
    numbers = (shape.get("points") or shape.get("d", "")).replace("M", " ").replace("Z", " ")
    xs = [float(v) for v in numbers.replace(",", " ").split()[0::2]]
    return float(root.get("width", "0")), max(xs) - min(xs)


def _scaled(width: float, spacing: float) -> float:
    return spacing * min(1.0, PHONE / width)


@pytest.mark.parametrize("gid", list(GAMES))
def test_default_boards_scale_to_a_phone_with_cells_24px_apart(gid: str) -> None:
    game = new_game(gid)
    root = ET.fromstring(game.render_svg(game.start(seed=1)))
    width, height = float(root.get("width", "0")), float(root.get("height", "0"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert width > 0 and height > 0  # CSS width: 100%; height: auto keeps this ratio
    assert _scaled(*_cell_spacing(gid, {})) >= TARGET


def test_report_the_largest_boards_at_phone_width(capsys: pytest.CaptureFixture[str]) -> None:
    """Not a limit: the numbers the page's zoom is for (run with -s to see them)."""
    lines = []
    for gid in ("stigmergy", "refugia"):
        option = GAMES[gid].options[0]
        for choice in option.choices:
            width, spacing = _cell_spacing(gid, {option.name: choice})
            lines.append(f"{gid} {option.name}={choice}: {width:.0f} wide, cells "
                         f"{_scaled(width, spacing):.1f} px apart at {PHONE} px")
    assert len(lines) == len(GAMES["stigmergy"].options[0].choices) + len(
        GAMES["refugia"].options[0].choices)
    with capsys.disabled():
        print("", *lines, sep="\n")
