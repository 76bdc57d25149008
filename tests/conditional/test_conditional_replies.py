"""Conditional moves by reply: lines ``if X then Y`` keep them, ``conditional`` shows them,
``conditional off`` clears them; each answered with the tree in words, in the player's language.
Through :func:`pbem.inbound.service.receive`, as ``pbem inbound`` hands it each message, on
SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta
from email.utils import make_msgid

from sqlmodel import select

from pbem.db import Database
from pbem.inbound.service import receive
from pbem.models import OutboxEmail, Player, ReplyOutcome
from pbem.services import Site
from tests.conditional.test_conditional_moves import (
    a_line,
    moves_of,
    play,
    position,
    start,
    tree_of,
)
from tests.inbound.replies import reply_site
from tests.support import ALICE_BOB

HOUR = timedelta(hours=1)


def reply(database: Database, now: datetime, site: Site, address: str, body: str) -> str:
    """``address`` answers its latest email about the game with ``body``: the outcome, and
    the text of the answer it got (empty when none)."""
    with database.session() as session:
        latest = session.exec(select(OutboxEmail).where(
            OutboxEmail.to_address == address, OutboxEmail.reply_to != "")
            .order_by(OutboxEmail.id.desc())).first()  # type: ignore[union-attr]
        assert latest is not None
        count = len(session.exec(select(OutboxEmail)).all())
    raw = (f"From: {address}\r\nTo: {latest.reply_to}\r\nSubject: Re: {latest.subject}\r\n"
           f"Message-ID: {make_msgid(domain='player.example.test')}\r\n\r\n{body}\r\n").encode()
    handled = receive(database, now, site, raw)
    with database.session() as session:
        answers = session.exec(select(OutboxEmail)).all()[count:]
    return f"{handled.kind}\n" + "\n".join(f"[{a.kind}] {a.text_body}" for a in answers)


def test_conditional_moves_by_reply_are_kept_shown_edited_and_cleared(
    database: Database, now: datetime,
) -> None:
    site = reply_site(database)
    game_id = start(database, now, site)
    game, state, row = position(database, game_id)
    assert row.to_move is not None
    mover, other = row.to_move, 1 - row.to_move
    bob = ALICE_BOB[other].email
    line = a_line(game, state, 4, seed=6)
    answer = reply(database, now, site, bob,
                   f"if {line[0]} then {line[1]} then {line[2]} then {line[3]}")
    assert answer.startswith(ReplyOutcome.COMMAND) and "[reply_conditional]" in answer
    assert f"plays {line[0]}, you play {line[1]}" in answer
    assert f"plays {line[2]}, you play {line[3]}" in answer
    assert tree_of(database, game_id, other) == ["if " + " then ".join(line)]
    # shown again
    answer = reply(database, now, site, bob, "conditional")
    assert f"plays {line[2]}, you play {line[3]}" in answer
    # edited: a new reply replaces them
    answer = reply(database, now, site, bob, f"if {line[0]} then {line[1]}")
    assert f"you play {line[3]}" not in answer
    assert tree_of(database, game_id, other) == [f"if {line[0]} then {line[1]}"]
    # an illegal one is refused with the reason, and what was kept stays
    answer = reply(database, now, site, bob, f"if {line[0]} then Z9-Z8")
    assert answer.startswith(ReplyOutcome.REFUSED) and "[reply_refused]" in answer
    assert "line 1: your move Z9-Z8" in answer and "nothing was changed" in answer
    assert tree_of(database, game_id, other) == [f"if {line[0]} then {line[1]}"]
    # cleared
    answer = reply(database, now, site, bob, "Conditional off")
    assert "Your conditional moves were cleared." in answer
    assert "You keep no conditional moves in this game." in answer
    assert tree_of(database, game_id, other) == []
    # kept again by reply, and played when the opponent's move matches
    reply(database, now, site, bob, f"if {line[0]} then {line[1]}")
    play(database, now + HOUR, site, game_id, line[0])
    assert [m.notation for m in moves_of(database, game_id)] == line[:2]
    assert mover == position(database, game_id)[2].to_move


def test_the_answer_is_in_the_players_language(database: Database, now: datetime) -> None:
    site = reply_site(database)
    game_id = start(database, now, site)
    game, state, row = position(database, game_id)
    assert row.to_move is not None
    other = 1 - row.to_move
    with database.write() as session:
        bob = session.exec(select(Player).where(
            Player.email == ALICE_BOB[other].email)).one()
        bob.language = "nl"
        session.add(bob)
    line = a_line(game, state, 2)
    answer = reply(database, now, site, ALICE_BOB[other].email,
                   f"als {line[0]} dan {line[1]}")
    assert f"{line[0]} speelt, speel jij {line[1]}" in answer
    answer = reply(database, now, site, ALICE_BOB[other].email, "voorwaardelijk uit")
    assert "Je voorwaardelijke zetten zijn gewist." in answer
    answer = reply(database, now, site, ALICE_BOB[other].email, "hulp")
    assert '"voorwaardelijk" toont ze, "voorwaardelijk uit" wist ze.' in answer
