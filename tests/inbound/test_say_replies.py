"""Writing in a game's conversation by reply (pbem.chat): lines that start with ``say:``, beside
a move or alone, reach the game's other players in their thread of the game; from another
address they are refused. Through a real SMTP server both ways, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import parseaddr

import pytest
from sqlmodel import col, select

from pbem.chat.tables import ChatMessage
from pbem.inbound.reading import Command, Reply, read_reply
from pbem.models import Move
from pbem.services import PlayerSpec
from tests.inbound.replies import ReplyTable, answer
from tests.support import start_a_game

ANN, BEN = "ann@example.test", "ben@example.test"


def chats(messages: list[EmailMessage]) -> dict[str, EmailMessage]:
    """address -> the chat email among ``messages``."""
    return {parseaddr(str(m["To"]))[1]: m for m in messages if " wrote: " in str(m["Subject"])}


def messages(table: ReplyTable) -> list[ChatMessage]:
    with table.database.session() as session:
        return list(session.exec(select(ChatMessage).order_by(col(ChatMessage.id))))


def test_say_lines_reach_the_other_player_in_thread_and_the_move_is_still_played(
        any_reply_table: ReplyTable) -> None:
    table = any_reply_table
    game = start_a_game(table.database, datetime.now(UTC), table.site, "mosey",
                        players=[PlayerSpec("Ann", ANN), PlayerSpec("Ben", BEN)])
    thread: dict[str, str] = {}  # the first email of the game to each starts their thread
    for sent in table.fetch():
        thread.setdefault(parseaddr(str(sent["To"]))[1], str(sent["Message-ID"]))
    mover = table.player_to_move(game)
    other = BEN if mover == ANN else ANN
    move = table.random_move(game)
    outcome = table.send(answer(table.latest(mover),
                                f"{move}\nsay: <b>Good luck</b> & have fun\nsee you soon"))
    assert outcome.kind == "played"
    with table.database.session() as session:
        assert [m.notation for m in session.exec(select(Move))] == [move]

    mail = chats(table.fetch())
    assert list(mail) == [other]
    message = mail[other]
    assert str(message["In-Reply-To"]) == thread[other]
    assert thread[other] in str(message["References"])
    html = message.get_body(("html",)).get_content().replace("\r\n", "\n")
    assert "&lt;b&gt;Good luck&lt;/b&gt; &amp; have fun\nsee you soon" in html
    assert "<b>Good luck" not in html
    text = message.get_body(("plain",)).get_content().replace("\r\n", "\n")
    assert "<b>Good luck</b> & have fun\nsee you soon" in text

    # The other player answers the chat email with a message only: no move, no help back.
    said = table.send(answer(message, "say: Thanks, you too!"))
    assert (said.kind, said.detail, said.answered) == ("command", "said", False)
    back = chats(table.fetch())
    assert list(back) == [mover]
    assert str(back[mover]["In-Reply-To"]) == thread[mover]
    assert [m.source for m in messages(table)] == ["reply", "reply"]


def test_say_from_another_address_is_refused_and_posts_nothing(
        any_reply_table: ReplyTable) -> None:
    table = any_reply_table
    game = start_a_game(table.database, datetime.now(UTC), table.site, "mosey",
                        players=[PlayerSpec("Ann", ANN), PlayerSpec("Ben", BEN)])
    table.fetch()
    mover = table.player_to_move(game)
    outcome = table.send(answer(table.latest(mover), "say: I am not who I say",
                                sender="eve@example.test"))
    assert outcome.kind == "refused"
    assert "address the game's emails go to" in outcome.detail
    assert messages(table) == []
    assert chats(table.fetch()) == {}


@pytest.mark.parametrize(("text", "expected"), [
    ("C2-E2\nsay: good luck", Reply(("C2-E2",), said="good luck")),
    ("say: hello\n\nC2-E2", Reply(("C2-E2",), said="hello")),
    ("C2-E2\nnote: mine\nsay: yours", Reply(("C2-E2",), note="mine", said="yours")),
    ("say: two lines\nof a message\nnote: and a note",
     Reply(note="and a note", said="two lines\nof a message")),
    ("zeg: hallo\n\nSag: hallo\n\nscrivi: ciao", Reply(said="hallo\n\nhallo\n\nciao")),
    ("board\nSAY: what a position", Reply(command=Command("board"), said="what a position")),
    ("say:   ", Reply()),
])
def test_say_lines_are_read_beside_the_move_or_command(text: str, expected: Reply) -> None:
    assert read_reply(text) == expected
