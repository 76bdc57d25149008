"""Turn emails say that replying works (issue 33), on SQLite and PostgreSQL: with play by reply
on, the text part of every turn email starts with "Reply with your move, for example ..." and a
move that is legal in the position, in the player's language; answering with that very move
plays it, and the receipt's text part shows the board."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from sqlmodel import select

from pbem.models import OutboxEmail, Player
from pbem.positions import current_state
from pbem.services import PlayerSpec
from tests.inbound.replies import ReplyTable, answer
from tests.support import start_a_game

HINT = re.compile(r"\AReply with your move, for example (\S+)\n")


def _plain(message: object) -> str:
    body = str(message.get_body(("plain",)).get_content())  # type: ignore[attr-defined]
    return body.replace("\r\n", "\n")


def test_every_turn_email_says_replying_works_with_a_legal_move(
        any_reply_table: ReplyTable) -> None:
    table = any_reply_table
    game_id = start_a_game(table.database, datetime.now(UTC), table.site, "mosey",
                           {"order": 4}, players=[PlayerSpec("Ann", "ann@example.test"),
                                                  PlayerSpec("Bob", "bob@example.test")])
    for _ in range(3):  # three turns, each answered with the example its email gave
        table.fetch()
        address = table.player_to_move(game_id)
        turn = table.latest(address)
        found = HINT.match(_plain(turn))
        assert found, _plain(turn)
        game, state = current_state(table.game(game_id))
        assert found[1] in {str(m) for m in game.legal_moves(state)}
        assert table.send(answer(turn, found[1])).kind == "played"
        table.fetch()
        receipt = table.latest(address, with_reply_to=False)
        text = _plain(receipt)
        assert f"Played: {found[1]}" in text
        assert "\nThe board:\n" in text
        game, state = current_state(table.game(game_id))
        assert game.render_text(state, None).splitlines()[0].strip() in text


def test_the_reply_hint_is_in_the_players_language(any_reply_table: ReplyTable) -> None:
    table = any_reply_table
    now = datetime.now(UTC)
    with table.database.write() as session:
        session.add(Player(name="Dirk", email="dirk@example.test", created_at=now,
                           language="nl"))
        session.add(Player(name="Dora", email="dora@example.test", created_at=now,
                           language="nl"))
    start_a_game(table.database, now, table.site, "mosey", {"order": 4},
                 players=[PlayerSpec("Dirk", "dirk@example.test"),
                          PlayerSpec("Dora", "dora@example.test")])
    with table.database.session() as session:
        turn = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "turn")).one()
    assert re.match(r"Antwoord met je zet, bijvoorbeeld \S+\n", turn.text_body), turn.text_body
