"""Stigmergy's rules, one test per rule, each from a constructed position (size 5 unless noted).

Size 5 landmarks: E5 is the centre (6 neighbours), C1 an edge cell (4), A1 a corner (3).
From E5 the rays run E to I5, W to A5, NE to I9, NW to E9, SW to A1 and SE to E1.
"""

from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET
from collections.abc import Iterable

import pytest

from engine import IllegalMove, new_game
from engine.base import Game
from engine.games.stigmergy.rules import KomiMove, Stigmergy, StigmergyState, parse_move


def game5(komi: str = "negotiate") -> Stigmergy:
    game = new_game("stigmergy", size=5, komi=komi)
    assert isinstance(game, Stigmergy)
    return game


def position(game: Stigmergy, black: Iterable[str] = (), white: Iterable[str] = (), *,
             komi: int = 0, black_seat: int = 0, to_move: str = "Black",
             button: int | None = None, passes: int = 0) -> StigmergyState:
    """A mid-game position with the named stones; ``to_move`` is a colour."""
    cells = ["."] * game.board.size
    for label in black:
        cells[game.board.index(label)] = "B"
    for label in white:
        cells[game.board.index(label)] = "W"
    mover = black_seat if to_move == "Black" else 1 - black_seat
    return StigmergyState(board="".join(cells), komi=komi, black_seat=black_seat, mover=mover,
                          button=button, passes=passes)


def controller(game: Stigmergy, state: StigmergyState, label: str) -> str | None:
    black, white = state.masks()
    black_ctrl, white_ctrl = game.sight.control(black, white)
    c = game.board.index(label)
    return "Black" if black_ctrl >> c & 1 else "White" if white_ctrl >> c & 1 else None


def legal(game: Stigmergy, state: StigmergyState) -> set[str]:
    return {str(m) for m in game.legal_moves(state)}


def refusal(game: Stigmergy, state: StigmergyState, move: str) -> str:
    with pytest.raises(IllegalMove) as refused:
        game.play(state, move)
    return str(refused.value)


def everything_but(game: Stigmergy, *labels: str) -> list[str]:
    return [label for label in game.board.labels if label not in labels]


def full_board(game: Stigmergy, black_count: int, *, komi: int, to_move: str) -> StigmergyState:
    """A board with no empty cell: the first ``black_count`` cells Black, the rest White."""
    labels = game.board.labels
    return position(game, black=labels[:black_count], white=labels[black_count:], komi=komi,
                    to_move=to_move)


# -- control ---------------------------------------------------------------------------------


def test_an_inside_cell_is_controlled_with_four_of_its_six_lines() -> None:
    game = game5()
    three = position(game, black=["I5", "A5", "I9"])
    assert controller(game, three, "E5") is None
    four = position(game, black=["I5", "A5", "I9", "E9"])
    assert controller(game, four, "E5") == "Black"


def test_an_edge_cell_is_controlled_with_three_of_its_four_lines() -> None:
    game = game5()
    assert controller(game, position(game, white=["A1", "E1"]), "C1") is None
    assert controller(game, position(game, white=["A1", "E1", "C5"]), "C1") == "White"


def test_a_corner_is_controlled_with_two_of_its_three_lines() -> None:
    game = game5()
    assert controller(game, position(game, black=["E1"]), "A1") is None
    assert controller(game, position(game, black=["E1", "A5"]), "A1") == "Black"


def test_sight_stops_at_the_first_stone_of_either_colour() -> None:
    game = game5()
    board = game.board
    # Three Black stones in a row east of E5 count once: only G5 is seen.
    black, white = position(game, black=["G5", "H5", "I5"]).masks()
    assert game.sight.sees(board.index("E5"), black, white) == (1, 0)
    # A White stone on F5 hides I5, so Black's four lines drop to three.
    blocked = position(game, black=["I5", "A5", "I9", "E9"], white=["F5"])
    assert controller(game, blocked, "E5") is None


def test_a_stone_does_not_see_itself() -> None:
    game = game5()
    state = position(game, black=["E5", "A5", "I5", "E9"])
    black, white = state.masks()
    assert game.sight.sees(game.board.index("E5"), black, white) == (3, 0)
    assert controller(game, state, "E5") is None


def test_control_applies_to_occupied_cells() -> None:
    game = game5()
    state = position(game, black=["I5", "A5", "I9", "E9"], white=["E5"])
    assert controller(game, state, "E5") == "Black"


# -- the moves -------------------------------------------------------------------------------


def test_placing_on_a_cell_the_opponent_controls_is_refused() -> None:
    game = game5()
    black_controls_e5 = ["I5", "A5", "I9", "E9"]
    white_to_move = position(game, black=black_controls_e5, white=["A1"], to_move="White")
    assert "E5" not in legal(game, white_to_move)
    assert refusal(game, white_to_move, "E5") == "E5 is controlled by Black"
    # Black may still place on a cell Black controls.
    black_to_move = position(game, black=black_controls_e5, white=["A1"])
    assert "E5" in legal(game, black_to_move)


def test_replacing_needs_an_enemy_stone_on_a_cell_you_control() -> None:
    game = game5()
    state = position(game, black=["I5", "A5", "I9", "E9"], white=["E5", "A1"])
    assert {"E5x"} == {m for m in legal(game, state) if m.endswith("x")}
    after = game.play(state, "E5x")
    assert after.board[game.board.index("E5")] == "B"
    weak = position(game, black=["I5", "A5", "I9"], white=["E5"])
    assert refusal(game, weak, "E5x") == "you do not control E5"
    assert refusal(game, state, "I5x") == "I5 holds your own stone"
    assert refusal(game, state, "D5x") == "D5 is empty (place with D5)"
    assert refusal(game, state, "E5") == "E5 is occupied (replace with E5x if you control it)"


@pytest.mark.parametrize("komi", [1, 3, -1, -3, -5])
def test_the_button_exists_for_every_odd_komi_negative_ones_too(komi: int) -> None:
    game = game5()
    state = position(game, black=["E5"], komi=komi, to_move="White")
    assert "take-button" in legal(game, state)
    taken = game.play(state, "take-button")
    assert taken.button == 1 and "take-button" not in legal(game, taken)
    assert refusal(game, taken, "take-button") == "the button is already held by White"


@pytest.mark.parametrize("komi", [4, 0, -2])
def test_an_even_komi_brings_no_button(komi: int) -> None:
    game = game5()
    even = position(game, black=["E5"], komi=komi)
    assert "take-button" not in legal(game, even)
    assert refusal(game, even, "take-button") == "there is no button: the komi is even"


def test_a_komi_of_minus_three_offers_the_button_from_the_first_turn_after_sides() -> None:
    game = game5()
    named = game.play(game.start(), "-3")
    # The sides turn is setup: a stone for Black or play-second, never the button.
    assert "take-button" not in legal(game, named)
    assert refusal(game, named, "take-button") == "the button can be taken once sides are chosen"
    black_first = game.play(named, "play-second")
    assert "take-button" in legal(game, black_first) and "pass" not in legal(game, black_first)
    white_first = game.play(named, "E5")
    assert "take-button" in legal(game, white_first)
    assert "komi -3, button available" in game.describe(white_first)
    assert game.render_text(white_first).startswith("Komi -3, button available")
    held = game.play(white_first, "take-button")
    assert "komi -3, button held by White" in game.describe(held)


@pytest.mark.parametrize("komi", [5, -1, -3])
def test_no_pass_while_the_button_is_available(komi: int) -> None:
    game = game5()
    # A full board: no empty cell is uncontrolled, so only the button stops a pass.
    full = position(game, black=everything_but(game, "E5"), white=["E5"], komi=komi,
                    to_move="White")
    assert legal(game, full) == {"take-button"}
    assert refusal(game, full, "pass") == "you may not pass while the button is available"
    taken = game.play(full, "take-button")
    assert "pass" in legal(game, taken)


def test_passing_only_when_every_empty_cell_is_controlled() -> None:
    game = game5()
    opening = position(game, black=["E5"], to_move="White")
    assert "pass" not in legal(game, opening)
    assert refusal(game, opening, "pass") == "you may not pass while an empty cell is uncontrolled"
    # E5 is the only empty cell and Black controls it: White can only pass, Black may also fill.
    one_hole = position(game, black=everything_but(game, "E5"), to_move="White")
    assert legal(game, one_hole) == {"pass"}
    assert legal(game, game.play(one_hole, "pass")) == {"E5", "pass"}


def test_the_game_ends_after_two_successive_passes() -> None:
    game = game5()
    state = position(game, black=everything_but(game, "E5"), to_move="White")
    state = game.play(state, "pass")
    state = game.play(state, "E5")  # a stone between the passes: the count starts again
    state = game.play(state, "pass")
    assert game.to_move(state) == 0 and game.outcome(state) is None
    state = game.play(state, "pass")
    assert game.to_move(state) is None and game.legal_moves(state) == []
    assert game.outcome(state) is not None
    assert refusal(game, state, "pass") == "the game is over"


# -- setup -----------------------------------------------------------------------------------


def test_the_komi_is_a_whole_number_within_one_more_than_the_cell_count() -> None:
    game = game5()
    start = game.start()
    choice = game.number_range(start)
    assert choice is not None and (choice.low, choice.high) == (-62, 62)
    assert [str(m) for m in game.legal_moves(start)] == [str(k) for k in range(-62, 63)]
    assert game.move_choices(start) == ([], choice)
    assert game.play(start, "62").komi == 62
    assert game.play(start, "-62").komi == -62
    assert game.play(start, "+4").komi == 4
    assert game.play(start, "Komi -3").komi == -3  # as the move lists write it: "komi -3"
    assert refusal(game, start, "63") == "komi must be a whole number from -62 to 62"
    assert refusal(game, start, "pass").startswith("first name the komi")
    with pytest.raises(IllegalMove):
        game.play(start, "4.5")
    size8 = Stigmergy(size=8)
    assert refusal(size8, size8.start(), "-171") == "komi must be a whole number from -170 to 170"


def test_placing_the_first_stone_makes_the_second_seat_black() -> None:
    game = game5()
    state = game.play(game.start(), "7")
    assert game.to_move(state) == 1 and game.seat_names(state) == ("First", "Second")
    assert "play-second" in legal(game, state) and "take-button" not in legal(game, state)
    state = game.play(state, "E5")
    assert game.seat_names(state) == ("White", "Black")
    assert state.board[game.board.index("E5")] == "B" and game.to_move(state) == 0
    assert "take-button" in legal(game, state)  # White, seat 0, may take it at once


def test_play_second_makes_the_first_seat_black() -> None:
    game = game5()
    state = game.play(game.play(game.start(), "-4"), "play-second")
    assert game.seat_names(state) == ("Black", "White")
    assert game.to_move(state) == 0 and state.board == "." * 61
    assert refusal(game, state, "play-second") == "sides have already been chosen"
    assert refusal(game, state, "5") == "the komi has already been named"


def test_without_komi_the_first_seat_is_black_and_there_is_no_setup() -> None:
    game = game5("none")
    start = game.start()
    assert game.seat_names(start) == ("Black", "White") and game.to_move(start) == 0
    assert len(legal(game, start)) == 61 and "take-button" not in legal(game, start)
    assert refusal(game, start, "3") == "this game is played without komi"


# -- the result ------------------------------------------------------------------------------


def test_score_is_stones_and_controlled_cells_plus_komi_and_half_a_point() -> None:
    game = game5()
    # Black: 59 stones and the empty E5 it controls; White: A1, komi 62, the button.
    final = position(game, black=everything_but(game, "A1", "E5"), white=["A1"], komi=62,
                     black_seat=1, button=0, passes=2)
    result = game.outcome(final)
    assert result is not None
    assert result.scores == (1 + 62 + 0.5, 60)  # per seat: seat 0 plays White
    assert result.winners == (0,)
    short = position(game, black=everything_but(game, "A1", "E5"), white=["A1"], komi=58,
                     black_seat=1, button=0, passes=2)
    short_result = game.outcome(short)
    assert short_result is not None and short_result.winners == (1,)  # 58.5 against 60


@pytest.mark.parametrize(("komi", "black_count"), [(-1, 30), (-3, 29)])
def test_the_half_point_decides_a_would_be_tie_with_a_negative_odd_komi(
        komi: int, black_count: int) -> None:
    # A full board whose stones and komi come out level: 30 to 31 - 1, or 29 to 32 - 3.
    game = game5()
    level = float(black_count)
    for taker, winner_seat in (("Black", 0), ("White", 1)):
        full = full_board(game, black_count, komi=komi, to_move=taker)
        assert "take-button" in legal(game, full) and "pass" not in legal(game, full)
        final = game.play(game.play(game.play(full, "take-button"), "pass"), "pass")
        result = game.outcome(final)
        assert result is not None and result.winners == (winner_seat,)
        expected = (level + 0.5, level) if taker == "Black" else (level, level + 0.5)
        assert result.scores == expected  # seat 0 plays Black


@pytest.mark.parametrize("komi", [-2, 0, 2])
def test_an_even_komi_game_ends_with_an_odd_margin(komi: int) -> None:
    # With no empty cell uncontrolled at the end, every cell scores for someone: the points total
    # the odd cell count plus an even komi, so they cannot split evenly and no button is needed.
    game = game5()
    full = full_board(game, 30, komi=komi, to_move="White")
    assert "pass" in legal(game, full) and "take-button" not in legal(game, full)
    result = game.outcome(game.play(game.play(full, "pass"), "pass"))
    assert result is not None and result.scores == (30, 31 + komi)
    assert result.winners == ((0,) if komi < -1 else (1,))


@pytest.mark.parametrize("komi", ["-3", "-2", "-1", "0", "1"])
def test_no_game_played_to_the_end_is_drawn(komi: str) -> None:
    # An odd komi leaves a tie to the button's half point, and the button is always taken before
    # the two passes that end the game; an even komi never ties (see above).
    game = game5()
    named = game.play(game.start(), komi)
    for seed in range(4):
        final = game.playout(named, random.Random(seed))
        result = game.outcome(final)
        assert result is not None and len(result.winners) == 1
        assert (final.button is not None) == (int(komi) % 2 == 1)


@pytest.mark.parametrize("komi", ["none", "-2"])
def test_equal_scores_are_a_draw(komi: str) -> None:
    # No game played to the end is level (above), so the draw is built by hand with an even komi:
    # an uncontrolled hole, never a final position, and level scores of 30 (or 30 to 32 - 2).
    game = game5("none" if komi == "none" else "negotiate")
    labels = everything_but(game, "E5")
    cells = ["B" if i % 2 else "W" for i in range(len(labels))]
    black = [lab for lab, ch in zip(labels, cells, strict=True) if ch == "B"]
    white = [lab for lab, ch in zip(labels, cells, strict=True) if ch == "W"]
    if komi != "none":
        black, white = black[:-1], white + black[-1:]
    final = position(game, black=black, white=white, komi=0 if komi == "none" else int(komi),
                     passes=2)
    assert controller(game, final, "E5") is None
    result = game.outcome(final)
    assert result is not None and result.winners == () and result.scores == (len(black),) * 2
    assert "draw" in game.describe(final)


# -- notation, storage, drawing, playouts ----------------------------------------------------


def test_notation_reads_any_case_and_writes_the_canonical_form() -> None:
    texts = {"d5": "D5", " d5 X ": "D5x", "PASS": "pass", "Take-Button": "take-button",
             "play-second": "play-second", "+4": "4", "-3": "-3"}
    assert {t: str(parse_move(t)) for t in texts} == texts
    assert isinstance(parse_move("7"), KomiMove)
    with pytest.raises(IllegalMove, match="stones never move"):
        parse_move("C2-E2")
    assert game5().move_cells(parse_move("D5x")) == ("D5",)
    assert game5().move_cells(parse_move("pass")) == ()


def test_positions_survive_json() -> None:
    game = game5()
    state = game.play(game.play(game.play(game.start(), "3"), "E5"), "take-button")
    assert game.decode(json.loads(json.dumps(game.encode(state)))) == state


def test_the_drawing_shows_stones_control_and_the_terms() -> None:
    game = game5()
    state = position(game, black=["I5", "A5", "I9", "E9"], komi=3, to_move="White")
    svg = game.render_svg(state, last_move="E9", cell_href=lambda cell: f"/m/{cell}")
    root = ET.fromstring(svg)
    texts = " ".join(e.text or "" for e in root.iter() if e.tag.endswith("text"))
    assert "Komi 3, button available" in texts and "White to move" in texts
    # 4 stones, E5, and the corners A1 and E1 (2 of 3 lines each); White has the komi alone.
    assert "Black 7" in texts and "White 3" in texts
    links = [e.get("href") for e in root.iter() if e.tag.endswith("a")]
    assert "/m/E5" in links and len(links) == 61
    text = game.render_text(state)
    assert text.splitlines()[-5].split()[1:] == ["B", ".", ".", ".", "b", ".", ".", ".", "B"]
    assert text.splitlines()[-1].split()[1:] == ["b", ".", ".", ".", "b"]


def test_fast_playouts_follow_the_listed_moves_exactly() -> None:
    # The fast path draws as the generic path does, so equal seeds give equal games.
    for komi in ("negotiate", "none"):
        game = game5(komi)
        for seed in range(6):
            fast = game.playout(game.start(), random.Random(seed))
            assert fast == Game.playout(game, game.start(), random.Random(seed))
        middle = game.start()
        rng = random.Random(11)
        for _ in range(25):
            middle = game.play(middle, game.random_move(middle, rng))
        assert game.playout(middle, random.Random(3)) == Game.playout(
            game, middle, random.Random(3))
