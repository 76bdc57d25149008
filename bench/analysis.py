"""Reading an analysis line from its address: milliseconds per read, per game, beside the move
page's own work at the line's last position (the baseline: the clickable menu and the SVG).

    python bench/analysis.py [--steps 40] [--repeat 5] [--seed 1]

Every analysis page reads its whole line again (each step checked as the engine checks a move,
pbem.analysis.line.read_line), so this is what a long line adds to a page. Lines are random legal
moves for every side (seeded) from each game's start, on its default options, until ``--steps``
or a move that would reveal something hidden (a Rifugio draw) ends them.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GAMES, AnyGame, new_game
from pbem.analysis.line import (
    MAX_STEPS,
    SEPARATOR,
    read_line,
    start_for,
    stop_reason,
)
from pbem.positions import move_menu


def _line(game: AnyGame, start: Any, steps: int, rng: random.Random) -> list[str]:
    line: list[str] = []
    position = start
    while len(line) < steps and game.to_move(position) is not None:
        moves = game.legal_moves(position)
        move = moves[rng.randrange(len(moves))]
        line.append(str(move))
        if stop_reason(game, position, move):
            break
        position = game.apply(position, move)
    return line


def _best_ms(work: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - began)
    return best * 1000


def _page_work(game: AnyGame, shown: Any) -> None:
    """What the move page does at a position anyway: the clickable menu and the board."""
    move_menu(game, shown, ())
    game.render_svg(shown, 0, None, lambda _cell: "#", chosen=())


def measure(game_id: str, steps: int, repeat: int, seed: int) -> tuple[int, float, float]:
    """(steps in the line, ms to read it, ms of the move page's own work at its end)."""
    game = new_game(game_id)
    start = start_for(game, game.start(seed=seed), 0)
    raw = SEPARATOR.join(_line(game, start, steps, random.Random(seed)))
    line = read_line(game, start, raw)
    read = _best_ms(partial(read_line, game, start, raw), repeat)
    return len(line.steps), read, _best_ms(partial(_page_work, game, line.positions[-1]), repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    steps = min(args.steps, MAX_STEPS)
    print(f"analysis lines of up to {steps} steps, best of {args.repeat}")
    print(f"{'game':16} {'steps':>5} {'read ms':>8} {'ms/step':>8} {'move page ms':>13}")
    for game_id in GAMES:
        count, read, baseline = measure(game_id, steps, args.repeat, args.seed)
        per_step = read / count if count else 0.0
        print(f"{game_id:16} {count:5d} {read:8.1f} {per_step:8.2f} {baseline:13.1f}")


if __name__ == "__main__":
    main()
