"""A game's conversation as its players use it: written on the seat page (with the page's CSRF
token), mailed to the other players in their own thread of the game through a real SMTP server,
escaped everywhere, limited per hour, hidden by an organiser, muted by a player, and shown with
the moves' notes in the order they were written; on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

from tests.chat.conftest import Table, to_address

ALICE, BOB, CLEO = "alice@example.test", "bob@example.test", "cleo@example.test"
SCRIPT = "<script>alert('hi')</script> good luck & have fun"


def chat_mail(messages: list[Any]) -> dict[str, Any]:
    """address -> the chat email among ``messages`` (one each at most)."""
    found: dict[str, Any] = {}
    for message in chats(messages):
        assert to_address(message) not in found, "two chat emails to one player"
        found[to_address(message)] = message
    return found


def chats(messages: list[Any]) -> list[Any]:
    return [m for m in messages if " wrote: " in str(m["Subject"])]


def test_a_message_written_on_the_seat_page_reaches_the_others_in_their_thread(
        table: Table) -> None:
    answer = table.post(ALICE, "Good luck, both of you!\nLet's have a nice game.")
    assert answer.status_code == 303
    page = table.client.get(answer.location)
    assert "Good luck, both of you!\nLet&#39;s have a nice game." in page.text

    mail = chat_mail(table.mailbox.deliver())
    assert sorted(mail) == [BOB, CLEO]  # not to Alice, who wrote it
    for address, message in mail.items():
        assert str(message["Subject"]).startswith("Alice wrote:")
        # In the game's own thread of each player, as the game's other emails are.
        assert str(message["In-Reply-To"]) == table.thread_of(address)
        assert table.thread_of(address) in str(message["References"])
        text = message.get_body(("plain",)).get_content().replace("\r\n", "\n")
        assert "Good luck, both of you!\nLet's have a nice game." in text
        assert table.mailbox.link(message, "/seat/")  # where to answer, or mute


def test_a_message_is_escaped_on_the_page_and_in_the_email(table: Table) -> None:
    answer = table.post(ALICE, SCRIPT)
    page = table.client.get(answer.location).text
    assert "&lt;script&gt;alert(&#39;hi&#39;)&lt;/script&gt; good luck &amp; have fun" in page
    assert "<script>" not in page

    message = chat_mail(table.mailbox.deliver())[BOB]
    html = message.get_body(("html",)).get_content()
    assert "&lt;script&gt;alert(&#39;hi&#39;)&lt;/script&gt; good luck &amp; have fun" in html
    assert "<script>" not in html
    # The plain text part shows it as the text it is.
    assert SCRIPT in message.get_body(("plain",)).get_content()


def test_the_hourly_limit_refuses_with_a_clear_message_and_keeps_the_text(table: Table) -> None:
    for number in range(3):  # CHAT_PER_HOUR is 3 in this app
        assert table.post(ALICE, f"message {number}").status_code == 303
    refused = table.post(ALICE, "one too many")
    assert refused.status_code == 422
    assert "you have written 3 messages in the last hour" in refused.text
    assert "try again in 60 minutes" in refused.text
    assert ">one too many</textarea>" in refused.text  # nothing lost
    assert sorted(to_address(m) for m in chats(table.mailbox.deliver())) == [BOB] * 3 + [CLEO] * 3
    # Another player has their own count.
    assert table.post(BOB, "my turn to talk").status_code == 303


def test_a_message_that_is_empty_or_has_control_characters_is_refused(table: Table) -> None:
    assert "the message is empty" in table.post(ALICE, "  \n ").text
    refused = table.post(ALICE, "evil \u202e override")
    assert refused.status_code == 422
    assert "no other control characters" in refused.text
    assert chat_mail(table.mailbox.deliver()) == {}


def test_a_player_who_muted_the_chat_gets_no_chat_emails(table: Table) -> None:
    link = table.seat_link(BOB)
    page = table.client.get(link)
    muted = table.client.post(f"{link}/chat/mute", data={"csrf_token": table.csrf(page.text),
                                                         "muted": "1"})
    assert muted.status_code == 303
    assert "You get no emails for this game's messages." in table.client.get(link).text
    table.post(ALICE, "Bob will not get this one by email")
    assert sorted(chat_mail(table.mailbox.deliver())) == [CLEO]
    # He still reads it on his page.
    assert "Bob will not get this one by email" in table.client.get(link).text

    page = table.client.get(link)
    table.client.post(f"{link}/chat/mute", data={"csrf_token": table.csrf(page.text),
                                                 "muted": "0"})
    table.post(ALICE, "and this one he will")
    assert sorted(chat_mail(table.mailbox.deliver())) == [BOB, CLEO]


def test_the_public_page_shows_no_conversation_and_a_damaged_link_cannot_write(
        table: Table) -> None:
    table.post(ALICE, "for the players only")
    with table.database.session() as session:
        from pbem.models import GameRecord

        row = session.get(GameRecord, table.game_id)
        assert row is not None
        public_id = row.public_id
    public = table.client.get(f"/g/{public_id}")
    assert public.status_code == 200
    assert "for the players only" not in public.text
    assert "/chat" not in public.text

    link = table.seat_link(BOB)
    page = table.client.get(link)
    damaged = table.client.post(f"{link[:-3]}xyz/chat", data={
        "csrf_token": table.csrf(page.text), "message": "from nowhere"})
    assert damaged.status_code == 400
    no_csrf = table.client.post(f"{link}/chat", data={"message": "from another site"})
    assert no_csrf.status_code == 400
    assert "from nowhere" not in table.client.get(link).text
    assert "from another site" not in table.client.get(link).text
