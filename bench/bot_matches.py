"""How strong the computer player is: matches of one level against another, per game id, with an
Elo-like difference and its 95% interval computed from the match log.

    python bench/bot_matches.py --games 4 --seconds 0.5                 # a short run, every game
    python bench/bot_matches.py --pairing strong-normal --game rifugio --games 100 --jobs 2 \\
        --log bench/results/bot_matches.jsonl
    python bench/bot_matches.py --log bench/results/bot_matches.jsonl --report

Levels: ``random`` (uniformly random legal moves), ``easy``, ``normal`` and ``strong``. A pairing
``A-B`` seats one A against the other seats' B (``--pairing`` repeatable; by default
easy-normal, normal-random and strong-normal, the three that say whether the levels keep their
meaning). Game ``n`` is seeded by ``n`` and seats A on seat ``n % seats``, so seats rotate and a
run is repeatable, and the games of a run are played number by number across the game ids, so a
run stopped early has as many games of each. ``strong`` is a time budget (5 s a move) in play;
here it is the deterministic ``--strong-playouts`` (default 2000, five times normal's), so that
the measure does not depend on the machine's load, or ``--strong-playouts auto``: per game id the
playouts strong's 5 s buy on an idle core of the development machine (:data:`STRONG_PLAYOUTS`,
measured by ``bench/bots.py --strong-cpu``; 5 700 (Rifugio) to 214 000 (Refugia) a move, so a
game takes minutes).
``--strong-fraction F`` multiplies strong's playouts alone by F, for a run the real budget does
not fit in (say so beside its numbers); ``--seconds S`` gives strong S seconds a move instead (a
short run, not repeatable). ``--scale F`` multiplies every playout budget (easy's 50, normal's
400, strong's) by F: a proxy run that keeps the levels' ratios, not their meaning; log it to a
file of its own. Rifugio (3 players by default) seats one A against two B.

The log (``--log FILE``, JSON lines) keeps one finished game a line: pairing, game, number,
strong's budget (``strong``: playouts a move, or "5.0 s"; a run refuses a log whose games of its
pairing and game id were played at another), the seat A sat on, every seat's score, the
winners, A's win share (1/k of a win shared by k) and place, plies and seconds. A run skips the
games FILE already holds for its pairing, so a long run can be stopped and resumed; ``--report``
prints the table from FILE alone. A log is only as good as the code that played it: after
changing a bot, a playout policy or a game's rules, start a new one
(``bench/results/bot_matches.jsonl`` holds the runs from before Rifugio's playout policy).

The table, per pairing and game id: games; A's win share with its 95% Wilson interval and what
an equal side would expect (1/seats); A's mean place; ``score``: A's share of its pairwise
results against each other seat (1 ahead, 0.5 tied, 0 behind; with two seats the win share with
a draw or shared win as half), 50% for an equal side, with its Wilson interval; and the Elo-like
difference ``400 log10(score / (1 - score))`` with the interval mapped through the same function
(a score of 100% has no finite upper bound). With three or more seats the pairwise results of one
game are not independent, so that interval is a little narrow. Old log lines without scores
count a tied place as ahead.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import GAMES, new_game
from engine.bots import Bot
from engine.bots.bot import LEVELS as LEVEL_BUDGETS

LEVELS = ("random", "easy", "normal", "strong")
DEFAULT_PAIRINGS = ("easy-normal", "normal-random", "strong-normal")
TARGETS = {"normal-random": 0.99, "strong-normal": 0.85, "easy-normal": None}
"""The win share (two seats) or pairwise score a pairing should reach; easy-normal: below 50%."""

STRONG_PLAYOUTS: dict[str, int] = {
    "mosey": 111818, "dont-mosey": 68290, "backfire": 69429, "refugia": 213512,
    "keep-a-riding": 52048, "firestorm": 56315, "conflagration": 72278, "stigmergy": 14275,
    "rifugio": 5690}
"""Per game id at its default options: the playouts strong's 5 s a move buy on an idle core of the
2-core development machine with the native cores, 5 s of the process's CPU time counted by
``bench/bots.py --strong-cpu --positions 4`` (the mean of 4 positions spread over a random game,
the ones searched; 28 November 2026). ``--strong-playouts auto`` plays these."""


@dataclass(frozen=True)
class Result:
    """One finished game, as logged."""

    pairing: str
    game: str
    number: int
    hero: int
    scores: tuple[float, ...] | None
    winners: tuple[int, ...] | None
    share: float
    place: float
    seconds: float
    plies: int | None
    strong: str | None = None

    def pairwise(self, seats: int) -> float:
        """A's mean result against each other seat: 1 ahead, 0.5 tied, 0 behind."""
        if seats == 2 or self.scores is None:
            if seats == 2:
                return self.share
            return (seats - self.place) / (seats - 1)  # old lines: a tie counts as ahead
        mine = self.scores[self.hero]
        others = [s for seat, s in enumerate(self.scores) if seat != self.hero]
        return sum(1.0 if mine > s else 0.5 if mine == s else 0.0 for s in others) / len(others)

    def line(self) -> str:
        return json.dumps({
            "pairing": self.pairing, "game": self.game, "number": self.number,
            "hero": self.hero, "scores": self.scores, "winners": self.winners,
            "share": self.share, "place": self.place, "seconds": self.seconds,
            "plies": self.plies, "strong": self.strong})

    @classmethod
    def parse(cls, line: str) -> Result:
        row = json.loads(line)
        scores, winners = row.get("scores"), row.get("winners")
        return cls(pairing=row["pairing"], game=row["game"], number=int(row["number"]),
                   hero=int(row.get("hero", -1)),
                   scores=None if scores is None else tuple(float(s) for s in scores),
                   winners=None if winners is None else tuple(int(w) for w in winners),
                   share=float(row["share"]), place=float(row["place"]),
                   seconds=float(row["seconds"]), plies=row.get("plies"),
                   strong=row.get("strong"))


def player(level: str, seed: int, strong_playouts: int, seconds: float | None,
           scale: float = 1.0) -> Bot | None:
    """The bot of ``level`` (None: random moves), its playout budget times ``scale``."""
    if level == "random":
        return None
    if level == "strong" and seconds is not None:
        return Bot.at("strong", seed=seed, seconds=seconds)
    budget = strong_playouts if level == "strong" else LEVEL_BUDGETS[level][0]
    assert budget is not None
    return Bot.at(level, seed=seed, playouts=max(1, round(budget * scale)))


def one_game(game_id: str, pairing: str, number: int, strong_playouts: int,
             seconds: float | None, scale: float = 1.0) -> Result:
    """Game ``number`` of ``pairing``: one A on seat ``number % seats``, B everywhere else."""
    first, second = pairing.split("-")
    game = new_game(game_id)
    seats = game.num_players
    hero = number % seats
    rng = random.Random(number)
    bots = {seat: player(first if seat == hero else second, number * 7 + seat, strong_playouts,
                         seconds, scale)
            for seat in range(seats)}
    state = game.start(seed=number)
    start = time.perf_counter()
    plies = 0
    while (seat := game.to_move(state)) is not None:
        bot: Any = bots[seat]
        move = bot.choose(game, state, seat)[0] if bot is not None else game.random_move(state, rng)
        state = game.play(state, move)
        plies += 1
    outcome = game.outcome(state)
    assert outcome is not None
    share = 1.0 / len(outcome.winners) if hero in outcome.winners else 0.0
    if outcome.scores is not None and seats > 2:
        mine = outcome.scores[hero]
        place = 1 + sum(1 for s in outcome.scores if s > mine)
    else:
        place = 1 if hero in outcome.winners else 2
    return Result(pairing, game_id, number, hero,
                  None if outcome.scores is None else tuple(outcome.scores),
                  tuple(outcome.winners), share, float(place), time.perf_counter() - start,
                  plies, strong_label(strong_playouts, seconds, scale))


def strong_label(playouts: int, seconds: float | None, scale: float) -> str:
    """Strong's budget as the log keeps it: its playouts a move, or its seconds."""
    return f"{seconds} s" if seconds is not None else str(max(1, round(playouts * scale)))


def strong_budget(game_id: str, playouts: str, fraction: float) -> int:
    """Strong's playouts a move in ``game_id``: ``playouts`` (a number, or ``auto`` for
    :data:`STRONG_PLAYOUTS`) times ``fraction``."""
    if playouts == "auto":
        if game_id not in STRONG_PLAYOUTS:
            raise SystemExit(f"--strong-playouts auto: no measured budget for {game_id} "
                             f"(measured: {', '.join(STRONG_PLAYOUTS)}); give a number")
        return max(1, round(STRONG_PLAYOUTS[game_id] * fraction))
    return max(1, round(int(playouts) * fraction))


def playouts_option(text: str) -> str:
    if text == "auto" or (text.isdigit() and int(text) > 0):
        return text
    raise argparse.ArgumentTypeError(f"{text!r}: a positive number of playouts, or auto")


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share ``wins / games``."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def elo(score: float) -> float:
    """The rating difference at which the logistic Elo model expects ``score`` (0..1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0 - 1e-9:  # a Wilson bound of 1, give or take rounding
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def signed(value: float) -> str:
    return f"{value:+.0f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def report(pairing: str, game_id: str, results: Sequence[Result]) -> str:
    """One table row (see the module's doc)."""
    games = len(results)
    seats = new_game(game_id).num_players
    wins = sum(r.share for r in results)
    low, high = wilson(wins, games)
    place = sum(r.place for r in results) / max(1, games)
    score = sum(r.pairwise(seats) for r in results)
    score_low, score_high = wilson(score, games)
    mean = score / max(1, games)
    seconds = sum(r.seconds for r in results) / max(1, games)
    target = TARGETS.get(pairing)
    aim = ("<50%" if pairing == "easy-normal" else f">={target:.0%}" if target else "")
    return (f"{pairing:14} {game_id:14} {games:5} {wins / max(1, games):5.0%} "
            f"{f'{low:.0%}-{high:.0%}':>9} {1 / seats:5.0%} {place:5.2f} {mean:6.0%} "
            f"{f'{score_low:.0%}-{score_high:.0%}':>9} {signed(elo(mean)):>6} "
            f"{f'{signed(elo(score_low))}..{signed(elo(score_high))}':>13} {aim:>6} "
            f"{seconds:7.1f}")


HEADER = (f"{'pairing':14} {'game':14} {'games':>5} {'wins':>5} {'95%':>9} {'equal':>5} "
          f"{'place':>5} {'score':>6} {'95%':>9} {'elo':>6} {'95%':>13} {'target':>6} "
          f"{'s/game':>7}")


def logged(path: Path | None) -> dict[tuple[str, str], dict[int, Result]]:
    """The games ``path`` holds, by (pairing, game id) and number."""
    found: dict[tuple[str, str], dict[int, Result]] = {}
    if path is None or not path.exists():
        return found
    for line in path.read_text().splitlines():
        if line.strip():
            result = Result.parse(line)
            found.setdefault((result.pairing, result.game), {})[result.number] = result
    return found


def pairing_name(text: str) -> str:
    first, _, second = text.partition("-")
    if first not in LEVELS or second not in LEVELS:
        raise argparse.ArgumentTypeError(
            f"{text!r}: a pairing is two of {', '.join(LEVELS)} joined by '-'")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairing", action="append", type=pairing_name,
                        help=f"A-B, repeatable (default: {', '.join(DEFAULT_PAIRINGS)})")
    parser.add_argument("--game", action="append", choices=sorted(GAMES),
                        help="only these game ids (repeatable)")
    parser.add_argument("--games", type=int, default=100, help="games per pairing and game id")
    parser.add_argument("--strong-playouts", type=playouts_option, default="2000",
                        help="strong's playouts a move, or auto: its 5 s on an idle core "
                             "(STRONG_PLAYOUTS, per game id)")
    parser.add_argument("--strong-fraction", type=float, default=1.0,
                        help="strong's playouts times this (a run the real budget does not "
                             "fit in: say so)")
    parser.add_argument("--seconds", type=float,
                        help="strong thinks this long a move instead of --strong-playouts")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="every playout budget times this (a quick proxy run: 0.1)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--log", type=Path, help="append finished games here; skip those it holds")
    parser.add_argument("--report", action="store_true", help="only print the table from --log")
    args = parser.parse_args()
    pairings = args.pairing or list(DEFAULT_PAIRINGS)
    game_ids = [g for g in GAMES if not args.game or g in args.game]
    strongs = {game_id: strong_budget(game_id, args.strong_playouts, args.strong_fraction)
               for game_id in game_ids
               if args.seconds is None and any("strong" in p.split("-") for p in pairings)}
    strong = (f"{args.seconds} s a move" if args.seconds is not None
              else "playouts a move " + ", ".join(
                  f"{g} {strong_label(n, None, args.scale)}" for g, n in strongs.items()))
    if args.scale != 1.0:
        strong += f"; every playout budget times {args.scale}"
    print(f"{args.games} games per pairing and game id, seats rotated; strong: {strong}")
    done = logged(args.log)
    for (pairing, game_id), games in done.items():
        if pairing in pairings and game_id in game_ids and "strong" in pairing.split("-"):
            label = strong_label(strongs.get(game_id, 0), args.seconds, args.scale)
            other = {r.strong for r in games.values() if r.strong is not None} - {label}
            if other and not args.report:
                raise SystemExit(f"{args.log} holds {pairing} {game_id} games with strong at "
                                 f"{', '.join(sorted(map(str, other)))}, not {label}: "
                                 "log this budget to a file of its own")
    # Number by number across the game ids: a run stopped early has as many games of each.
    todo = [(pairing, game_id, n) for n in range(args.games) for pairing in pairings
            for game_id in game_ids if n not in done.get((pairing, game_id), {})]
    if todo and not args.report:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            runs = [pool.submit(one_game, game_id, pairing, n, strongs.get(game_id, 0),
                                args.seconds, args.scale) for pairing, game_id, n in todo]
            for run in as_completed(runs):
                result = run.result()
                done.setdefault((result.pairing, result.game), {})[result.number] = result
                if args.log is not None:
                    with args.log.open("a") as log:
                        log.write(result.line() + "\n")
    print(HEADER)
    for pairing in pairings:
        for game_id in game_ids:
            results = done.get((pairing, game_id), {})
            finished = [results[n] for n in range(args.games) if n in results]
            if finished:
                print(report(pairing, game_id, finished), flush=True)


if __name__ == "__main__":
    main()
