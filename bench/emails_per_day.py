"""Emails a day for a player with 20 running games, under each mail setting (pbem.notifications).

    .venv/bin/python bench/emails_per_day.py [--games 20] [--seed 1]

One simulated day of play through the services, ``now`` advanced a quarter of an hour at a time
(the scheduler's sweep at each: reminders, timeouts, digests): the player ("me", digest at 08:00
UTC) has ``--games`` games, a quarter of them Rifugio of three (so other players' moves make
"update" emails) and the rest Mosey; each opponent answers a turn after a random while, and I
play every waiting turn at 08:30, 13:00 and 21:00; two opponents resign in the afternoon. The
same day (same seed) is played once per setting on a fresh SQLite database; the table counts the
emails to me written that day, sent and kept back. "every event" is what pbem did before.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlmodel import SQLModel, col, select

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
import pbem.ratelimit  # noqa: F401  (its table is on the metadata)
from pbem.db import Database
from pbem.features import connect
from pbem.links import Links
from pbem.models import GameRecord, GameStatus, MailStatus, OutboxEmail, Player, Seat
from pbem.notifications.service import choose
from pbem.notifications.tables import Mode
from pbem.positions import current_state
from pbem.scheduler import sweep
from pbem.services import PlayerSpec, Site, create_game, resign, start_game, submit_move

DAY = datetime(2026, 3, 10, 0, 0, tzinfo=UTC)
TICK = timedelta(minutes=15)
MY_SESSIONS = (timedelta(hours=8, minutes=30), timedelta(hours=13), timedelta(hours=21))
RESIGN_AT = timedelta(hours=16)
REPLY_CHANCE = 0.08  # an opponent to move answers in a quarter with this chance (~3 h)
ME = PlayerSpec("Me", "me@example.test")
WORDS = {Mode.ALL: "every event", Mode.TURNS: "turns and game ends",
         Mode.DIGEST: "daily digest", Mode.OFF: "off"}


def setup(database: Database, site: Site, games: int, mode: Mode, rng: random.Random
          ) -> tuple[int, list[int]]:
    """Me with ``mode``, and my games, started over the two days before DAY."""
    with database.write() as session:
        me = Player(name=ME.name, email=ME.email, created_at=DAY - timedelta(days=3))
        session.add(me)
        session.flush()
        assert me.id is not None
        choose(session, DAY - timedelta(days=3), player_id=me.id, mode=mode, digest_hour=8)
    ids = []
    for number in range(games):
        started = DAY - timedelta(hours=rng.randrange(1, 44))
        three = number % 4 == 0
        people = [ME, PlayerSpec(f"O{number}", f"o{number}@example.test")]
        if three:
            people.append(PlayerSpec(f"T{number}", f"t{number}@example.test"))
        rng.shuffle(people)
        with database.write() as session:
            row = create_game(session, started, site, game_type="rifugio" if three else "mosey",
                              options={"players": 3} if three else {"order": 4},
                              players=people, per_move=timedelta(days=2),
                              reminders=[timedelta(hours=24), timedelta(hours=2)])
            assert row.id is not None
            # The same deal under every setting (the service draws a secret seed).
            row.seed = f"bench-{number}"
            row.state = row.start_state = engine.new_game(row.game_type, **row.options).encode(
                engine.new_game(row.game_type, **row.options).start(row.seed))
            session.add(row)
            start_game(session, started, site, game_id=row.id, force=True)
            ids.append(row.id)
    return me.id, ids


def to_move_is_me(database: Database, game_id: int, me: int) -> bool | None:
    """Whether I am to move (None: the game is over)."""
    with database.session() as session:
        row = session.get(GameRecord, game_id)
        assert row is not None
        if row.status != GameStatus.ACTIVE or row.to_move is None:
            return None
        seat = session.exec(select(Seat).where(Seat.game_id == game_id,
                                               Seat.seat == row.to_move)).one()
        return seat.player_id == me


def play_turn(database: Database, site: Site, game_id: int, now: datetime,
              rng: random.Random) -> None:
    """The seat to move plays its whole turn (Rifugio's turns have several steps)."""
    with database.session() as session:
        row = session.get(GameRecord, game_id)
        assert row is not None
        seat = row.to_move
    while True:
        with database.write() as session:
            row = session.get(GameRecord, game_id)
            assert row is not None
            if row.status != GameStatus.ACTIVE or row.to_move != seat:
                return
            game, state = current_state(row)
            submit_move(session, now, site, game_id=game_id, seat=seat, ply=row.ply,
                        text=str(game.random_move(state, rng)))


def a_day(database: Database, site: Site, me: int, games: list[int], rng: random.Random) -> None:
    now, resigned = DAY, 0
    while now < DAY + timedelta(days=1):
        sweep(database, now, site)
        for game_id in games:
            mine = to_move_is_me(database, game_id, me)
            if mine is False and rng.random() < REPLY_CHANCE:
                play_turn(database, site, game_id, now, rng)
        if any(DAY + at <= now < DAY + at + TICK for at in MY_SESSIONS):
            for game_id in games:
                if to_move_is_me(database, game_id, me):
                    play_turn(database, site, game_id, now, rng)
        if DAY + RESIGN_AT <= now < DAY + RESIGN_AT + TICK:
            for game_id in games:  # two opponents give up
                if resigned < 2 and to_move_is_me(database, game_id, me) is False:
                    with database.write() as session:
                        row = session.get(GameRecord, game_id)
                        assert row is not None and row.to_move is not None
                        resign(session, now, site, game_id=game_id, seat=row.to_move)
                    resigned += 1
        now += TICK


def count(database: Database, me: int) -> tuple[Counter[str], Counter[str]]:
    """(sent, kept back) by kind: the emails to me written during the day."""
    sent: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    with database.session() as session:
        for kind, status in session.exec(
                select(OutboxEmail.kind, OutboxEmail.status).where(
                    OutboxEmail.player_id == me, col(OutboxEmail.created_at) >= DAY,
                    col(OutboxEmail.created_at) < DAY + timedelta(days=1))):
            (kept if status == MailStatus.WITHHELD else sent)[kind] += 1
    return sent, kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    connect()
    site = Site(Links("bench-secret", "http://bench.example"), "pbem <pbem@bench.example>")
    print(f"Emails to one player with {args.games} games over one simulated day (seed "
          f"{args.seed}); 'every event' is the baseline (what pbem did before).")
    print(f"{'setting':<22}{'sent':>6}{'kept back':>11}  {'sent, by kind':<58}seconds")
    for mode in Mode:
        rng = random.Random(args.seed)
        with tempfile.TemporaryDirectory() as folder:
            database = Database(f"sqlite:///{folder}/bench.db")
            SQLModel.metadata.create_all(database.engine)
            began = time.monotonic()
            me, games = setup(database, site, args.games, mode, rng)
            a_day(database, site, me, games, rng)
            sent, kept = count(database, me)
            kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(sent.items()))
            print(f"{WORDS[mode]:<22}{sum(sent.values()):>6}{sum(kept.values()):>11}  "
                  f"{kinds:<58}{time.monotonic() - began:7.1f}")
            database.engine.dispose()


if __name__ == "__main__":
    main()
