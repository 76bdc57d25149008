"""A 200-player Swiss through the service, on a real SQLite file: seconds per round.

    .venv/bin/python bench/tournament_service.py [--players 200] [--rounds 5] [--game mosey]

Each round's games end by resignation (the service's own ``resign``, one transaction each); the
last one pairs the next round in its transaction (100 new games, their seats, clocks and the
emails they queue). Prints per round: that last transaction's seconds, the mean of the others,
and the seconds to build the standings page's view (standings, tie-breaks, crosstable). The pure
pairing and standings alone: bench/tournaments.py.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlmodel import select

from pbem.db import Database
from pbem.features import connect
from pbem.links import Links
from pbem.migrate import upgrade
from pbem.models import GameRecord, GameStatus
from pbem.services import PlayerSpec, Site
from pbem.services.resignation import resign
from pbem.tournaments.queries import standings_view
from pbem.tournaments.service import create_tournament, start_tournament
from pbem.tournaments.tables import Tournament, TournamentGame


def running_games(database: Database, tournament_id: int) -> list[int]:
    with database.session() as session:
        return list(session.exec(
            select(GameRecord.id).join(TournamentGame, TournamentGame.game_id == GameRecord.id)  # type: ignore[arg-type]
            .where(TournamentGame.tournament_id == tournament_id,
                   GameRecord.status == GameStatus.ACTIVE)))


def main() -> None:
    connect()  # ratings, tournaments and rematches react to games that end
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--game", default="mosey")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    url = f"sqlite:///{folder / 'pbem.db'}"
    upgrade(url)
    database = Database(url)
    site = Site(Links("bench-secret", "http://localhost"), "pbem <p@bench.test>")
    rng = random.Random(1)
    now = datetime.now(UTC)
    players = [PlayerSpec(f"P{n}", f"p{n}@bench.test") for n in range(args.players)]
    start = time.perf_counter()
    with database.write() as session:
        made = create_tournament(session, now, site, name="Bench", game_type=args.game,
                                 players=players, fmt="swiss", rounds=args.rounds)
        tournament_id = made.id or 0
    with database.write() as session:
        start_tournament(session, now, site, tournament_id=tournament_id)
    print(f"{args.players} players, Swiss, {args.rounds} rounds, {args.game}, SQLite")
    print(f"created and round 1 paired: {time.perf_counter() - start:.2f} s")
    print("round  games  mean end s  last end + pairing s  standings view s")
    for number in range(1, args.rounds + 1):
        games = running_games(database, tournament_id)
        ends: list[float] = []
        for game_id in games:
            began = time.perf_counter()
            with database.write() as session:
                resign(session, now, site, game_id=game_id, seat=rng.randrange(2))
            ends.append(time.perf_counter() - began)
        began = time.perf_counter()
        with database.session() as session:
            tournament = session.get(Tournament, tournament_id)
            assert tournament is not None
            view = standings_view(session, tournament)
        shown = time.perf_counter() - began
        assert len(view.rows) == args.players
        print(f"{number:5} {len(games):6} {statistics.mean(ends[:-1]):11.4f} "
              f"{ends[-1]:21.3f} {shown:17.3f}", flush=True)
    database.dispose()


if __name__ == "__main__":
    main()
