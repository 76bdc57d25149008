"""Reply mail against somebody who means harm (issue 31): forged bounces, a reply's Message-ID sent
ahead of it, floods of commands, backscatter to forged senders, and commands that change a
player's state sent from another address.

Every message goes the way it does on a real site: pbem's outbox to a real SMTP server with VERP
return paths, the attacker's mail over SMTP into a real ``pbem inbound`` server (aiosmtpd), on
SQLite and PostgreSQL where the database decides (which messages are the same, how many answers
went out this hour).
"""

from __future__ import annotations

import email
import secrets
import threading
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel, col, select

from pbem.db import Database
from pbem.inbound.commands import Handled
from pbem.inbound.service import receive
from pbem.migrate import downgrade, upgrade
from pbem.models import (
    GameStatus,
    InboundMail,
    MailStatus,
    OutboxEmail,
    Player,
    PlayerAbsence,
)
from pbem.reply_addresses import (
    BadReplyToken,
    ReplyFields,
    make_reply_token,
    read_reply_token,
    token_in_address,
)
from tests.inbound.replies import REPLY_ADDRESS, ReplyTable, answer
from tests.inbound.test_play_by_reply import answers_to, bounce_of, moves, start
from tests.support import BACKENDS, SECRET, make_database

MALLORY = "mallory@example.test"


def plain(message: EmailMessage) -> str:
    body = message.get_body(("plain",))
    assert body is not None
    return str(body.get_content())


def sent_to(table: ReplyTable, address: str) -> bytes:
    """The raw bytes of the last email the SMTP server got for ``address``, with its envelope
    sender (the VERP return path)."""
    found = next(m for m in reversed(table.mailbox.server.messages) if address in m.recipients)
    return found.raw


def return_path_of(table: ReplyTable, address: str) -> str:
    found = next(m for m in reversed(table.mailbox.server.messages) if address in m.recipients)
    assert found.mail_from.startswith("bounce+"), found.mail_from
    return found.mail_from


def other_player(table: ReplyTable, game: int) -> str:
    to_move = table.player_to_move(game)
    return next(a for a in ("p0@example.test", "p1@example.test") if a != to_move)


def stored(table: ReplyTable) -> list[InboundMail]:
    with table.database.session() as session:
        return list(session.exec(select(InboundMail).order_by(col(InboundMail.id))))


def absences(table: ReplyTable, address: str) -> list[PlayerAbsence]:
    with table.database.session() as session:
        player = session.exec(select(Player).where(Player.email == address)).one()
        return list(session.exec(select(PlayerAbsence).where(
            PlayerAbsence.player_id == player.id)))


def assert_nothing_bounced(table: ReplyTable, game: int) -> None:
    """No game held, no player flagged, no email marked bounced."""
    clock = table.clock(game)
    assert clock.held_since is None and clock.next_due_at is not None
    with table.database.session() as session:
        assert session.exec(select(OutboxEmail).where(
            OutboxEmail.status == MailStatus.BOUNCED)).all() == []
        assert [p.email for p in session.exec(select(Player)) if p.bounced_at] == []


# -- forged bounces -----------------------------------------------------------------------------


def test_a_forged_bounce_neither_holds_the_game_nor_flags_the_player(
        any_reply_table: ReplyTable) -> None:
    # The opponent writes a delivery report to the plain reply address naming the player to move.
    table = any_reply_table
    game = start(table)
    table.fetch()
    victim = table.player_to_move(game)
    outcome = table.send(bounce_of(b"", REPLY_ADDRESS, victim), recipient=REPLY_ADDRESS,
                         sender="")
    assert outcome.kind == "advisory" and not outcome.answered
    assert_nothing_bounced(table, game)
    kept = stored(table)[-1]
    assert kept.outcome == "advisory" and victim in kept.detail


def test_a_bounce_to_a_damaged_return_path_changes_nothing(reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    victim = reply_table.player_to_move(game)
    real = return_path_of(reply_table, victim)
    local, _, domain = real.partition("@")
    damaged = f"{local[:-1]}{'a' if local[-1] != 'a' else 'b'}@{domain}"
    outcome = reply_table.send(bounce_of(b"", damaged, victim), recipient=damaged, sender="")
    assert outcome.kind == "advisory"
    assert_nothing_bounced(reply_table, game)


def test_a_report_quoting_a_message_id_sent_to_another_address_changes_nothing(
        reply_table: ReplyTable) -> None:
    # The attacker quotes a real, signed Message-ID: of an email to themselves, not to the victim.
    game = start(reply_table)
    reply_table.fetch()
    victim, attacker = reply_table.player_to_move(game), other_player(reply_table, game)
    outcome = reply_table.send(bounce_of(sent_to(reply_table, attacker), REPLY_ADDRESS, victim),
                               recipient=REPLY_ADDRESS, sender="")
    assert outcome.kind == "advisory"
    assert_nothing_bounced(reply_table, game)


def test_a_report_quoting_our_message_id_to_the_failed_address_is_a_bounce(
        reply_table: ReplyTable) -> None:
    # A mail system that sends its report to From rather than to the return path still counts,
    # because it quotes the Message-ID (with our signed token) of the email to that address.
    game = start(reply_table)
    reply_table.fetch()
    victim = reply_table.player_to_move(game)
    outcome = reply_table.send(bounce_of(sent_to(reply_table, victim), REPLY_ADDRESS, victim),
                               recipient=REPLY_ADDRESS, sender="")
    assert outcome.kind == "bounce"
    assert reply_table.clock(game).held_since is not None


def test_an_auto_reply_to_the_return_path_is_no_bounce(reply_table: ReplyTable) -> None:
    # RFC 3834 responders answer the return path: an out-of-office note is no failed delivery.
    game = start(reply_table)
    reply_table.fetch()
    player = reply_table.player_to_move(game)
    return_path = return_path_of(reply_table, player)
    raw = (f"From: {player}\r\nTo: {return_path}\r\nSubject: Out of office: your turn\r\n"
           "Auto-Submitted: auto-replied\r\nMessage-ID: <away@example.test>\r\n\r\n"
           "I am away until Monday.\r\n").encode()
    outcome = reply_table.send(raw, recipient=return_path, sender="")
    assert outcome.kind == "advisory" and not outcome.answered
    assert_nothing_bounced(reply_table, game)


# -- duplicates ------------------------------------------------------------------------------------


@pytest.mark.parametrize("look_alike_from", [MALLORY, "the holder"])
def test_a_reply_s_message_id_sent_first_does_not_drop_the_reply(
        any_reply_table: ReplyTable, look_alike_from: str) -> None:
    table = any_reply_table
    game = start(table)
    table.fetch()
    holder = table.player_to_move(game)
    real = answer(table.latest(holder), table.random_move(game))
    message_id = str(email.message_from_bytes(real)["Message-ID"])
    sender = holder if look_alike_from == "the holder" else look_alike_from
    look_alike = (f"From: {sender}\r\nTo: {REPLY_ADDRESS}\r\nSubject: hello\r\n"
                  f"Message-ID: {message_id}\r\n\r\nhello\r\n").encode()
    assert table.send(look_alike, recipient=REPLY_ADDRESS).kind == "refused"
    assert table.send(real).kind == "played"
    assert len(moves(table, game)) == 1
    assert table.send(real).kind == "duplicate"  # the real one, delivered again: still once


def test_a_message_relayed_again_is_still_the_same_message(any_reply_table: ReplyTable) -> None:
    # A relay adds a header; an IMAP server may hand it over with LF line ends.
    table = any_reply_table
    game = start(table)
    table.fetch()
    raw = answer(table.latest(table.player_to_move(game)), table.random_move(game))
    assert table.send(raw).kind == "played"
    relayed = b"Received: from mx2.example.test by mx1.example.test\r\n" + raw
    assert table.send(relayed).kind == "duplicate"
    as_imap = receive(table.database, datetime.now(UTC), table.site, raw.replace(b"\r\n", b"\n"))
    assert as_imap.kind == "duplicate"
    assert len(moves(table, game)) == 1


def test_a_message_handled_before_the_digest_is_not_handled_again(
        any_reply_table: ReplyTable) -> None:
    # A row from before migration 0016 has no digest: Message-ID and sender make it the same.
    table = any_reply_table
    game = start(table)
    table.fetch()
    holder = table.player_to_move(game)
    raw = answer(table.latest(holder), table.random_move(game))
    with table.database.write() as session:
        session.add(InboundMail(message_id=str(email.message_from_bytes(raw)["Message-ID"]),
                                sender=holder, received_at=datetime.now(UTC), outcome="played"))
    assert table.send(raw).kind == "duplicate"
    assert moves(table, game) == []


def test_four_deliveries_at_once_and_a_look_alike(database: Database) -> None:
    from pbem.services import PlayerSpec
    from tests.inbound.replies import reply_site
    from tests.inbound.test_exactly_once import a_reply
    from tests.support import smallest_options, start_a_game

    site = reply_site(database)
    game = start_a_game(database, datetime.now(UTC), site, "mosey", smallest_options("mosey"),
                        players=[PlayerSpec(f"P{n}", f"p{n}@example.test") for n in range(2)])
    raw = a_reply(database, game)
    look_alike = raw.replace(b"Subject: Re: your turn", b"Subject: hello").rsplit(
        b"\r\n\r\n", 1)[0] + b"\r\n\r\nhelp\r\n"
    outcomes: list[Handled] = []
    start_together = threading.Barrier(5)

    def deliver(message: bytes) -> None:
        start_together.wait()
        outcomes.append(receive(database, datetime.now(UTC), site, message))

    threads = [threading.Thread(target=deliver, args=(m,)) for m in [raw] * 4 + [look_alike]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    kinds = sorted(o.kind for o in outcomes)
    assert kinds.count("played") == 1 and kinds.count("duplicate") == 3, kinds
    assert "command" in kinds  # the look-alike was handled as a message of its own
    with database.session() as session:
        assert len(session.exec(select(InboundMail)).all()) == 2


def test_a_message_id_and_sender_longer_than_any_real_one_are_handled_once(
        database: Database) -> None:
    # Random, so nothing compresses: PostgreSQL refuses index entries over about 2.7 kB.
    from tests.inbound.replies import reply_site

    site = reply_site(database)
    message_id = "<" + secrets.token_hex(3000) + "@example.test>"
    sender = secrets.token_hex(200) + "@example.test"
    raw = (f"From: {sender}\r\nTo: {REPLY_ADDRESS}\r\nSubject: x\r\n"
           f"Message-ID: {message_id}\r\n\r\nhello\r\n").encode()
    assert receive(database, datetime.now(UTC), site, raw).kind == "refused"
    assert receive(database, datetime.now(UTC), site, raw).kind == "duplicate"


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_migration_keeps_handled_mail_and_lets_look_alikes_in(backend: str,
                                                                  tmp_path: Path) -> None:
    database, remove = make_database(backend, tmp_path)
    try:
        SQLModel.metadata.drop_all(database.engine)
        schema = None
        if not database.is_sqlite:
            with database.engine.connect() as connection:
                schema = connection.execute(text("SHOW search_path")).scalar()
        upgrade(database.url, "0015", search_path=schema)
        insert = text("INSERT INTO inbound_mail (message_id, sender, recipient, received_at, "
                      "outcome, detail, answered) VALUES (:mid, :sender, '', :at, 'played', '', "
                      "false)")
        with database.engine.begin() as connection:
            connection.execute(insert, {"mid": "<a@x>", "sender": "ann@example.test",
                                        "at": datetime(2026, 1, 1)})
        upgrade(database.url, "0016", search_path=schema)
        with database.engine.begin() as connection:
            rows = connection.execute(text(
                "SELECT message_id, sender, body_digest FROM inbound_mail")).all()
            assert [tuple(r) for r in rows] == [("<a@x>", "ann@example.test", "")]
            connection.execute(insert, {"mid": "<a@x>", "sender": "mallory@example.test",
                                        "at": datetime(2026, 1, 1)})
        with pytest.raises(IntegrityError), database.engine.begin() as connection:
            connection.execute(insert, {"mid": "<a@x>", "sender": "ann@example.test",
                                        "at": datetime(2026, 1, 1)})
        downgrade(database.url, "0015", search_path=schema)  # keeps the first of each id
        with database.engine.connect() as connection:
            rows = connection.execute(text("SELECT sender FROM inbound_mail")).all()
        assert [tuple(r) for r in rows] == [("ann@example.test",)]
    finally:
        remove()


# -- limits on answers -----------------------------------------------------------------------------


def test_a_stranger_s_commands_reach_the_holder_once_an_hour(any_reply_table: ReplyTable) -> None:
    table = any_reply_table
    game = start(table)
    table.fetch()
    holder = table.player_to_move(game)
    turn = table.latest(holder)
    outcomes = [table.send(answer(turn, "help", sender=f"mallory{n}@example.test"))
                for n in range(8)]
    assert all(o.kind == "command" for o in outcomes)
    assert [o.answered for o in outcomes] == [True] + [False] * 7
    assert len(answers_to(table, holder)) == 1
    with table.database.session() as session:
        strangers = session.exec(select(OutboxEmail).where(
            col(OutboxEmail.to_address).like("mallory%"))).all()
    assert strangers == []  # answers about a seat go to its holder only
    later = receive(table.database, datetime.now(UTC) + timedelta(minutes=61), table.site,
                    answer(turn, "help", sender="mallory9@example.test"))
    assert later.answered


def test_commands_are_answered_five_times_an_hour_per_sender_and_per_seat(
        any_reply_table: ReplyTable) -> None:
    table = any_reply_table
    game = start(table)
    table.fetch()
    holder = table.player_to_move(game)
    turn = table.latest(holder)
    words = ["help", "board", "status", "games", "help", "board", "status"]
    outcomes = [table.send(answer(turn, word)) for word in words]
    assert [o.answered for o in outcomes] == [True] * 5 + [False] * 2
    assert len(answers_to(table, holder)) == 5
    # What changes something is still done, only not answered.
    vacation = table.send(answer(turn, "vacation 2d"))
    assert vacation.kind == "command" and not vacation.answered
    assert len(absences(table, holder)) == 1
    # Another address gets no answer about this seat either: its five are used up.
    friend = table.send(answer(turn, "status", sender="friend@example.test"))
    assert friend.kind == "command" and not friend.answered
    later = receive(table.database, datetime.now(UTC) + timedelta(minutes=61), table.site,
                    answer(turn, "help"))
    assert later.answered
    # Moves are never held back: receipts are what the reply address is for.
    assert table.send(answer(turn, table.random_move(game))).answered


# -- backscatter -----------------------------------------------------------------------------------


SPAM_SUBJECT = "Cheap watches at evil.test"


def no_token(sender: str, subject: str = SPAM_SUBJECT) -> bytes:
    return (f"From: {sender}\r\nTo: {REPLY_ADDRESS}\r\nSubject: {subject}\r\n"
            f"Message-ID: <{sender.replace('@', '.')}.1@example.test>\r\n\r\nhello\r\n").encode()


@pytest.mark.parametrize("to", [REPLY_ADDRESS, "play+" + "a" * 40 + "@pbem.example.test"])
def test_a_stranger_without_a_valid_token_gets_no_answer(reply_table: ReplyTable,
                                                         to: str) -> None:
    start(reply_table)
    reply_table.fetch()
    raw = no_token("victim@elsewhere.test").replace(REPLY_ADDRESS.encode(), to.encode())
    outcome = reply_table.send(raw, recipient=to)
    assert outcome.kind == "refused" and not outcome.answered
    with reply_table.database.session() as session:
        assert session.exec(select(OutboxEmail).where(
            OutboxEmail.to_address == "victim@elsewhere.test")).all() == []


def test_a_player_s_refusal_does_not_repeat_the_subject(reply_table: ReplyTable) -> None:
    start(reply_table)
    reply_table.fetch()
    outcome = reply_table.send(no_token("p0@example.test"), recipient=REPLY_ADDRESS)
    assert outcome.kind == "refused" and outcome.answered
    refusal = answers_to(reply_table, "p0@example.test")[-1]
    assert refusal.subject == "Your message was not carried out"
    assert "evil.test" not in refusal.subject + refusal.text_body + refusal.html_body


def test_a_player_never_mailed_gets_no_refusal(reply_table: ReplyTable) -> None:
    start(reply_table)  # the invitations and turn emails wait in the outbox, unsent
    outcome = reply_table.send(no_token("p0@example.test"), recipient=REPLY_ADDRESS)
    assert outcome.kind == "refused" and not outcome.answered
    assert answers_to(reply_table, "p0@example.test") == []


def test_a_stranger_s_move_is_told_to_the_holder_without_its_subject(
        reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    holder = reply_table.player_to_move(game)
    raw = answer(reply_table.latest(holder), reply_table.random_move(game), sender=MALLORY)
    raw = raw.replace(b"Subject: Re:", f"Subject: {SPAM_SUBJECT} Re:".encode(), 1)
    assert reply_table.send(raw).kind == "played"
    receipt = answers_to(reply_table, holder)[-1]
    assert receipt.subject == "Your move was played" and MALLORY in receipt.text_body


# -- state changes asked from another address -------------------------------------------------


def test_a_stranger_s_vacation_is_only_asked_of_the_holder(any_reply_table: ReplyTable) -> None:
    table = any_reply_table
    game = start(table)
    table.fetch()
    holder = table.player_to_move(game)
    outcome = table.send(answer(table.latest(holder), "vacation 2d", sender=MALLORY))
    assert outcome.kind == "command" and outcome.answered
    assert absences(table, holder) == []
    table.fetch()
    ask = table.latest(holder)
    said = plain(ask)
    assert MALLORY in said and '"vacation 2d"' in said and "It was accepted" not in said
    token = token_in_address(str(ask["Reply-To"]), REPLY_ADDRESS)
    assert token is not None and read_reply_token(SECRET, token).purpose == "vacation"
    # The confirmation's address carries out that command and nothing else.
    assert table.send(answer(ask, "help")).kind == "refused"
    assert table.send(answer(ask, table.random_move(game))).kind == "refused"
    assert absences(table, holder) == [] and moves(table, game) == []
    assert table.send(answer(ask, "vacation 2d")).kind == "command"
    [absence] = absences(table, holder)
    assert (absence.end - absence.start).days == 1


def test_a_stranger_s_resignation_is_only_asked_of_the_holder(reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    holder = reply_table.player_to_move(game)
    reply_table.send(answer(reply_table.latest(holder), "resign", sender=MALLORY))
    assert reply_table.game(game).status == GameStatus.ACTIVE
    assert answers_to(reply_table, holder)[-1].kind == "reply_confirm"
    reply_table.fetch()
    ask = reply_table.latest(holder)
    assert MALLORY in plain(ask)
    assert reply_table.send(answer(ask, "resign")).kind == "command"
    assert reply_table.game(game).status == GameStatus.FINISHED


def test_confirmation_tokens_are_signed_for_their_command() -> None:
    fields = ReplyFields("vacation", game=12, seat=1, ply=7, holder=40)
    token = make_reply_token(SECRET, fields)
    assert read_reply_token(SECRET, token) == fields
    others = {make_reply_token(SECRET, ReplyFields(p, 12, 1, 7, 40)) for p in ("move", "resign")}
    assert token not in others
    for index in range(len(token)):  # every character counts
        changed = token[:index] + ("a" if token[index] != "a" else "b") + token[index + 1:]
        with pytest.raises(BadReplyToken):
            read_reply_token(SECRET, changed)


def test_the_holder_is_asked_in_their_language(reply_table: ReplyTable) -> None:
    from pbem.i18n import Reader
    from tests.inbound.test_reply_languages import speaks, translated

    game = start(reply_table)
    reply_table.fetch()
    holder = reply_table.player_to_move(game)
    speaks(reply_table, holder, "nl")
    reply_table.send(answer(reply_table.latest(holder), "vakantie 2d", sender=MALLORY))
    asked = answers_to(reply_table, holder)[-1]
    dutch = Reader("nl")
    assert asked.subject == dutch.gettext("Please confirm what was asked from another address")
    assert dutch.gettext(
        "Nothing was changed. If you sent it, answer this email with %(command)s on the first "
        "line to carry it out.", command='"vakantie 2d"') in asked.text_body
    translated("nl", "Please confirm what was asked from another address",
               "If you did not send it, ignore this email: nothing changes.")
    reply_table.fetch()
    assert reply_table.send(answer(reply_table.latest(holder), "vakantie 2d")).kind == "command"
    assert len(absences(reply_table, holder)) == 1
