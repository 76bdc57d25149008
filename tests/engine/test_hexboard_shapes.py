"""Boards of every shape (hexagon, rhombus, rectangle of hexes, any set of cells), their edges and
their drawing; and Hex on a rhombus (tests/engine/hex_example.py), built on them, no subclass."""

from __future__ import annotations

import math
import random
import re
import xml.etree.ElementTree as ET

import pytest

from engine.base import IllegalMove
from engine.hexboard import (
    DIRECTIONS,
    STEPS,
    BadBoard,
    HexGrid,
    UnknownEdge,
    hex_board,
    hex_rectangle,
    rhombus,
)
from engine.hexsvg import draw_hex_board
from tests.engine.hex_example import EDGE_COLOURS, SWAP, HexExample, HexState

NS = "{http://www.w3.org/2000/svg}"
RADIUS = 18
TRIANGLE = HexGrid([(q, r) for r in range(4) for q in range(r, 4)],
                   facings={"bottom": 270, "right": 30, "left": 150})
SHAPES = {
    "hexagon 3": hex_board(3),
    "hexagon 3-4": hex_board(3, 4),
    "rhombus 5": rhombus(5),
    "rhombus 7x4": rhombus(7, 4),
    "rectangle 6x5": hex_rectangle(6, 5),
    "rectangle 3x4": hex_rectangle(3, 4),
    "triangle 4": TRIANGLE,
}
EVERY_SHAPE = pytest.mark.parametrize("board", SHAPES.values(), ids=SHAPES.keys())


def labels(board: HexGrid, cells: tuple[int, ...] | list[int]) -> list[str]:
    return [board.labels[i] for i in cells]


# --- Shapes ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("board", "size", "rows"), [
    (hex_board(3), 19, [3, 4, 5, 4, 3]),
    (hex_board(3, 4), 27, [4, 5, 6, 5, 4, 3]),
    (rhombus(5), 25, [5] * 5),
    (rhombus(7, 4), 28, [7] * 4),
    (hex_rectangle(6, 5), 30, [6] * 5),
    (hex_rectangle(3, 4), 12, [3] * 4),
    (TRIANGLE, 10, [4, 3, 2, 1]),
], ids=str)
def test_cell_counts_and_rows(board: HexGrid, size: int, rows: list[int]) -> None:
    assert board.size == len(board.labels) == size
    assert [end - start for start, end in board.row_ranges()] == rows


@EVERY_SHAPE
def test_labels_round_trip_and_count_rows_from_the_bottom(board: HexGrid) -> None:
    assert len(set(board.labels)) == board.size
    for i, label in enumerate(board.labels):
        assert board.index(label) == board.index(f" {label.lower()} ") == i
        assert label in board
    assert list(board.coords) == sorted(board.coords, key=lambda cell: (cell[1], cell[0]))


@EVERY_SHAPE
def test_neighbours_are_one_step_away_and_symmetric(board: HexGrid) -> None:
    cells = set(board.coords)
    for i, (q, r) in enumerate(board.coords):
        for d, (dq, dr) in enumerate(STEPS):
            j = board.neighbours[i][d]
            if j < 0:
                assert (q + dq, r + dr) not in cells
            else:
                assert board.coords[j] == (q + dq, r + dr)
                assert board.neighbours[j][(d + 3) % 6] == i
        assert sorted(board.adjacent[i]) == sorted(n for n in board.neighbours[i] if n >= 0)


def test_a_rhombus_has_two_sharp_and_two_blunt_corners() -> None:
    board = rhombus(5)
    corners = {board.labels[i]: len(ns) for i, ns in enumerate(board.adjacent) if len(ns) < 4}
    assert corners == {"E1": 2, "A5": 2, "A1": 3, "E5": 3}
    named = {DIRECTIONS[d]: board.labels[n] for d, n in enumerate(board.neighbours[12]) if n >= 0}
    assert named == {"E": "D3", "NE": "D4", "NW": "C4", "W": "B3", "SW": "B2", "SE": "C2"}


def test_a_rectangles_rows_line_up_every_other_row() -> None:
    board = hex_rectangle(4, 5)
    rows = board.row_ranges()

    def across(cell: int) -> int:  # in half cells from A1's centre
        q, r = board.coords[cell]
        return 2 * q - r

    # The second, fourth, ... rows sit half a cell to the right.
    assert [across(start) for start, _ in rows] == [0, 1, 0, 1, 0]
    assert [across(end - 1) for _, end in rows] == [6, 7, 6, 7, 6]
    assert [board.labels[start] for start, _ in rows] == ["A1", "B2", "B3", "C4", "C5"]


@pytest.mark.parametrize(("board", "edges"), [
    (rhombus(5, 4), {"bottom": "A1 B1 C1 D1 E1", "right": "E1 E2 E3 E4", "top": "A4 B4 C4 D4 E4",
                     "left": "A1 A2 A3 A4"}),
    (hex_rectangle(4, 3), {"bottom": "A1 B1 C1 D1", "right": "D1 E2 E3", "top": "B3 C3 D3 E3",
                           "left": "A1 B2 B3"}),
    (hex_board(2, 3), {"bottom": "A1 B1 C1", "lower-right": "C1 D2", "upper-right": "D2 D3 D4",
                       "top": "C4 D4", "upper-left": "A2 B3 C4", "lower-left": "A1 A2"}),
    (TRIANGLE, {"bottom": "A1 B1 C1 D1", "right": "D1 D2 D3 D4", "left": "A1 B2 C3 D4"}),
], ids=repr)
def test_edges_name_the_cells_along_each_side(board: HexGrid, edges: dict[str, str]) -> None:
    assert {name: " ".join(labels(board, edge.cells)) for name, edge in board.edges.items()} \
        == edges


@EVERY_SHAPE
def test_edges_trace_the_whole_outline_sharing_a_side_at_each_blunt_corner(
        board: HexGrid) -> None:
    outline = {(i, d) for i in range(board.size) for d in range(6) if board.neighbours[i][d] < 0}
    sides = [side for edge in board.edges.values() for side in edge.sides]
    assert set(sides) == outline
    for edge in board.edges.values():
        assert {cell for cell, _ in edge.sides} == set(edge.cells)
    shared = {side for side in sides if sides.count(side) > 1}
    assert all(sides.count(side) == 2 for side in shared)
    blunt = {"HexBoard": 6, "Rhombus": 2, "HexRectangle": 4, "HexGrid": 0}[type(board).__name__]
    assert len(shared) == blunt


def test_an_edge_is_looked_up_by_name() -> None:
    assert labels(rhombus(3), rhombus(3).edge("top").cells) == ["A3", "B3", "C3"]
    with pytest.raises(UnknownEdge, match=r"Rhombus\(3, 3\) has no edge 'north'; its edges: "
                                          r"bottom, right, top, left"):
        rhombus(3).edge("north")


@EVERY_SHAPE
def test_between_is_the_middle_of_two_cells_in_a_line(board: HexGrid) -> None:
    middles = {}
    for i in range(board.size):
        for ray in board.rays[i]:
            if len(ray) >= 2:
                middles[i, ray[1]] = ray[0]
    for i in range(board.size):
        for j in range(board.size):
            assert board.between(i, j) == middles.get((i, j))


def test_between_on_a_rhombus_and_a_rectangle() -> None:
    board = rhombus(5)
    assert board.labels[board.between(board.index("A1"), board.index("C3")) or 0] == "B2"
    assert board.between(board.index("A1"), board.index("B3")) is None  # not in a line
    assert board.between(board.index("A1"), board.index("D4")) is None  # three steps
    rectangle = hex_rectangle(4, 3)
    assert rectangle.labels[rectangle.between(rectangle.index("B3"), rectangle.index("B1"))
                            or 0] == "B2"


@EVERY_SHAPE
def test_bit_layout_round_trips_and_steps_by_fixed_shifts(board: HexGrid) -> None:
    layout = board.layout
    assert len(set(layout.bits)) == board.size
    assert layout.full == layout.mask(range(board.size))
    rng = random.Random(7)
    for _ in range(20):
        cells = rng.sample(range(board.size), rng.randint(0, board.size))
        assert layout.cells(layout.mask(cells)) == sorted(cells)
        cell_mask = sum(1 << i for i in cells)
        assert layout.to_cells(layout.to_bits(cell_mask)) == cell_mask
    for i in range(board.size):
        for d, shift in enumerate(layout.shifts):
            bit, j = layout.bits[i] + shift, board.neighbours[i][d]
            if j >= 0:
                assert bit == layout.bits[j]
            else:  # off the board: a spare bit or outside the layout, never another cell
                assert bit not in layout.bits


def test_the_hexagon_keeps_its_shape_and_name() -> None:
    board = hex_board(3, 4)
    assert isinstance(board, HexGrid) and repr(board) == "HexBoard(3, 4)"
    assert (board.a, board.b, board.num_rows) == (3, 4, 6)
    assert [len(edge.cells) for edge in board.edges.values()] == [4, 3, 4, 3, 4, 3]
    assert (repr(hex_rectangle(3, 4)), repr(rhombus(5))) == ("HexRectangle(3, 4)", "Rhombus(5, 5)")


@pytest.mark.parametrize(("build", "message"), [
    (lambda: rhombus(1, 5), "a rhombus needs sides of at least 2 cells"),
    (lambda: hex_rectangle(3, 1), "a rectangle of hexes needs sides of at least 2 cells"),
    (lambda: hex_board(1, 3), "a hex board needs edges of at least 2 cells"),
    (lambda: HexGrid([]), "at least one cell"),
    (lambda: HexGrid([(26, 0)]), r"cell \(26, 0\) is outside columns 0-25"),
    (lambda: HexGrid([(0, -1)]), r"cell \(0, -1\) is outside"),
    (lambda: HexGrid([(0, 0)], facings={"up": 45}), "multiple of 30 degrees .* not 45"),
], ids=["rhombus", "rectangle", "hexagon", "empty", "column Z+1", "row 0", "facing"])
def test_boards_that_cannot_be_built_say_why(build: object, message: str) -> None:
    with pytest.raises(BadBoard, match=message):
        build()  # type: ignore[operator]


# --- Drawing ---------------------------------------------------------------------------------

def draw(board: HexGrid, edge_colours: dict[str, str] | None = None) -> ET.Element:
    svg = draw_hex_board(board, stones={}, edge_colours=edge_colours,
                         cell_href=lambda label: f"/m?c={label}", radius=RADIUS)
    return ET.fromstring(svg)


def centres(root: ET.Element) -> dict[str, tuple[float, float]]:
    """Each linked cell's centre, from its hexagon's corners."""
    found = {}
    for link in root.iter(f"{NS}a"):
        polygon = link.find(f"{NS}polygon")
        assert polygon is not None
        corners = [tuple(map(float, p.split(","))) for p in polygon.get("points", "").split()]
        found[link.get("data-cell", "")] = (sum(x for x, _ in corners) / 6,
                                            sum(y for _, y in corners) / 6)
    return found


def band_points(root: ET.Element, name: str) -> tuple[ET.Element, list[tuple[float, float]]]:
    (band,) = [p for p in root.iter(f"{NS}path") if p.get("data-edge") == name]
    numbers = [float(n) for n in re.findall(r"-?[\d.]+", band.get("d", ""))]
    return band, list(zip(numbers[::2], numbers[1::2], strict=True))


@EVERY_SHAPE
def test_every_cell_of_every_shape_is_drawn(board: HexGrid) -> None:
    root = draw(board)
    assert set(centres(root)) == set(board.labels)
    plain = ET.fromstring(draw_hex_board(board, stones={}))
    (cells,) = [p for p in plain.iter(f"{NS}path") if p.get("stroke-width") == "1"]
    assert cells.get("d", "").count("M") == board.size
    assert not [p for p in plain.iter(f"{NS}path") if p.get("class") == "edge"]


def test_a_rhombus_draws_every_cell_where_its_coordinates_say() -> None:
    board = rhombus(5)
    found = centres(draw(board))
    width = RADIUS * math.sqrt(3)
    a1 = found["A1"]
    for label, (x, y) in found.items():
        q, r = board.coords[board.index(label)]
        assert (round(x - a1[0], 0), round(y - a1[1], 0)) == (round(width * (q - r / 2), 0),
                                                              round(-1.5 * RADIUS * r, 0))


def test_an_edge_mark_is_a_band_of_its_colour_along_the_outside_of_its_cells() -> None:
    board = rhombus(5)
    root = draw(board, {"top": "#c0392b"})
    band, points = band_points(root, "top")
    assert band.get("stroke") == "#c0392b" and band.get("fill") == "none"
    assert float(band.get("stroke-width", 0)) >= 0.4 * RADIUS
    found = centres(root)
    top = set(labels(board, board.edge("top").cells))
    touched = set()
    for x, y in points:
        nearest = min(found, key=lambda label: math.dist(found[label], (x, y)))
        assert nearest in top
        assert 0.8 * RADIUS <= math.dist(found[nearest], (x, y)) <= RADIUS + 0.5  # its outline
        assert y < found[nearest][1]  # above the top row: outside the board
        touched.update(label for label in top if math.dist(found[label], (x, y)) <= RADIUS + 0.5)
    assert touched == top
    # Beneath the cells, which cover its inner half: only the outer half shows.
    children = list(root)
    cells = next(child for child in children if child.tag == f"{NS}g")
    assert children.index(band) < children.index(cells)


def test_two_bands_meet_halfway_along_a_blunt_corner() -> None:
    board = rhombus(5)
    root = draw(board, {"bottom": "#c0392b", "left": "#1f4e9a"})
    _, bottom = band_points(root, "bottom")
    _, left = band_points(root, "left")
    assert bottom[0] == left[-1]  # counter-clockwise: down the left edge, then along the bottom
    assert math.dist(centres(root)["A1"], bottom[0]) == pytest.approx(RADIUS * math.sqrt(3) / 2,
                                                                      abs=0.2)
    # At the sharp corner the band runs to E1's tip, where the right edge's band begins.
    assert math.dist(centres(root)["E1"], bottom[-1]) == pytest.approx(RADIUS, abs=0.2)


def test_an_unknown_edge_is_refused_when_drawing() -> None:
    with pytest.raises(UnknownEdge, match="no edge 'north'"):
        draw_hex_board(rhombus(5), stones={}, edge_colours={"north": "#000"})


# --- Hex, a newcomer's game on a rhombus -----------------------------------------------------

def play(game: HexExample, moves: str) -> HexState:
    state = game.start()
    for move in moves.split():
        state = game.play(state, move)
    return state


def test_hex_places_a_stone_a_turn_on_empty_cells() -> None:
    game = HexExample(5)
    state = play(game, "c3 d3")
    assert {game.board.labels[i]: kind for i, kind in game.stones(state).items()} \
        == {"C3": "black", "D3": "white"}
    assert game.to_move(state) == 0 and len(game.legal_moves(state)) == 23
    with pytest.raises(IllegalMove, match="C3 is taken"):
        game.play(state, "C3")
    with pytest.raises(IllegalMove, match="F1 is not a cell"):
        game.play(state, "F1")
    with pytest.raises(IllegalMove, match="only places stones"):
        game.play(state, "C3-C4")
    with pytest.raises(IllegalMove, match="is not a move"):
        game.play(state, SWAP)  # only white's first move may swap


def test_hex_swap_gives_white_the_mirrored_stone() -> None:
    game = HexExample(7)
    state = play(game, "b1")
    assert SWAP in game.legal_moves(state)
    swapped = game.play(state, SWAP)
    assert game.stones(swapped) == {game.board.index("A2"): "white"}
    assert game.to_move(swapped) == 0 and SWAP not in game.legal_moves(swapped)


def test_black_wins_by_joining_bottom_and_top() -> None:
    game = HexExample(5)
    state = play(game, "c1 a2 c2 a3 c3 a4 c4 a5")
    assert game.winner(state) is None and game.to_move(state) == 0
    state = game.play(state, "c5")
    assert game.winner(state) == 0 and game.to_move(state) is None
    assert game.legal_moves(state) == []
    with pytest.raises(IllegalMove, match="over"):
        game.play(state, "e5")


def test_white_wins_by_joining_left_and_right() -> None:
    game = HexExample(5)
    state = play(game, "a1 a3 b1 b3 c1 c3 d1 d3 e1")  # black's whole bottom row joins nothing
    assert game.winner(state) is None
    assert game.winner(game.play(state, "e3")) == 1


def test_stones_join_only_through_shared_sides() -> None:
    game = HexExample(5)
    # C2 and B3 only touch at a corner (no side between them): no chain yet.
    state = play(game, "c1 e1 c2 e2 b3 e4 b4 e5 b5 a1")
    assert game.winner(state) is None
    assert game.winner(game.play(state, "c3")) == 0  # C3 shares a side with C2 and with B3


@pytest.mark.parametrize("size", [5, 6, 7])
@pytest.mark.parametrize("seed", range(5))
def test_random_hex_games_always_end_with_a_winner(size: int, seed: int) -> None:
    game, rng = HexExample(size), random.Random(seed)
    state = game.start()
    while game.to_move(state) is not None:
        state = game.play(state, rng.choice(game.legal_moves(state)))
        assert state.moves <= size * size + 1  # a swap is a move that places no stone
    assert game.winner(state) in (0, 1)


@pytest.mark.parametrize("size", [5, 6, 7])
def test_a_full_hex_board_has_exactly_one_winner(size: int) -> None:
    """Hex never draws: however the cells are shared out, exactly one seat joins its edges."""
    game, rng = HexExample(size), random.Random(size)
    cells = list(range(game.board.size))
    for _ in range(30):
        rng.shuffle(cells)
        black = game.layout.mask(cells[:len(cells) // 2 + rng.randint(-3, 3)])
        white = game.layout.full & ~black
        joined = [bool(game.reach(own & start, own) & goal)
                  for own, (start, goal) in zip((black, white), game.goals, strict=True)]
        assert joined.count(True) == 1


def test_hex_draws_each_seats_goal_edges_in_its_colour() -> None:
    game = HexExample(5)
    root = ET.fromstring(game.render_svg(play(game, "c3")))
    colours = {p.get("data-edge"): p.get("stroke") for p in root.iter(f"{NS}path")
               if p.get("class") == "edge"}
    assert colours == {"bottom": EDGE_COLOURS[0], "top": EDGE_COLOURS[0],
                       "left": EDGE_COLOURS[1], "right": EDGE_COLOURS[1]}
