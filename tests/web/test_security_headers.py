"""The headers of every kind of page: a policy that allows only our own script file, no framing,
no caching of
pages reached by a token; caught mail parts only as downloads; no full token in the log."""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import cairosvg
import pytest
from flask import Flask
from flask.testing import FlaskClient

import engine
from pbem import create_app
from pbem.db import Database
from pbem.models import CaughtMail, GameRecord
from pbem.services import PlayerSpec, Site, create_game
from pbem.templating import TEMPLATES
from tests.support import start_a_game

LONG_SECRET = "a production secret that is long enough to sign links"


def _directives(policy: str) -> dict[str, list[str]]:
    return {name: values for name, *values in (part.split() for part in policy.split(";"))}


def _caught_mail(database: Database, now: datetime) -> int:
    message = EmailMessage()
    message["Subject"] = "Test"
    message["To"] = "p0@example.test"
    message.set_content("plain")
    message.add_alternative('<html><head></head><body><img src="cid:board"></body></html>',
                            subtype="html")
    message.get_payload()[1].add_related(  # type: ignore[index, union-attr]
        b"<script>alert(document.cookie)</script>", "text", "html", cid="<board>")
    with database.write() as session:
        caught = CaughtMail(received_at=now, mail_from="a@example.test",
                            recipients="p0@example.test", raw=message.as_bytes())
        session.add(caught)
        session.flush()
        assert caught.id is not None
        return caught.id


def _pages(database: Database, now: datetime, site: Site, game_id: str) -> dict[str, str]:
    """One URL of every kind of page a browser can open (path only)."""
    game_pk = start_a_game(database, now, site, game_id)
    with database.write() as session:
        invited = create_game(session, now, site, game_type=game_id, players=[
            PlayerSpec("P0", "p0@example.test"), PlayerSpec("P1", "p1@example.test")])
        invited_pk = invited.id
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None and row.to_move is not None and invited_pk is not None
    game = engine.new_game(row.game_type, **row.options)
    move = str(game.legal_moves(game.decode(row.state))[0])
    mail = _caught_mail(database, now)
    strip = len(site.links.base_url)
    move_url = site.links.move_url(game_pk, row.to_move, row.ply)[strip:]
    return {
        "home": "/", "game": f"/g/{row.public_id}",
        "seat view": site.links.seat_view_url(game_pk, 0)[strip:],
        "move": move_url, "confirm": f"{move_url}/confirm?move={move}",
        "resign": site.links.resign_url(game_pk, 0)[strip:],
        "invitation": site.links.invite_url(invited_pk, 0)[strip:],
        "my games": site.links.my_games_url(1)[strip:],
        "unsubscribe": site.links.unsubscribe_url(1)[strip:],
        "damaged link": "/play/garbage", "not found": "/no/such/page",
        "dashboard login": "/admin/login",
        "dev mail": "/dev/mail", "dev mail message": f"/dev/mail/{mail}",
    }


def test_every_page_has_a_policy_with_only_our_script_and_no_framing(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
) -> None:
    pages = _pages(sqlite_database, now, site, any_game)
    answers = {name: client.get(path) for name, path in pages.items()}
    answers["method not allowed"] = client.open("/", method="TRACE")
    answers["refused form"] = client.post("/")
    assert answers["method not allowed"].status_code == 405
    assert answers["not found"].status_code == 404
    for name, answer in answers.items():
        assert answer.status_code < 500, name
        headers = answer.headers
        policy = _directives(headers["Content-Security-Policy"])
        assert policy["default-src"] == ["'none'"] and policy["script-src"] == ["'self'"], name
        assert policy["frame-ancestors"] == ["'none'"] and policy["base-uri"] == ["'none'"]
        assert set(policy["img-src"]) <= {"'self'", "data:"}
        assert "'unsafe-inline'" not in policy["default-src"] + policy["img-src"]
        assert "camera=()" in headers["Permissions-Policy"], name
        assert headers["Referrer-Policy"] == "no-referrer"
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert "Strict-Transport-Security" not in headers  # development runs on http
    for name in ("seat view", "move", "confirm", "resign", "invitation", "my games",
                 "unsubscribe", "damaged link", "dev mail", "dev mail message"):
        assert answers[name].headers["Cache-Control"] == "no-store", name
    assert answers["home"].headers.get("Cache-Control") != "no-store"


def test_production_sends_hsts(sqlite_database: Database) -> None:
    app = create_app({"ENV": "production", "SECRET_KEY": LONG_SECRET,
                      "BASE_URL": "https://pbem.example", "DATABASE": sqlite_database},
                     read_env=False)
    answer = app.test_client().get("/")
    assert answer.headers["Strict-Transport-Security"].startswith("max-age=31536000")
    assert "https://pbem.example" in _directives(
        answer.headers["Content-Security-Policy"])["form-action"]


def test_a_caught_part_is_a_sandboxed_download(
    client: FlaskClient, sqlite_database: Database, now: datetime,
) -> None:
    mail = _caught_mail(sqlite_database, now)
    shown = client.get(f"/dev/mail/{mail}")
    assert f"/dev/mail/{mail}/part/board" in shown.text
    part = client.get(f"/dev/mail/{mail}/part/board")
    assert b"<script>" in part.data  # the part as caught, but never as a page of this origin:
    assert part.headers["Content-Disposition"].startswith("attachment")
    assert _directives(part.headers["Content-Security-Policy"]) == {
        "default-src": ["'none'"], "sandbox": []}


def test_no_template_has_inline_script_or_event_handlers() -> None:
    """The policy blocks inline script: one in a template would silently not run. The only
    script tag is base.html's, which loads static/board.js from our origin."""
    tags: dict[Path, list[str]] = {}
    for path in Path(TEMPLATES).rglob("*.html"):
        text = path.read_text().lower()
        if found := re.findall(r"<script[^>]*>", text):
            tags[path] = found
        assert not re.search(r"<script[^>]*>[^<]", text), path  # nothing between the tags
        assert not re.search(r"\son[a-z]+\s*=", text), path
        assert "javascript:" not in text, path
    assert {path.name: len(found) for path, found in tags.items()} == {"base.html": 1}
    [tag] = tags[Path(TEMPLATES) / "base.html"]
    assert "src=\"{{ url_for('static', filename='board.js') }}\"" in tag and " defer" in tag


def _replay_url(client: FlaskClient) -> str:
    """A replay: the page of a board one steps through."""
    app = client.application
    database, site = app.extensions["pbem.database"], app.extensions["pbem.site"]
    game_pk = start_a_game(database, datetime.now(UTC), site, "mosey")
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None
        return f"/games/{row.public_id}/replay"


def test_the_script_is_served_from_our_origin(client: FlaskClient) -> None:
    page = client.get("/")
    assert "<script" not in page.text  # only the pages of a board load it
    page = client.get("/rules/mosey")
    assert "<script" not in page.text
    page = client.get(_replay_url(client))
    script = re.search(r'<script src="([^"]+)"', page.text)
    assert script is not None and script[1].startswith("/static/")
    answer = client.get(script[1])
    assert answer.status_code == 200
    assert answer.mimetype in ("text/javascript", "application/javascript")
    assert b"addEventListener" in answer.data


def test_the_log_never_has_a_full_token(
    app: Flask, client: FlaskClient, site: Site, caplog: pytest.LogCaptureFixture,
) -> None:
    token = site.links.my_games_url(1).rsplit("/", 1)[1]
    werkzeug_log = logging.getLogger("werkzeug")
    with caplog.at_level(logging.INFO):
        # What the development server writes for each request, and Flask for a failure.
        werkzeug_log.info('%s - - [%s] %s', "127.0.0.1", "now",
                          f'"GET /me/{token}?saved=1 HTTP/1.1" 200 -')
        app.logger.error(f"Exception on /play/{token}/confirm [POST]")
    logged: list[Any] = [record.getMessage() for record in caplog.records]
    assert len(logged) == 2
    assert all(token not in line and token[:8] in line for line in logged), logged


def test_every_page_has_an_icon_the_policy_allows(client: FlaskClient) -> None:
    """Without an icon a browser asks for /favicon.ico on every page (a 404 in the log each
    time); the icon is inline, an image the policy's img-src data: allows, and draws."""
    page = client.get("/")
    icon = re.search(r'<link rel="icon" href="data:image/svg\+xml,([^"]+)">', page.text)
    assert icon, "the page names its icon"
    assert "data:" in _directives(page.headers["Content-Security-Policy"])["img-src"]
    png = cairosvg.svg2png(bytestring=unquote(icon[1]).encode())
    assert png is not None and png.startswith(b"\x89PNG")
    assert client.get("/admin/login").text.count('rel="icon"') == 1  # the dashboard too
