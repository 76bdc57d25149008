"""Hex geometry, labels and notation exactly as shared/rules/README.md defines them."""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET

import pytest

from engine import GAMES, IllegalMove, new_game
from engine.hexboard import DIRECTIONS, HexMove, hex_board
from engine.hexsvg import NEUTRAL_FILL, WHITE_FILL, draw_hex_board
from engine.svg import HIGHLIGHT, INK


def rows(board_labels: tuple[str, ...]) -> list[str]:
    """'A1-C1' style spans of each row, bottom first."""
    spans: dict[str, list[str]] = {}
    for label in board_labels:
        spans.setdefault(label[1:], []).append(label)
    return [f"{cells[0]}-{cells[-1]}" for cells in spans.values()]


def test_hexhex_side_3_rows_match_the_digest_example() -> None:
    assert rows(hex_board(3).labels) == ["A1-C1", "A2-D2", "A3-E3", "B4-E4", "C5-E5"]


def test_refugia_3_4_rows_match_the_digest_example() -> None:
    assert rows(hex_board(3, 4).labels) == ["A1-D1", "A2-E2", "A3-F3", "B4-F4", "C5-F5", "D6-F6"]


@pytest.mark.parametrize(("a", "b", "cells"), [
    (2, 3, 12), (2, 4, 18), (3, 4, 27), (3, 5, 36), (4, 5, 48), (4, 6, 60), (5, 6, 75),
    (5, 7, 90), (6, 7, 108), (6, 8, 126), (4, 4, 37), (5, 5, 61), (6, 6, 91), (10, 10, 271),
])
def test_cell_counts(a: int, b: int, cells: int) -> None:
    assert hex_board(a, b).size == cells


def test_neighbours_of_c2_follow_the_digest() -> None:
    board = hex_board(4)
    c2 = board.index("C2")
    named = {DIRECTIONS[d]: board.labels[n] for d, n in enumerate(board.neighbours[c2])}
    assert named == {"E": "D2", "W": "B2", "NW": "C3", "NE": "D3", "SW": "B1", "SE": "C1"}


def test_corner_and_edge_cells_have_fewer_neighbours() -> None:
    board = hex_board(4)
    counts = sorted(len(ns) for ns in board.adjacent)
    assert counts.count(3) == 6  # the six corners
    assert counts.count(4) == 6 * 2  # side 4: two non-corner cells per edge
    assert counts.count(6) == board.size - 18


def test_cell_index_counts_rows_from_the_bottom() -> None:
    board = hex_board(3)
    assert [board.index(x) for x in ("A1", "C1", "A2", "E3", "B4", "E5")] == [0, 2, 3, 11, 12, 18]
    assert board.index(" e5 ") == 18


def test_unknown_cell_is_refused_with_its_label() -> None:
    with pytest.raises(IllegalMove, match="F1 is not a cell"):
        hex_board(3).index("f1")


def test_rays_run_to_the_edge_nearest_first() -> None:
    board = hex_board(4)
    a1 = board.index("A1")
    east = [board.labels[i] for i in board.rays[a1][DIRECTIONS.index("E")]]
    assert east == ["B1", "C1", "D1"]
    up = [board.labels[i] for i in board.rays[a1][DIRECTIONS.index("NE")]]
    assert up == ["B2", "C3", "D4", "E5", "F6", "G7"]
    assert board.rays[a1][DIRECTIONS.index("SW")] == ()
    assert board.direction(a1, board.index("D4")) == (DIRECTIONS.index("NE"), 3)
    assert board.direction(a1, board.index("B3")) is None


@pytest.mark.parametrize(("text", "canonical"), [
    ("pass", "pass"), (" PASS ", "pass"), ("d4", "D4"), ("d 4 x", "D4x"), ("c2-e2", "C2-E2"),
    ("C2 x e4", "C2xE4"), ("j10", "J10"),
])
def test_notation_round_trips(text: str, canonical: str) -> None:
    assert str(HexMove.parse(text)) == canonical
    assert HexMove.parse(canonical) == HexMove.parse(text)


@pytest.mark.parametrize("text", ["", "D", "4D", "C2--E2", "C2-", "hello", "C2xE4x"])
def test_malformed_notation_is_refused_with_the_games_examples(text: str) -> None:
    with pytest.raises(IllegalMove, match=r"is not a move \(try e\.g\. D4, pass\)$"):
        HexMove.parse(text, examples=("D4", "pass"))
    with pytest.raises(IllegalMove, match=r"is not a move$"):  # no examples of another game
        HexMove.parse(text)


def test_drawn_board_has_every_cell_coordinates_and_marks() -> None:
    board = hex_board(3)
    svg = draw_hex_board(board, stones={0: "white", 1: "black", 2: "neutral"}, marks=[1],
                         cell_href=lambda label: f"/m?c={label}" if label != "E5" else None,
                         header=["Light <to move>"])
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    links = root.findall(f".//{ns}a")
    assert {a.get("aria-label") for a in links} == set(board.labels) - {"E5"}
    assert [t.text for t in root.iter(f"{ns}text")] == ["Light <to move>"]
    coordinates = root.find(f"{ns}path[@class='coordinates']")  # aria-hidden, not labelled
    assert coordinates is not None and coordinates.get("d", "").count("M") >= 10
    pieces = [p for p in root.iter(f"{ns}path") if p.get("pointer-events") == "none"]
    fills = sorted(p.get("fill", "") for p in pieces)
    assert fills == sorted([INK, WHITE_FILL, NEUTRAL_FILL, WHITE_FILL])  # + the neutral's core
    assert len(root.findall(f"{ns}polygon[@stroke='{HIGHLIGHT}']")) == 1


@pytest.mark.parametrize("gid", list(GAMES))
def test_every_circle_drawn_is_round(gid: str) -> None:
    """Circles are two half-circle arcs whose radius is exactly half the chord (else they bulge)."""
    game = new_game(gid)
    state, rng = game.start(seed=1), random.Random(1)
    for _ in range(40):
        if game.to_move(state) is None:
            break
        state = game.play(state, game.random_move(state, rng))
    arcs = re.findall(r"a([\d.]+) ([\d.]+) 0 1 0 (-?[\d.]+) 0", game.render_svg(state, viewer=0))
    assert arcs, "no stones drawn"
    for rx, ry, dx in arcs:
        assert float(rx) == float(ry) == abs(float(dx)) / 2
