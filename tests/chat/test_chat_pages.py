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


def organiser_browser(table: Table) -> Any:
    """The table's browser, logged in to the dashboard."""
    from datetime import UTC, datetime

    from pbem.admin.accounts import create_admin
    from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD

    with table.database.write() as session:
        create_admin(session, datetime.now(UTC), ADMIN_EMAIL, ADMIN_PASSWORD)
    token = table.csrf(table.client.get("/admin/login").text)
    assert table.client.post("/admin/login", data={
        "csrf_token": token, "email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}).status_code == 302
    return table.client


def test_an_organiser_hides_a_message_from_the_players_and_the_audit_log_says_so(
        table: Table) -> None:
    from sqlmodel import select

    from pbem.chat.tables import ChatMessage
    from pbem.models import AuditEntry
    from tests.support import ADMIN_EMAIL

    table.post(ALICE, "something rude")
    table.post(ALICE, "something kind")
    bob_page = table.seat_link(BOB)
    assert "something rude" in table.client.get(bob_page).text
    with table.database.session() as session:
        rude = session.exec(select(ChatMessage).where(ChatMessage.body == "something rude")).one()

    browser = organiser_browser(table)
    detail = browser.get(f"/admin/games/{table.game_id}")
    assert "something rude" in detail.text and "Hide from the players" in detail.text
    hidden = browser.post(f"/admin/games/{table.game_id}/chat/hide", data={
        "csrf_token": table.csrf(detail.text), "message_id": str(rude.id)})
    assert hidden.status_code == 303
    detail = browser.get(f"/admin/games/{table.game_id}")
    assert f"hidden by {ADMIN_EMAIL}" in detail.text  # the dashboard still shows it, marked
    with table.database.session() as session:
        entries = session.exec(select(AuditEntry).where(
            AuditEntry.action == "chat message hidden")).all()
    assert [(e.game_id, e.detail["actor"], e.detail["message"]) for e in entries] == [
        (table.game_id, ADMIN_EMAIL, rude.id)]

    # Signed out of the dashboard, Bob's own page no longer shows it; the other one stays.
    browser.post("/admin/logout", data={"csrf_token": table.csrf(detail.text)})
    page = table.client.get(bob_page).text
    assert "something rude" not in page
    assert "something kind" in page


def test_an_organiser_writes_to_the_players(table: Table) -> None:
    browser = organiser_browser(table)
    detail = browser.get(f"/admin/games/{table.game_id}")
    sent = browser.post(f"/admin/games/{table.game_id}/chat/write", data={
        "csrf_token": table.csrf(detail.text), "message": "Please keep it friendly."})
    assert sent.status_code == 303
    mail = chat_mail(table.mailbox.deliver())
    assert sorted(mail) == [ALICE, BOB, CLEO]
    assert all(str(m["Subject"]).startswith("The organiser wrote:") for m in mail.values())


def test_a_message_written_on_the_move_page_stays_on_the_move_page(table: Table) -> None:
    link = table.move_link()
    page = table.client.get(link)
    assert 'id="conversation"' in page.text
    sent = table.client.post(f"{link}/chat", data={"csrf_token": table.csrf(page.text),
                                                   "message": "Thinking hard..."})
    assert sent.status_code == 303
    assert sent.location.endswith(f"{link}#conversation")
    assert "Thinking hard..." in table.client.get(link).text
    assert len(chat_mail(table.mailbox.deliver())) == 2


def test_the_conversation_shows_notes_and_messages_in_the_order_they_were_written_each_once(
        table: Table) -> None:
    from datetime import UTC, datetime

    from pbem.positions import current_state
    from pbem.services.turns import play_turn

    table.post(ALICE, "before the move")
    with table.database.write() as session:
        from pbem.models import GameRecord

        row = session.get(GameRecord, table.game_id)
        assert row is not None and row.to_move is not None
        game, state = current_state(row)
        step = str(game.legal_moves(state)[0])
        play_turn(session, datetime.now(UTC), table.site, game_id=table.game_id,
                  seat=row.to_move, ply=row.ply, steps=[step], note="a note with the move")
    table.post(BOB, "after the move")
    page = table.client.get(table.seat_link(CLEO)).text
    section = page[page.index('id="conversation"'):]
    positions = [section.index(text) for text in
                 ("before the move", "a note with the move", "after the move")]
    assert positions == sorted(positions)
    assert "with move 1," in section
    # The note is said once on the seat page: in the conversation, not again in the moves.
    assert page.count("a note with the move") == 1
    public = table.client.get(f"/g/{row.public_id}").text
    assert public.count("a note with the move") == 1  # no conversation there: in the moves


def test_a_replaced_player_can_no_longer_write_and_keeps_their_name_on_what_they_wrote(
        table: Table) -> None:
    from datetime import UTC, datetime

    from pbem.admin.actions import replace_player
    from pbem.services import PlayerSpec

    old_link = table.seat_link(BOB)
    table.post(BOB, "Bob was here")
    page = table.client.get(old_link)
    with table.database.write() as session:
        replace_player(session, datetime.now(UTC), table.site, game_id=table.game_id, seat=1,
                       new_player=PlayerSpec("Dan", "dan@example.test"),
                       actor="boss@example.test")
    refused = table.client.post(f"{old_link}/chat", data={"csrf_token": table.csrf(page.text),
                                                          "message": "still me"})
    assert 400 <= refused.status_code < 500
    cleo = table.client.get(table.seat_link(CLEO)).text
    assert "still me" not in cleo
    assert "<strong>Bob</strong>: <span class=\"message\">Bob was here</span>" in cleo
