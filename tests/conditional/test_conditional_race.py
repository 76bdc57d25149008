"""The opponent's confirm sent twice at the same moment, to a real server with several worker
processes, while the other player keeps a conditional answer to that move: the move and its
answer are played exactly once (one request plays both in one transaction, the other is told
the game moved on), and the owner gets one "played by your conditional move" email."""

from __future__ import annotations

import urllib.parse
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.conditional.service import save
from pbem.links import Links
from pbem.models import GameRecord, Move, MoveSource, OutboxEmail
from pbem.positions import current_state
from pbem.services import Site
from tests.conditional.test_conditional_moves import a_line
from tests.support import (
    ALICE_BOB,
    BACKENDS,
    MAIL_FROM,
    SECRET,
    csrf_of,
    make_database,
    start_a_game,
    start_gunicorn,
)
from tests.web.test_double_confirm import Browser, _schema, post_at_once

ROUNDS = 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_confirms_at_once_play_the_conditional_answer_exactly_once(
    backend: str, tmp_path: Path,
) -> None:
    database, remove = make_database(backend, tmp_path, migrate=True)
    server = start_gunicorn(database.url, workers=3, env=_schema(database))
    try:
        site = Site(Links(SECRET, server.url), MAIL_FROM)
        for round_number in range(ROUNDS):
            now = datetime.now(UTC)
            game_pk = start_a_game(database, now, site, "mosey", {"order": 4},
                                   players=ALICE_BOB)
            with database.session() as session:
                row = session.get(GameRecord, game_pk)
            assert row is not None and row.to_move is not None
            game, state = current_state(row)
            line = a_line(game, state, 2, seed=round_number)
            other = 1 - row.to_move
            with database.write() as session:
                save(session, now, game_id=game_pk, seat=other,
                     text=f"if {line[0]} then {line[1]}")
            url = site.links.move_url(game_pk, row.to_move, row.ply)
            browsers = [Browser(), Browser()]
            forms = []
            for browser in browsers:
                status, page = browser.open(
                    f"{url}/confirm?{urllib.parse.urlencode({'move': line[0]})}")
                assert status == 200
                forms.append({"csrf_token": csrf_of(page), "move": line[0]})
            answers = post_at_once(f"{url}/confirm", browsers, forms)
            statuses = sorted(status for status, _ in answers)
            assert statuses[0] in (302, 303) and statuses[1] == 409, answers
            with database.session() as session:
                played = session.exec(select(Move).where(Move.game_id == game_pk)
                                      .order_by(Move.ply)).all()  # type: ignore[arg-type]
                told = session.exec(select(OutboxEmail).where(
                    OutboxEmail.game_id == game_pk,
                    OutboxEmail.kind == "conditional_played")).all()
            assert [(m.notation, m.source) for m in played] == [
                (line[0], MoveSource.LINK), (line[1], MoveSource.CONDITIONAL)]
            assert [e.to_address for e in told] == [ALICE_BOB[other].email]
    finally:
        server.stop()
        remove()
