"""Issue #16: what a move page's board shows and says (targets, captures, the chosen piece, names).

The move page passes ``chosen`` (the cells clicked so far) to ``render_svg``; the board marks the
next click's targets, captures distinctly, and names every link by what its cell holds.
"""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from engine import GAMES, new_game
from engine.hexsvg import WHITE_FILL
from engine.svg import BOARD, CAPTURE, CHOSEN, INK, PAPER, TARGET

NS = "{http://www.w3.org/2000/svg}"
PAGE_STYLE = Path(__file__).resolve().parents[2] / "templates" / "base.html"
# What the pages' style fills a board's clickable cells with (plain, and under the pointer).
LINK_FILLS = tuple(sorted(set(re.findall(r"\.board a[^{]*\{ fill: (#[0-9a-f]{6})",
                                         PAGE_STYLE.read_text()))))
CELL_COLOURS = (BOARD, *LINK_FILLS)  # a mark sits on a cell, plain or filled as a link


def luminance(colour: str) -> float:
    """WCAG 2's relative luminance of ``#rrggbb`` or ``#rgb``."""
    hexes = colour.lstrip("#")
    if len(hexes) == 3:
        hexes = "".join(c * 2 for c in hexes)
    channels = [int(hexes[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2's contrast ratio of two colours, from 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_marks_stand_out_at_least_3_to_1_against_every_cell_colour_they_sit_on() -> None:
    assert LINK_FILLS == ("#f3c969", "#f7efcf")  # the style still says it as the pattern expects
    for colour in (TARGET, CAPTURE, CHOSEN):
        for cell in CELL_COLOURS:
            assert contrast(colour, cell) >= 3, (colour, cell, contrast(colour, cell))
    # The capture's cross crosses the stone on a paper halo; the target ring around a stone and
    # the chosen outline sit on the cell, outside the stone.
    assert contrast(CAPTURE, PAPER) >= 3
    assert contrast(TARGET, WHITE_FILL) >= 3
    # The old highlight, a link fill on the board colour, was the problem: 1.18 to 1.
    assert contrast("#f7efcf", BOARD) < 1.2


def test_contrast_follows_wcag() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#777", "#fff") == pytest.approx(4.48, abs=0.01)
    assert contrast(INK, INK) == 1


def _marked(root: ET.Element, kind: str) -> int:
    paths = [p for p in root.iter(f"{NS}path") if p.get("class") == kind]
    return sum(p.get("d", "").count("a") // 2 for p in paths)  # two arcs per ring


def _ring_cells(svg: str, kind: str, board: object) -> set[str]:
    """The cells whose centre a ring of ``kind`` is drawn around (rings: M x y a r r ...)."""
    root = ET.fromstring(svg)
    centres: dict[str, tuple[float, float]] = {}
    for link in root.iter(f"{NS}a"):
        nums = [float(v) for v in re.split(r"[ ,]", next(iter(link)).get("points", ""))]
        centres[link.get("data-cell", "")] = (sum(nums[0::2]) / 6, sum(nums[1::2]) / 6)
    found = set()
    for path in root.iter(f"{NS}path"):
        if path.get("class") != kind:
            continue
        for x, y, r in re.findall(r"M(-?[\d.]+) (-?[\d.]+)a([\d.]+)", path.get("d", "")):
            cx, cy = float(x) + float(r), float(y)
            cell = min(centres, key=lambda c: (centres[c][0] - cx) ** 2 + (centres[c][1] - cy) ** 2)
            assert abs(centres[cell][0] - cx) + abs(centres[cell][1] - cy) < 1
            found.add(cell)
    return found


def test_after_picking_a_stone_its_targets_and_captures_are_marked_and_it_is_outlined() -> None:
    game = new_game("mosey", order=4)
    state = game.start()
    assert game.click_targets(state, ["G5"]) == {"F5": False, "E5": True, "F4": True}
    svg = game.render_svg(state, 0, cell_href=lambda c: f"/m/{c}", chosen=["G5"])
    root = ET.fromstring(svg)
    assert _marked(root, "target") == 1  # F5
    assert _marked(root, "capture") == 2  # E5, F4: a ring each, and a cross
    capture = next(p for p in root.iter(f"{NS}path") if p.get("class") == "capture")
    assert capture.get("d", "").count("l") == 4  # two strokes of a cross per capture
    chosen = next(p for p in root.iter(f"{NS}path") if p.get("class") == "chosen")
    assert chosen.get("d", "").count("M") == 1 and chosen.get("stroke") == CHOSEN
    names = {a.get("data-cell"): a.get("aria-label") for a in root.iter(f"{NS}a")}
    assert names["E5"] == "E5, capture: Dark stone"
    assert names["F4"] == "F4, capture: Dark stone"
    assert names["F5"] == "F5, empty"
    assert names["G5"] == "G5, your Light stone, chosen"


def test_marks_sit_on_exactly_the_targets_of_each_chosen_stone() -> None:
    game = new_game("mosey", order=4)
    state = game.start()
    board = game.board  # type: ignore[attr-defined]
    for origin in game.click_targets(state, []):
        targets = game.click_targets(state, [origin])
        svg = game.render_svg(state, 0, cell_href=lambda c: "#", chosen=[origin])
        root = ET.fromstring(svg)
        assert _marked(root, "target") == sum(not t for t in targets.values())
        assert _marked(root, "capture") == sum(targets.values())
        assert _ring_cells(svg, "target", board) == {c for c, t in targets.items() if not t}
        assert _ring_cells(svg, "capture", board) == {c for c, t in targets.items() if t}
        captures = {c for c, t in targets.items() if t}
        assert all(game.parse_move(f"{origin}x{c}") in game.legal_moves(state) for c in captures)
        assert len(board.labels) > len(targets)


def test_before_the_first_click_the_pieces_that_can_move_are_ringed() -> None:
    game = new_game("mosey", order=4)
    state = game.start()
    root = ET.fromstring(game.render_svg(state, 0, cell_href=lambda c: "#", chosen=()))
    assert _marked(root, "target") == len(game.click_targets(state, []))
    assert not [p for p in root.iter(f"{NS}path") if p.get("class") in ("capture", "chosen")]


def test_a_page_that_does_not_pass_chosen_gets_the_old_link_names() -> None:
    game = new_game("mosey", order=4)
    root = ET.fromstring(game.render_svg(game.start(), 0, cell_href=lambda c: "#"))
    assert {a.get("aria-label") for a in root.iter(f"{NS}a")} == set(game.board.labels)  # type: ignore[attr-defined]
    assert not [p for p in root.iter(f"{NS}path") if p.get("class") == "target"]


def _mid_game(gid: str, plies: int = 8) -> tuple[object, object]:
    game = new_game(gid)
    rng, state = random.Random(3), game.start(seed=1)
    for _ in range(plies):
        if game.to_move(state) is None:
            break
        state = game.play(state, game.random_move(state, rng))
    return game, state


# Roles that may carry aria-label (axe's aria-prohibited-attr): elements with no role, generic
# <g> and <path> among them, may not.
NAMED_ROLES = {"img", "group", "link"}


@pytest.mark.parametrize("gid", list(GAMES))
def test_a_picture_is_an_image_with_a_text_alternative_listing_the_pieces(gid: str) -> None:
    game, state = _mid_game(gid)
    root = ET.fromstring(game.render_svg(state, 0))  # type: ignore[attr-defined]
    assert root.get("role") == "img"
    label = root.get("aria-label", "")
    pieces = game.piece_list(state, 0)  # type: ignore[attr-defined]
    assert pieces and pieces in label
    assert root.find(f"{NS}title") is not None
    for element in root.iter():
        if element is not root and element.get("aria-label") is not None:
            assert element.tag == f"{NS}a", element.tag  # only links (none here)
    assert not list(root.iter(f"{NS}a"))


@pytest.mark.parametrize("gid", list(GAMES))
def test_a_clickable_board_is_a_named_group_whose_links_say_what_each_cell_holds(gid: str) -> None:
    game, state = _mid_game(gid)
    seat = game.to_move(state)  # type: ignore[attr-defined]
    if seat is None:
        pytest.skip("the game ended in the opening")
    svg = game.render_svg(state, seat, cell_href=lambda c: f"/m?c={c}", chosen=())  # type: ignore[attr-defined]
    root = ET.fromstring(svg)
    links = list(root.iter(f"{NS}a"))
    if not links:
        pytest.skip("no clickable cells in this position")
    assert root.get("role") == "group"  # not img: links inside an image are nested-interactive
    assert root.get("aria-label")
    for element in root.iter():
        if element.get("aria-label") is not None:
            role = element.get("role") or ("link" if element.tag == f"{NS}a" else None)
            assert role in NAMED_ROLES, (element.tag, element.get("aria-label"))
    for link in links:
        cell, name = link.get("data-cell", ""), link.get("aria-label", "")
        assert cell and name.startswith(f"{cell}, ") and len(name) > len(cell) + 3, name


def test_stone_names_say_whose_they_are() -> None:
    game = new_game("mosey", order=4)
    svg = game.render_svg(game.start(), 1, cell_href=lambda c: "#", chosen=())
    names = {a.get("data-cell"): a.get("aria-label") for a in ET.fromstring(svg).iter(f"{NS}a")}
    assert names["B1"] == "B1, Light stone"
    assert names["C1"] == "C1, your Dark stone"
    assert names["A1"] == "A1, empty"
    assert "Light stones: B1," in game.piece_list(game.start())
