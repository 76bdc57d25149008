"""The contract's ``reveals_hidden``: previews may play any move of a game without hidden
information, and a game with it says which moves would show something (Rifugio's own tests check
that the others never depend on what is hidden)."""

from __future__ import annotations

import random

import pytest

import engine


@pytest.mark.parametrize("game_id", list(engine.GAMES))
def test_moves_reveal_only_in_games_with_hidden_information(game_id: str) -> None:
    game = engine.new_game(game_id)
    state, rng = game.start(seed="reveal"), random.Random(game_id)
    revealing = 0
    for _ in range(30):
        if game.to_move(state) is None:
            break
        for move in game.legal_moves(state):
            reveals = game.reveals_hidden(state, move)
            assert isinstance(reveals, bool)
            revealing += reveals
            if reveals:
                assert game.hidden_effect(state, move).strip()
        state = game.play(state, game.random_move(state, rng))
    if not game.info.hidden_information:
        assert revealing == 0, "a game without hidden information has nothing to reveal"
    else:
        assert revealing, "a draw from hidden tiles is a reveal: say so in reveals_hidden"
