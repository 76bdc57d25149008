"""Board drawing cost per game: SVG size, SVG build time, SVG-to-PNG time and PNG size.

    python bench/render.py            # every game, at default options and at its largest board
    python bench/render.py --scale 1

Email carries the PNG at scale 2 (pbem.mail.boards.SCALE). The position is 30 random plies from
the opening (fewer if the game ends), drawn for seat 0 with the last move marked, which is what a
turn email shows. "Largest" is, per game, the choice of one option that draws the biggest
picture (other options at their defaults). Times are medians of --repeat calls after a
warm-up; they are numbers to compare by eye, not a test.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GAMES, new_game
from engine.png import svg_to_png

PLIES = 30


def timed(call: Callable[[], object], repeat: int) -> float:
    """Median milliseconds per call, after one warm-up call (a median shrugs off the odd call
    slowed by whatever else the machine is doing)."""
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def mid_game(gid: str, options: dict[str, Any]) -> tuple[Any, Any, str | None]:
    """(game, state, last move) after PLIES random plies from seed 1."""
    game = new_game(gid, **options)
    rng = random.Random(1)
    state, last = game.start(seed=1), None
    for _ in range(PLIES):
        if game.to_move(state) is None:
            break
        last = game.random_move(state, rng)
        state = game.play(state, last)
    return game, state, last


def svg_area(svg: str) -> float:
    found = re.match(r'<svg[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"', svg)
    return float(found[1]) * float(found[2]) if found else 0.0


def largest_options(gid: str) -> dict[str, Any]:
    """The one option choice that makes the biggest picture, e.g. {"size": 10}."""
    best: tuple[float, dict[str, Any]] = (0.0, {})
    for option in GAMES[gid].options:
        for choice in option.choices:
            game, state, last = mid_game(gid, {option.name: choice})
            area = svg_area(game.render_svg(state, viewer=0, last_move=last))
            if area > best[0]:
                best = (area, {option.name: choice})
    return best[1]


def row(label: str, gid: str, options: dict[str, Any], scale: float, repeat: int) -> str:
    game, state, last = mid_game(gid, options)
    svg = game.render_svg(state, viewer=0, last_move=last)
    build = timed(partial(game.render_svg, state, viewer=0, last_move=last), repeat)
    raster = timed(partial(svg_to_png, svg, scale=scale), repeat)
    png = svg_to_png(svg, scale=scale)
    return (f"{label:24} {len(svg) / 1024:7.1f} {build:7.1f} {raster:7.1f}"
            f" {len(png) / 1024:7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=2.0)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    columns = f"{'SVG KB':>7} {'SVG ms':>7} {'PNG ms':>7} {'PNG KB':>7}"
    print(f"{'default options':24} {columns}")
    for gid in GAMES:
        print(row(gid, gid, {}, args.scale, args.repeat), flush=True)
    print()
    print(f"{'largest board':24} {columns}")
    for gid in GAMES:
        options = largest_options(gid)
        label = " ".join([gid, *(f"{name}={value}" for name, value in options.items())])
        print(row(label, gid, options, args.scale, args.repeat), flush=True)


if __name__ == "__main__":
    main()
