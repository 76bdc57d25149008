"""A tree of conditional moves three levels deep, played out by an opponent who follows it and by
one who leaves it at the first, second or third level; through the move links (the confirm
page's form) and through replies (pbem.inbound.service.receive, as ``pbem inbound`` hands it each
message). And a stored tree whose third answer became illegal: dropped when due, and the player
told."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from pbem.conditional.tables import ConditionalMoves
from pbem.db import Database
from pbem.models import MoveSource
from pbem.services import Site
from tests.conditional.test_conditional_moves import (
    a_line,
    emails,
    keep,
    moves_of,
    play,
    position,
    start,
    tree_of,
)
from tests.conditional.test_conditional_replies import reply
from tests.inbound.replies import reply_site
from tests.support import ALICE_BOB

HOUR = timedelta(hours=1)
LEVELS = 3

Mover = Callable[[int, str, datetime], None]  # (game, move, when): the opponent plays it


def _opponents_moves(game: engine.AnyGame, state: Any, line: list[str],
                     leave_at: int | None) -> list[str]:
    """The opponent's moves against the tree of ``line``: its own, until level ``leave_at``
    (None: never), where a move the tree does not answer (and that passes the turn)."""
    mover = game.to_move(state)
    moves: list[str] = []
    for level in range(1, LEVELS + 1):
        expected = line[2 * level - 2]
        if level == leave_at:
            other = next(str(m) for m in game.legal_moves(state) if str(m) != expected
                         and game.to_move(game.play(state, m)) not in (mover, None))
            return [*moves, other]
        moves.append(expected)
        state = game.play(game.play(state, expected), line[2 * level - 1])
    return moves


def _played_out(database: Database, now: datetime, site: Site, by: Mover,
                leave_at: int | None) -> None:
    game_id = start(database, now, site)
    game, state, row = position(database, game_id)
    assert row.to_move is not None
    mover, owner = row.to_move, 1 - row.to_move
    line = a_line(game, state, 2 * LEVELS, seed=11)
    keep(database, now, game_id, owner, "if " + " then ".join(line))
    theirs = _opponents_moves(game, state, line, leave_at)
    for number, move in enumerate(theirs, 1):
        by(game_id, move, now + number * HOUR)
    played = [m.notation for m in moves_of(database, game_id)]
    told = [e.text_body for e in emails(database, kind="conditional_played")]
    assert tree_of(database, game_id, owner) == []
    if leave_at is None:
        assert played == line
        assert [m.source for m in moves_of(database, game_id)][1::2] == \
            [MoveSource.CONDITIONAL] * LEVELS
        assert len(told) == LEVELS
        assert position(database, game_id)[2].to_move == mover
        return
    answered = line[:2 * (leave_at - 1)]
    assert played == [*answered, theirs[-1]], "an answer was played to a move it did not answer"
    assert len(told) == leave_at - 1
    assert position(database, game_id)[2].to_move == owner
    turn = [e for e in emails(database, kind="turn") if e.to_address == ALICE_BOB[owner].email]
    assert (f"Your conditional moves did not answer {theirs[-1]}, so none was played and they "
            "were dropped.") in turn[-1].text_body
    with database.session() as session:  # told once: the row that remembered it is gone
        assert session.exec(select(ConditionalMoves)).all() == []


@pytest.mark.parametrize("leave_at", [None, 1, 2, 3])
def test_a_three_level_tree_played_out_through_the_move_links(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
    csrf: Callable[[str], str], leave_at: int | None,
) -> None:
    def by_link(game_id: int, move: str, when: datetime) -> None:
        row = position(sqlite_database, game_id)[2]
        assert row.to_move is not None
        url = site.links.move_url(game_id, row.to_move, row.ply)[len(site.links.base_url):]
        page = client.get(f"{url}/confirm", query_string={"move": move})
        assert page.status_code == 200, page.text
        done = client.post(f"{url}/confirm", data={"csrf_token": csrf(page.text), "move": move})
        assert done.status_code in (302, 303), done.text

    _played_out(sqlite_database, now, site, by_link, leave_at)


@pytest.mark.parametrize("leave_at", [None, 1, 2, 3])
def test_a_three_level_tree_played_out_through_replies(
    database: Database, now: datetime, leave_at: int | None,
) -> None:
    site = reply_site(database)

    def by_reply(game_id: int, move: str, when: datetime) -> None:
        row = position(database, game_id)[2]
        assert row.to_move is not None
        before = len(moves_of(database, game_id))
        answer = reply(database, when, site, ALICE_BOB[row.to_move].email, move)
        assert len(moves_of(database, game_id)) > before, answer

    _played_out(database, now, site, by_reply, leave_at)


def test_a_stored_third_answer_that_became_illegal_is_dropped_when_due_and_the_player_told(
    database: Database, now: datetime, site: Site,
) -> None:
    game_id = start(database, now, site)
    game, state, row = position(database, game_id)
    assert row.to_move is not None
    owner = 1 - row.to_move
    line = a_line(game, state, 2 * LEVELS, seed=11)
    keep(database, now, game_id, owner, "if " + " then ".join(line))
    before_last = state
    for move in line[:4]:
        before_last = game.play(before_last, move)
    after_last = game.play(before_last, line[4])
    # As if the rules had changed since it was kept: the third answer is illegal when due.
    illegal = next(str(m) for m in game.legal_moves(before_last)
                   if game.why_illegal(after_last, m) is not None)
    with database.write() as session:
        kept = session.exec(select(ConditionalMoves)).one()
        kept.tree = {line[0]: {"answer": line[1], "then": {
            line[2]: {"answer": line[3], "then": {
                line[4]: {"answer": illegal, "then": {}}}}}}}
        session.add(kept)
    for number, move in enumerate(line[0:5:2], 1):
        play(database, now + number * HOUR, site, game_id, move)
    assert [m.notation for m in moves_of(database, game_id)] == line[:5]
    assert position(database, game_id)[2].to_move == owner
    turn = [e for e in emails(database, kind="turn") if e.to_address == ALICE_BOB[owner].email]
    assert (f"Your conditional moves could not be played after {line[4]} (the rules refuse "
            "them now), so they were dropped.") in turn[-1].text_body
    assert tree_of(database, game_id, owner) == []
