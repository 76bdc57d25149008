"""Reading an analysis line from its address: milliseconds per read, per game, beside the move
page's own work at the line's last position (the baseline: the clickable menu and the SVG).

    python bench/analysis.py [--steps 40] [--repeat 5] [--seed 1]
    python bench/analysis.py --pages [--steps 300] [--repeat 7]

Every analysis page reads its whole line again (each step checked as the engine checks a move,
pbem.analysis.line.read_line), so this is what a long line adds to a page. Lines are random legal
moves for every side (seeded) from each game's start, on its default options, until ``--steps``
or a move that would reveal something hidden (a Rifugio draw) ends them.

``--pages`` times whole requests instead (the Flask app on a fresh SQLite file, as a server
answers them): the public analysis page of each game with the longest line the game allows, up
to ``--steps`` (300 by default; each game on the option choice whose random games last longest),
beside the move page of the same game as the baseline. The target is 50 ms an analysis page.
Medians of ``--repeat`` requests after a warm-up, in CPU time (the server's own work, what
the target is about) and wall time (which also counts whatever else the machine runs); numbers
to compare by eye, not a test.

Baseline (2 shared cores, load ~10, ``nice -n 10 python bench/analysis.py --pages --steps 300``).
Before: Stigmergy checked each step against a map of the whole board's control (271 cells'
rays), made again for every position::

    game             options        steps analysis cpu  (wall) move page cpu  (wall)
    mosey            order=6           87         13.9    25.9          19.3    42.8
    dont-mosey       order=6           87         14.7    40.6          19.3    32.6
    keep-a-riding    order=6          102         15.4    29.5          20.0    59.9
    firestorm        order=6          102         16.2    91.0          17.5    32.4
    conflagration    order=6           79         13.8    29.7          21.5    45.8
    backfire         order=6           55         11.9    29.5          18.9    51.1
    refugia          board=6-7        114         15.5    37.9          22.8    64.7
    stigmergy        size=10          286        107.8   215.3          15.7    16.9
    rifugio          defaults           3          7.3     7.7          12.4    12.7

After: a placement or replacement is checked from its own cell's rays (the whole map is made
only where the page shows it, at the position shown); the page builds the address of its
line once, not once a step; the reader's language is chosen once a request (load ~11)::

    game             options        steps analysis cpu  (wall) move page cpu  (wall)
    mosey            order=6           87         12.0    28.3          20.4    56.7
    dont-mosey       order=6           87         11.3    27.1          19.4    46.7
    keep-a-riding    order=6          102         11.4    27.6          17.1    44.3
    firestorm        order=6          102         11.4    27.2          17.4    41.6
    conflagration    order=6           79         10.8    26.6          21.0    52.9
    backfire         order=6           55          9.1    21.2          18.4    47.5
    refugia          board=6-7        114         11.5    27.3          22.4    58.5
    stigmergy        size=10          286         23.3    59.1          17.7    45.3
    rifugio          defaults           3          7.8    19.7          14.4    34.0
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlmodel import SQLModel

from engine import GAMES, AnyGame, new_game
from pbem import create_app
from pbem.analysis.line import (
    MAX_STEPS,
    SEPARATOR,
    read_line,
    start_for,
    stop_reason,
)
from pbem.db import Database
from pbem.links import Links
from pbem.models import GameRecord
from pbem.positions import current_state, move_menu
from pbem.services import PlayerSpec, Site, create_game, start_game

SECRET = "bench-secret"
BASE = "http://localhost"
PAGE_TARGET_MS = 50.0


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


def _longest(game_id: str, steps: int, seed: int) -> tuple[dict[str, Any], list[str]]:
    """The options (one choice changed from the defaults, or none) and seeded random line of
    up to ``steps`` from the start that is longest in ``game_id``."""
    best: tuple[dict[str, Any], list[str]] = ({}, [])
    choices: list[dict[str, Any]] = [{}]
    for option in GAMES[game_id].options:
        choices += [{option.name: choice} for choice in option.choices]
    for options in choices:
        game = new_game(game_id, **options)
        start = start_for(game, game.start(seed=seed), None)
        line = _line(game, start, steps, random.Random(seed))
        if len(line) > len(best[1]):
            best = options, line
        if len(line) >= steps:
            break
    return best


def _median_ms(work: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(CPU, wall) milliseconds of ``work``, medians of ``repeat`` runs after a warm-up. The
    CPU time is the server's own work; the wall time also counts whatever else the machine
    runs meanwhile."""
    work()  # warm-up: templates, engine caches
    cpu, wall = [], []
    for _ in range(repeat):
        began, began_cpu = time.perf_counter(), time.process_time()
        work()
        cpu.append(time.process_time() - began_cpu)
        wall.append(time.perf_counter() - began)
    return statistics.median(cpu) * 1000, statistics.median(wall) * 1000


def _get(client: Any, path: str, query: dict[str, Any]) -> None:
    answer = client.get(path, query_string=query)
    assert answer.status_code == 200, (path, answer.status_code)


def pages(steps: int, repeat: int, seed: int) -> None:
    """The analysis page's and the move page's server time per game (see the module's doc)."""
    folder = tempfile.mkdtemp(prefix="pbem-bench-")
    database = Database(f"sqlite:///{folder}/bench.db")
    site = Site(Links(SECRET, BASE), "pbem <p@bench.test>")
    app = create_app({"ENV": "development", "SECRET_KEY": SECRET, "BASE_URL": BASE,
                      "DATABASE": database, "DATABASE_URL": database.url}, read_env=False)
    SQLModel.metadata.create_all(database.engine)  # after the app: every feature's tables
    client = app.test_client()
    print(f"analysis page with the longest line up to {steps} steps (public, at its end), "
          f"median of {repeat}; target {PAGE_TARGET_MS:.0f} ms")
    print(f"{'game':16} {'options':14} {'steps':>5} {'analysis cpu':>12} {'(wall)':>7} "
          f"{'move page cpu':>13} {'(wall)':>7}")
    for game_id in GAMES:
        options, line = _longest(game_id, steps, seed)
        count = new_game(game_id, **options).num_players
        with database.write() as session:
            row = create_game(session, datetime.now(UTC), site, game_type=game_id,
                              players=[PlayerSpec(f"P{n}", f"p{n}@bench.test")
                                       for n in range(count)], options=options)
            assert row.id is not None
            start_game(session, datetime.now(UTC), site, game_id=row.id, force=True)
            pk = row.id
        with database.session() as session:
            row = session.get(GameRecord, pk)
        assert row is not None and row.to_move is not None
        game, state = current_state(row)  # the game's own start: its hidden parts differ
        line = _line(game, start_for(game, state, None), steps, random.Random(seed))
        analysis = partial(_get, client, f"/g/{row.public_id}/analysis",
                           {"ply": 0, "line": SEPARATOR.join(line)})
        move_path = site.links.move_url(pk, row.to_move, 0).removeprefix(BASE)
        move = partial(_get, client, move_path, {})
        shown = ",".join(f"{k}={v}" for k, v in options.items()) or "defaults"
        analysed, moved = _median_ms(analysis, repeat), _median_ms(move, repeat)
        print(f"{game_id:16} {shown:14} {len(line):5d} {analysed[0]:12.1f} {analysed[1]:7.1f} "
              f"{moved[0]:13.1f} {moved[1]:7.1f}")
    database.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pages", action="store_true",
                        help="time the analysis and move pages as the server answers them")
    args = parser.parse_args()
    if args.pages:
        pages(min(args.steps or 300, MAX_STEPS), args.repeat or 7, args.seed)
        return
    steps = min(args.steps or 40, MAX_STEPS)
    repeat = args.repeat or 5
    print(f"analysis lines of up to {steps} steps, best of {repeat}")
    print(f"{'game':16} {'steps':>5} {'read ms':>8} {'ms/step':>8} {'move page ms':>13}")
    for game_id in GAMES:
        count, read, baseline = measure(game_id, steps, repeat, args.seed)
        per_step = read / count if count else 0.0
        print(f"{game_id:16} {count:5d} {read:8.1f} {per_step:8.2f} {baseline:13.1f}")


if __name__ == "__main__":
    main()
