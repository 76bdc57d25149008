"""Random playouts per second, pure Python and native core side by side, per game and setting.

    python bench/native.py                      # every game with a native core, every setting
    python bench/native.py --game backfire --seconds 2
    python bench/native.py --check 1000         # also 1000 checked random games per setting

Each setting is measured in rounds that alternate the two paths (``--rounds``, ``--seconds`` each),
so a machine's changing load falls on both alike; a path's rate is its best round. A playout is
``game.playout(start, rng)``, as the bots call it, from the opening with one seeded
``random.Random`` per round. The ratio is native ÷ pure; the target (issue 35) is at least 20.

``--check N`` plays N seeded random games per setting comparing the native rules with the
reference at every ply, and N playouts move for move with the pure-Python fast path
(tests/engine/test_native.py does the same on fewer games).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GAMES, native, new_game

NATIVE_GAMES = {"engine.games.mosey": ("mosey", "dont-mosey", "keep-a-riding", "firestorm",
                                       "conflagration", "backfire"),
                "engine.games.refugia": ("refugia",),
                "engine.games.stigmergy": ("stigmergy",),
                "engine.games.rifugio": ("rifugio",)}
"""Each package with a native core, and the games it plays."""


def rate(game: Any, seconds: float, seed: int) -> float:
    """Playouts per second from the opening, for ``seconds`` (at least 3 playouts).

    The clock is read between batches of playouts, a batch doubling while it takes under a
    hundredth of ``seconds``: reading the process's CPU time is a system call of a microsecond
    or more (8 µs on a loaded machine), as long as a whole native playout on a small board, and
    reading it after every playout measured the clock as much as the playouts."""
    start_state, rng = game.start(), random.Random(seed)
    played, batch = 0, 1
    begin = last = time.process_time()
    while (elapsed := (now := time.process_time()) - begin) < seconds or played < 3:
        if now - last < seconds / 100:
            batch *= 2
        last = now
        for _ in range(batch):
            game.playout(start_state, rng)
        played += batch
    return played / elapsed


def measure(gid: str, options: dict[str, Any], seconds: float, rounds: int) -> tuple[float, float]:
    """(best pure rate, best native rate), in alternating rounds."""
    game = new_game(gid, **options)
    pure_rates, native_rates = [], []
    for round_ in range(rounds):
        with native.pure():
            pure_rates.append(rate(game, seconds, round_))
        native_rates.append(rate(game, seconds, round_))
    return max(pure_rates), max(native_rates)


def check(gid: str, options: dict[str, Any], games: int) -> int:
    """Play ``games`` checked games and playouts (tests/engine/test_native.py); the plies."""
    from tests.engine.test_native import (
        check_playouts,
        check_random_game,
        check_refugia_game,
        check_rifugio_game,
        check_stigmergy_game,
        check_stigmergy_playouts,
        rifugio_position,
    )

    game = new_game(gid, **options)
    if gid == "refugia":
        return sum(check_refugia_game(game, seed) for seed in range(games))  # type: ignore
    if gid == "rifugio":
        return sum(check_rifugio_game(game, rifugio_position(game, seed), seed)  # type: ignore
                   for seed in range(games))
    if gid == "stigmergy":
        plies = sum(check_stigmergy_game(game, seed) for seed in range(games))  # type: ignore
        check_stigmergy_playouts(game, range(games))  # type: ignore[arg-type]
        return plies
    plies = sum(check_random_game(game, seed) for seed in range(games))  # type: ignore[arg-type]
    check_playouts(game, range(games))  # type: ignore[arg-type]
    return plies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    parser.add_argument("--option", action="append", metavar="NAME=VALUE",
                        help="only settings with this option value (repeatable: any of them)")
    parser.add_argument("--seconds", type=float, default=0.5, help="time per round and path")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per setting")
    parser.add_argument("--check", type=int, default=0, metavar="N",
                        help="also play N checked random games per setting")
    args = parser.parse_args()
    print(f"{'game':15} {'options':20} {'pure/s':>10} {'native/s':>10} {'ratio':>7}"
          + ("  checked" if args.check else ""))
    for package, gids in NATIVE_GAMES.items():
        state = native.status(package)
        if state != "built":
            print(f"{package}: native core {state} (make native); nothing to compare")
            continue
        for gid in gids:
            if args.game and gid not in args.game:
                continue
            info = GAMES[gid]
            settings: list[dict[str, Any]] = [{}]
            for option in info.options:
                settings = [{**s, option.name: c} for s in settings for c in option.choices]
            for options in settings:
                if args.option and not any(f"{k}={v}" in args.option for k, v in options.items()):
                    continue
                pure, fast = measure(gid, options, args.seconds, args.rounds)
                label = " ".join(f"{k}={v}" for k, v in options.items())
                line = f"{gid:15} {label:20} {pure:10.0f} {fast:10.0f} {fast / pure:7.1f}"
                if args.check:
                    start = time.perf_counter()
                    plies = check(gid, options, args.check)
                    line += (f"  {args.check} games, {plies} plies, "
                             f"{time.perf_counter() - start:.0f} s: same")
                print(line, flush=True)


if __name__ == "__main__":
    main()
