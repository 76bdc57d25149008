"""Board drawing cost per game: SVG size, SVG build time, and SVG-to-PNG time at email scale.

    python bench/render.py            # default options of every game, a mid-game position
    python bench/render.py --scale 1

The position is 30 random plies from the opening (fewer if the game ends), drawn for seat 0 with the
last move marked, which is what a turn email shows.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GAMES, new_game
from engine.png import svg_to_png


def timed(call: Callable[[], object], repeat: int) -> float:
    """Mean milliseconds per call, after one warm-up call."""
    call()
    start = time.perf_counter()
    for _ in range(repeat):
        call()
    return (time.perf_counter() - start) / repeat * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    print(f"{'game':15} {'SVG KB':>7} {'SVG ms':>7} {'PNG ms':>7} {'PNG KB':>7}")
    for gid in GAMES:
        game = new_game(gid)
        rng = random.Random(1)
        state, last = game.start(seed=1), None
        for _ in range(30):
            if game.to_move(state) is None:
                break
            last = game.random_move(state, rng)
            state = game.play(state, last)
        svg = game.render_svg(state, viewer=0, last_move=last)
        build = timed(partial(game.render_svg, state, viewer=0, last_move=last), args.repeat)
        raster = timed(partial(svg_to_png, svg, scale=args.scale), args.repeat)
        png = svg_to_png(svg, scale=args.scale)
        print(f"{gid:15} {len(svg) / 1024:7.1f} {build:7.1f} {raster:7.1f} {len(png) / 1024:7.1f}")


if __name__ == "__main__":
    main()
