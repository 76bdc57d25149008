"""Replay the reference implementations' games: every legal-move set, every seat and the winners.

Games are read from tests/data/reference-games (a copy of the shared set) and, when present, from
../shared/reference-games beside the checkout, so newly shared games are replayed without a copy.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import GAMES, new_game
from tests.engine.records import listed_notations, reference_records


@pytest.mark.parametrize("record", reference_records())
def test_reference_game_replays_exactly(record: dict[str, Any]) -> None:
    if record["game"] not in GAMES:
        pytest.skip(f"{record['game']} is not in the catalogue yet")
    game = new_game(record["game"], **record["options"])
    state = game.start()
    for ply, step in enumerate(record["plies"]):
        assert game.to_move(state) == step["seat"], f"ply {ply}: wrong seat to move"
        legal = listed_notations(game, state)
        assert legal == step["legal"], f"ply {ply}: legal moves differ"
        state = game.play(state, step["move"], seat=step["seat"])
    result = game.outcome(state)
    assert result is not None, "the reference game is over but ours is not"
    assert game.to_move(state) is None
    assert sorted(result.winners) == sorted(record["winners"])
