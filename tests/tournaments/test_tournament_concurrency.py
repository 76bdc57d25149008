"""The last two games of a Swiss round ending at the same moment, on a real server with several
worker processes: the next round is paired exactly once (its tournament row is locked in the
transaction that ends each game, after the game's own lock, so the second transaction sees the
first one's finished game and the round it paired).

Each resignation comes from its own browser (cookies, CSRF token), released together.
"""

from __future__ import annotations

import http.cookiejar
import threading
import urllib.error
import urllib.parse
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import col, select

from pbem.db import Database
from pbem.links import Links
from pbem.models import OutboxEmail
from pbem.services import PlayerSpec, Site
from pbem.tournaments.queries import games_of
from pbem.tournaments.service import create_tournament, start_tournament
from pbem.tournaments.tables import Tournament
from tests.support import BACKENDS, MAIL_FROM, SECRET, csrf_of, make_database, start_gunicorn

ATTEMPTS = 3


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def _open(opener: urllib.request.OpenerDirector, url: str,
          data: dict[str, str] | None = None) -> tuple[int, str]:
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    try:
        with opener.open(url, body, timeout=60) as response:
            return int(response.status), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _schema(database: Database) -> dict[str, str]:
    if database.engine.dialect.name == "sqlite":
        return {}
    with database.engine.connect() as connection:
        path = connection.execute(text("SHOW search_path")).scalar_one()
    return {"PBEM_DATABASE_SEARCH_PATH": str(path)}


@pytest.mark.early
@pytest.mark.parametrize("backend", BACKENDS)
def test_two_last_games_ending_together_pair_the_next_round_once(
        backend: str, tmp_path: Path) -> None:
    database, remove = make_database(backend, tmp_path, migrate=True)  # migration 0011 too
    server = start_gunicorn(database.url, workers=3, env=_schema(database))
    try:
        site = Site(Links(SECRET, server.url), MAIL_FROM)
        for attempt in range(ATTEMPTS):
            now = datetime.now(UTC)
            with database.write() as session:
                tournament = create_tournament(
                    session, now, site, name=f"Race {attempt}", game_type="mosey",
                    options={"order": 4}, fmt="swiss", rounds=2,
                    players=[PlayerSpec(n, f"{n}{attempt}@example.test") for n in "abcd"])
                assert tournament.id is not None
                tournament_id = tournament.id
                start_tournament(session, now, site, tournament_id=tournament_id)
            with database.session() as session:
                first = games_of(session, tournament_id)
            assert len(first) == 2
            openers, forms = [], []
            for game in first:  # the first seat of each game resigns
                opener = urllib.request.build_opener(
                    urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
                    _NoRedirect())
                url = site.links.resign_url(game.game_id, 0, holder=game.players[0])
                status, page = _open(opener, url)
                assert status == 200, page
                openers.append((opener, url))
                forms.append({"csrf_token": csrf_of(page)})
            barrier = threading.Barrier(2)
            answers: list[tuple[int, str]] = []

            def resign(opener: urllib.request.OpenerDirector, url: str, form: dict[str, str],
                       barrier: threading.Barrier = barrier,
                       answers: list[tuple[int, str]] = answers) -> None:
                barrier.wait()
                answers.append(_open(opener, url, form))

            threads = [threading.Thread(target=resign, args=(*pair, form))
                       for pair, form in zip(openers, forms, strict=True)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert sorted(status for status, _ in answers) == [303, 303], answers
            with database.session() as session:
                games = games_of(session, tournament_id)
                stored = session.get(Tournament, tournament_id)
                told = session.exec(select(OutboxEmail).where(
                    col(OutboxEmail.subject).contains(f"Race {attempt}: round 2"))).all()
            assert stored is not None and stored.current_round == 2
            second = [g for g in games if g.round == 2]
            assert len(second) == 2 and len(games) == 4
            assert len({p for g in second for p in g.players}) == 4
            assert len(told) == 4
    finally:
        server.stop()
        remove()
