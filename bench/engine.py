"""Random playouts per second for every game on every option setting (one process, one thread).

    python bench/engine.py                 # everything, about 1.5 s per setting
    python bench/engine.py --game mosey --seconds 5

Each playout starts from the opening with its own seed and plays uniformly random legal moves to the
end through ``game.playout``. Prints one line per setting: playouts/s and mean plies per game.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GAMES, new_game


def measure(gid: str, options: dict[str, int | str], seconds: float) -> tuple[float, str]:
    """(playouts per second, mean plies per game or '-' where states do not count plies)."""
    game = new_game(gid, **options)
    played, plies, seed = 0, 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or played < 3:
        final = game.playout(game.start(seed=seed), random.Random(seed))
        plies += getattr(final, "ply", 0)
        played += 1
        seed += 1
    elapsed = time.perf_counter() - start
    return played / elapsed, f"{plies / played:.1f}" if plies else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    parser.add_argument("--seconds", type=float, default=1.5, help="time per setting")
    args = parser.parse_args()
    print(f"{'game':15} {'options':28} {'playouts/s':>11} {'plies/game':>11}")
    for gid, info in GAMES.items():
        if args.game and gid not in args.game:
            continue
        names = [o.name for o in info.options]
        for values in itertools.product(*(o.choices for o in info.options)):
            options = dict(zip(names, values, strict=True))
            rate, plies = measure(gid, options, args.seconds)
            label = " ".join(f"{k}={v}" for k, v in options.items())
            print(f"{gid:15} {label:28} {rate:11.1f} {plies:>11}", flush=True)


if __name__ == "__main__":
    main()
