"""Player profiles: name, ratings with their graph, listed games in progress and finished with
the right results; hidden on request (the player's games page), except to the player signed in.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import pbem.web.profiles
from pbem.db import Database
from pbem.models import GameRecord, Player
from pbem.ratings.model import Rating
from pbem.ratings.tables import PlayerRating, RatingChange
from pbem.services import PlayerSpec, Site, resign
from tests.support import csrf_of, start_a_game
from tests.web.sessions import signed_in

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
QUICK, QUICK_OPTIONS = "refugia", {"board": "2-3"}


def person(name: str) -> PlayerSpec:
    return PlayerSpec(name, f"{name.lower()}@example.test")


def game_between(database: Database, site: Site, first: str, second: str, *,
                 resigns: int | None = None, listed: bool = True) -> str:
    """A started game (``resigns``: that seat resigned, so it is finished); its public id."""
    pk = start_a_game(database, NOW, site, QUICK, QUICK_OPTIONS,
                      players=[person(first), person(second)], listed=listed)
    with database.write() as session:
        if resigns is not None:
            resign(session, NOW + timedelta(hours=1), site, game_id=pk, seat=resigns)
        row = session.get(GameRecord, pk)
        assert row is not None
        return row.public_id


def player_id(database: Database, name: str) -> int:
    with database.session() as session:
        found = session.exec(select(Player).where(Player.name == name)).one()
        assert found.id is not None
        return found.id


def items(page: str, section: str) -> list[str]:
    """The list items of a section of the profile, as text without the seats' colours
    ("Alice (White)" is "Alice")."""
    part = page.split(f'<h2 id="{section}">', 1)[1].split("<h2", 1)[0]
    text = [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", item)).strip()
            for item in re.findall(r"<li>(.*?)</li>", part, re.S)]
    return [re.sub(r" \((?:White|Black)\)", "", line) for line in text]


def test_a_profile_shows_listed_games_with_the_right_results(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    won = game_between(sqlite_database, site, "Alice", "Bob", resigns=1)
    lost = game_between(sqlite_database, site, "Carol", "Alice", resigns=1)
    playing = game_between(sqlite_database, site, "Alice", "Dan")
    secret = game_between(sqlite_database, site, "Alice", "Eve", resigns=0, listed=False)
    page = client.get(f"/players/{player_id(sqlite_database, 'Alice')}")
    assert page.status_code == 200
    assert "<h1>Alice</h1>" in page.text
    finished = items(page.text, "finished")
    assert len(finished) == 2
    assert any(line.startswith("Refugia") and "against Bob" in line and "won: Bob resigned;"
               " Alice won." in line for line in finished), finished
    assert any("against Carol" in line and "lost: Alice resigned; Carol won." in line
               for line in finished), finished
    assert [line for line in items(page.text, "playing")] == ["Refugia: against Dan"]
    # The finished games link their replays, the running one its page; the unlisted one is
    # nowhere, nor its opponent.
    assert f"/games/{won}/replay" in page.text and f"/games/{lost}/replay" in page.text
    assert f"/g/{playing}" in page.text
    assert secret not in page.text and "Eve" not in page.text
    # Other players are linked to their profiles; no address is ever shown.
    assert f'href="/players/{player_id(sqlite_database, "Bob")}"' in page.text
    assert "@example.test" not in page.text
    bob = client.get(f"/players/{player_id(sqlite_database, 'Bob')}").text
    assert any("lost: Bob resigned; Alice won." in line for line in items(bob, "finished"))


def test_ratings_with_their_history_graph(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    game = game_between(sqlite_database, site, "Alice", "Bob", resigns=1)
    alice = player_id(sqlite_database, "Alice")
    with sqlite_database.write() as session:
        row = session.exec(select(GameRecord).where(GameRecord.public_id == game)).one()
        session.add(RatingChange(game_id=row.id, player_id=alice, game_type="mosey",
                                 mu_before=25.0, sigma_before=25 / 3, mu_after=27.0,
                                 sigma_after=6.0, at=NOW))
        session.add(PlayerRating(player_id=alice, game_type="mosey", mu=27.0, sigma=6.0,
                                 games=1, updated_at=NOW))
    page = client.get(f"/players/{alice}").text
    shown = Rating(27.0, 6.0, 1).shown
    assert f"Rating {shown} after 1 rated game." in page and "(provisional)" in page
    assert '<div class="graph"><svg' in page
    # The graph's axis reads "1" over "rated game": one game, not "1 rated games".
    assert ">rated game</text>" in page and "rated games" not in page
    assert "<title>Alice&#x27;s Mosey rating, game by game</title>" in page or \
        "<title>Alice's Mosey rating, game by game</title>" in page
    assert 'href="/ratings/mosey"' in page
    assert 'id="ratings"' not in client.get(
        f"/players/{player_id(sqlite_database, 'Bob')}").text  # no rated game: no ratings


def test_a_player_hides_their_profile_on_their_games_page(
        app: Flask, client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    game_between(sqlite_database, site, "Alice", "Bob", resigns=1)
    alice = player_id(sqlite_database, "Alice")
    me = "/account"
    browser = signed_in(app, sqlite_database, alice)  # her own browser
    games_page = browser.get(me).text
    form = games_page.split('<h2 id="profile">', 1)[1].split("</form>", 1)[0]
    assert f'href="/players/{alice}"' in form and "checked" not in form
    hidden = browser.post(me, data={"csrf_token": csrf_of(games_page), "action": "profile",
                                    "profile_hidden": "on"})
    assert hidden.status_code == 303 and hidden.headers["Location"].endswith("#profile")
    games_page = browser.get(me).text
    assert "checked" in games_page.split('<h2 id="profile">', 1)[1].split("</form>", 1)[0]
    # Others get a 404 that says why; her name is no longer a link in lists.
    refused = client.get(f"/players/{alice}")
    assert refused.status_code == 404 and "This profile is hidden" in refused.text
    assert "Refugia" not in refused.text
    archive = client.get("/archive").text
    assert "Alice" in archive and f'href="/players/{alice}"' not in archive
    assert f'href="/players/{player_id(sqlite_database, "Bob")}"' in archive
    # She still sees it, signed in, with a note that it is hidden.
    own = signed_in(app, sqlite_database, alice).get(f"/players/{alice}")
    assert own.status_code == 200 and "Your profile is hidden" in own.text
    bob = signed_in(app, sqlite_database, player_id(sqlite_database, "Bob"))
    assert bob.get(f"/players/{alice}").status_code == 404  # another player does not
    # Unticking the box shows it again; a forged form without the token changes nothing.
    assert browser.post(me, data={"action": "profile"}).status_code == 400
    assert client.get(f"/players/{alice}").status_code == 404
    browser.post(me, data={"csrf_token": csrf_of(browser.get(me).text), "action": "profile"})
    assert client.get(f"/players/{alice}").status_code == 200


def test_unknown_players_are_not_found(client: FlaskClient) -> None:
    assert client.get("/players/12345").status_code == 404
    assert client.get("/players/alice").status_code == 404


def test_a_long_list_of_finished_games_points_to_the_archive(
        client: FlaskClient, sqlite_database: Database, site: Site,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pbem.web.profiles, "MAX_FINISHED", 1)
    game_between(sqlite_database, site, "Alice", "Bob", resigns=1)
    game_between(sqlite_database, site, "Alice", "Carol", resigns=1)
    page = client.get(f"/players/{player_id(sqlite_database, 'Alice')}").text
    assert len(items(page, "finished")) == 1
    assert 'href="/archive?player=Alice"' in page
