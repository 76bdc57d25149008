"""No dashboard route changes anything without a POST that carries this session's CSRF token,
and an action's parameters come from the form body only (issue 12)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text

import engine
from pbem.admin.game_actions import ACTIONS
from pbem.db import Database
from pbem.services import PlayerSpec, Site, create_game, start_game
from tests.support import csrf_of, two_player_game

WATCHED = ("games", "seats", "players", "outbox_emails", "audit_log", "seat_replacements",
           "admin_users", "organiser_security", "organiser_recovery_codes")
# Every parameter any dashboard form takes, for the query string.
QUERY = {"reason": "x", "seat": "0", "email": "mallory@example.test", "name": "Mallory",
         "by": "3d", "winner": "0", "name-0": "Ann", "email-0": "ann@example.test",
         "name-1": "Mallory", "email-1": "mallory@example.test", "current": "x",
         "new": "a new long password", "repeat": "a new long password"}


def _snapshot(database: Database) -> dict[str, list[Any]]:
    with database.session() as session:
        return {table: [tuple(row) for row in session.execute(
            text(f"SELECT * FROM {table} ORDER BY 1"))] for table in WATCHED}


def _running_game(database: Database, site: Site) -> int:
    game_type = two_player_game()
    now = datetime.now(UTC)
    with database.write() as session:
        row = create_game(session, now, site, game_type=game_type,
                          options={o.name: o.choices[0] for o in engine.GAMES[game_type].options},
                          players=[PlayerSpec("Ann", "ann@example.test"),
                                   PlayerSpec("Bob", "bob@example.test")])
        assert row.id is not None
        start_game(session, now, site, game_id=row.id, force=True)
        return row.id


def _posting_routes(app: Flask, game_pk: int) -> list[str]:
    """Every dashboard URL that accepts a POST (new routes included), filled in: each action of
    a game, the create-game form."""
    urls = []
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/admin") or "POST" not in (rule.methods or ()):
            continue
        if rule.endpoint == "admin_auth.login":
            continue  # logging in changes nothing but the session (tested in accounts)
        names = list(ACTIONS) if "name" in rule.arguments else [None]
        for name in names:
            values: dict[str, Any] = {"game_id": game_pk} if "game_id" in rule.arguments else {}
            if name:
                values["name"] = name
            urls.append(rule.build(values)[1])
    return urls


@pytest.fixture
def game_pk(admin_client: FlaskClient, sqlite_database: Database, app: Flask) -> int:
    return _running_game(sqlite_database, app.extensions["pbem.site"])


def test_nothing_changes_without_a_posted_token(admin_client: FlaskClient, app: Flask,
                                                sqlite_database: Database,
                                                game_pk: int) -> None:
    urls = _posting_routes(app, game_pk)
    assert f"/admin/games/{game_pk}/abort" in urls and "/admin/games/new" in urls
    assert "/admin/logout" in urls and len(urls) >= len(ACTIONS) + 2
    query = {**QUERY, "game": two_player_game()}
    before = _snapshot(sqlite_database)
    for url in urls:
        for method in ("HEAD", "GET"):
            answer = admin_client.open(url, method=method, query_string=query)
            assert answer.status_code in (200, 405, 409), (method, url)
        for token in (None, "forged"):
            data = {**query, **({"csrf_token": token} if token else {})}
            answer = admin_client.post(url, query_string=query, data=data)
            assert answer.status_code == 400, (url, token)
            assert "This form has expired or did not come from this site" in answer.text
        assert _snapshot(sqlite_database) == before, url
    assert admin_client.get("/admin/").status_code == 200  # still logged in: nothing happened


@pytest.mark.parametrize("name", ["extend", "replace", "adjudicate"])
def test_an_action_reads_its_parameters_from_the_form_only(
    admin_client: FlaskClient, sqlite_database: Database, game_pk: int, name: str,
) -> None:
    url = f"/admin/games/{game_pk}/{name}"
    token = csrf_of(admin_client.get(url).text)
    before = _snapshot(sqlite_database)
    answer = admin_client.post(url, query_string=QUERY, data={"csrf_token": token})
    assert answer.status_code == 422
    assert _snapshot(sqlite_database) == before


def test_an_abort_takes_no_reason_from_the_query_string(
    admin_client: FlaskClient, sqlite_database: Database, game_pk: int,
) -> None:
    url = f"/admin/games/{game_pk}/abort"
    token = csrf_of(admin_client.get(url).text)
    assert admin_client.post(url, query_string={"reason": "forged"},
                             data={"csrf_token": token}).status_code == 303
    with sqlite_database.session() as session:
        reasons = [r for (r,) in session.execute(text(
            "SELECT detail FROM audit_log WHERE action = 'abort requested'"))]
    assert len(reasons) == 1 and "forged" not in str(reasons[0])


def test_creating_a_game_reads_the_form_only(admin_client: FlaskClient,
                                            sqlite_database: Database) -> None:
    game_type = two_player_game()
    token = csrf_of(admin_client.get(f"/admin/games/new?game={game_type}").text)
    before = _snapshot(sqlite_database)
    answer = admin_client.post("/admin/games/new", query_string={**QUERY, "game": game_type},
                               data={"csrf_token": token})
    assert answer.status_code == 200 and "There is no game" not in answer.text  # the chooser
    assert _snapshot(sqlite_database) == before


def test_the_refusal_is_a_page_of_the_site(client: FlaskClient) -> None:
    refused = client.post("/admin/login", data={"email": "a@example.test"})
    assert refused.status_code == 400
    assert "<!doctype html>" in refused.text and "Please go back, reload" in refused.text
