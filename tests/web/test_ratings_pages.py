"""The public leaderboards, the rating graph, and ratings on the games page and a game's page.

Ratings are written here as rows (PlayerRating, RatingChange, Game.rated), as the rating service
stores them, so these tests are about what the pages show, not how ratings are computed.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem.db import Database
from pbem.i18n import Reader
from pbem.models import GameRecord, Player
from pbem.ratings.model import Rating
from pbem.ratings.tables import PlayerRating, RatingChange
from pbem.services import Site
from pbem.web.rating_graph import history_svg
from tests.support import ALICE_BOB, start_a_game
from tests.web.sessions import signed_in

SVG = "{http://www.w3.org/2000/svg}"
# name: (mu, sigma, rated games); shown = 1500 + 60 (mu - 3 sigma)
PEOPLE = {"Ann": (27.0, 4.0, 12), "Ben": (26.0, 4.0, 8), "Cat": (35.0, 3.0, 3),
          "Dan": (25.0, 25 / 3, 0), "Eve": (25.0, 7.0, 1)}


def _player(database: Database, now: datetime, name: str) -> int:
    with database.write() as session:
        player = Player(name=name, email=f"{name.lower()}.rated@example.test", created_at=now)
        session.add(player)
        session.flush()
        assert player.id is not None
        return player.id


def _rate(database: Database, now: datetime, player_id: int, mu: float, sigma: float,
          games: int, game_type: str = "mosey") -> None:
    with database.write() as session:
        session.add(PlayerRating(player_id=player_id, game_type=game_type, mu=mu, sigma=sigma,
                                 games=games, updated_at=now))


def _leaderboard(database: Database, now: datetime) -> dict[str, int]:
    ids = {name: _player(database, now, name) for name in PEOPLE}
    for name, (mu, sigma, games) in PEOPLE.items():
        _rate(database, now, ids[name], mu, sigma, games)
    return ids


ROW = re.compile(r'<tr[^>]*><td>([^<]*)</td><th scope="row">([^<]*)</th>'
                 r"<td>(.*?)</td><td>(\d+)</td></tr>")


def _rows(page: str) -> list[tuple[str, str, str, str]]:
    """(rank, name, rating cell, games) of each row of the leaderboard's table."""
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [(rank, name, re.sub(r"<[^>]+>", "", rating).strip(), games)
            for rank, name, rating, games in ROW.findall(body)]


def test_the_leaderboard_ranks_established_players_then_lists_provisional_ones(
    client: FlaskClient, sqlite_database: Database, now: datetime,
) -> None:
    _leaderboard(sqlite_database, now)
    page = client.get("/ratings/mosey")
    assert page.status_code == 200
    shown = {name: str(Rating(mu, sigma, games).shown) for name, (mu, sigma, games)
             in PEOPLE.items()}
    assert int(shown["Cat"]) > int(shown["Ann"]) > int(shown["Ben"])  # Cat is best, but new
    assert _rows(page.text) == [
        ("1", "Ann", shown["Ann"], "12"), ("2", "Ben", shown["Ben"], "8"),
        ("–", "Cat", f"{shown['Cat']} (provisional)", "3"),
        ("–", "Eve", f"{shown['Eve']} (provisional)", "1")]  # Dan has no rated game
    assert "<caption>" in page.text and '<th scope="col">' in page.text


def test_public_rating_pages_show_no_addresses(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    _leaderboard(sqlite_database, now)
    game_pk = start_a_game(sqlite_database, now, site, "mosey", {"order": 4}, players=ALICE_BOB)
    with sqlite_database.write() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None
        row.rated = True
        session.add(row)
        public_id = row.public_id
    for url in ("/ratings", "/ratings/mosey", f"/g/{public_id}"):
        page = client.get(url)
        assert page.status_code == 200, url
        shown = re.sub(r"<style>.*?</style>", "", page.text, flags=re.S)  # "@media" is CSS
        assert "@" not in shown and "example.test" not in shown, url


def test_the_index_lists_only_games_with_ratings(
    client: FlaskClient, sqlite_database: Database, now: datetime,
) -> None:
    assert "/ratings/" not in client.get("/ratings").text
    _leaderboard(sqlite_database, now)
    page = client.get("/ratings").text
    assert 'href="/ratings/mosey"' in page and "Mosey leaderboard" in page
    assert "/ratings/stigmergy" not in page
    assert 'href="/ratings"' in client.get("/").text  # the home page links the leaderboards


def test_an_unknown_game_id_is_not_found(client: FlaskClient) -> None:
    assert client.get("/ratings/no-such-game").status_code == 404
    empty = client.get("/ratings/mosey")  # a game nobody is rated in yet
    assert empty.status_code == 200 and "Nobody has a rating in Mosey yet." in empty.text


def test_the_leaderboard_is_capped(
    client: FlaskClient, sqlite_database: Database, now: datetime, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pbem.web import ratings

    monkeypatch.setattr(ratings, "LIMIT", 3)
    _leaderboard(sqlite_database, now)
    page = client.get("/ratings/mosey").text
    assert [row[1] for row in _rows(page)] == ["Ann", "Ben", "Cat"]
    assert "Only the first 3 players are shown." in page


def test_the_dutch_leaderboard_is_in_dutch(
    client: FlaskClient, sqlite_database: Database, now: datetime,
) -> None:
    _leaderboard(sqlite_database, now)
    page = client.get("/ratings/mosey", headers={"Accept-Language": "nl"}).text
    dutch = Reader("nl")
    for message in ("Rank", "Rated games", "provisional", "All leaderboards"):
        assert dutch.gettext(message) != message, message
        assert dutch.gettext(message) in page, message
    assert dutch.gettext("%(game)s leaderboard", game="Mosey") in page
    assert "leaderboard" not in page and "(provisional)" not in page
    index = client.get("/ratings", headers={"Accept-Language": "nl"}).text
    assert dutch.gettext("%(game)s leaderboard", game="Mosey") in index


@pytest.mark.parametrize("count", [1, 2, 12])
def test_the_graph_has_a_point_per_game_and_names_first_and_last(count: int) -> None:
    values = [1500 + 11 * n * (-1) ** n for n in range(count)]
    svg = history_svg(values, title="History", summary=f"from {values[0]} to {values[-1]}",
                      point_title=lambda number, rating: f"game {number}: {rating}")
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.get("role") == "img"
    assert root.find(f"{SVG}title") is not None
    assert root.get("aria-label") == f"from {values[0]} to {values[-1]}"
    dots = list(root.iter(f"{SVG}circle"))
    assert len(dots) == count
    assert [dot.findtext(f"{SVG}title") for dot in dots] == [
        f"game {n + 1}: {value}" for n, value in enumerate(values)]
    assert len(list(root.iter(f"{SVG}polyline"))) == (count > 1)
    assert not list(root.iter(f"{SVG}script")) and not list(root.iter(f"{SVG}style"))
    english = ET.fromstring(history_svg(values, title="History")).get("aria-label")
    assert english == (f"Rating {values[0]} to {values[-1]} over {count} game"
                       + ("s" if count > 1 else ""))


def _alice_and_bob(database: Database, now: datetime, site: Site, games: int) -> tuple[int, int,
                                                                                       list[int]]:
    """Alice with ``games`` rated Mosey games (her rating rises), Bob with none; the games."""
    game_pks = [start_a_game(database, now, site, "mosey", {"order": 4}, players=ALICE_BOB)
                for _ in range(max(games, 1))]
    with database.write() as session:
        alice, bob = (session.exec(select(Player).where(Player.name == name)).one()
                      for name in ("Alice", "Bob"))
        assert alice.id is not None and bob.id is not None
        mu, sigma = 25.0, 25 / 3
        for number, game_pk in enumerate(game_pks[:games]):
            row = session.get(GameRecord, game_pk)
            assert row is not None
            row.rated = True
            session.add(row)
            session.add(RatingChange(game_id=game_pk, player_id=alice.id, game_type="mosey",
                                     mu_before=mu, sigma_before=sigma, mu_after=mu + 1,
                                     sigma_after=sigma - 0.5,
                                     at=now + timedelta(days=number)))
            mu, sigma = mu + 1, sigma - 0.5
        if games:
            session.add(PlayerRating(player_id=alice.id, game_type="mosey", mu=mu, sigma=sigma,
                                     games=games, updated_at=now))
        return alice.id, bob.id, game_pks


def test_my_games_shows_ratings_with_their_graph_only_when_there_are_some(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    alice, bob, _ = _alice_and_bob(sqlite_database, now, site, 3)
    page = signed_in(app, sqlite_database, alice).get("/account").text
    assert 'id="ratings"' in page and 'href="/ratings/mosey"' in page
    svg = page.split('<div class="graph">', 1)[1].split("</div>", 1)[0]
    root = ET.fromstring(svg)
    first = Rating(26.0, 25 / 3 - 0.5).shown
    last = Rating(28.0, 25 / 3 - 1.5, 3)
    assert len(list(root.iter(f"{SVG}circle"))) == 3
    assert root.get("aria-label") == f"Rating {first} to {last.shown} over 3 games"
    assert f"Your rating: {last.shown} after 3 rated games." in page and "(provisional)" in page
    assert 'id="ratings"' not in signed_in(app, sqlite_database, bob).get("/account").text


def test_a_rated_games_page_shows_each_players_rating(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    _alice, _bob, [game_pk, *_] = _alice_and_bob(sqlite_database, now, site, 1)
    unrated = start_a_game(sqlite_database, now, site, "mosey", {"order": 4}, players=ALICE_BOB)
    with sqlite_database.session() as session:
        rated_row, unrated_row = session.get(GameRecord, game_pk), session.get(GameRecord, unrated)
        assert rated_row is not None and unrated_row is not None
    page = client.get(f"/g/{rated_row.public_id}").text
    shown = Rating(26.0, 25 / 3 - 0.5, 1).shown
    assert f"rating {shown} (provisional)" in page and "no rating yet" in page  # Bob
    assert "Rated: the result counts" in page and 'href="/ratings/mosey"' in page
    page = client.get(f"/g/{unrated_row.public_id}").text
    assert "Not rated: the result changes no rating." in page and "rating 15" not in page


# -- in a real browser: axe-core, and the graph on a phone -----------------------------------------

from tests.browser_support import CHROMIUM, axe_violations  # noqa: E402
from tests.web.test_browser_pages import (  # noqa: E402 (the browser tests' server and Chromium)
    Site_,
    _split,
    browser,  # noqa: F401 (a fixture)
    new_page_fixture,  # noqa: F401 (the new_page fixture)
    open_my_games,
    served,  # noqa: F401 (a fixture)
)


@pytest.fixture(scope="module")
def rated_urls(served: Site_) -> dict[str, str]:  # noqa: F811 (the fixture above)
    now = datetime.now(UTC)
    ids = _leaderboard(served.database, now)
    with served.database.write() as session:
        game = session.exec(select(GameRecord).where(GameRecord.game_type == "mosey")).first()
        assert game is not None and game.id is not None
        game.rated = True
        session.add(game)
        session.add(RatingChange(game_id=game.id, player_id=ids["Ann"], game_type="mosey",
                                 mu_before=25.0, sigma_before=25 / 3, mu_after=27.0,
                                 sigma_after=4.0, at=now))
        public_id = game.public_id
    me = served.site.links.my_games_url(ids["Ann"])
    return {"ratings": f"{served.base}/ratings", "leaderboard": f"{served.base}/ratings/mosey",
            "my games with ratings": f"{served.base}/{me.split('/', 3)[3]}",
            "rated game": f"{served.base}/g/{public_id}"}


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")
@pytest.mark.parametrize("name", ["ratings", "leaderboard", "my games with ratings",
                                  "rated game"])
@pytest.mark.parametrize("width", [1280, 390])
def test_rating_pages_pass_axe_and_fit_a_phone(
    name: str, width: int, rated_urls: dict[str, str], new_page: Any,
    served: Site_,  # noqa: F811 (the fixture imported above)
) -> None:
    page = new_page(width)
    response = page.goto(rated_urls[name])
    assert response is not None and response.status == 200, name
    if name == "my games with ratings":
        open_my_games(page, served)
    around, inside = _split(axe_violations(page))
    assert not around and not inside, f"{name}:\n" + "\n".join([*around, *inside])
    assert page.evaluate("document.documentElement.scrollWidth") <= width, name
