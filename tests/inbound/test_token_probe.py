"""Reply tokens probed through the whole mail path (issue 31, "what held, and must keep
holding"): every one-bit change, cut and padded tokens, other kinds of token, another seat's,
a stale ply's and a replaced player's, each in the reply address and in a forged In-Reply-To.

Each answer goes as a mail client sends it, over SMTP into a real ``pbem inbound`` server
(tests/inbound/replies.py). Whatever the token, the move is not played and the game is as it
was; the refusal names why. tests/inbound/test_play_by_reply.py has the first cases of each
(one changed character, a stale address, the other seat, a replaced player); here they are
all, and through Message-IDs too. The token format itself is tested in
tests/service/test_reply_addresses.py.
"""

from __future__ import annotations

import email.policy
from datetime import UTC, datetime
from email import message_from_bytes
from email.message import EmailMessage
from typing import Any

import pytest
from sqlmodel import select

from pbem.clock.deadlines import clock_of
from pbem.mail.outbox import verp_address
from pbem.models import GameRecord, Move, OutboxEmail
from pbem.reply_addresses import (
    ReplyFields,
    make_bounce_token,
    make_reply_token,
    message_id,
    read_reply_token,
    reply_address,
    token_in_address,
)
from pbem.services import PlayerSpec
from tests.inbound.replies import REPLY_ADDRESS, ReplyTable, answer
from tests.support import SECRET, smallest_options, start_a_game

ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"  # base32, as the tokens are written
DOMAIN = REPLY_ADDRESS.partition("@")[2]
UNRELATED = "<CAJx9q7Z3uFh+unrelated@mail.example.test>"


def _start(table: ReplyTable) -> int:
    game_type = "mosey"
    players = [PlayerSpec("P0", "p0@example.test"), PlayerSpec("P1", "p1@example.test")]
    return start_a_game(table.database, datetime.now(UTC), table.site, game_type,
                        smallest_options(game_type), players=players)


def _state(table: ReplyTable, game_pk: int) -> tuple[Any, ...]:
    """What a move, a resignation or a pause would change."""
    with table.database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None
        clock = clock_of(session, game_pk)
        played = len(session.exec(select(Move).where(Move.game_id == game_pk)).all())
        return (row.ply, row.status, row.to_move, row.state, clock.deadline, clock.paused_at,
                played)


def _turn(table: ReplyTable, game_pk: int) -> tuple[EmailMessage, str]:
    """The turn email of the player to move, and the token of its reply address."""
    table.fetch()
    turn = table.latest(table.player_to_move(game_pk))
    token = token_in_address(str(turn["Reply-To"]), REPLY_ADDRESS)
    assert token is not None
    return turn, token


def _reply(turn: EmailMessage, body: str, *, to: str, in_reply_to: str = UNRELATED,
           references: str | None = None, sender: str | None = None) -> bytes:
    """An answer to ``turn`` written to ``to``, claiming to answer ``in_reply_to``."""
    raw = answer(turn, body, to=to, sender=sender)
    message = message_from_bytes(raw, policy=email.policy.default)
    del message["In-Reply-To"], message["References"]
    message["In-Reply-To"] = in_reply_to
    message["References"] = in_reply_to if references is None else references
    return message.as_bytes(policy=email.policy.SMTP)


def _refused_all(table: ReplyTable, game_pk: int, raws: dict[str, bytes], reason: str,
                 *, recipient: str | None = None) -> None:
    """Send each message; each is refused (for ``reason``, if one is given) and the game stays
    as it was."""
    before = _state(table, game_pk)
    wrong = []
    for name, raw in raws.items():
        to = recipient or str(message_from_bytes(raw)["To"])
        outcome = table.send(raw, recipient=to)
        if outcome.kind != "refused" or not outcome.detail.startswith(reason):
            wrong.append(f"{name}: {outcome.kind} ({outcome.detail})")
    assert not wrong, "\n".join(wrong)
    assert _state(table, game_pk) == before


def _flipped(token: str, position: int, bit: int) -> str:
    value = ALPHABET.index(token[position]) ^ (1 << bit)
    return token[:position] + ALPHABET[value] + token[position + 1:]


def _pbem_message_id(token: str) -> str:
    return message_id(token, DOMAIN, "1.probe")


# -- the reply address ---------------------------------------------------------------------------


def test_every_one_bit_change_of_the_reply_address_is_refused(reply_table: ReplyTable) -> None:
    game = _start(reply_table)
    turn, token = _turn(reply_table, game)
    move = reply_table.random_move(game)
    raws = {}
    for position in range(len(token)):
        for bit in range(5):  # each base32 character carries five bits
            changed = reply_address(REPLY_ADDRESS, _flipped(token, position, bit))
            raws[f"bit {bit} of character {position}"] = _reply(turn, move, to=changed)
    _refused_all(reply_table, game, raws, "damaged")
    # The control: the very same message to the real address is played.
    real = reply_table.send(_reply(turn, move, to=str(turn["Reply-To"])))
    assert real.kind == "played"


def test_cut_and_padded_reply_addresses_are_refused(reply_table: ReplyTable) -> None:
    game = _start(reply_table)
    turn, token = _turn(reply_table, game)
    move = reply_table.random_move(game)
    variants = {
        "cut by one": token[:-1], "cut by a group": token[:-8], "cut in half": token[:20],
        "padded by one": token + "a", "padded by a group": token + "aaaaaaaa",
        "padded with =": token + "=", "padded with a group of =": token + "========",
        "prefixed": "a" + token, "with a dash": token[:20] + "-" + token[20:],
        "with a dot": token[:20] + "." + token[20:], "doubled": token + token,
        "the first character dropped": token[1:],
    }
    raws = {name: _reply(turn, move, to=f"play+{bad}@{DOMAIN}") for name, bad in variants.items()}
    _refused_all(reply_table, game, raws, "damaged")


def test_other_kinds_of_token_in_the_reply_address_are_refused(reply_table: ReplyTable) -> None:
    game = _start(reply_table)
    turn, token = _turn(reply_table, game)
    move = reply_table.random_move(game)
    with reply_table.database.session() as session:
        outbox_id = session.exec(select(OutboxEmail.id).where(
            OutboxEmail.message_id == str(turn["Message-ID"]))).one()
    assert outbox_id is not None
    link = reply_table.site.links.move_url(game, reply_table.game(game).to_move or 0, 0)
    variants = {
        # The turn email's own return path: a valid token of the bounce kind.
        "the turn email's bounce token": token_in_address(
            verp_address(SECRET, REPLY_ADDRESS, outbox_id), REPLY_ADDRESS, local="bounce"),
        "a bounce token of the same length": make_bounce_token(SECRET, outbox_id) + "a" * 8,
        "the same fields signed with another secret": make_reply_token(
            "another-secret", read_reply_token(SECRET, token)),
        "the move link's token": link.rpartition("/")[2][:40],
    }
    raws = {name: _reply(turn, move, to=f"play+{bad}@{DOMAIN}") for name, bad in variants.items()}
    _refused_all(reply_table, game, raws, "damaged")


def test_a_move_sent_to_the_resign_confirmation_is_not_played(reply_table: ReplyTable) -> None:
    """The confirmation's address is for "resign" only (a token of its own purpose)."""
    game = _start(reply_table)
    turn, _token = _turn(reply_table, game)
    address = reply_table.player_to_move(game)
    assert reply_table.send(answer(turn, "resign")).kind == "command"
    reply_table.fetch()
    confirmation = reply_table.latest(address)
    assert confirmation["Reply-To"] != turn["Reply-To"]
    raws = {"a move": answer(confirmation, reply_table.random_move(game)),
            "pass": answer(confirmation, "pass")}
    _refused_all(reply_table, game, raws, "resign")


# -- In-Reply-To and References, to the plain reply address --------------------------------------


def test_a_forged_in_reply_to_is_refused(reply_table: ReplyTable) -> None:
    game = _start(reply_table)
    turn, token = _turn(reply_table, game)
    move = reply_table.random_move(game)
    fields = ReplyFields("move", game, 0, 0, 1)
    forged = {f"bit {position % 5} of character {position} changed":
              _flipped(token, position, position % 5) for position in range(len(token))}
    forged |= {
        "a token-shaped guess": "a" * len(token),
        "signed with another secret": make_reply_token("another-secret", fields),
        "cut": token[:-8], "padded": token + "aaaaaaaa",
    }
    raws = {name: _reply(turn, move, to=REPLY_ADDRESS, in_reply_to=_pbem_message_id(bad))
            for name, bad in forged.items()}
    raws["forged in References only"] = _reply(
        turn, move, to=REPLY_ADDRESS, in_reply_to=UNRELATED,
        references=f"{UNRELATED} {_pbem_message_id(forged['a token-shaped guess'])}")
    _refused_all(reply_table, game, raws, "damaged", recipient=REPLY_ADDRESS)
    # The control: the real Message-ID finds the seat and the move is played.
    real = _reply(turn, move, to=REPLY_ADDRESS, in_reply_to=str(turn["Message-ID"]))
    assert reply_table.send(real, recipient=REPLY_ADDRESS).kind == "played"


def test_no_token_at_all_is_refused(reply_table: ReplyTable) -> None:
    game = _start(reply_table)
    turn, _token = _turn(reply_table, game)
    raws = {"plain address, unrelated In-Reply-To": _reply(
        turn, reply_table.random_move(game), to=REPLY_ADDRESS)}
    _refused_all(reply_table, game, raws, "no-game", recipient=REPLY_ADDRESS)


def test_a_stale_or_another_seats_message_id_is_refused(reply_table: ReplyTable) -> None:
    game = _start(reply_table)
    first, _token = _turn(reply_table, game)
    waiting = next(m for m in reply_table.inbox if m["Reply-To"]
                   and reply_table.player_to_move(game) not in str(m["To"]))
    mover = reply_table.player_to_move(game)
    move = reply_table.random_move(game)
    # The player to move answers, through the plain address, the other seat's email.
    other_seat = {"the other seat's Message-ID": _reply(
        first, move, to=REPLY_ADDRESS, sender=mover, in_reply_to=str(waiting["Message-ID"]))}
    _refused_all(reply_table, game, other_seat, "", recipient=REPLY_ADDRESS)
    assert reply_table.send(_reply(first, move, to=REPLY_ADDRESS,
                                   in_reply_to=str(first["Message-ID"])),
                            recipient=REPLY_ADDRESS).kind == "played"
    stale = {"the stale turn email's Message-ID": _reply(
        first, reply_table.random_move(game), to=REPLY_ADDRESS, sender=mover,
        in_reply_to=str(first["Message-ID"]))}
    _refused_all(reply_table, game, stale, "moved-on", recipient=REPLY_ADDRESS)


def test_a_replaced_players_message_id_is_refused(reply_table: ReplyTable) -> None:
    from pbem.admin.actions import replace_player

    game = _start(reply_table)
    turn, _token = _turn(reply_table, game)
    seat = reply_table.game(game).to_move
    assert seat is not None
    with reply_table.database.write() as session:
        replace_player(session, datetime.now(UTC), reply_table.site, game_id=game, seat=seat,
                       new_player=PlayerSpec("New", "new@example.test"), actor="test")
    move = reply_table.random_move(game)
    raws = {"through In-Reply-To": _reply(turn, move, to=REPLY_ADDRESS,
                                          in_reply_to=str(turn["Message-ID"])),
            "through the reply address": _reply(turn, move, to=str(turn["Reply-To"]))}
    _refused_all(reply_table, game, raws, "replaced")


@pytest.mark.parametrize("header", ["In-Reply-To", "References"])
def test_the_reply_address_decides_over_the_message_ids(reply_table: ReplyTable,
                                                        header: str) -> None:
    """A message to another seat's address that names the mover's email in its Message-IDs is
    that other seat's, and refused: a Message-ID never lends its seat to another address."""
    game = _start(reply_table)
    turn, _token = _turn(reply_table, game)
    mover = reply_table.player_to_move(game)
    waiting = next(m for m in reply_table.inbox if m["Reply-To"] and mover not in str(m["To"]))
    kwargs = {"in_reply_to": str(turn["Message-ID"])} if header == "In-Reply-To" else {
        "references": str(turn["Message-ID"])}
    raws = {f"the mover's Message-ID in {header}": _reply(
        turn, reply_table.random_move(game), to=str(waiting["Reply-To"]), sender=mover,
        **kwargs)}
    _refused_all(reply_table, game, raws, "")
