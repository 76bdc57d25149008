"""Emails as they arrive at a real SMTP server: MIME structure, headers, links, retries."""

from __future__ import annotations

import io
import random
import re
from datetime import datetime, timedelta
from email import message_from_bytes
from typing import Any

import pytest
from flask.testing import FlaskClient
from PIL import Image
from sqlmodel import select

import engine
from pbem.db import Database
from pbem.mail.outbox import SmtpSettings, backoff, deliver_pending
from pbem.models import BoardImage, GameRecord, OutboxEmail, Player
from pbem.positions import current_state
from pbem.services import Site, submit_move
from tests.support import start_a_game


def test_a_turn_email_is_related_alternative_with_an_inline_board(
    sqlite_database: Database, now: datetime, site: Site, mailbox: Any, any_game: str,
    smallest_options: Any,
) -> None:
    start_a_game(sqlite_database, now, site, any_game, smallest_options(any_game))
    messages = mailbox.deliver(now)
    turn = [m for m in messages if str(m["Subject"]).startswith("Your turn:")]
    assert len(turn) == 1
    message = turn[0]
    assert message.get_content_type() == "multipart/related"
    alternative, image = list(message.iter_parts())
    assert alternative.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in alternative.iter_parts()] == ["text/plain", "text/html"]
    assert image.get_content_type() == "image/png"
    assert image.get_content_disposition() == "inline"
    html = alternative.get_body(("html",)).get_content()
    cid = image["Content-ID"].strip("<>")
    tag = re.search(rf'<img src="cid:{re.escape(cid)}" width="(\d+)" height="(\d+)" alt="([^"]+)"',
                    html)
    assert tag, "the HTML shows the inline PNG by its Content-ID, with a size and alt text"
    width, height = Image.open(io.BytesIO(image.get_content())).size
    # Rendered at twice the display size, for sharp boards on dense screens.
    assert abs(width - 2 * int(tag[1])) <= 2 and abs(height - 2 * int(tag[2])) <= 2
    assert "board" in tag[3]
    assert "<svg" not in message.as_string()
    text = message.get_body(("plain",)).get_content()
    for path in ("/play/", "/g/", "/me/", "/resign/"):
        assert f"http://localhost{path}" in text
        assert f"http://localhost{path}" in html


def test_one_thread_per_game_and_one_click_unsubscribe_headers(
    sqlite_database: Database, now: datetime, site: Site, mailbox: Any, any_game: str,
    smallest_options: Any,
) -> None:
    start_a_game(sqlite_database, now, site, any_game, smallest_options(any_game))
    messages = mailbox.deliver(now)
    by_person: dict[str, list[Any]] = {}
    for message in messages:
        by_person.setdefault(message["To"].addresses[0].addr_spec, []).append(message)
    # Subjects say what happened first; the thread is kept by the headers below.
    assert {m["Subject"].split(":")[0] for m in messages} <= {
        "Invitation", "Your turn", "Game started"}
    assert len({m["Message-ID"] for m in messages}) == len(messages)  # each one unique
    for mails in by_person.values():
        first, *later = mails
        assert first["In-Reply-To"] is None
        assert later, "each person got an invitation and then news of the start"
        for message in later:
            assert message["In-Reply-To"] == first["Message-ID"]
            assert message["References"] == first["Message-ID"]
    for message in messages:
        unsubscribe = message["List-Unsubscribe"].strip()
        assert re.fullmatch(r"<http://localhost/unsubscribe/\S+>", unsubscribe)
        assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"


def _three_seat_game() -> tuple[str, dict[str, object]]:
    from pbem.services.games import options_for_players

    for game_id, info in engine.GAMES.items():
        try:
            return game_id, options_for_players(info, {}, 3)
        except ValueError:
            continue
    pytest.skip("no game in the catalogue seats three players")


def test_one_click_unsubscribe_turns_off_updates_only(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, mailbox: Any,
) -> None:
    """RFC 8058: the mail client POSTs without cookies; updates stop, turn notices do not."""
    game_id, options = _three_seat_game()
    game_pk = start_a_game(sqlite_database, now, site, game_id, options)
    mailbox.deliver(now)
    with sqlite_database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None
        game, state = current_state(row)
    mover = game.to_move(state)
    # Play until the turn passes, so the other two would get news: one a turn, one an update.
    rng = random.Random(5)
    while True:
        with sqlite_database.session() as session:
            row = session.get(GameRecord, game_pk)
            assert row is not None
            game, state = current_state(row)
        with sqlite_database.write() as session:
            submit_move(session, now, site, game_id=game_pk, seat=mover, ply=row.ply,
                        text=str(game.random_move(state, rng)))
        with sqlite_database.session() as session:
            row = session.get(GameRecord, game_pk)
        if row is None or row.to_move != mover:
            break
    assert row is not None and row.to_move is not None
    news = {m["To"].addresses[0].addr_spec: m for m in mailbox.deliver(now)}
    bystander = next(a for a in news if "It is your turn" not in news[a].get_body(
        ("plain",)).get_content())
    url = news[bystander]["List-Unsubscribe"].strip().strip("<>")
    assert client.get(url).status_code == 200  # GET only asks
    with sqlite_database.session() as session:
        owner = session.exec(select(Player).where(Player.email == bystander)).one()
    assert owner.notify_updates
    answer = client.post(url, data={"List-Unsubscribe": "One-Click"})
    assert answer.status_code == 200
    with sqlite_database.session() as session:
        assert not session.get(Player, owner.id).notify_updates  # type: ignore[union-attr]
    # The next change of turn: the unsubscribed player gets no update, only their own turns.
    mover = row.to_move
    while True:
        with sqlite_database.session() as session:
            row = session.get(GameRecord, game_pk)
            assert row is not None
            game, state = current_state(row)
        if row.to_move != mover:
            break
        with sqlite_database.write() as session:
            submit_move(session, now, site, game_id=game_pk, seat=mover, ply=row.ply,
                        text=str(game.random_move(state, rng)))
    for message in mailbox.deliver(now):
        if message["To"].addresses[0].addr_spec == bystander:
            assert "It is your turn" in message.get_body(("plain",)).get_content()


def test_a_refusing_mail_server_delays_but_loses_nothing(
    sqlite_database: Database, now: datetime, site: Site, smtp_server: Any, any_game: str,
    smallest_options: Any,
) -> None:
    start_a_game(sqlite_database, now, site, any_game, smallest_options(any_game))
    with sqlite_database.session() as session:
        queued = len(session.exec(select(OutboxEmail)).all())
    smtp_server.refuse = 2  # "451 try again later", twice
    first = deliver_pending(sqlite_database, smtp_server.settings(), now)
    # Both players' first emails (the invitations) were refused; their later ones wait behind
    # them, so that nobody reads their turn before their invitation.
    assert first.deferred == 2 and first.sent == 0
    with sqlite_database.session() as session:
        waiting = session.exec(select(OutboxEmail).where(OutboxEmail.status == "retrying")).all()
    assert len(waiting) == 2
    assert all(e.attempts == 1 and e.next_attempt_at == now + backoff(1) and "451" in e.last_error
               for e in waiting)
    assert deliver_pending(sqlite_database, smtp_server.settings(), now).sent == 0  # not yet due
    later = deliver_pending(sqlite_database, smtp_server.settings(), now + timedelta(minutes=5))
    assert later.sent == queued
    ids = {e.message_id: e.id for e in _all(sqlite_database)}
    received = [ids[str(message_from_bytes(m.raw)["Message-ID"])] for m in smtp_server.messages]
    for address in {e.to_address for e in _all(sqlite_database)}:  # each in the written order
        theirs = [i for i, m in zip(received, smtp_server.messages, strict=True)
                  if m.recipients[0] == address]
        assert theirs == sorted(theirs)
    assert len(smtp_server.messages) == queued
    assert sorted(m.recipients[0] for m in smtp_server.messages) == sorted(
        e.to_address for e in _all(sqlite_database))


def test_a_mail_server_that_is_down_only_delays(
    sqlite_database: Database, now: datetime, site: Site, smtp_server: Any, any_game: str,
    smallest_options: Any, closed_port: int,
) -> None:
    start_a_game(sqlite_database, now, site, any_game, smallest_options(any_game))
    queued = len(_all(sqlite_database))
    down = SmtpSettings(host="127.0.0.1", port=closed_port, mail_from="pbem <p@example.test>",
                        timeout=2)
    report = deliver_pending(sqlite_database, down, now)
    assert report.sent == 0 and report.deferred == queued
    assert all(e.status == "retrying" and e.attempts == 1 for e in _all(sqlite_database))
    report = deliver_pending(sqlite_database, smtp_server.settings(), now + timedelta(hours=1))
    assert report.sent == queued and len(smtp_server.messages) == queued


def test_each_board_picture_is_rendered_once_per_position_and_viewer(
    sqlite_database: Database, now: datetime, site: Site, mailbox: Any, game_id: str,
    smallest_options: Any,
) -> None:
    start_a_game(sqlite_database, now, site, game_id, smallest_options(game_id))
    messages = mailbox.deliver(now)
    with_board = [m for m in messages if m.get_content_type() == "multipart/related"]
    with sqlite_database.session() as session:
        images = session.exec(select(BoardImage)).all()
    hidden = engine.GAMES[game_id].hidden_information
    # One public picture serves everyone, unless each seat sees a different board.
    assert len(images) == (len({m["To"].addresses[0].addr_spec for m in with_board})
                           if hidden else 1)
    pictures = {bytes(list(m.iter_parts())[1].get_content()) for m in with_board}
    assert pictures == {image.png for image in images}


def _all(database: Database) -> list[OutboxEmail]:
    with database.session() as session:
        return list(session.exec(select(OutboxEmail)))


def test_subjects_arrive_exactly_as_written_and_the_unsubscribe_url_stays_plain(
    sqlite_database: Database, now: datetime, smtp_server: Any,
) -> None:
    # Python's own folding would start a 70-77 character subject on a line of its own (read back
    # with a leading space) and drop the space between two encoded words ("überLäufer").
    rng = random.Random(5)
    words = ["Dein", "Zug:", "über", "Läufer", "è", "tocca", "«Giocatore»", "—", "Müller", "vs",
             "Computer", "(normal)", "und", "(5avZ7b)"]
    subjects = [f"Your turn: Mosey vs {'B' * k} (brzZ_A)" for k in range(30, 70)]
    subjects += [" ".join(rng.choice(words) for _ in range(rng.randint(2, 30))) for _ in range(60)]
    url = "http://pbem.example.org/unsubscribe/eyJwbGF5ZXIiOjF9.h1K0ZT7W62QOzsNNllKnTf_S0Ic"
    with sqlite_database.write() as session:
        for n, subject in enumerate(subjects):
            session.add(OutboxEmail(kind="update", to_address=f"p{n}@example.test", to_name="P",
                                    subject=subject, text_body="Hello", html_body="<p>Hello</p>",
                                    message_id=f"<m{n}@example.test>", unsubscribe_url=url,
                                    next_attempt_at=now, created_at=now))
    assert deliver_pending(sqlite_database, smtp_server.settings(), now).sent == len(subjects)
    import email
    import email.policy

    by_address = {m.recipients[0]: m.raw for m in smtp_server.messages}
    for n, subject in enumerate(subjects):
        raw = by_address[f"p{n}@example.test"]
        head = raw.split(b"\r\n\r\n", 1)[0]
        assert all(len(line) <= 78 for line in head.split(b"\r\n")
                   if not line.startswith(b"List-Unsubscribe:")), head
        assert f"List-Unsubscribe: <{url}>".encode() in head.split(b"\r\n")
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert message["Subject"] == subject
        assert message["List-Unsubscribe"] == f"<{url}>"
