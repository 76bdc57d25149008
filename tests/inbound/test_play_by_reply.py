"""Playing by answering the turn email: whole games, commands, refusals, robots and bounces.

Every message goes the way it does on a real site: pbem's outbox to a real SMTP server, the
player's answer over SMTP into a real ``pbem inbound`` server (aiosmtpd), then the service.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlmodel import col, select

import engine
from pbem.models import GameStatus, InboundMail, MailStatus, Move, OutboxEmail, Player
from pbem.reply_addresses import token_in_address
from tests.inbound.replies import REPLY_ADDRESS, ReplyTable, answer
from tests.support import smallest_options, start_a_game

TWO = [gid for gid, info in engine.GAMES.items() if info.min_players <= 2]


def start(table: ReplyTable, game_id: str = "mosey", **options: object) -> int:
    options = {**smallest_options(game_id), **options}
    count = engine.new_game(game_id, **options).num_players
    from pbem.services import PlayerSpec

    players = [PlayerSpec(f"P{n}", f"p{n}@example.test") for n in range(count)]
    return start_a_game(table.database, datetime.now(UTC), table.site, game_id, options,
                        players=players)


def moves(table: ReplyTable, game_id: int) -> list[Move]:
    with table.database.session() as session:
        return list(session.exec(select(Move).where(Move.game_id == game_id)
                                 .order_by(col(Move.ply))))


def answers_to(table: ReplyTable, address: str) -> list[OutboxEmail]:
    with table.database.session() as session:
        return list(session.exec(select(OutboxEmail).where(
            OutboxEmail.to_address == address, col(OutboxEmail.kind).like("reply_%"))
            .order_by(col(OutboxEmail.id))))


# -- whole games ---------------------------------------------------------------------------------


@pytest.mark.early
@pytest.mark.usefixtures("sketched_boards")
@pytest.mark.parametrize("game_id", list(engine.GAMES))
def test_a_whole_game_played_only_by_replies(reply_table: ReplyTable, game_id: str) -> None:
    options = {"players": 2} if game_id == "rifugio" else {}
    game = start(reply_table, game_id, **options)
    for _ in range(2000):
        if reply_table.game(game).status != GameStatus.ACTIVE:
            break
        outcome = reply_table.play_one(game)
        assert outcome.kind == "played", outcome
    row = reply_table.game(game)
    assert row.status == GameStatus.FINISHED
    assert all(m.source in ("reply", "forced-pass") for m in moves(reply_table, game))
    assert len([o for o in reply_table.outcomes if o.kind == "played"]) == len(
        [m for m in moves(reply_table, game) if m.source == "reply"])
    with reply_table.database.session() as session:
        over = session.exec(select(OutboxEmail).where(OutboxEmail.game_id == game,
                                                      OutboxEmail.kind == "game_over")).all()
    assert len(over) == engine.new_game(game_id, **{**smallest_options(game_id),
                                                    **options}).num_players


def test_the_reply_address_fits_64_octets_and_survives_upper_case(
        reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    turn = reply_table.latest(reply_table.player_to_move(game))
    address = str(turn["Reply-To"])
    assert len(address.partition("@")[0]) <= 64
    assert token_in_address(address, REPLY_ADDRESS) is not None
    move = reply_table.random_move(game)
    outcome = reply_table.send(answer(turn, move, to=address.upper()), recipient=address.upper())
    assert outcome.kind == "played"
    assert moves(reply_table, game)[0].notation == move


def test_a_reply_to_the_plain_address_is_matched_through_in_reply_to(
        reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    turn = reply_table.latest(reply_table.player_to_move(game))
    move = reply_table.random_move(game)
    outcome = reply_table.send(answer(turn, move, to=REPLY_ADDRESS), recipient=REPLY_ADDRESS)
    assert outcome.kind == "played" and len(moves(reply_table, game)) >= 1


def test_an_html_only_reply_is_played(reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    turn = reply_table.latest(reply_table.player_to_move(game))
    assert reply_table.send(answer(turn, reply_table.random_move(game), html=True)).kind == \
        "played"


# -- refusals that keep nothing half done -----------------------------------------------------


def test_an_illegal_move_is_refused_with_the_reason_and_legal_moves(
        reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    outcome = reply_table.send(answer(reply_table.latest(address), "Z9"))
    assert outcome.kind == "refused" and outcome.answered
    assert moves(reply_table, game) == []
    refusal = reply_table.fetch()[-1]
    text = str(refusal.get_body(("plain",)).get_content())  # type: ignore[union-attr]
    assert "not carried out" in text and "Moves you can make now" in text
    assert refusal["In-Reply-To"] is not None


def test_a_stale_address_is_refused_once_the_game_moved_on(reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    first = reply_table.latest(reply_table.player_to_move(game))
    assert reply_table.send(answer(first, reply_table.random_move(game))).kind == "played"
    again = reply_table.send(answer(first, reply_table.random_move(game)))
    assert again.kind == "refused" and "moved-on" in again.detail
    assert len(moves(reply_table, game)) == 1


def test_a_tampered_address_is_refused(reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    turn = reply_table.latest(reply_table.player_to_move(game))
    address = str(turn["Reply-To"])
    local, _, domain = address.partition("@")
    flipped = local[:-1] + ("a" if local[-1] != "a" else "b")
    tampered = f"{flipped}@{domain}"
    raw = answer(turn, reply_table.random_move(game), to=tampered)
    raw = raw.replace(str(turn["Message-ID"]).encode(), b"<unrelated@example.test>")
    outcome = reply_table.send(raw, recipient=tampered)
    assert outcome.kind == "refused" and "damaged" in outcome.detail
    assert moves(reply_table, game) == []


def test_the_other_seat_cannot_move_out_of_turn(reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    waiting = next(m for m in reply_table.inbox if m["Reply-To"]
                   and str(m["To"]).find(reply_table.player_to_move(game)) < 0)
    outcome = reply_table.send(answer(waiting, reply_table.random_move(game)))
    assert outcome.kind == "refused" and moves(reply_table, game) == []


def test_a_replaced_player_s_address_no_longer_plays(reply_table: ReplyTable) -> None:
    from pbem.admin.actions import replace_player
    from pbem.services import PlayerSpec

    game = start(reply_table)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    turn = reply_table.latest(address)
    with reply_table.database.write() as session:
        seat = reply_table.game(game).to_move
        assert seat is not None
        replace_player(session, datetime.now(UTC), reply_table.site, game_id=game, seat=seat,
                       new_player=PlayerSpec("New", "new@example.test"), actor="test")
    outcome = reply_table.send(answer(turn, reply_table.random_move(game)))
    assert outcome.kind == "refused" and "replaced" in outcome.detail
    assert moves(reply_table, game) == []


def test_a_reply_from_another_address_is_played_and_the_holder_told(
        reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    turn = reply_table.latest(address)
    outcome = reply_table.send(answer(turn, reply_table.random_move(game),
                                      sender="someone.else@example.test"))
    assert outcome.kind == "played"
    receipt = next(m for m in reversed(reply_table.fetch()) if str(m["To"]).endswith(address +
                                                                                     ">"))
    assert "someone.else@example.test" in str(
        receipt.get_body(("plain",)).get_content())  # type: ignore[union-attr]
    with reply_table.database.session() as session:
        stored = session.exec(select(InboundMail).where(
            InboundMail.outcome == "played")).one()
    assert stored.sender == "someone.else@example.test"


def test_a_redelivered_message_plays_nothing_twice(reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    raw = answer(reply_table.latest(reply_table.player_to_move(game)),
                 reply_table.random_move(game))
    assert reply_table.send(raw).kind == "played"
    assert reply_table.send(raw).kind == "duplicate"
    assert len(moves(reply_table, game)) == 1


# -- commands ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("command", "kind", "words"), [
    ("help", "reply_help", "Moves you can make now"),
    ("board", "reply_board", "The board of"),
    ("status", "reply_status", "it is your turn"),
    ("games", "reply_games", "Your running games"),
    ("", "reply_help", "Commands"),
])
def test_commands_are_answered_in_the_thread(reply_table: ReplyTable, command: str, kind: str,
                                             words: str) -> None:
    game = start(reply_table)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    turn = reply_table.latest(address)
    outcome = reply_table.send(answer(turn, command))
    assert outcome.kind == "command"
    sent = answers_to(reply_table, address)[-1]
    assert sent.kind == kind and words in sent.text_body
    assert sent.reply_to and moves(reply_table, game) == []


def test_resign_asks_first_and_only_the_confirmation_resigns(reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    assert reply_table.send(answer(reply_table.latest(address), "resign")).kind == "command"
    assert reply_table.game(game).status == GameStatus.ACTIVE
    reply_table.fetch()
    confirmation = reply_table.latest(address)
    assert "To confirm" in str(confirmation.get_body(("plain",)).get_content())  # type: ignore[union-attr]
    not_yet = reply_table.send(answer(confirmation, "yes"))
    assert not_yet.kind == "refused" and reply_table.game(game).status == GameStatus.ACTIVE
    assert reply_table.send(answer(confirmation, "resign")).kind == "command"
    assert reply_table.game(game).status == GameStatus.FINISHED


def test_a_resignation_by_reply_in_a_game_of_three_plays_on_and_cannot_repeat(
    reply_table: ReplyTable,
) -> None:
    game = start(reply_table, "rifugio", players=3)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    reply_table.send(answer(reply_table.latest(address), "resign"))
    reply_table.fetch()
    confirmation = reply_table.latest(address)
    assert reply_table.send(answer(confirmation, "resign")).kind == "command"
    assert reply_table.game(game).status == GameStatus.ACTIVE  # the other two play on
    again = reply_table.send(answer(confirmation, "resign"))
    assert again.kind == "refused" and reply_table.game(game).status == GameStatus.ACTIVE
    reply_table.fetch()
    said = answers_to(reply_table, address)[-1]
    assert "you resigned from this game" in said.text_body


def test_vacation_stops_the_clock_for_those_days(reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    assert reply_table.send(answer(reply_table.latest(address), "vacation 5d")).kind == \
        "command"
    from pbem.models import PlayerAbsence

    with reply_table.database.session() as session:
        player = session.exec(select(Player).where(Player.email == address)).one()
        absence = session.exec(select(PlayerAbsence).where(
            PlayerAbsence.player_id == player.id)).one()
    assert (absence.end - absence.start).days == 4


# -- mail that must not be answered ---------------------------------------------------------


def test_an_out_of_office_reply_is_not_answered(reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    raw = answer(reply_table.latest(address), "I am away until Monday.")
    raw = raw.replace(b"Subject: ",
                      b"Auto-Submitted: auto-replied\r\nSubject: Out of Office: ", 1) \
        if b"\r\n" in raw else raw.replace(b"Subject: ", b"Auto-Submitted: auto-replied\n"
                                           b"Subject: Out of Office: ", 1)
    outcome = reply_table.send(raw)
    assert outcome.kind == "ignored" and not outcome.answered
    assert answers_to(reply_table, address) == []


def test_refusals_are_limited_per_sender_and_hour(reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    turn = reply_table.latest(address)
    outcomes = [reply_table.send(answer(turn, f"nonsense {n}")) for n in range(8)]
    assert all(o.kind == "refused" for o in outcomes)
    assert sum(o.answered for o in outcomes) == 5


# -- bounces ---------------------------------------------------------------------------------------


def bounce_of(message_bytes: bytes, return_path: str, failed: str) -> bytes:
    original = message_bytes.decode("utf-8", "replace").split("\n\n", 1)[0]
    return (
        f"From: MAILER-DAEMON@mx.example.test\r\nTo: {return_path}\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\nAuto-Submitted: auto-replied\r\n"
        "Message-ID: <bounce1@mx.example.test>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n'
        "--B\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n"
        "--B\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.example.test\r\n\r\n"
        f"Final-Recipient: rfc822; {failed}\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        "Diagnostic-Code: smtp; 550 5.1.1 no such user\r\n"
        "--B\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"{original}\r\n--B--\r\n").encode()


def test_a_bounced_turn_email_flags_the_player_and_stops_the_clock(
        reply_table: ReplyTable) -> None:
    game = start(reply_table)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    received = reply_table.mailbox.server.messages
    turn_raw = next(m for m in reversed(received) if address in m.recipients)
    assert turn_raw.mail_from.startswith("bounce+"), turn_raw.mail_from
    outcome = reply_table.send(bounce_of(turn_raw.raw, turn_raw.mail_from, address),
                               recipient=turn_raw.mail_from, sender="")
    assert outcome.kind == "bounce"
    clock = reply_table.clock(game)
    assert clock.held_since is not None and clock.next_due_at is None
    with reply_table.database.session() as session:
        player = session.exec(select(Player).where(Player.email == address)).one()
        bounced = session.exec(select(OutboxEmail).where(
            OutboxEmail.status == MailStatus.BOUNCED)).all()
    assert player.bounced_at is not None
    assert [b.to_address for b in bounced] == [address]


# -- a turn of several steps, and mail fetched over IMAP --------------------------------------


def whole_turn(table: ReplyTable, game_id: int) -> list[str]:
    """Random legal steps for the seat to move until its turn ends (Rifugio: take, lay, ...)."""
    from pbem.positions import current_state

    game, state = current_state(table.game(game_id))
    seat, steps = game.to_move(state), []
    while game.to_move(state) == seat and game.outcome(state) is None:
        move = game.random_move(state, table.rng)
        steps.append(str(move))
        state = game.play(state, move)
    return steps


def test_a_turn_of_several_steps_is_played_whole_or_not_at_all(reply_table: ReplyTable) -> None:
    game = start(reply_table, "rifugio", players=2)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    steps = whole_turn(reply_table, game)
    assert len(steps) > 1
    broken = reply_table.send(answer(reply_table.latest(address),
                                     "; ".join([*steps[:-1], "build nowhere"])))
    assert broken.kind == "refused" and moves(reply_table, game) == []
    played = reply_table.send(answer(reply_table.latest(address, with_reply_to=True),
                                     "\n".join(steps)))
    assert played.kind == "played", played
    assert [m.notation for m in moves(reply_table, game)][:len(steps)] == steps
    assert reply_table.player_to_move(game) != address


def test_a_game_played_through_a_real_imap_server(
        reply_table: ReplyTable, dovecot: tuple[str, Any]) -> None:
    from pbem.inbound.imap import fetch_pass
    from pbem.inbound.service import receive

    url, append = dovecot
    game = start(reply_table)
    handled = 0
    for _ in range(200):
        if reply_table.game(game).status != GameStatus.ACTIVE:
            break
        reply_table.fetch()
        address = reply_table.player_to_move(game)
        append(answer(reply_table.latest(address), reply_table.random_move(game)))
        result = fetch_pass(url, lambda raw: reply_table.outcomes.append(
            receive(reply_table.database, datetime.now(UTC), reply_table.site, raw)))
        assert (result.handled, result.failed) == (1, 0)
        assert reply_table.outcomes[-1].kind == "played", reply_table.outcomes[-1]
        handled += 1
        assert fetch_pass(url, lambda raw: None).handled == 0  # deleted once handled
    assert reply_table.game(game).status == GameStatus.FINISHED
    assert handled == len([m for m in moves(reply_table, game) if m.source == "reply"])


def test_an_answer_to_a_receipt_at_the_plain_address_finds_its_game(
        reply_table: ReplyTable) -> None:
    game = start(reply_table, "rifugio", players=2)
    reply_table.fetch()
    address = reply_table.player_to_move(game)
    steps = whole_turn(reply_table, game)
    assert reply_table.send(answer(reply_table.latest(address), steps[0])).kind == "played"
    reply_table.fetch()
    receipt = reply_table.latest(address)  # "It is your turn again", with a fresh address
    assert "Played" in str(receipt.get_body(("plain",)).get_content())  # type: ignore[union-attr]
    outcome = reply_table.send(answer(receipt, steps[1], to=REPLY_ADDRESS),
                               recipient=REPLY_ADDRESS)
    assert outcome.kind == "played", outcome
    assert [m.notation for m in moves(reply_table, game)][:2] == steps[:2]
