"""The Mosey family, rule by rule, from constructed positions (docs/rules/mosey.md)."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from engine.base import IllegalMove
from engine.games.mosey.fast import fast_rules
from engine.games.mosey.moves import Movement, group_size, joined_size, legal_triples
from engine.games.mosey.rules import (
    GAME_CLASSES,
    SETUPS,
    Backfire,
    Conflagration,
    DontMosey,
    Firestorm,
    KeepARiding,
    Mosey,
    MoseyGame,
    MoseyState,
)
from engine.hexboard import HexMove, hex_board
from engine.svg import HIGHLIGHT

STEP_GAMES = (KeepARiding, Firestorm, Conflagration, Backfire)


def legal(game: MoseyGame, state: MoseyState) -> list[str]:
    return [str(m) for m in game.legal_moves(state)]


def bits(order: int, cells: str) -> int:
    board = hex_board(order)
    return sum(1 << board.index(c) for c in cells.split())


# -- setup ----------------------------------------------------------------------------------------

DIGEST_SETUPS = {
    4: ("B1 A2 D2 C3 F3 B4 E4 D5 G5 C6 F6 E7", "C1 B2 E2 A3 D3 C4 F4 B5 E5 D6 G6 F7"),
    5: ("A1 D1 C2 F2 B3 E3 A4 D4 G4 C5 F5 I5 B6 E6 H6 D7 G7 F8 I8 E9 H9",
        "B1 E1 A2 D2 C3 F3 B4 E4 H4 A5 D5 G5 C6 F6 I6 E7 H7 D8 G8 F9 I9"),
    6: ("A1 D1 C2 F2 B3 E3 H3 A4 D4 G4 C5 F5 I5 B6 E6 H6 K6 D7 G7 J7 C8 F8 I8 E9 H9 K9 G10 J10 "
        "F11 I11",
        "C1 F1 B2 E2 A3 D3 G3 C4 F4 I4 B5 E5 H5 A6 D6 G6 J6 C7 F7 I7 E8 H8 K8 D9 G9 J9 F10 I10 "
        "H11 K11"),
}


@pytest.mark.parametrize(("order", "stones"), [(4, 12), (5, 21), (6, 30)])
def test_setups_match_the_digest_on_every_third_cell(order: int, stones: int) -> None:
    game = Mosey(order=order)
    state = game.start()
    light, dark = DIGEST_SETUPS[order]
    assert game.encode(state)["light"] == sorted(light.split(), key=game.board.index)
    assert game.encode(state)["dark"] == sorted(dark.split(), key=game.board.index)
    assert state.light.bit_count() == state.dark.bit_count() == stones
    assert SETUPS[order] == DIGEST_SETUPS[order]
    board = game.board
    for mask in (state.light, state.dark):  # no two stones of a colour touch: a 3-colouring
        for i in range(board.size):
            if (mask >> i) & 1:
                assert not board.neighbour_mask[i] & mask
    assert game.to_move(state) == 0 and game.seat_names(state) == ("Light", "Dark")


# -- groups: G and D(t) ---------------------------------------------------------------------------

def test_group_sizes_count_the_stone_and_a_vacated_origin_splits_its_group() -> None:
    board = hex_board(4)
    own = bits(4, "B2 C2 D2 C4")
    c2, c3 = board.index("C2"), board.index("C3")
    assert group_size(board, own, c2) == 3
    # C2 leaves the middle of B2-C2-D2: on C3 it still touches B2 and the friend on C4, not D2.
    assert joined_size(board, own, c2, c3) == 3


def test_a_step_must_make_a_larger_group_counting_only_the_touching_part() -> None:
    game = Conflagration()
    short = game.position(["B2", "C2", "D2", "C4"], [])
    assert "C2-C3" not in legal(game, short)
    with pytest.raises(IllegalMove, match="C2-C3 does not make a larger group"):
        game.play(short, "C2-C3")
    # With a pair above instead of a single friend, C3 joins 1 + 1 (B2) + 2 = 4 > 3.
    enough = game.position(["B2", "C2", "D2", "C4", "C5"], [])
    assert "C2-C3" in legal(game, enough)


@pytest.mark.parametrize("cls", STEP_GAMES)
def test_a_lone_stone_must_end_next_to_a_friend(cls: type[MoseyGame]) -> None:
    game = cls()
    state = game.position(["C3", "E3", "G7"], [])
    assert legal(game, state) == ["C3-D3", "E3-D3"]
    with pytest.raises(IllegalMove, match="a lone stone must end next to a friend"):
        game.play(state, "G7-G6")


# -- Mosey and Don't Mosey: slides toward a friend ------------------------------------------------

@pytest.mark.parametrize("cls", [Mosey, DontMosey])
def test_a_slide_needs_a_friend_beyond_the_stopping_cell(cls: type[MoseyGame]) -> None:
    game = cls()
    state = game.position(["A4", "G4", "D5"], ["E4"])
    assert legal(game, state) == ["A4-C4", "A4-D4", "A4xE4", "G4xE4"]
    alone = game.position(["A4", "D5"], ["E4"])  # G4 gone: nothing beyond on row 4
    assert legal(game, alone) == []
    with pytest.raises(IllegalMove, match="there is no friend beyond D4 on that line"):
        game.play(game.position(["A4", "D5", "D7"], ["E4"]), "A4-D4")


def test_the_friend_beyond_may_stand_behind_other_stones() -> None:
    game = Mosey()
    state = game.position(["A4", "G4", "D5"], ["E4", "F4"])
    moves = legal(game, state)
    assert "A4xE4" in moves  # F4 (an enemy) stands between E4 and the friend on G4
    assert "A4-D4" in moves
    assert "G4xF4" in moves and "G4xE4" not in moves  # a slide stops at the first stone


def test_a_friendly_first_stone_blocks_the_line() -> None:
    game = Mosey()
    state = game.position(["A4", "C4", "G4"], ["E4"])
    assert legal(game, state) == ["A4-B4", "C4-B4", "C4xE4", "G4xE4"]
    with pytest.raises(IllegalMove, match="the way from A4 to E4 is blocked at C4"):
        game.play(state, "A4xE4")


# -- the step games: steps, slide-captures and per-stone priority ---------------------------------

# C3 and E3 can step (to D3) and capture (C6, G5); G7 can only capture; A1 can only step (to B2).
PRIORITY = (["C3", "E3", "G7", "A1"], ["C6", "G5"])


def test_a_slide_capture_takes_the_first_stone_met_and_steps_are_single() -> None:
    game = Conflagration()
    state = game.position(["A4", "C4"], ["E4", "F4"])
    assert legal(game, state) == ["A4-B4", "C4-B4", "C4xE4"]
    with pytest.raises(IllegalMove, match="A4-A2: a stone steps one cell, or slides only to"):
        game.play(game.position(["A4", "B1", "C4"], ["E4"]), "A4-A2")  # A2 would touch B1


@pytest.mark.parametrize("cls", [KeepARiding, Firestorm])
def test_a_stone_that_can_step_may_not_capture(cls: type[MoseyGame]) -> None:
    game = cls()
    state = game.position(*PRIORITY)
    assert legal(game, state) == ["A1-B2", "C3-B2", "C3-D3", "E3-D3", "G7xG5"]
    with pytest.raises(IllegalMove, match="C3 can step, so it may not capture"):
        game.play(state, "C3xC6")


def test_conflagration_lets_every_stone_step_or_capture() -> None:
    game = Conflagration()
    state = game.position(*PRIORITY)
    assert legal(game, state) == ["A1-B2", "C3-B2", "C3-D3", "C3xC6", "E3-D3", "E3xG5", "G7xG5"]


def test_in_backfire_a_stone_that_can_capture_may_not_step() -> None:
    game = Backfire()
    state = game.position(*PRIORITY)
    assert legal(game, state) == ["A1-B2", "C3xC6", "E3xG5", "G7xG5"]
    with pytest.raises(IllegalMove, match="E3 can capture, so it may not step"):
        game.play(state, "E3-D3")


# -- the end --------------------------------------------------------------------------------------

LAST_MOVER_WINS = {Mosey: True, DontMosey: False, KeepARiding: True, Firestorm: False,
                   Conflagration: False, Backfire: False}


@pytest.mark.parametrize("cls", GAME_CLASSES)
def test_the_game_ends_when_the_next_player_cannot_move(cls: type[MoseyGame]) -> None:
    game = cls()
    state = game.play(game.position(["B4", "G4"], ["E4", "A1"]), "G4xE4")
    # Dark's A1 has no friend and no Light stone on its lines.
    assert game.to_move(state) is None and game.legal_moves(state) == []
    result = game.outcome(state)
    assert result is not None
    assert result.winners == ((0,) if LAST_MOVER_WINS[cls] else (1,))
    rule = "wins" if LAST_MOVER_WINS[cls] else "loses"
    assert result.reason == f"Dark has no move; in {cls.info.name} the last player to move {rule}"
    assert result.scores == (2.0, 1.0)
    with pytest.raises(IllegalMove, match="the game is over"):
        game.play(state, "A1-B2")


@pytest.mark.parametrize("cls", GAME_CLASSES)
def test_losing_the_last_stone_ends_the_game(cls: type[MoseyGame]) -> None:
    game = cls()
    state = game.play(game.position(["A4", "G4"], ["D4"]), "A4xD4")
    result = game.outcome(state)
    assert result is not None and "Dark has no stones left" in result.reason
    assert result.winners == ((0,) if LAST_MOVER_WINS[cls] else (1,))


def test_a_game_in_progress_has_no_outcome_and_the_turn_alternates() -> None:
    game = Mosey()
    state = game.play(game.start(), "G5xF4")
    assert game.outcome(state) is None and game.to_move(state) == 1 and state.ply == 1


# -- notation and reasons -------------------------------------------------------------------------

def test_notation_is_case_and_space_insensitive() -> None:
    game = Mosey()
    assert game.parse_move(" g5 X f4 ") == HexMove(origin="G5", target="F4", capture=True)
    assert str(game.parse_move("e7 - e6")) == "E7-E6"
    assert game.play(game.start(), " g5 x f4") == game.play(game.start(), "G5xF4")


@pytest.mark.parametrize(("text", "reason"), [
    ("pass", "passing is not allowed"),
    ("D4", "not a move in Mosey"),
    ("A1-Z9", "Z9 is not a cell of this board"),
    ("hello", "is not a move"),
])
def test_text_that_is_not_a_move_is_refused(text: str, reason: str) -> None:
    game = Mosey()
    with pytest.raises(IllegalMove, match=reason):
        game.play(game.start(), text)


# Light A4-B4 (a pair), G4, D5; Dark E4 and A1.
REASONS = (["A4", "B4", "G4", "D5"], ["E4", "A1"])


@pytest.mark.parametrize(("move", "reason"), [
    ("C1-C2", "C1 is empty"),
    ("A1-B1", "A1 is not your stone"),
    ("A4-A4", "a stone must move to another cell"),
    ("A4-C5", "C5 is not on a straight line from A4"),
    ("A4-B4", "B4 holds your own stone"),
    ("G4xA4", "the way from G4 to A4 is blocked at E4"),
    ("G4-E4", "E4 holds an enemy stone: write G4xE4 to capture it"),
    ("B4xC4", "there is no stone to capture on C4"),
    ("G4-G5", "there is no friend beyond G5 on that line"),
    ("B4-C4", r"B4-C4 does not make a larger group \(its group has 2 stones, it would join 2\)"),
])
def test_illegal_moves_get_a_specific_reason(move: str, reason: str) -> None:
    game = Mosey()
    state = game.position(*REASONS)
    assert legal(game, state) == ["B4xE4", "G4xE4"]
    with pytest.raises(IllegalMove, match=f"^{reason}$"):
        game.play(state, move)


# -- storage and drawing --------------------------------------------------------------------------

def test_a_state_survives_encoding_and_names_its_cells() -> None:
    game = Firestorm(order=5)
    state = game.play(game.start(), "A1-B2")
    data = game.encode(state)
    assert data["mover"] == 1 and data["ply"] == 1 and len(data["dark"]) == 21
    assert "B2" in data["light"] and "A1" not in data["light"]
    assert game.decode(data) == state


def test_the_svg_marks_the_last_move_and_says_whose_turn_it_is() -> None:
    game = Mosey()
    state = game.play(game.start(), "G5xF4")
    svg = game.render_svg(state, last_move="G5xF4", cell_href=lambda cell: f"#{cell}")
    root = ET.fromstring(svg)
    texts = [e.text for e in root.iter() if e.tag.endswith("text")]
    assert "Mosey: Dark to move" in texts and "Stones left: Light 12, Dark 11" in texts
    marks = [e for e in root.iter() if e.get("stroke") == HIGHLIGHT]
    assert len(marks) == 2
    assert game.move_cells(game.parse_move("G5xF4")) == ("G5", "F4")
    links = {e.get("href") for e in root.iter() if e.tag.endswith("a")}
    assert "#F4" in links and len(links) == 37


def test_the_text_board_shows_rows_columns_and_stones() -> None:
    game = Mosey()
    lines = game.render_text(game.play(game.start(), "G5xF4")).splitlines()
    assert lines[0].startswith("Mosey: Dark to move")
    assert lines[1] == " 7     . O X ."
    assert lines[4] == " 4  . O X . O O ."  # Light's G5 stone now stands on F4
    assert lines[7] == " 1     . O X . E"  # column E starts at E2, up-right of D1
    assert lines[-2] == "        A B C D"
    assert lines[-1] == "Stones left: Light 12, Dark 11"


# -- the fast playout keeps to the same rules -----------------------------------------------------

@pytest.mark.parametrize("cls", GAME_CLASSES)
@pytest.mark.parametrize("order", [4, 5, 6])
def test_a_fast_playout_replays_through_play(cls: type[MoseyGame], order: int) -> None:
    game = cls(order=order)
    start = game.start()
    for seed in range(2):
        trace: list[tuple[int, int]] = []
        light, dark, mover, plies = fast_rules(order, cls.movement).playout(
            start.light, start.dark, start.mover, random.Random(seed), 10_000, trace)
        state = start
        for origin, target in trace:
            enemy = state.light if state.mover else state.dark
            mark = "x" if (enemy >> target) & 1 else "-"
            state = game.play(state, f"{game.board.labels[origin]}{mark}"
                                     f"{game.board.labels[target]}")
        assert game.to_move(state) is None
        assert (state.light, state.dark, state.mover, state.ply) == (light, dark, mover, plies)
        assert game.playout(start, random.Random(seed)) == state


@pytest.mark.parametrize("movement", ["toward-friend", "step-first", "either", "capture-first"])
@pytest.mark.parametrize("order", [4, 6])
def test_the_fast_move_count_draws_from_exactly_the_legal_moves(
    movement: Movement, order: int
) -> None:
    board = hex_board(order)
    fast = fast_rules(order, movement)
    rng = random.Random(f"{movement}{order}")
    for _ in range(150):  # random crowded positions: groups of every shape, splits, long lines
        own = enemy = 0
        crowd, foes = rng.random() * 0.7, rng.random() * 0.4
        for i in range(board.size):
            roll = rng.random()
            own |= (roll < crowd) << i
            enemy |= (crowd <= roll < crowd + foes) << i
        slow = sorted((o, t) for o, t, _ in legal_triples(board, movement, own, enemy))
        drawn = [(fast.unpad[o], fast.unpad[t])
                 for o, t in fast.all_moves(fast.pad_mask(own), fast.pad_mask(enemy))]
        assert sorted(drawn) == slow
