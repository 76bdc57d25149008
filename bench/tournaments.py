"""Pairing and standings for a 200-player Swiss: seconds per round (target: under one second).

    python bench/tournaments.py [--players 200] [--rounds 9] [--seed 1]

Results are random (seeded): a win, a draw or a loss each game. Prints, per round, the time to
pair it and the time to compute the standings after it.
"""

from __future__ import annotations

import argparse
import random
import time

from pbem.tournaments.pairing import SeatBalance, swiss_round
from pbem.tournaments.standings import GameResult, standings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    players = list(range(args.players))
    results: list[GameResult] = []
    byes: list[int] = []
    played: set[frozenset[int]] = set()
    balance = SeatBalance()
    table = standings(players, results, fmt="swiss")
    print(f"{args.players} players, Swiss, {args.rounds} rounds")
    print("round  pairing s  standings s")
    worst = 0.0
    for number in range(1, args.rounds + 1):
        scores = {s.player: s.points for s in table}
        ranking = [s.player for s in table]
        start = time.perf_counter()
        pairing = swiss_round(ranking, scores=scores, played=played, byes=byes, balance=balance)
        paired = time.perf_counter() - start
        for a, b in pairing.tables:
            played.add(frozenset((a, b)))
            first = rng.choice([1.0, 0.5, 0.0])
            results.append(GameResult((a, b), (first, 1 - first)))
        if pairing.bye is not None:
            byes.append(pairing.bye)
        start = time.perf_counter()
        table = standings(players, results, byes=byes, fmt="swiss")
        ranked = time.perf_counter() - start
        worst = max(worst, paired + ranked)
        print(f"{number:5}  {paired:9.4f}  {ranked:11.4f}")
    print(f"slowest round, pairing and standings together: {worst:.4f} s")


if __name__ == "__main__":
    main()
