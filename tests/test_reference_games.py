"""Replay the reference implementations' games: every legal-move set, every seat and the winners.

Games are read from tests/data/reference-games (a copy of the shared set) and, when present, from
../shared/reference-games beside the checkout, so newly shared games are replayed without a copy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import GAMES, new_game

HERE = Path(__file__).parent
FOLDERS = [HERE / "data" / "reference-games", HERE.parent.parent / "shared" / "reference-games"]


def _records() -> Iterator[Any]:
    seen: set[str] = set()
    for folder in FOLDERS:
        for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
            for number, line in enumerate(path.read_text().splitlines()):
                if line.strip() and line not in seen:
                    seen.add(line)
                    yield pytest.param(json.loads(line), id=f"{path.stem}#{number}")


@pytest.mark.parametrize("record", list(_records()))
def test_reference_game_replays_exactly(record: dict[str, Any]) -> None:
    if record["game"] not in GAMES:
        pytest.skip(f"{record['game']} is not in the catalogue yet")
    game = new_game(record["game"], **record["options"])
    state = game.start()
    for ply, step in enumerate(record["plies"]):
        assert game.to_move(state) == step["seat"], f"ply {ply}: wrong seat to move"
        legal = sorted(str(m) for m in game.legal_moves(state))
        assert legal == step["legal"], f"ply {ply}: legal moves differ"
        state = game.play(state, step["move"], seat=step["seat"])
    result = game.outcome(state)
    assert result is not None, "the reference game is over but ours is not"
    assert game.to_move(state) is None
    assert sorted(result.winners) == sorted(record["winners"])
