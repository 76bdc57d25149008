"""No email of a Rifugio game tells anything about the blind pile's order.

Two games are made identical except for the order of the pile's second half; the same moves are
played in both while only tiles of the first half are drawn. Every email each seat then gets must
be the same in both games, word for word and board for board, once links and ids are taken out.
"""

from __future__ import annotations

import random
import re
from datetime import datetime
from typing import Any

from sqlmodel import col, select

from pbem.db import Database
from pbem.models import GameRecord, OutboxEmail
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, submit_move
from tests.support import start_a_game

PLIES = 150


def _normal(text: str, row: GameRecord) -> str:
    """An email without what differs between any two games: links, ids and Message-IDs."""
    text = re.sub(r"https?://\S+", "<link>", text)
    return text.replace(row.public_id, "<game>").replace(row.public_id[:6], "<game>")


def _emails(database: Database, row: GameRecord, after: int) -> list[tuple[str, str, str, str]]:
    with database.session() as session:
        found = session.exec(select(OutboxEmail).where(
            OutboxEmail.game_id == row.id, col(OutboxEmail.id) > after)
            .order_by(col(OutboxEmail.id))).all()
    return [(e.kind, e.to_address, _normal(e.subject, row),
             _normal(e.text_body, row) + _normal(e.html_body, row)) for e in found]


def _last_id(database: Database) -> int:
    with database.session() as session:
        last = session.exec(select(OutboxEmail.id).order_by(col(OutboxEmail.id).desc())).first()
    return last or 0


def _row(database: Database, game_pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None
    return row


def _boards(row: GameRecord) -> list[str]:
    """What each seat's board picture is drawn from."""
    game, state = current_state(row)
    return [game.render_svg(state, seat, None) for seat in range(game.num_players)]


def test_no_email_tells_the_order_of_the_blind_pile(
    sqlite_database: Database, now: datetime, site: Site,
) -> None:
    rng = random.Random(11)
    people = [PlayerSpec("Ann", "ann@example.test"), PlayerSpec("Bo", "bo@example.test"),
              PlayerSpec("Cy", "cy@example.test")]
    first = start_a_game(sqlite_database, now, site, "rifugio", {"players": 3}, players=people)
    second = start_a_game(sqlite_database, now, site, "rifugio", {"players": 3}, players=people)
    original = _row(sqlite_database, first)
    with sqlite_database.write() as session:  # the same game, with the pile the other way round
        twin = session.get(GameRecord, second)
        assert twin is not None
        pile: list[Any] = list(original.state["pile"])
        kept = len(pile) // 2
        twin.state = {**original.state, "pile": pile[:kept] + pile[kept:][::-1]}
        twin.start_state = twin.state
        twin.to_move = original.to_move
        session.add(twin)
    compared = 0
    for _ in range(PLIES):
        one, two = _row(sqlite_database, first), _row(sqlite_database, second)
        assert _boards(one) == _boards(two)
        game, state = current_state(one)
        if one.to_move is None or len(pile) - len(one.state["pile"]) >= kept - 3:
            break  # the next draw could reach the half that differs
        move = str(game.random_move(state, rng))
        before = _last_id(sqlite_database)
        with sqlite_database.write() as session:
            submit_move(session, now, site, game_id=first, seat=one.to_move, ply=one.ply,
                        text=move)
        middle = _last_id(sqlite_database)
        with sqlite_database.write() as session:
            submit_move(session, now, site, game_id=second, seat=two.to_move or 0, ply=two.ply,
                        text=move)
        mails_one = _emails(sqlite_database, one, before)
        mails_two = _emails(sqlite_database, two, middle)
        assert mails_one == mails_two, f"the emails after {move} differ with the pile's order"
        compared += len(mails_one)
    assert compared >= 10
