"""Each inbound message is handled once, also when two fetchers hand it over at the same moment,
on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from sqlmodel import col, select

from pbem.db import Database
from pbem.inbound.commands import Handled
from pbem.inbound.service import receive
from pbem.models import InboundMail, Move, OutboxEmail, Seat
from pbem.positions import current_state
from pbem.services import PlayerSpec
from pbem.services.notify import reply_headers
from tests.inbound.replies import REPLY_ADDRESS, reply_site
from tests.support import smallest_options, start_a_game


def a_reply(database: Database, game_id: int) -> bytes:
    """The player to move answers with a legal move (to the address their email carries)."""
    with database.session() as session:
        from pbem.models import GameRecord

        row = session.get(GameRecord, game_id)
        assert row is not None
        seat = session.exec(select(Seat).where(Seat.game_id == game_id,
                                               Seat.seat == row.to_move)).one()
        turn = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "turn")
                            .order_by(col(OutboxEmail.id).desc())).first()
        assert turn is not None and turn.reply_to
        game, state = current_state(row)
        move = str(game.legal_moves(state)[0])
        assert reply_headers(reply_site(database), row, seat, "turn")[0] == turn.reply_to
    return (f"From: p{seat.seat}@example.test\r\nTo: {turn.reply_to}\r\n"
            f"Subject: Re: your turn\r\nMessage-ID: <twice@player.example.test>\r\n"
            f"In-Reply-To: {turn.message_id}\r\n\r\n{move}\r\n").encode()


def test_two_fetchers_at_once_play_the_move_once(database: Database) -> None:
    site = reply_site(database)
    assert site.reply_address == REPLY_ADDRESS
    players = [PlayerSpec(f"P{n}", f"p{n}@example.test") for n in range(2)]
    game = start_a_game(database, datetime.now(UTC), site, "mosey", smallest_options("mosey"),
                        players=players)
    raw = a_reply(database, game)
    outcomes: list[Handled] = []
    start = threading.Barrier(2)

    def fetcher() -> None:
        start.wait()
        outcomes.append(receive(database, datetime.now(UTC), site, raw))

    threads = [threading.Thread(target=fetcher) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(o.kind for o in outcomes) == ["duplicate", "played"]
    with database.session() as session:
        assert len(session.exec(select(Move).where(Move.game_id == game)).all()) == 1
        assert len(session.exec(select(InboundMail)).all()) == 1
        receipts = session.exec(select(OutboxEmail).where(
            OutboxEmail.kind == "reply_receipt")).all()
    assert len(receipts) == 1
