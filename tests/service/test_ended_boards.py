"""A game that ends off the board (resigned here) shows its last position as over.

The rules did not end that position, so the engine would still say "Light to move"; the game-over
email's picture and alt text, and the game page and replay at the end, say "game over" instead.
A game its rules ended is drawn as before.
"""

from __future__ import annotations

import random
import re
from datetime import datetime
from typing import Any

from flask.testing import FlaskClient

from engine import Ending
from pbem.db import Database
from pbem.models import GameRecord
from pbem.positions import current_state
from pbem.services import Site, resign, submit_move
from tests.support import start_a_game

TO_MOVE = re.compile(r"\bto move\b")


def _row(database: Database, game_pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None
    return row


def _play(database: Database, now: datetime, site: Site, game_pk: int, plies: int | None,
          rng: random.Random) -> None:
    """Random moves: ``plies`` of them, or (None) until the rules end the game."""
    while plies is None or plies > 0:
        row = _row(database, game_pk)
        if row.to_move is None:
            return
        game, state = current_state(row)
        with database.write() as session:
            submit_move(session, now, site, game_id=game_pk, seat=row.to_move, ply=row.ply,
                        text=str(game.random_move(state, rng)))
        plies = None if plies is None else plies - 1


def _board(message: Any) -> tuple[bytes, str]:
    """An email's board picture and its alt text."""
    image = next(p for p in message.walk() if p.get_content_type() == "image/png")
    html = message.get_body(("html",)).get_content()
    alt = re.search(r'<img src="cid:[^"]+"[^>]* alt="([^"]*)"', html)
    assert alt, "the HTML shows the board with an alt text"
    return image.get_content(), alt[1]


def _of_kind(messages: list[Any], words: str) -> list[Any]:
    return [m for m in messages if words in m.get_body(("plain",)).get_content()]


def _game_over(messages: list[Any]) -> list[Any]:
    return [m for m in messages if str(m["Subject"]).startswith("Game over:")]


def test_the_game_over_email_of_a_resigned_game_shows_the_board_as_over(
    sqlite_database: Database, now: datetime, site: Site, mailbox: Any,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "mosey")
    _play(sqlite_database, now, site, game_pk, 3, random.Random(5))
    # The turn email of this ply goes out (its picture drawn and kept) while the game runs.
    turn = _of_kind(mailbox.deliver(now), "It is your turn")[-1]
    turn_png, turn_alt = _board(turn)
    row = _row(sqlite_database, game_pk)
    assert row.to_move is not None
    with sqlite_database.write() as session:
        resign(session, now, site, game_id=game_pk, seat=row.to_move)
    over = _game_over(mailbox.deliver(now))
    assert len(over) == 2
    assert TO_MOVE.search(turn_alt)
    for message in over:
        png, alt = _board(message)
        assert png[:4] == b"\x89PNG"
        assert png != turn_png, "the picture drawn while the game ran says who is to move"
        assert not TO_MOVE.search(alt)
        assert alt.startswith("The Mosey board. Game over.")


def test_a_game_its_rules_ended_is_drawn_as_before(
    sqlite_database: Database, now: datetime, site: Site, mailbox: Any,
) -> None:
    from pbem.mail.boards import svg_to_png

    game_pk = start_a_game(sqlite_database, now, site, "mosey")
    _play(sqlite_database, now, site, game_pk, None, random.Random(8))
    row = _row(sqlite_database, game_pk)
    assert row.status == "finished" and row.to_move is None
    game, state = current_state(row)
    over = _game_over(mailbox.deliver(now))
    assert len(over) == 2
    with sqlite_database.session() as session:
        from sqlmodel import col, select

        from pbem.models import Move
        last = session.exec(select(Move).where(Move.game_id == game_pk)
                            .order_by(col(Move.ply).desc())).first()
    assert last is not None
    drawn = svg_to_png(game.render_svg(state, None, last.notation))
    for message in over:
        png, alt = _board(message)
        assert png == drawn
        assert alt.startswith("The Mosey board. Game over:")  # the engine's own result


def test_the_game_page_and_replay_of_a_resigned_game_end_with_game_over(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "mosey")
    _play(sqlite_database, now, site, game_pk, 2, random.Random(3))
    row = _row(sqlite_database, game_pk)
    assert row.to_move is not None
    game_url = site.links.game_url(row.public_id)
    replay_url = f"/games/{row.public_id}/replay"
    running = client.get(game_url).text
    assert "Mosey: Light to move" in running
    with sqlite_database.write() as session:
        resign(session, now, site, game_id=game_pk, seat=row.to_move)
    for url in (game_url, replay_url):
        page = client.get(url)
        assert page.status_code == 200
        svg = page.text[page.text.index("<svg"):page.text.index("</svg>")]
        assert "Mosey: game over" in svg and not TO_MOVE.search(svg)
        # an earlier position is still drawn as it was: someone to move
        earlier = client.get(url, query_string={"ply": 1}).text
        svg = earlier[earlier.index("<svg"):earlier.index("</svg>")]
        assert TO_MOVE.search(svg) and "game over" not in svg


def test_how_a_game_ended_is_named_from_its_row_and_last_position(
    sqlite_database: Database, now: datetime, site: Site,
) -> None:
    """What the pictures of the last position are drawn with: the rules' ending where the
    position is over, else how the game was left (here, a resignation)."""
    from pbem.services.common import seats_of
    from pbem.services.results import ending_of

    def ending(game_pk: int) -> Ending:
        row = _row(sqlite_database, game_pk)
        game, state = current_state(row)
        with sqlite_database.session() as session:
            return ending_of(row, seats_of(session, game_pk), game, state)

    ruled = start_a_game(sqlite_database, now, site, "mosey")
    _play(sqlite_database, now, site, ruled, None, random.Random(8))
    assert ending(ruled) is Ending.RULES
    resigned = start_a_game(sqlite_database, now, site, "mosey")
    _play(sqlite_database, now, site, resigned, 2, random.Random(3))
    seat = _row(sqlite_database, resigned).to_move
    assert seat is not None
    with sqlite_database.write() as session:
        resign(session, now, site, game_id=resigned, seat=seat)
    assert ending(resigned) is Ending.RESIGNATION
