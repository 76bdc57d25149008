"""How strong the computer player is: win rates of one level against another, per game id.

    python bench/bot_matches.py --pairing normal-random --games 100
    python bench/bot_matches.py --pairing strong-normal --games 100 --game refugia --jobs 2

Pairings: ``normal-random`` (the bot at ``normal`` against uniformly random moves) and
``strong-normal``. Seats alternate game by game; every game is seeded by its number, so a run is
repeatable. ``strong`` is a time budget (5 s a move) in play; here it is the deterministic
``--strong-playouts`` budget (default 2000, five times normal's), so that the measure does not
depend on the machine's load. Rifugio (3 players by default) seats one bot against two of the
other side and reports the bot's win share and mean place. A shared win counts as 1/k.

Prints, per game id: games, the first side's win share with a 95% Wilson interval, what an equal
side would expect, the mean place, how often it finished ahead of a given opponent (multi-player
games; 50% is even) with its interval, and seconds per game.

``--log FILE`` appends each finished game to FILE as a JSON line and skips the games FILE already
holds, so a long run can be stopped and resumed; ``--report`` prints the table from FILE alone,
counting only the games finished so far. ``bench/results/bot_matches.jsonl`` holds every game of
the pairings that took more than one session (a whole pairing of Stigmergy or Rifugio takes hours
on two cores). A log is only as good as the code that played it: after changing a
bot or an engine's rules, start a new one.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GAMES, new_game
from engine.bots import Bot

PAIRINGS = {"normal-random": ("normal", "random"), "strong-normal": ("strong", "normal")}


def player(level: str, seed: int, strong_playouts: int) -> Bot | None:
    if level == "random":
        return None
    if level == "strong":
        return Bot.at("strong", seed=seed, playouts=strong_playouts)
    return Bot.at(level, seed=seed)


def one_game(game_id: str, number: int, first: str, second: str,
             strong_playouts: int) -> tuple[float, float, float]:
    """(the first side's win share, its place, seconds) in game ``number``."""
    game = new_game(game_id)
    seats = game.num_players
    hero = number % seats
    rng = random.Random(number)
    bots = {seat: player(first if seat == hero else second, number * 7 + seat, strong_playouts)
            for seat in range(seats)}
    state = game.start(seed=number)
    start = time.perf_counter()
    while (seat := game.to_move(state)) is not None:
        bot: Any = bots[seat]
        move = bot.choose(game, state, seat)[0] if bot is not None else game.random_move(state, rng)
        state = game.play(state, move)
    outcome = game.outcome(state)
    assert outcome is not None
    share = 1.0 / len(outcome.winners) if hero in outcome.winners else 0.0
    if outcome.scores is not None and seats > 2:
        mine = outcome.scores[hero]
        place = 1 + sum(1 for s in outcome.scores if s > mine)
    else:
        place = 1 if hero in outcome.winners else 2
    return share, float(place), time.perf_counter() - start


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def report(game_id: str, results: list[tuple[float, float, float]]) -> str:
    """One table row. ``ahead``: how often the first side finished ahead of a given opponent,
    (seats - place) / (seats - 1) a game (a tie counts as ahead: the log keeps places, not
    scores); an equal side would expect 50%. With two seats it is the win share."""
    games = len(results)
    wins = sum(r[0] for r in results)
    low, high = wilson(wins, games)
    seats = new_game(game_id).num_players
    place = sum(r[1] for r in results) / max(1, games)
    ahead = sum((seats - r[1]) / (seats - 1) for r in results)
    ahead_low, ahead_high = wilson(ahead, games)
    seconds = sum(r[2] for r in results) / max(1, games)
    return (f"{game_id:15} {games:5} {wins / max(1, games):6.0%} "
            f"{f'{low:.0%}-{high:.0%}':>14} {1 / seats:6.0%} {place:6.2f} "
            f"{ahead / max(1, games):6.0%} {f'{ahead_low:.0%}-{ahead_high:.0%}':>14} "
            f"{seconds:7.1f}")


def logged(path: Path | None, pairing: str) -> dict[str, dict[int, tuple[float, float, float]]]:
    """The games ``path`` holds for ``pairing``, by game id and number."""
    found: dict[str, dict[int, tuple[float, float, float]]] = {}
    if path is None or not path.exists():
        return found
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row["pairing"] == pairing:
            found.setdefault(row["game"], {})[row["number"]] = (
                row["share"], row["place"], row["seconds"])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairing", choices=list(PAIRINGS), default="normal-random")
    parser.add_argument("--game", action="append", help="only these game ids (repeatable)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--strong-playouts", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--log", type=Path, help="append finished games here; skip those it holds")
    parser.add_argument("--report", action="store_true", help="only print the table from --log")
    args = parser.parse_args()
    first, second = PAIRINGS[args.pairing]
    print(f"{first} against {second}, {args.games} games per game id, seats alternated")
    print(f"{'game':15} {'games':>5} {'wins':>6} {'95% interval':>14} {'equal':>6} "
          f"{'place':>6} {'ahead':>6} {'95% interval':>14} {'s/game':>7}")
    done = logged(args.log, args.pairing)
    for game_id in GAMES:
        if args.game and game_id not in args.game:
            continue
        results = done.get(game_id, {})
        todo = [n for n in range(args.games) if n not in results]
        if todo and not args.report:
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                runs = {pool.submit(one_game, game_id, n, first, second, args.strong_playouts): n
                        for n in todo}
                for run in as_completed(runs):
                    number = runs[run]
                    results[number] = run.result()
                    if args.log is not None:
                        share, place, seconds = results[number]
                        with args.log.open("a") as log:
                            log.write(json.dumps({
                                "pairing": args.pairing, "game": game_id, "number": number,
                                "share": share, "place": place, "seconds": seconds}) + "\n")
        finished = [results[n] for n in range(args.games) if n in results]
        if finished:
            print(report(game_id, finished), flush=True)


if __name__ == "__main__":
    main()
