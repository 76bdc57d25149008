"""Odd values in player forms: a 400 page that says what is wrong, and nothing changed."""

from __future__ import annotations

import html
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import select

from pbem.db import Database
from pbem.models import AuditEntry, GameRecord, Move, Player, PlayerAbsence
from pbem.positions import current_state
from pbem.services import Site
from tests.support import csrf_of, start_a_game
from tests.web.sessions import open_games_link

CONTROL = ["Ann\nBcc: eve@example.test", "Ann\x1b[31m", "Ann\x00", "Ann\u202eevil", "An\rn"]


def _snapshot(database: Database) -> tuple[Any, ...]:
    with database.session() as session:
        return tuple(sorted(repr(row.model_dump()) for row in session.exec(select(table)))
                     for table in (Player, PlayerAbsence, AuditEntry, GameRecord, Move))


def _my_games(client: FlaskClient, site: Site, database: Database, now: datetime,
              game_id: str) -> tuple[str, str]:
    start_a_game(database, now, site, game_id)
    link = site.links.my_games_url(1)  # pressed, it signs this browser in as player 1
    assert open_games_link(client, link).status_code == 303
    url = "/account"
    page = client.get(url)
    assert page.status_code == 200
    return url, csrf_of(page.text)


@pytest.mark.parametrize(("form", "message"), [
    ({"action": "cancel_absence", "absence_id": "abc"}, "there is no such absence"),
    ({"action": "cancel_absence", "absence_id": "1e9"}, "there is no such absence"),
    ({"action": "cancel_absence", "absence_id": "99999999999999999999"},
     "there is no such absence"),
    ({"action": "cancel_absence", "absence_id": "-1"}, "there is no such absence"),
    ({"action": "cancel_absence"}, "there is no such absence"),
    ({"action": "add_absence", "start": "9999-12-31", "end": "9999-12-31"}, "two years ahead"),
    ({"action": "add_absence", "start": "{tomorrow}", "end": "9999-12-31"}, "two years ahead"),
    ({"action": "add_absence", "start": "0001-01-01", "end": "0001-01-02"}, "in the past"),
    ({"action": "add_absence", "start": "2025-02-30", "end": "2025-03-01"},
     "not a date like"),
])
def test_absence_values_that_are_not_what_the_form_sends_get_a_400(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
    form: dict[str, str], message: str,
) -> None:
    url, token = _my_games(client, site, sqlite_database, now, any_game)
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).date().isoformat()
    before = _snapshot(sqlite_database)
    answer = client.post(url, data={**{k: v.format(tomorrow=tomorrow) for k, v in form.items()},
                                    "csrf_token": token})
    assert answer.status_code == 400
    assert message in html.unescape(answer.text)
    assert _snapshot(sqlite_database) == before


@pytest.mark.parametrize("name", CONTROL)
def test_a_name_with_control_characters_is_refused(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
    name: str,
) -> None:
    url, token = _my_games(client, site, sqlite_database, now, any_game)
    before = _snapshot(sqlite_database)
    answer = client.post(url, data={"csrf_token": token, "name": name, "time_zone": "UTC"})
    assert answer.status_code == 400 and "control characters" in answer.text
    assert _snapshot(sqlite_database) == before


@pytest.mark.parametrize("note", [*CONTROL, "x" * 501])
def test_a_move_note_with_control_characters_or_too_long_is_refused_and_nothing_is_played(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
    note: str,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, any_game)
    with sqlite_database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None and row.to_move is not None
    game, state = current_state(row)
    move = str(game.random_move(state, random.Random(1)))
    url = f"{site.links.move_url(game_pk, row.to_move, 0)}/confirm"
    page = client.get(url, query_string={"move": move})
    before = _snapshot(sqlite_database)
    answer = client.post(url, data={"csrf_token": csrf_of(page.text), "move": move,
                                    "note": note})
    assert answer.status_code == 400 and "Your move was not played" in answer.text
    assert "control characters" in answer.text or "at most 500" in answer.text
    assert _snapshot(sqlite_database) == before
    typed = client.get(url, query_string={"move": move + "\x1b[2J"})
    assert typed.status_code == 422 and "without control characters" in typed.text
