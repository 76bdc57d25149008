"""Refugia: one test per rule, each from a constructed position (docs/rules/refugia.md).

Positions are on the default 3-4 board unless a test says otherwise. Neighbours used below:
C2: D2 D3 C3 B2 B1 C1; D2: E2 E3 D3 C2 C1 D1; E2: F3 E3 D2 D1; C3: D3 D4 C4 B3 B2 C2.
"""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from engine import IllegalMove, new_game
from engine.games.refugia.rules import BOARDS, Refugia, RefugiaState

DIGEST_CELLS = {"2-3": 12, "2-4": 18, "3-4": 27, "3-5": 36, "4-5": 48,
                "4-6": 60, "5-6": 75, "5-7": 90, "6-7": 108, "6-8": 126}


def refugia(board: str = "3-4") -> Refugia:
    game = new_game("refugia", board=board)
    assert isinstance(game, Refugia)
    return game


def position(game: Refugia, white: str = "", black: str = "", neutral: str = "",
             turn: int = 0, passes: int = 0) -> RefugiaState:
    cells = ["."] * game.board.size
    for char, labels in (("W", white), ("B", black), ("N", neutral)):
        for label in labels.split():
            cells[game.board.index(label)] = char
    return game.decode({"cells": "".join(cells), "turn": turn, "passes": passes})


def legal(game: Refugia, state: RefugiaState) -> set[str]:
    return {str(m) for m in game.legal_moves(state)}


def refused(game: Refugia, state: RefugiaState, move: str) -> str:
    with pytest.raises(IllegalMove) as error:
        game.play(state, move)
    return str(error.value)


# -- the board ---------------------------------------------------------------------------------

@pytest.mark.parametrize("board", BOARDS)
def test_board_sizes_match_the_digest_table(board: str) -> None:
    game = refugia(board)
    assert game.board.size == DIGEST_CELLS[board]
    # every empty cell is a placement on the empty board, plus the pass
    assert len(game.legal_moves(game.start())) == DIGEST_CELLS[board] + 1


def test_board_3_4_rows_from_the_bottom() -> None:
    board = refugia().board
    rows = [(board.labels[s], board.labels[e - 1]) for s, e in board.row_ranges()]
    assert rows == [("A1", "D1"), ("A2", "E2"), ("A3", "F3"), ("B4", "F4"), ("C5", "F5"),
                    ("D6", "F6")]


def test_white_moves_first_on_an_empty_board() -> None:
    game = refugia()
    state = game.start()
    assert game.to_move(state) == 0 and game.seat_names(state) == ("White", "Black")
    assert state.discs == (0, 0) and state.neutral == 0


# -- placement ---------------------------------------------------------------------------------

def test_placement_next_to_own_disc_is_refused() -> None:
    game = refugia()
    state = position(game, white="C2")
    assert refused(game, state, "D2") == "D2 is next to your own disc"
    assert "D2" not in legal(game, state) and "E2" in legal(game, state)


def test_placement_next_to_enemy_or_neutral_is_allowed() -> None:
    game = refugia()
    state = position(game, white="A1", black="C2", neutral="E2")
    assert {"D2", "D1", "C3"} <= legal(game, state)  # D2 touches both C2 and E2
    after = game.play(state, "D2")
    assert game.encode(after)["cells"][game.board.index("D2")] == "W"


def test_placement_on_an_occupied_cell_is_refused() -> None:
    game = refugia()
    state = position(game, white="A1", black="C2", neutral="E2")
    assert refused(game, state, "C2") == "C2 is occupied"
    assert refused(game, state, "E2") == "E2 is occupied"


# -- moving: fewer enemies ---------------------------------------------------------------------

def test_step_must_reduce_the_enemies_around_the_disc() -> None:
    game = refugia()
    state = position(game, white="C2", black="B2 D3")  # C2 has 2 enemies
    assert "C2-D2" in legal(game, state)  # D2 has 1 (D3)
    assert refused(game, state, "C2-C3") == (
        "C2-C3 does not reduce the enemies around your disc (2 -> 2)")
    after = game.play(state, "C2-D2")
    cells = game.encode(after)["cells"]
    assert cells[game.board.index("C2")] == "." and cells[game.board.index("D2")] == "W"


def test_a_disc_without_enemies_cannot_move() -> None:
    game = refugia()
    state = position(game, white="C2", black="F6")
    assert not any("-" in move for move in legal(game, state))
    assert refused(game, state, "C2-D2").endswith("(0 -> 0)")


def test_neutral_stones_count_as_enemies() -> None:
    game = refugia()
    state = position(game, white="C2", neutral="B2 D3")
    assert "C2-D2" in legal(game, state)
    assert refused(game, state, "C2-C3").endswith("(2 -> 2)")


def test_moves_need_an_own_disc_and_an_empty_cell() -> None:
    game = refugia()
    state = position(game, white="C2", black="B2 D3 D2")
    assert refused(game, state, "B2-A2") == "B2 is not your disc"
    assert refused(game, state, "A1-A2") == "A1 is not your disc"
    assert refused(game, state, "C2-D3") == "D3 is occupied"


# -- hops --------------------------------------------------------------------------------------

def test_hop_over_an_opponent_disc_makes_it_neutral() -> None:
    game = refugia()
    state = position(game, white="C2", black="D2 B2")  # C2: 2 enemies; E2: 1 (D2 itself)
    assert "C2-E2" in legal(game, state)
    after = game.play(state, "C2-E2")
    assert after == position(game, white="E2", black="B2", neutral="D2", turn=1)


def test_hop_over_a_neutral_stone_makes_it_yours() -> None:
    game = refugia()
    state = position(game, white="C2", black="B2", neutral="D2")
    assert "C2-E2" in legal(game, state)
    after = game.play(state, "C2-E2")
    assert after == position(game, white="D2 E2", black="B2", turn=1)
    assert game.scores(after) == (1, 0)


def test_hops_over_own_discs_or_empty_cells_are_refused() -> None:
    game = refugia()
    state = position(game, white="C2 D3", black="B2 C3")
    assert refused(game, state, "C2-E4") == "C2-E4 would hop over your own disc on D3"
    assert refused(game, state, "C2-E2") == "C2-E2 would hop over an empty cell on D2"


def test_enemy_counts_are_taken_before_the_move() -> None:
    # C2 has one enemy, the neutral D2. Landing on E2 next to it: still one enemy before the move,
    # although D2 would be White's after it; so the hop is refused.
    game = refugia()
    state = position(game, white="C2", neutral="D2")
    assert refused(game, state, "C2-E2") == (
        "C2-E2 does not reduce the enemies around your disc (1 -> 1)")
    # the opponent disc being jumped also counts at the landing cell
    state = position(game, white="C2", black="D2")
    assert "C2-E2" not in legal(game, state)
    with_more = position(game, white="C2", black="D2", neutral="C1")
    assert "C2-E2" in legal(game, with_more)


def test_no_chained_hops() -> None:
    game = refugia()
    state = position(game, white="C2", black="D2 B2 C1 E3")  # C2: 3 enemies, E2: 2
    after = game.play(state, "C2-E2")
    assert game.to_move(after) == 1  # the hop ended White's turn, though E2-E4 would reduce
    assert "E2-E4" in legal(game, game.play(after, "pass"))  # ...as a move of its own, later
    board = position(game, white="A2", black="B2 D2 C2")
    assert refused(game, board, "A2-E2") == (
        "A2-E2 is neither a step to a neighbouring cell nor a hop over one stone")
    assert refused(game, board, "A2-C3").startswith("A2-C3 is neither")


# -- passing and the end -----------------------------------------------------------------------

def test_pass_is_always_legal() -> None:
    game = refugia("2-3")
    assert "pass" in legal(game, game.start())
    busy = position(game, white="B2", black="A2 C2", neutral="C3")  # steps, a hop, placements
    assert {"pass", "B2-B1", "B2-D2", "D2"} <= legal(game, busy)
    full = position(game, white="A1", neutral="B1 C1 A2 B2 C2 D2 B3 C3 D3 C4 D4")
    assert legal(game, full) == {"pass"}


def test_two_passes_in_a_row_end_the_game() -> None:
    game = refugia()
    state = game.play(game.play(game.start(), "C2"), "pass")
    assert game.outcome(state) is None and game.to_move(state) == 0
    state = game.play(state, "pass")
    assert game.to_move(state) is None and game.outcome(state) is not None
    assert game.legal_moves(state) == []
    assert refused(game, state, "pass") == "the game is over"


def test_pass_move_pass_does_not_end_the_game() -> None:
    game = refugia()
    state = game.start()
    for move in ("pass", "D4", "pass"):
        state = game.play(state, move)
    assert game.outcome(state) is None and game.to_move(state) == 1


# -- scoring and the result --------------------------------------------------------------------

def test_score_counts_each_adjacent_pair_once() -> None:
    game = refugia()
    state = position(game, white="C2 D2 D3 A1", black="B4 C4 F6", neutral="C5", passes=2)
    assert game.scores(state) == (3, 1)  # the C2 D2 D3 triangle; B4-C4; neutral never pairs
    result = game.outcome(state)
    assert result is not None and result.winners == (0,) and result.scores == (3, 1)
    assert result.reason == "White has more adjacent pairs (3 to 1)."


def test_tied_score_more_discs_wins() -> None:
    game = refugia()
    state = position(game, white="C2 D2", black="A3 B3 F6", passes=2)
    result = game.outcome(state)
    assert result is not None and result.winners == (1,) and result.scores == (1, 1)
    assert result.reason == "Adjacent pairs tied at 1; Black has more discs (3 to 2)."


@pytest.mark.parametrize(("first", "winner"), [(0, 0), (1, 1)])
def test_still_tied_the_player_who_made_the_final_pass_loses(first: int, winner: int) -> None:
    game = refugia()
    state = position(game, white="C2 D2", black="A3 B3", turn=first)
    state = game.play(game.play(state, "pass"), "pass")  # `first` passes, then the other
    result = game.outcome(state)
    assert result is not None and result.winners == (winner,)
    loser = ("White", "Black")[1 - winner]
    assert result.reason == (
        f"Adjacent pairs (1) and discs (2) tied; {loser} made the final pass and loses.")


# -- the move lists: two readings of the rules agree, and playouts draw from the list -----------

def _candidates(game: Refugia) -> list[str]:
    labels, board = game.board.labels, game.board
    moves = ["pass", *labels]
    for origin in range(board.size):
        for ray in board.rays[origin]:
            moves += [f"{labels[origin]}-{labels[target]}" for target in ray[:3]]
    return moves


@pytest.mark.parametrize("board", ["2-3", "3-4", "4-5"])
def test_listed_moves_are_exactly_the_moves_the_rules_allow(board: str) -> None:
    game = refugia(board)
    candidates = _candidates(game)
    rng = random.Random(board)
    state, checked = game.start(), 0
    while checked < 120:
        if game.to_move(state) is None:
            state = game.start()
        listed = legal(game, state)
        allowed = {m for m in candidates if game.why_illegal(state, game.parse_move(m)) is None}
        assert listed == allowed, game.encode(state)
        state, checked = game.random_plies(state, rng, 1), checked + 1


def test_random_plies_draw_every_listed_move_about_equally() -> None:
    game = refugia()
    state = position(game, white="C2 E5 A3", black="D2 B2 D4 F4", neutral="D5 C1")
    outcomes = {game.play(state, str(m)): str(m) for m in game.legal_moves(state)}
    drawn = Counter(outcomes[game.random_plies(state, random.Random(n), 1)] for n in range(3000))
    assert set(drawn) == set(outcomes.values())
    expected = 3000 / len(outcomes)
    assert all(0.6 * expected < count < 1.4 * expected for count in drawn.values())


@pytest.mark.parametrize("board", ["2-3", "6-8"])
def test_playouts_end_after_two_passes_in_a_legal_position(board: str) -> None:
    game = refugia(board)
    for seed in range(5):
        final = game.playout(game.start(), random.Random(seed))
        assert final.passes == 2 and game.outcome(final) is not None
        assert game.decode(game.encode(final)) == final


# -- notation, storage and display -------------------------------------------------------------

def test_notation_is_read_loosely_and_written_canonically() -> None:
    game = refugia()
    assert str(game.parse_move(" c2 - e2 ")) == "C2-E2"
    assert str(game.parse_move("d4")) == "D4" and str(game.parse_move("PASS")) == "pass"
    with pytest.raises(IllegalMove, match="not a cell"):
        game.parse_move("A6")
    with pytest.raises(IllegalMove, match="no 'x' moves"):
        game.parse_move("C2xE2")
    assert game.move_cells(game.parse_move("C2-E2")) == ("C2", "E2")
    assert game.move_cells(game.parse_move("pass")) == ()


def test_encoding_is_readable_and_round_trips() -> None:
    game = refugia("2-3")
    state = position(game, white="A1", black="D4", neutral="B2", turn=1, passes=1)
    data = game.encode(state)
    assert data == {"cells": "W...N......B", "turn": 1, "passes": 1}
    assert game.decode(data) == state
    with pytest.raises(ValueError, match="not a Refugia"):
        game.decode({"cells": "W" * 27, "turn": 0, "passes": 0})


def test_svg_shows_stones_scores_turn_and_the_last_move() -> None:
    game = refugia()
    state = game.play(position(game, white="C2", black="B2", neutral="D2 F6"), "C2-E2")
    svg = game.render_svg(state, last_move="C2-E2", cell_href=lambda c: f"/m?c={c}")
    root = ET.fromstring(svg)
    texts = " ".join(e.text or "" for e in root.iter() if e.tag.endswith("text"))
    assert "White: 1 pair, 2 discs" in texts and "Black: 0 pairs, 1 disc" in texts
    assert "Black to move." in texts
    assert len([e for e in root.iter() if e.tag.endswith("a")]) == 27
    assert svg.count('fill="#8c8c8c"') == 1  # one neutral diamond
    assert svg.count('stroke="#d3302f"') == 3  # origin, landing and the hopped cell


def test_text_board_shows_rows_from_the_top() -> None:
    game = refugia()
    text = game.render_text(position(game, white="D6", black="A1", neutral="F3"))
    lines = text.splitlines()
    assert lines[:3] == ["White: 0 pairs, 1 disc", "Black: 0 pairs, 1 disc", "White to move."]
    assert lines[3].split() == ["6", "W", ".", ".", "D6-F6"]
    assert lines[6].split() == ["3", ".", ".", ".", ".", ".", "N", "A3-F3"]
    assert lines[8].split() == ["1", "B", ".", ".", ".", "A1-D1"]
