"""Moves that are words get buttons in plain words (issue 16): "Play second", "Take the button
(+½ point)", never the raw notation alone."""

from __future__ import annotations

import re
from datetime import datetime

from flask.testing import FlaskClient

from pbem.db import Database
from pbem.models import GameRecord
from pbem.services import Site, submit_move
from tests.support import start_a_game


def _buttons(html: str) -> list[str]:
    return [re.sub(r"\s+", " ", b).strip() for b in re.findall(r"<button[^>]*>(.*?)</button>",
                                                               html, re.S)]


def test_stigmergy_side_and_button_moves_read_as_words(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "stigmergy",
                           {"size": 5, "komi": "negotiate"})
    with sqlite_database.write() as session:
        submit_move(session, now, site, game_id=game_pk, seat=0, ply=0, text="3")  # odd: button
    with sqlite_database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None and row.to_move is not None
    page = client.get(site.links.move_url(game_pk, row.to_move, row.ply))
    buttons = _buttons(page.text)
    assert any(b.startswith("Play second") and "play-second" not in b for b in buttons)
    assert "play-second" not in buttons  # never the notation alone
    confirm = client.get(site.links.move_url(game_pk, row.to_move, row.ply) + "/confirm",
                         query_string={"move": "play-second"})
    assert any(b.startswith("Play second") for b in _buttons(confirm.text))
