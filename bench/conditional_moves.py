"""Conditional moves' cost: a move with and without an answer kept for it, and keeping a tree.

    .venv/bin/python bench/conditional_moves.py [--games 20] [--depth 10]

On a real SQLite file, through the services (no HTTP): for each of ``--games`` Mosey games,
(1) the first player's move while the other keeps nothing (the baseline: the feature's only
cost is one look for a kept tree), then (2) the first player's move answered by a kept tree (two
moves, the emails of both, one transaction), and (3) the time to keep a line of ``--depth``
answers (every move replayed through the engine, the game row locked). Prints the median and
the 90th percentile of each, in milliseconds.
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
from pathlib import Path
from typing import Any

from sqlmodel import SQLModel

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pbem.ratelimit  # noqa: F401  (its table on the metadata)
from pbem.conditional.service import save
from pbem.db import Database
from pbem.features import connect
from pbem.links import Links
from pbem.models import GameRecord
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, create_game, start_game, submit_move

PLAYERS = [PlayerSpec("Ann", "ann@example.test"), PlayerSpec("Bob", "bob@example.test")]


def line_from(game: Any, state: Any, moves: int, rng: random.Random) -> list[str]:
    """Legal moves from ``state``, each passing the turn to the other seat."""
    line = []
    for _ in range(moves):
        mover = game.to_move(state)
        passing = [m for m in game.legal_moves(state)
                   if game.to_move(game.play(state, m)) not in (mover, None)]
        if not passing:
            break
        move = rng.choice(passing)
        line.append(str(move))
        state = game.play(state, move)
    return line


def timed(action: Callable[[], Any]) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def state_of(database: Database, game_id: int) -> tuple[Any, Any, GameRecord]:
    with database.session() as session:
        found = session.get(GameRecord, game_id)
    assert found is not None and found.to_move is not None
    return (*current_state(found), found)


def move(database: Database, site: Site, now: datetime, game_id: int, text: str) -> None:
    found = state_of(database, game_id)[2]
    assert found.to_move is not None
    with database.write() as session:
        submit_move(session, now, site, game_id=game_id, seat=found.to_move, ply=found.ply,
                    text=text)


def keep(database: Database, now: datetime, game_id: int, seat: int, line: list[str]) -> None:
    with database.write() as session:
        save(session, now, game_id=game_id, seat=seat, text="if " + " then ".join(line))


def one_game(database: Database, site: Site, now: datetime, rng: random.Random,
             depth: int) -> tuple[float, float, float]:
    """(the plain move, keeping a line, the move answered from it), in milliseconds."""
    with database.write() as session:
        row = create_game(session, now, site, game_type="mosey", options={"order": 4},
                          players=PLAYERS)
        assert row.id is not None
        start_game(session, now, site, game_id=row.id, force=True)
        game_id = row.id
    game, state, _ = state_of(database, game_id)
    first = line_from(game, state, 1, rng)[0]
    plain = timed(lambda: move(database, site, now, game_id, first))
    game, state, found = state_of(database, game_id)
    assert found.to_move is not None
    waiting = 1 - found.to_move
    line = line_from(game, state, 2 * depth, rng)
    line = line[:len(line) - len(line) % 2]  # a short game: whole pairs only
    keeping = timed(lambda: keep(database, now, game_id, waiting, line))
    answered = timed(lambda: move(database, site, now, game_id, line[0]))
    assert state_of(database, game_id)[2].ply == 3, "the kept answer was not played"
    return plain, keeping, answered


def shown(name: str, values: list[float]) -> None:
    values = sorted(values)
    p90 = values[int(0.9 * (len(values) - 1))]
    print(f"{name:58} median {statistics.median(values):7.1f} ms   p90 {p90:7.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--depth", type=int, default=10)
    args = parser.parse_args()
    connect()
    folder = Path(tempfile.mkdtemp())
    database = Database(f"sqlite:///{folder / 'bench.db'}")
    SQLModel.metadata.create_all(database.engine)
    site = Site(Links("bench-secret", "http://localhost"), "pbem <pbem@example.test>")
    rng = random.Random(1)
    now = datetime.now(UTC)
    results = [one_game(database, site, now, rng, args.depth) for _ in range(args.games)]
    print(f"conditional moves: {args.games} Mosey games (order 4), SQLite file, services only")
    shown("a move, nothing kept for it (baseline)", [r[0] for r in results])
    shown("a move and the answer kept for it (two moves, one commit)", [r[2] for r in results])
    shown(f"keeping a line of up to {args.depth} answers", [r[1] for r in results])


if __name__ == "__main__":
    main()
