"""The computer player per game: seconds per move at each playout level, and wins against random.

    python bench/bots.py                          # every game, default options
    python bench/bots.py --game mosey --games 10 --level normal

Seconds per move: the mean over ``--positions`` positions of a seeded random game (its start, then
every few plies), for the easy and normal playout budgets; playouts per second from normal's; with
``--strong`` also strong's (a time budget: 5 s a move, so its column shows the overrun past it;
it fits about 5 s times the playouts per second). ``--strong-cpu`` counts the playouts strong's
5 s buys on an idle core: its budget read from the process's CPU time instead of the wall clock,
so other processes on a shared machine take little from it (cache sharing still some), per
position and their mean, over ``--rounds`` rounds keeping each position's best (the numbers
behind ``bench/bot_matches.py --strong-playouts auto``). Win rate:
``--games`` seeded games, the bot (``--level``) on alternate seats against uniformly random
movers; a shared win counts half. One process, one thread.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GAMES, new_game
from engine.base import Game
from engine.bots import LEVELS, Bot


def positions(game: Game[Any, Any], count: int, seed: int) -> list[Any]:
    """``count`` positions with a move to make, spread over one random game."""
    rng, state, found = random.Random(seed), game.start(seed=seed), []
    while game.to_move(state) is not None:
        found.append(state)
        state = game.play(state, game.random_move(state, rng))
    step = max(1, len(found) // count)
    return found[::step][:count]


def seconds_per_move(game: Game[Any, Any], level: str, count: int) -> float:
    bot = Bot.at(level, seed=1)
    spots = positions(game, count, seed=1)
    start = time.perf_counter()
    for state in spots:
        seat = game.to_move(state)
        assert seat is not None
        bot.choose(game, state, seat)
    return (time.perf_counter() - start) / len(spots)


def strong_playouts(game: Game[Any, Any], count: int, rounds: int) -> list[int]:
    """Per position (as :func:`seconds_per_move`), the most iterations strong's time budget
    held in ``rounds`` runs, its seconds counted on the process's CPU clock."""
    seconds = LEVELS["strong"][1]
    assert seconds is not None
    spots = positions(game, count, seed=1)
    best = [0] * len(spots)
    for _ in range(rounds):
        for index, state in enumerate(spots):
            clock = CountingClock()
            seat = game.to_move(state)
            assert seat is not None
            Bot("strong", None, seconds, seed=1, clock=clock).choose(game, state, seat)
            best[index] = max(best[index], clock.reads - 1)
    return best


class CountingClock:
    """The process's CPU time, counting its reads: ``Tree.run`` reads it once before the search
    and once after each iteration."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return time.process_time()


def win_rate(game: Game[Any, Any], level: str, games: int) -> tuple[float, float]:
    """(the bot's share of wins, the share a random seat would expect)."""
    won = 0.0
    for number in range(games):
        bot_seat, rng = number % game.num_players, random.Random(number)
        bot = Bot.at(level, seed=number)
        state = game.start(seed=number)
        while (seat := game.to_move(state)) is not None:
            move = (bot.choose(game, state, seat)[0] if seat == bot_seat
                    else game.random_move(state, rng))
            state = game.play(state, move)
        outcome = game.outcome(state)
        assert outcome is not None
        if bot_seat in outcome.winners:
            won += 1.0 / len(outcome.winners)
    return won / games, 1.0 / game.num_players


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    parser.add_argument("--positions", type=int, default=4, help="positions timed per level")
    parser.add_argument("--games", type=int, default=4, help="games against random")
    parser.add_argument("--level", default="easy", choices=list(LEVELS),
                        help="the bot's level against random")
    parser.add_argument("--strong", action="store_true",
                        help="also time strong (5 s a move)")
    parser.add_argument("--strong-cpu", action="store_true",
                        help="only count the playouts strong's 5 s of CPU time buy per position")
    parser.add_argument("--rounds", type=int, default=1,
                        help="--strong-cpu: rounds, keeping each position's best")
    args = parser.parse_args()
    if args.strong_cpu:
        print(f"{'game':15} {'mean':>7}  per position (best of {args.rounds})")
        for gid in GAMES:
            if not args.game or gid in args.game:
                counts = strong_playouts(new_game(gid), args.positions, args.rounds)
                # 0: a special choice the game calculates (Stigmergy's komi), not a search
                searched = [count for count in counts if count] or [0]
                print(f"{gid:15} {sum(searched) / len(searched):7.0f}  "
                      + " ".join(str(c) if c else "-" for c in counts), flush=True)
        return
    normal_playouts = LEVELS["normal"][0] or 1
    print(f"{'game':15} {'easy s/move':>12} {'normal s/move':>14} {'playouts/s':>11} "
          + (f"{'strong s/move':>14} " if args.strong else "")
          + f"{'wins vs random':>15} {'random expects':>15}")
    for gid in GAMES:
        if args.game and gid not in args.game:
            continue
        game = new_game(gid)
        easy = seconds_per_move(game, "easy", args.positions)
        normal = seconds_per_move(game, "normal", args.positions)
        strong = ""
        if args.strong:
            strong = f"{seconds_per_move(game, 'strong', args.positions):14.2f} "
        rate, fair = win_rate(game, args.level, args.games)
        print(f"{gid:15} {easy:12.3f} {normal:14.3f} {normal_playouts / normal:11.0f} {strong}"
              f"{rate:15.0%} {fair:15.0%}", flush=True)


if __name__ == "__main__":
    main()
