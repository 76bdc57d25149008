"""The home page's "email me my links", and the "my games" page (issue #16), which a browser
signed in as the player has at /account (issue #31)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from unittest.mock import patch

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem.db import Database
from pbem.models import GameRecord, OutboxEmail, Player
from pbem.services import Site
from pbem.web import rules
from tests.support import (
    ALICE_BOB,
    ALICE_BOB_CLEO,
    clock_in,
    csrf_of,
    start_a_game,
    start_rifugio_of_three,
)
from tests.web.sessions import signed_in

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)  # tests/conftest.py's now


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    if "rules.rules_page" not in app.view_functions:
        rules.init_app(app)
    return app.test_client()


def _ask(client: FlaskClient, email: str, ip: str = "10.0.0.1") -> Any:
    token = csrf_of(client.get("/").text)
    return client.post("/links", data={"email": email, "csrf_token": token},
                       environ_overrides={"REMOTE_ADDR": ip})


def _emails(database: Database) -> list[OutboxEmail]:
    with database.session() as session:
        return list(session.exec(select(OutboxEmail).where(OutboxEmail.kind == "links")))


def test_known_and_unknown_addresses_get_the_same_page(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    start_a_game(sqlite_database, now, site, "mosey", {"order": 4}, players=ALICE_BOB)
    known = _ask(client, " Alice@Example.test ")
    unknown = _ask(client, "nobody@example.test")
    assert known.status_code == unknown.status_code == 200
    assert known.data == unknown.data
    [email] = _emails(sqlite_database)
    with sqlite_database.session() as session:
        alice = session.exec(select(Player).where(Player.email == "alice@example.test")).one()
    assert alice.id is not None and email.to_address == "alice@example.test"
    assert site.links.my_games_url(alice.id) in email.text_body
    assert site.links.my_games_url(alice.id) in email.html_body


def test_the_home_page_form_needs_its_csrf_token(client: FlaskClient) -> None:
    assert client.post("/links", data={"email": "a@example.test"}).status_code == 400


def test_the_sixth_request_in_an_hour_is_limited(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    start_a_game(sqlite_database, now, site, "mosey", {"order": 4}, players=ALICE_BOB)
    for n in range(5):  # per address, from different clients
        assert _ask(client, "alice@example.test", ip=f"10.0.1.{n}").status_code == 200
    assert _ask(client, "alice@example.test", ip="10.0.1.9").status_code == 429
    assert len(_emails(sqlite_database)) == 5
    for n in range(5):  # per client, over different addresses
        assert _ask(client, f"x{n}@example.test", ip="10.0.2.1").status_code == 200
    assert _ask(client, "bob@example.test", ip="10.0.2.1").status_code == 429
    assert _ask(client, "bob@example.test", ip="10.0.2.2").status_code == 200


def _my_games(app: Flask, database: Database, player_id: int) -> str:
    """The player's games page, as a browser signed in as them has it (/account), an hour after
    the games here started (the time left counts from then)."""
    with patch("pbem.web.players.utc_now", lambda: NOW + timedelta(hours=1)):
        return signed_in(app, database, player_id).get("/account").text


def test_my_games_lists_opponents_deadlines_and_move_links(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "mosey", {"order": 4}, players=ALICE_BOB)
    with sqlite_database.session() as session:
        row = session.get(GameRecord, game_pk)
        alice, bob = (session.exec(select(Player).where(Player.name == n)).one()
                      for n in ("Alice", "Bob"))
    assert row is not None and alice.id is not None and bob.id is not None
    page = _my_games(app, sqlite_database, alice.id)
    assert "Bob (Dark)" in page and "you play Light" in page
    assert site.links.move_url(game_pk, 0, row.ply, holder=alice.id) in page
    assert clock_in(sqlite_database, game_pk).deadline is not None
    assert "left</strong>" in page  # the time left to move
    assert "waiting for" not in page  # Alice's own turn: her move button instead
    page = _my_games(app, sqlite_database, bob.id)
    assert "Alice (Light)" in page and "/play/" not in page
    assert "waiting for Alice (Light)" in page  # whose turn it is, so Bob need not wonder


def test_my_games_offers_no_move_to_a_player_who_resigned_a_game_of_three(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    from pbem.services import resign

    game_pk = start_rifugio_of_three(sqlite_database, now, site)
    with sqlite_database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None and row.to_move is not None
        mover = session.exec(select(Player).where(
            Player.name == ALICE_BOB_CLEO[row.to_move].name)).one()
    assert mover.id is not None
    assert "/play/" in _my_games(app, sqlite_database, mover.id)
    with sqlite_database.write() as session:
        resign(session, now, site, game_id=game_pk, seat=row.to_move)
    page = _my_games(app, sqlite_database, mover.id)
    assert "/play/" not in page and "you are out of this game" in page


def test_time_zone_is_a_list_and_a_bad_one_keeps_the_form(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    start_a_game(sqlite_database, now, site, "mosey", {"order": 4}, players=ALICE_BOB)
    with sqlite_database.session() as session:
        alice = session.exec(select(Player).where(Player.name == "Alice")).one()
    assert alice.id is not None
    client = signed_in(app, sqlite_database, alice.id)
    url = "/account"
    page = client.get(url).text
    assert '<select name="time_zone">' in page and "<option selected>UTC</option>" in page
    answer = client.post(url, data={"csrf_token": csrf_of(page), "name": "Alicia",
                                    "time_zone": "Mars/Olympus", "language": "en"})
    assert answer.status_code == 400
    assert "Mars/Olympus" in answer.text and 'role="alert"' in answer.text
    assert 'value="Alicia"' in answer.text  # what was typed stays
    with sqlite_database.session() as session:
        assert session.get(Player, alice.id).name == "Alice"  # type: ignore[union-attr]
    saved = client.post(url, data={"csrf_token": csrf_of(page), "name": "Alicia",
                                   "time_zone": "Europe/Paris", "language": "en"})
    assert saved.status_code == 303
    assert "<option selected>Europe/Paris</option>" in client.get(url).text
