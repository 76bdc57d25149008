"""The confirm form sent twice at the same moment, to a real server with several worker processes.

Each request comes from its own browser (cookie jar, CSRF token). Exactly one move is played; the
other person gets the 409 page that says their move was not played, never a server error.
"""

from __future__ import annotations

import http.cookiejar
import random
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import select

from pbem.links import Links
from pbem.models import GameRecord, Move
from pbem.positions import current_state
from pbem.services import Site
from tests.support import (
    BACKENDS,
    MAIL_FROM,
    SECRET,
    csrf_of,
    make_database,
    start_a_game,
    start_gunicorn,
)

ROUNDS = 5
GAME = "mosey"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # the test looks at the 303 itself


class Browser:
    """One person's browser: its own cookies, no redirects followed."""

    def __init__(self) -> None:
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect())

    def open(self, url: str, data: dict[str, str] | None = None) -> tuple[int, str]:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        try:
            with self.opener.open(url, body, timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()


def post_at_once(url: str, browsers: list[Browser],
                 forms: list[dict[str, str]]) -> list[tuple[int, str]]:
    """Each browser posts its form to ``url``, all at the same moment; the answers (status,
    page) in the order they came."""
    barrier = threading.Barrier(len(browsers))
    answers: list[tuple[int, str]] = []

    def post(browser: Browser, form: dict[str, str]) -> None:
        barrier.wait()
        answers.append(browser.open(url, form))

    threads = [threading.Thread(target=post, args=(b, f))
               for b, f in zip(browsers, forms, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def _schema(database: object) -> dict[str, str]:
    """The PBEM_* setting that puts the server in the test's PostgreSQL schema."""
    engine = database.engine  # type: ignore[attr-defined]
    if engine.dialect.name == "sqlite":
        return {}
    with engine.connect() as connection:
        path = connection.execute(text("SHOW search_path")).scalar_one()
    return {"PBEM_DATABASE_SEARCH_PATH": str(path)}


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_losing_half_of_a_double_confirm_gets_the_not_played_page(
    backend: str, tmp_path: Path,
) -> None:
    database, remove = make_database(backend, tmp_path, migrate=True)
    server = start_gunicorn(database.url, workers=3, env=_schema(database))
    try:
        site = Site(Links(SECRET, server.url), MAIL_FROM)
        rng = random.Random(backend)
        codes: list[list[int]] = []
        for _ in range(ROUNDS):
            game_pk = start_a_game(database, datetime.now(UTC), site, GAME)
            with database.session() as session:
                row = session.get(GameRecord, game_pk)
            assert row is not None and row.to_move is not None
            game, state = current_state(row)
            move = str(game.random_move(state, rng))
            url = site.links.move_url(game_pk, row.to_move, row.ply)
            browsers = [Browser(), Browser()]
            forms = []
            for browser in browsers:
                status, page = browser.open(url)
                assert status == 200
                status, page = browser.open(
                    f"{url}/confirm?{urllib.parse.urlencode({'move': move})}")
                assert status == 200
                forms.append({"csrf_token": csrf_of(page), "move": move})
            answers = post_at_once(f"{url}/confirm", browsers, forms)
            statuses = sorted(status for status, _ in answers)
            codes.append(statuses)
            assert all(status < 500 for status in statuses), answers
            assert statuses[0] in (302, 303) and statuses[1] == 409, statuses
            refused = next(page for status, page in answers if status == 409)
            assert re.search(r"Your move was not played", refused)
            with database.session() as session:
                played = session.exec(select(Move).where(Move.game_id == game_pk)).all()
            assert [m.notation for m in played] == [move]
        print(f"{backend}: {codes}")
    finally:
        server.stop()
        remove()
