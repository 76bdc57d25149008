"""Every game in the catalogue played to its end by its players through their emails only.

Random legal moves; the smallest board options keep it quick. Invitations are accepted through the
emailed links; each turn's move is made by following the emailed move link, choosing on the page
and confirming there. Everyone must get the game over email with the result. A pass that is the
only legal move is played by the server at once (a forced pass), never asked of the player.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from pbem.db import Database
from pbem.models import GameRecord, GameStatus, Move, MoveSource
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, create_game


def _choose(game: engine.AnyGame, state: Any, rng: random.Random) -> dict[str, str]:
    """The confirm page's query for a random legal move: a number field or a move."""
    move = game.random_move(state, rng)
    numbers = game.move_choices(state)[1]
    if numbers is not None and numbers.covers(move):
        return {"number": str(move)}
    return {"move": str(move)}


@pytest.mark.usefixtures("sketched_boards")
def test_a_whole_game_through_emailed_links(
    game_id: str, client: FlaskClient, sqlite_database: Database, mailbox: Any, site: Site,
    smallest_options: Callable[[str], dict[str, object]], csrf: Callable[[str], str],
) -> None:
    rng = random.Random(game_id)
    options = smallest_options(game_id)
    seats = engine.new_game(game_id, **options).num_players
    people = [PlayerSpec(f"Player {n}", f"p{n}@example.test") for n in range(seats)]
    with sqlite_database.write() as session:
        row = create_game(session, datetime.now(UTC), site, game_type=game_id, options=options,
                          players=people)
        game_pk = row.id

    invitations = mailbox.deliver()
    assert sorted(m["To"].addresses[0].addr_spec for m in invitations) == sorted(
        p.email for p in people)
    inbox: list[Any] = []
    for message in invitations:
        url = mailbox.link(message, "/invite/")
        page = client.get(url)
        assert page.status_code == 200
        answer = client.post(url, data={"csrf_token": csrf(page.text), "answer": "accept"})
        assert answer.status_code == 200, answer.text
    inbox += mailbox.deliver()

    plies = 0
    while True:
        turn_mails = [m for m in inbox if str(m["Subject"]).startswith("Your turn:")]
        if not turn_mails:
            break
        url = mailbox.link(turn_mails[-1], "/play/")
        inbox = []
        while url:  # a turn of several steps goes on page after page
            page = client.get(url)
            assert page.status_code == 200, page.text
            with sqlite_database.session() as session:
                current = session.get(GameRecord, game_pk)
            assert current is not None
            game, state = current_state(current)
            query = _choose(game, state, rng)
            confirm = client.get(f"{url}/confirm", query_string=query)
            assert confirm.status_code == 200, confirm.text
            done = client.post(f"{url}/confirm", data={
                "csrf_token": csrf(confirm.text), "move": _hidden_move(confirm.text),
                "note": f"ply {plies}"})
            assert done.status_code in (302, 303), done.text
            plies += 1
            url = done.location if "/play/" in done.location else ""
        inbox += mailbox.deliver()
        assert plies < 3000, "the game does not end"

    with sqlite_database.session() as session:
        final = session.get(GameRecord, game_pk)
        moves = session.exec(select(Move).where(Move.game_id == game_pk)).all()
    assert final is not None and final.status == GameStatus.FINISHED
    assert len(moves) == final.ply
    # The players made every move but the forced passes, which the server played itself.
    assert len([m for m in moves if m.source == MoveSource.LINK]) == plies
    forced = [m for m in moves if m.source == MoveSource.FORCED_PASS]
    assert all(m.notation == "pass" for m in forced)
    assert len(forced) + plies == len(moves)
    over = [m for m in inbox if str(m["Subject"]).startswith("Game over:")]
    assert sorted(m["To"].addresses[0].addr_spec for m in over) == sorted(p.email for p in people)
    game, state = current_state(final)
    assert game.outcome(state) is not None
    assert sorted(final.winners or []) == sorted(game.outcome(state).winners)


def _hidden_move(html: str) -> str:
    import re

    match = re.search(r'<input type="hidden" name="move" value="([^"]*)">', html)
    assert match, "the confirm page names no move"
    import html as html_lib

    return html_lib.unescape(match[1])
