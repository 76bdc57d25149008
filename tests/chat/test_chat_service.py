"""The conversation's service (pbem.chat.service) at given moments, on SQLite and PostgreSQL:
the hourly limit, who may write, and the order notes and messages are shown in."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from sqlmodel import col, select

from pbem.chat.service import (
    NotAPlayer,
    TooManyMessages,
    conversation,
    hide_message,
    post_message,
)
from pbem.chat.tables import ChatMessage
from pbem.db import Database
from pbem.models import GameRecord, MailStatus, OutboxEmail, Player
from pbem.notifications.service import choose, mute
from pbem.notifications.tables import Mode
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site
from pbem.services.players import bot_spec
from pbem.services.turns import play_turn
from tests.support import ALICE_BOB, start_a_game


def mosey(database: Database, now: datetime, site: Site,
          players: list[PlayerSpec] = ALICE_BOB) -> int:
    return start_a_game(database, now, site, "mosey", players=players)


def test_the_hourly_limit_counts_the_last_hour_and_says_when_to_try_again(
        database: Database, now: datetime, site: Site) -> None:
    site = replace(site, chat_per_hour=2)
    game = mosey(database, now, site)
    for minutes in (0, 10):
        with database.write() as session:
            post_message(session, now + timedelta(minutes=minutes), site, game_id=game, seat=0,
                         text=f"at {minutes}")
    with database.write() as session, pytest.raises(TooManyMessages) as refused:
        post_message(session, now + timedelta(minutes=20), site, game_id=game, seat=0,
                     text="too soon")
    # when the first of the hour's two leaves the count
    assert str(refused.value.args[0]).endswith("try again in 40 minutes")
    with database.write() as session:  # an hour after the first, one is free again
        post_message(session, now + timedelta(minutes=60, seconds=1), site, game_id=game,
                     seat=0, text="now it goes")
    with database.session() as session:
        assert [m.body for m in session.exec(select(ChatMessage))] == [
            "at 0", "at 10", "now it goes"]


def test_only_a_seat_of_the_game_writes_and_a_computer_never_does(
        database: Database, now: datetime, site: Site) -> None:
    game = mosey(database, now, site, [PlayerSpec("Alice", "alice@example.test"), bot_spec()])
    with database.write() as session, pytest.raises(NotAPlayer):
        post_message(session, now, site, game_id=game, seat=5, text="who am I?")
    with database.write() as session, pytest.raises(NotAPlayer):
        post_message(session, now, site, game_id=game, seat=1, text="beep")
    with database.write() as session:  # Alice may; the computer gets no email
        post_message(session, now, site, game_id=game, seat=0, text="hello computer")
    with database.session() as session:
        assert session.exec(select(OutboxEmail).where(OutboxEmail.kind == "chat")).all() == []
        assert len(session.exec(select(ChatMessage)).all()) == 1


def test_notes_and_messages_come_in_the_order_they_were_written(
        database: Database, now: datetime, site: Site) -> None:
    game = mosey(database, now, site)
    minute = timedelta(minutes=1)
    with database.write() as session:
        post_message(session, now + minute, site, game_id=game, seat=1, text="first")
    with database.write() as session:
        row = session.get(GameRecord, game)
        assert row is not None and row.to_move is not None
        engine_game, state = current_state(row)
        play_turn(session, now + 2 * minute, site, game_id=game, seat=row.to_move, ply=row.ply,
                  steps=[str(engine_game.legal_moves(state)[0])], note="the move's note")
    with database.write() as session:
        post_message(session, now + 2 * minute, site, game_id=game, seat=0, text="same moment")
        hidden = post_message(session, now + 3 * minute, site, game_id=game, seat=1,
                              text="hidden later")
        assert hidden.id is not None
        hide_message(session, now + 4 * minute, game_id=game, message_id=hidden.id,
                     organiser="boss@example.test")
    with database.session() as session:
        shown = [s.move.note if s.move else s.message.body if s.message else ""
                 for s in conversation(session, game)]
        everything = [s.message.body for s in conversation(session, game, hidden=True)
                      if s.message]
    assert shown == ["first", "the move's note", "same moment"]
    assert everything == ["first", "same moment", "hidden later"]


def test_a_chat_email_is_in_its_readers_language(database: Database, now: datetime,
                                                  site: Site) -> None:
    game = mosey(database, now, site, [PlayerSpec("Alice", "alice@example.test"),
                                       PlayerSpec("Bram", "bram@example.test", language="nl")])
    with database.write() as session:
        post_message(session, now, site, game_id=game, seat=0, text="Good luck!")
    with database.session() as session:
        email = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "chat")).one()
    assert email.to_address == "bram@example.test"
    assert email.subject.startswith("Alice schreef: ")
    assert "Alice schreef in je partij" in email.text_body
    assert "begint met zeg:" in email.text_body
    assert "Good luck!" in email.html_body


def test_the_hourly_limit_is_a_setting_of_at_least_one() -> None:
    from pbem.config import ConfigError, check_config, load_config
    from pbem.services.common import site_from_config

    config = load_config({"PBEM_CHAT_PER_HOUR": "7"}, read_dotenv=False)
    database = Database("sqlite://")
    assert site_from_config(database, config).chat_per_hour == 7
    database.dispose()
    assert load_config({}, read_dotenv=False)["CHAT_PER_HOUR"] == 20
    with pytest.raises(ConfigError, match="PBEM_CHAT_PER_HOUR must be 1 or more"):
        check_config(load_config({"PBEM_CHAT_PER_HOUR": "0"}, read_dotenv=False))


def test_a_message_reaches_each_player_by_their_mail_settings(
        database: Database, now: datetime, site: Site) -> None:
    game = mosey(database, now, site)
    with database.session() as session:
        bob = session.exec(select(Player).where(Player.email == "bob@example.test")).one()
    assert bob.id is not None
    statuses = []
    for mode, muted in ((Mode.ALL, False), (Mode.TURNS, False), (Mode.DIGEST, False),
                        (Mode.ALL, True)):
        with database.write() as session:
            choose(session, now, player_id=bob.id, mode=mode)
            mute(session, now, player_id=bob.id, game_id=game, muted=muted)
        with database.write() as session:
            post_message(session, now, site, game_id=game, seat=0, text=f"{mode} {muted}")
        with database.session() as session:
            email = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "chat")
                                 .order_by(col(OutboxEmail.id).desc())).first()
            assert email is not None and email.to_address == "bob@example.test"
            statuses.append(email.status)
    # Every message is an event: "turns only", a digest (which lists it) or a muted game keep
    # its email back; the page shows it all the same.
    assert statuses == [MailStatus.QUEUED, MailStatus.WITHHELD, MailStatus.WITHHELD,
                        MailStatus.WITHHELD]
