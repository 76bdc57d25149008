"""Signed links: damaged, stale and cross-seat tokens are refused; GET and HEAD never commit."""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

import pytest
from flask.testing import FlaskClient
from itsdangerous import URLSafeSerializer
from sqlmodel import select

from pbem.db import Database
from pbem.links import FIELDS, MAX_FIELD, SEAT_PURPOSES, VERSIONED, DamagedLink, Links
from pbem.models import GameRecord, Move, OutboxEmail
from pbem.positions import current_state
from pbem.services import Site
from tests.support import start_a_game


def _started(database: Database, now: datetime, site: Site, game_id: str) -> tuple[int, Any, Any]:
    game_pk = start_a_game(database, now, site, game_id)
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None
    game, state = current_state(row)
    return game_pk, game, state


def _counts(database: Database) -> tuple[int, int, int]:
    with database.session() as session:
        game = session.exec(select(GameRecord)).one()
        return (game.ply, len(session.exec(select(Move)).all()),
                len(session.exec(select(OutboxEmail)).all()))


def test_tokens_are_bound_to_their_purpose_and_secret() -> None:
    links = Links("one secret", "http://x")
    token = links.sign("move", game=1, seat=0, ply=3)
    assert links.load("move", token) == {"game": 1, "seat": 0, "ply": 3}
    for purpose in ("invite", "resign", "player", "unsubscribe", "seat-view"):
        with pytest.raises(DamagedLink):
            links.load(purpose, token)  # type: ignore[arg-type]
    with pytest.raises(DamagedLink):
        Links("another secret", "http://x").load("move", token)
    with pytest.raises(DamagedLink):
        links.load("move", token[:-3] + ("AAA" if not token.endswith("AAA") else "BBB"))


def test_tokens_are_those_itsdangerous_makes_so_mailed_links_keep_working() -> None:
    """Links sign with a key derived once (a home signs 300 links), yet each token is byte for
    byte what an itsdangerous serializer of the purpose's salt makes, as every mailed link was."""
    links = Links("one secret", "http://x")
    rng = random.Random(36)
    for purpose, needed in FIELDS.items():
        serializer = URLSafeSerializer("one secret", salt=f"pbem-{purpose}")
        for _ in range(200):
            extra = rng.choice([(), ("p",) if purpose in SEAT_PURPOSES
                                else ("v",) if purpose in VERSIONED else ()])
            fields = {name: rng.choice([0, 7, rng.randrange(MAX_FIELD), 1111111111, MAX_FIELD])
                      for name in (*sorted(needed), *extra)}
            token = links.sign(purpose, **fields)
            assert token == serializer.dumps(fields)
            assert links.load(purpose, token) == fields


@pytest.mark.parametrize("path", ["/play/{}", "/play/{}/confirm?move=pass", "/invite/{}",
                                  "/seat/{}", "/resign/{}", "/me/{}", "/unsubscribe/{}"])
def test_a_tampered_link_gets_a_clear_page(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
    path: str,
) -> None:
    game_pk, _, _ = _started(sqlite_database, now, site, any_game)
    good = site.links.sign("move", game=game_pk, seat=0, ply=0)
    tampered = good.replace(good.split(".")[0], site.links.sign("move", game=game_pk, seat=1,
                                                                ply=0).split(".")[0])
    for token in (tampered, good[:-5], "garbage"):
        page = client.get(path.format(token))
        assert page.status_code == 400
        assert "This link is damaged" in page.text
    assert _counts(sqlite_database)[0] == 0


def test_a_stale_link_shows_the_current_game(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
    csrf: Any,
) -> None:
    game_pk, game, state = _started(sqlite_database, now, site, any_game)
    seat = game.to_move(state)
    url = site.links.move_url(game_pk, seat, 0)
    move = str(game.random_move(state, random.Random(1)))
    confirm = client.get(f"{url}/confirm", query_string={"move": move})
    token = csrf(confirm.text)
    assert client.post(f"{url}/confirm", data={"csrf_token": token, "move": move}).status_code in (
        302, 303)
    again = client.get(url)
    assert again.status_code == 409
    assert "The game has moved on" in again.text and move in again.text
    # Submitting the same form again (a double click, a second window) plays nothing more.
    second = client.post(f"{url}/confirm", data={"csrf_token": token, "move": move})
    assert second.status_code == 409 and "moved on" in second.text
    assert _counts(sqlite_database)[:2] == (1, 1)


def test_a_link_for_another_seat_cannot_move(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
    csrf: Any,
) -> None:
    game_pk, game, state = _started(sqlite_database, now, site, any_game)
    other = (game.to_move(state) + 1) % game.num_players
    url = site.links.move_url(game_pk, other, 0)
    assert client.get(url).status_code == 403
    move = str(game.random_move(state, random.Random(1)))
    mine = site.links.move_url(game_pk, game.to_move(state), 0)
    page = client.get(f"{mine}/confirm", query_string={"move": move})  # for a CSRF token
    answer = client.post(f"{url}/confirm", data={"csrf_token": csrf(page.text), "move": move})
    assert answer.status_code == 403
    assert _counts(sqlite_database)[:2] == (0, 0)


def test_get_and_head_never_commit(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
) -> None:
    """Mail scanners fetch every link, some with HEAD: nothing may change."""
    game_pk, game, state = _started(sqlite_database, now, site, any_game)
    seat = game.to_move(state)
    before = _counts(sqlite_database)
    move = str(game.random_move(state, random.Random(1)))
    urls = [site.links.move_url(game_pk, seat, 0),
            site.links.move_url(game_pk, seat, 0) + f"/confirm?move={move}",
            site.links.resign_url(game_pk, seat), site.links.invite_url(game_pk, seat),
            site.links.unsubscribe_url(1), site.links.my_games_url(1)]
    for url in urls:
        for method in (client.get, client.head):
            assert method(url).status_code == 200, url
    assert _counts(sqlite_database) == before
    with sqlite_database.session() as session:
        assert session.exec(select(GameRecord)).one().status == "active"


def test_posts_need_the_csrf_token(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
) -> None:
    game_pk, game, state = _started(sqlite_database, now, site, any_game)
    url = site.links.move_url(game_pk, game.to_move(state), 0)
    move = str(game.random_move(state, random.Random(1)))
    assert client.post(f"{url}/confirm", data={"move": move}).status_code == 400
    assert client.post(site.links.resign_url(game_pk, 0)).status_code == 400
    assert _counts(sqlite_database)[:2] == (0, 0)


def test_token_pages_send_no_referrer(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
) -> None:
    game_pk, game, state = _started(sqlite_database, now, site, any_game)
    for url in (site.links.move_url(game_pk, game.to_move(state), 0),
                site.links.seat_view_url(game_pk, 0), site.links.my_games_url(1)):
        page = client.get(url)
        assert page.headers["Referrer-Policy"] == "no-referrer"
