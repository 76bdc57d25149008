"""Reading an analysis line (pbem.analysis.line) without a page: where a line must stop in a
game with hidden information, and that the start a viewer analyses keeps what they see."""

from __future__ import annotations

import random

import engine
from pbem.analysis.line import read_line, start_for, stop_reason


def test_the_move_that_ends_a_game_with_hidden_information_ends_the_line_unplayed() -> None:
    game = engine.new_game("rifugio", players=2)
    rng = random.Random(4)
    before, last = game.start(seed=4), None
    position = before
    while game.to_move(position) is not None:
        last = game.random_move(position, rng)
        before, position = position, game.apply(position, last)
    assert last is not None
    # The final scores count every seat's cards: an analysis must not show a guess of them.
    assert stop_reason(game, before, last)
    line = read_line(game, before, str(last))
    assert line.stop and line.steps == (str(last),) and line.positions == (before,)
    assert not line.open_at(1) and line.open_at(0)


def test_a_game_without_hidden_information_plays_to_its_end() -> None:
    game = engine.new_game("mosey", order=4)
    rng = random.Random(4)
    moves, position = [], game.start()
    while game.to_move(position) is not None:
        moves.append(str(game.random_move(position, rng)))
        position = game.play(position, moves[-1])
    line = read_line(game, game.start(), ";".join(moves))
    assert not line.stop and line.positions[-1] == position
    assert game.to_move(line.shown(len(moves))) is None


def test_the_start_keeps_what_the_viewer_sees_and_guesses_the_rest() -> None:
    game = engine.new_game("rifugio", players=3)
    state = game.play(game.start(seed=9), "take blind")
    for viewer in (0, 1, None):
        start = start_for(game, state, viewer)
        seen, real = dict(game.view(start, viewer)), dict(game.view(state, viewer))
        seen.pop("seed_sha256"), real.pop("seed_sha256")  # the seed is hidden: guessed too
        assert seen == real
        assert start.pile != state.pile, "the pile's order was not guessed"
    mosey = engine.new_game("mosey", order=4)
    assert start_for(mosey, mosey.start(), 0) == mosey.start()
