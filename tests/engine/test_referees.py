"""Cross-check the Mosey family, Refugia and Stigmergy engines against plain referees.

The referees in tests/referees/ were written from the rules digests (/work/shared/rules) alone,
without reading the engines, as slow loops over dicts. Seeded random games on EVERY board option
are played with the engine; at every ply the engine's sorted legal-move strings, its seat to move,
and at the end its winners must equal the referee's for the same position (the referee follows
the same moves). The reference games are replayed through the referees too: that checks the
referees themselves against the reference implementations.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine import GAMES, new_game
from tests.engine.records import listed_notations, reference_records
from tests.engine.referees import make_referee

MOSEY_FAMILY = ("mosey", "dont-mosey", "keep-a-riding", "firestorm", "conflagration", "backfire")
CHECKED = (*MOSEY_FAMILY, "refugia", "stigmergy")

# Random games per board option: as many as the time budget allows, fewer on big boards.
MOSEY_GAMES = {4: 30, 5: 14, 6: 8}
REFUGIA_GAMES = {"2-3": 40, "2-4": 30, "3-4": 24, "3-5": 20, "4-5": 14, "4-6": 12, "5-6": 8,
                 "5-7": 6, "6-7": 5, "6-8": 4}
STIGMERGY_GAMES = {5: 8, 6: 6, 7: 4, 8: 3, 9: 2, 10: 1}


def _settings() -> Iterator[Any]:
    for game_id in MOSEY_FAMILY:
        for order, count in MOSEY_GAMES.items():
            yield pytest.param(game_id, {"order": order}, count, id=f"{game_id}-order-{order}")
    for board, count in REFUGIA_GAMES.items():
        yield pytest.param("refugia", {"board": board}, count, id=f"refugia-{board}")
    for size, count in STIGMERGY_GAMES.items():
        for komi in ("negotiate", "none"):
            yield pytest.param("stigmergy", {"size": size, "komi": komi}, count,
                               id=f"stigmergy-{size}-{komi}")


def _choose(game_id: str, moves: list[str], rng: random.Random, patient: bool) -> str:
    """A random move; a "patient" game avoids the moves that end games quickly, so that long
    games with big groups (Mosey family) and many hops and neutral stones (Refugia) come up."""
    if patient and game_id in MOSEY_FAMILY:
        quiet = [m for m in moves if "x" not in m]
        if quiet and rng.random() < 0.75:
            return rng.choice(quiet)
    if patient and game_id == "refugia":
        board_moves = [m for m in moves if m != "pass"]
        if board_moves and rng.random() < 0.95:
            return rng.choice(board_moves)
    if patient and game_id == "stigmergy":
        replacements = [m for m in moves if m.endswith("x")]
        if replacements and rng.random() < 0.3:
            return rng.choice(replacements)
    return rng.choice(moves)


def _cross_check(game_id: str, options: dict[str, Any], seed: int) -> int:
    """Play one seeded random game with the engine and the referee side by side; return plies."""
    game = new_game(game_id, **options)
    referee = make_referee(game_id, options)
    rng = random.Random(seed)
    state = game.start()
    pos = referee.start()
    history: list[str] = []

    def where() -> str:
        return f"{game_id} {options} seed {seed}, after [{' '.join(history)}]"

    while True:
        seat = game.to_move(state)
        assert seat == referee.to_move(pos), f"{where()}: seat {seat} vs {referee.to_move(pos)}"
        if seat is None:
            break
        ours = listed_notations(game, state)
        theirs = referee.legal(pos)
        assert ours == theirs, (
            f"{where()}: engine only {sorted(set(ours) - set(theirs))}, "
            f"referee only {sorted(set(theirs) - set(ours))}")
        choice = game.number_range(state)
        if choice is not None:
            # Stigmergy's komi: a whole number from -(cells+1) to cells+1.
            cells = len(referee.board.labels)
            assert (choice.low, choice.high) == (-(cells + 1), cells + 1), where()
            text = str(choice.pick(rng))
        else:
            text = _choose(game_id, ours, rng, patient=seed % 2 == 1)
        history.append(text)
        state = game.play(state, text)
        pos = referee.play(pos, text)
    result = game.outcome(state)
    assert result is not None, where()
    assert sorted(result.winners) == sorted(referee.winners(pos) or ()), f"{where()}: winners"
    return len(history)


@pytest.mark.parametrize(("game_id", "options", "count"), list(_settings()))
def test_engine_agrees_with_referee(game_id: str, options: dict[str, Any], count: int) -> None:
    if game_id not in GAMES:
        pytest.skip(f"{game_id} is not in the catalogue yet")
    # Games that move alike (mosey and dont-mosey, keep-a-riding and firestorm) get other seeds,
    # so that they do not replay the same games.
    first = 1000 * CHECKED.index(game_id)
    for seed in range(first, first + count):
        _cross_check(game_id, options, seed)


@pytest.mark.parametrize("record", reference_records(CHECKED))
def test_referee_replays_reference_game(record: dict[str, Any]) -> None:
    referee = make_referee(record["game"], record["options"])
    pos = referee.start()
    for ply, step in enumerate(record["plies"]):
        assert referee.to_move(pos) == step["seat"], f"ply {ply}: wrong seat to move"
        assert referee.legal(pos) == step["legal"], f"ply {ply}: legal moves differ"
        pos = referee.play(pos, step["move"])
    assert referee.to_move(pos) is None, "the reference game is over but the referee's is not"
    assert sorted(referee.winners(pos) or ()) == sorted(record["winners"])
