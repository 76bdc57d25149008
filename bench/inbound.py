"""Play by reply, end to end: replies handled per second.

    python bench/inbound.py                 # SQLite file, 20 games x 10 replies
    python bench/inbound.py --games 40 --replies 20 --postgres

Each reply goes over SMTP into a real ``pbem inbound`` server (aiosmtpd) and is counted when the
move is committed with its receipt and the next player's turn email in the outbox. The reply
address comes from the turn email's row, as a mail client would take it from Reply-To. One
sender at a time (a mail server hands over one message per connection), then 4 at once.
"""

from __future__ import annotations

import argparse
import smtplib
import statistics
import sys
import tempfile
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import create_engine, text
from sqlmodel import col, select

from pbem.db import Database
from pbem.features import connect
from pbem.inbound.service import accepts_recipient, receive
from pbem.inbound.smtp import InboundServer
from pbem.links import Links, seat_holder_for
from pbem.migrate import upgrade
from pbem.models import GameRecord, OutboxEmail, Seat
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, create_game, start_game
from tests.support import free_port

REPLY = "play@pbem.example.test"


def make_database(postgres: bool) -> Database:
    if not postgres:
        url = f"sqlite:///{Path(tempfile.mkdtemp()) / 'bench.db'}"
        upgrade(url)
        return Database(url)
    url = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    with create_engine(url, isolation_level="AUTOCOMMIT").connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    upgrade(url, search_path=schema)
    return Database(url, search_path=schema)


def start_games(database: Database, site: Site, count: int) -> list[int]:
    now = datetime.now(UTC)
    ids = []
    for n in range(count):
        with database.write() as session:
            row = create_game(session, now, site, game_type="mosey", options={"order": 4},
                              players=[PlayerSpec(f"A{n}", f"a{n}@example.test"),
                                       PlayerSpec(f"B{n}", f"b{n}@example.test")])
            assert row.id is not None
            start_game(session, now, site, game_id=row.id, force=True)
            ids.append(row.id)
    return ids


def next_reply(database: Database, game_id: int, number: int) -> tuple[str, bytes] | None:
    """(reply address, message) answering the latest turn email of ``game_id``."""
    with database.session() as session:
        row = session.get(GameRecord, game_id)
        if row is None or row.status != "active":
            return None
        seat = session.exec(select(Seat).where(Seat.game_id == game_id,
                                               Seat.seat == row.to_move)).one()
        turn = session.exec(select(OutboxEmail).where(
            OutboxEmail.game_id == game_id, OutboxEmail.player_id == seat.player_id,
            col(OutboxEmail.reply_to) != "").order_by(col(OutboxEmail.id).desc())).first()
        assert turn is not None
        game, state = current_state(row)
        move = str(game.legal_moves(state)[0])
    raw = (f"From: {turn.to_address}\r\nTo: {turn.reply_to}\r\nSubject: Re: {turn.subject}\r\n"
           f"Message-ID: <{game_id}.{number}@bench.example>\r\nIn-Reply-To: {turn.message_id}"
           f"\r\n\r\n{move}\r\n\r\n> quoted turn email\r\n").encode()
    return turn.reply_to, raw


def send(server: InboundServer, address: str, raw: bytes) -> float:
    began = time.perf_counter()
    with smtplib.SMTP(server.host, server.port, timeout=60) as client:
        client.sendmail(f"player@{address.rpartition('@')[2]}", [address], raw)
    return time.perf_counter() - began


def run(database: Database, games: int, replies: int, senders: int) -> None:
    site = Site(Links("bench-secret", "https://pbem.example",
                      seat_holder=seat_holder_for(database)), "pbem <pbem@pbem.example.test>",
                reply_address=REPLY)
    ids = start_games(database, site, games)
    kinds: list[str] = []
    lock = threading.Lock()

    def deliver(raw: bytes, sender: str, recipients: list[str]) -> None:
        outcome = receive(database, datetime.now(UTC), site, raw, recipients=recipients)
        with lock:
            kinds.append(outcome.kind)

    server = InboundServer("127.0.0.1", free_port(), lmtp=False, hostname="localhost",
                           accept_recipient=lambda a: accepts_recipient(site, a), deliver=deliver)
    server.start()
    latencies: list[float] = []
    began = time.perf_counter()
    try:
        shares = [ids[n::senders] for n in range(senders)]

        def player(mine: list[int]) -> None:
            for number in range(replies):
                for game_id in mine:
                    found = next_reply(database, game_id, number)
                    if found is not None:
                        seconds = send(server, *found)
                        with lock:
                            latencies.append(seconds)

        threads = [threading.Thread(target=player, args=(share,)) for share in shares]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        server.stop()
    elapsed = time.perf_counter() - began
    latencies.sort()
    played = kinds.count("played")
    print(f"  {senders} sender(s): {played} replies played of {len(kinds)} in {elapsed:.1f} s: "
          f"{played / elapsed:.1f} replies/s; SMTP-to-commit p50 "
          f"{statistics.median(latencies) * 1000:.0f} ms, p95 "
          f"{latencies[int(len(latencies) * 0.95) - 1] * 1000:.0f} ms; other outcomes: "
          f"{sorted(set(k for k in kinds if k != 'played')) or 'none'}")


def main() -> None:
    connect()  # ratings, tournaments and rematches react to games that end
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--replies", type=int, default=10, help="replies per game")
    parser.add_argument("--postgres", action="store_true", help="also on PostgreSQL")
    args = parser.parse_args()
    backends = [False, True] if args.postgres else [False]
    for postgres in backends:
        print("PostgreSQL" if postgres else "SQLite (file, WAL)")
        for senders in (1, 4):
            database = make_database(postgres)
            try:
                run(database, args.games, args.replies, senders)
            finally:
                database.dispose()


if __name__ == "__main__":
    main()
