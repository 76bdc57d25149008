"""Which language a page is in: the player's own on their pages, else the visitor's choice.

A page reached through a player's link (move, confirm, resign, their games) is in that player's
language whatever the browser says; a public page (home, rules, errors) follows the switcher's
cookie, else ``Accept-Language``, else ``PBEM_DEFAULT_LANGUAGE``. The switcher only ever
redirects within the site.

The last tests compare pages with the catalogs (``Reader(lang).gettext``): they check that the
words are marked and routed, and become meaningful as the translations are filled in.
"""

from __future__ import annotations

import html
import re
from datetime import datetime

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem import create_app
from pbem.db import Database
from pbem.i18n import LANGUAGE_COOKIE, LANGUAGES, Reader
from pbem.models import GameRecord, Player, Seat
from pbem.positions import current_state, resolve_typed
from pbem.services import Site
from pbem.web import rules
from tests.support import ALICE_BOB, clock_in, start_a_game
from tests.web.sessions import signed_in

TRANSLATED = ("nl", "de", "it")
ACCOUNT_LANGUAGE = 'action="/account/language"'  # the signed-in player's language buttons


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    if "rules.rules_page" not in app.view_functions:
        rules.init_app(app)
    return app.test_client()


def _lang(page: str) -> str:
    match = re.search(r'<html lang="([^"]*)"', page)
    assert match, "the page has no <html lang>"
    return match[1]


def _game(database: Database, now: datetime, site: Site) -> tuple[GameRecord, int]:
    """A started Mosey game and the id of the player to move."""
    game_pk = start_a_game(database, now, site, "mosey", {"order": 4}, players=ALICE_BOB)
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None and row.to_move is not None
        player_id = session.exec(select(Seat.player_id).where(
            Seat.game_id == game_pk, Seat.seat == row.to_move)).one()
    return row, player_id


def _speaks(database: Database, player_id: int, language: str,
            time_zone: str = "Europe/Amsterdam") -> None:
    with database.write() as session:
        player = session.get(Player, player_id)
        assert player is not None
        player.language, player.time_zone = language, time_zone
        session.add(player)


def _move_url(site: Site, row: GameRecord) -> str:
    assert row.id is not None and row.to_move is not None
    return site.links.move_url(row.id, row.to_move, row.ply)


# -- choosing the language -------------------------------------------------------------------


def test_a_players_page_is_in_their_language_whatever_the_browser_says(
    app: Flask, client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    row, player_id = _game(sqlite_database, now, site)
    _speaks(sqlite_database, player_id, "nl")
    url = _move_url(site, row)
    for page_url in (url, f"{url}/confirm?move=no+such+move", site.links.my_games_url(player_id)):
        page = client.get(page_url, headers={"Accept-Language": "de-DE,de;q=0.9"})
        assert _lang(page.text) == "nl", page_url
    client.set_cookie(LANGUAGE_COOKIE, "it")  # the switcher's choice does not override either
    page = client.get(url, headers={"Accept-Language": "de"})
    assert _lang(page.text) == "nl"
    # No switcher that would change nothing: a word on where they choose (no buttons that
    # change their account: a forwarded game link must not). Signed in, their pages have them.
    assert "/language/" not in page.text and "/me/" not in page.text
    assert "Nederlands" in page.text and ACCOUNT_LANGUAGE not in page.text
    mine = signed_in(app, sqlite_database, player_id).get("/account").text
    assert _lang(mine) == "nl"
    assert "/language/" not in mine and ACCOUNT_LANGUAGE in mine


def test_a_signed_in_player_chooses_their_account_language_on_their_own_pages(
    app: Flask, client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    row, player_id = _game(sqlite_database, now, site)
    other_id = next(s.player_id for s in _seats(sqlite_database, row) if s.player_id != player_id)
    url = _move_url(site, row)
    own = signed_in(app, sqlite_database, player_id).get(url).text
    assert ACCOUNT_LANGUAGE in own and "/language/" not in own
    # Someone else, signed in, who opens a forwarded link: the note, never buttons that would
    # change the owner's account.
    forwarded = signed_in(app, sqlite_database, other_id).get(url).text
    assert ACCOUNT_LANGUAGE not in forwarded and "/me/" not in forwarded
    assert "you choose the language on your games page" in forwarded


def _seats(database: Database, row: GameRecord) -> list[Seat]:
    with database.session() as session:
        return list(session.exec(select(Seat).where(Seat.game_id == row.id)))


def test_a_public_page_follows_accept_language(client: FlaskClient) -> None:
    for header, language in (("de-DE,de;q=0.9,en;q=0.5", "de"), ("it", "it"),
                             ("nl-BE", "nl"), ("fr-FR", "en"), ("", "en")):
        for url in ("/", "/rules", "/no-such-page"):
            page = client.get(url, headers={"Accept-Language": header} if header else {})
            assert _lang(page.text) == language, (url, header)


def test_the_switchers_cookie_beats_accept_language(client: FlaskClient) -> None:
    answer = client.get("/language/it", query_string={"next": "/rules?x=1"})
    assert answer.status_code == 302 and answer.location == "/rules?x=1"
    assert LANGUAGE_COOKIE in answer.headers.get("Set-Cookie", "")
    page = client.get("/rules", headers={"Accept-Language": "nl"})
    assert _lang(page.text) == "it"
    client.get("/language/en", query_string={"next": "/"})
    assert _lang(client.get("/", headers={"Accept-Language": "nl"}).text) == "en"


def test_the_switcher_shows_every_language_by_its_own_name(client: FlaskClient) -> None:
    page = client.get("/rules", headers={"Accept-Language": "de"}).text
    for code, name in LANGUAGES.items():
        link = re.search(rf'<a href="(/language/{code}\?[^"]*)"[^>]*>{name}</a>', page)
        assert link, code
        assert "next=%2Frules" in link[1] or "next=/rules" in link[1]
    assert re.search(r'href="/language/de[^"]*"[^>]*aria-current="true"[^>]*>Deutsch<', page)
    assert len(re.findall(r"aria-current=", page)) == 1


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x",
                                    "http:/evil.example", "javascript:alert(1)", "rules"])
def test_the_switcher_never_redirects_off_site(client: FlaskClient, target: str) -> None:
    answer = client.get("/language/nl", query_string={"next": target})
    assert answer.status_code == 302 and answer.location == "/"


def test_an_unknown_language_sets_nothing(client: FlaskClient) -> None:
    answer = client.get("/language/xx", query_string={"next": "/"})
    assert answer.status_code == 302 and LANGUAGE_COOKIE not in answer.headers.get(
        "Set-Cookie", "")


def test_the_default_language_comes_from_the_config(
    sqlite_database: Database, app: Flask,
) -> None:
    german = create_app({**app.config, "DEFAULT_LANGUAGE": "de", "DATABASE": sqlite_database},
                        read_env=False)
    client = german.test_client()
    assert _lang(client.get("/").text) == "de"
    assert _lang(client.get("/", headers={"Accept-Language": "it"}).text) == "it"
    assert _lang(client.get("/", headers={"Accept-Language": "fr"}).text) == "de"


def test_my_games_page_offers_the_four_languages_and_saves_one(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    from tests.support import csrf_of

    _, player_id = _game(sqlite_database, now, site)
    client = signed_in(app, sqlite_database, player_id)
    url = "/account"
    page = client.get(url)
    for code, name in LANGUAGES.items():
        assert re.search(rf'<option value="{code}"[^>]*>{name}</option>', page.text), code
    saved = client.post(url, data={"csrf_token": csrf_of(page.text), "name": "Alice",
                                   "time_zone": "Europe/Rome", "language": "it"})
    assert saved.status_code == 303
    again = client.get(saved.location, headers={"Accept-Language": "nl"})
    assert _lang(again.text) == "it"
    assert '<option value="it" lang="it" selected>Italiano</option>' in again.text
    with sqlite_database.session() as session:
        player = session.get(Player, player_id)
        assert player is not None and (player.language, player.time_zone) == ("it", "Europe/Rome")


def test_a_player_page_shows_dates_in_their_language_and_zone(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    row, player_id = _game(sqlite_database, now, site)
    assert row.id is not None
    deadline = clock_in(sqlite_database, row.id).deadline
    assert deadline is not None, "the game has a deadline"
    _speaks(sqlite_database, player_id, "nl", "Europe/Amsterdam")
    assert row.id is not None and row.to_move is not None
    own_view = site.links.seat_view_url(row.id, row.to_move)
    page = signed_in(app, sqlite_database, player_id).get(own_view).text
    assert Reader("nl", "Europe/Amsterdam").when(deadline) in html.unescape(page)


# -- the words themselves (meaningful once the catalogs are translated) -----------------------


MOVE_PAGE_PHRASES = ("Your move", "Nothing is played until you confirm on the next page.",
                     "Or type your move:", "Terms used in this game")


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_move_page_is_translated(
    language: str, client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    row, player_id = _game(sqlite_database, now, site)
    _speaks(sqlite_database, player_id, language)
    page = html.unescape(client.get(_move_url(site, row)).text)
    reader = Reader(language)
    for msgid in MOVE_PAGE_PHRASES:
        words = reader.gettext(msgid)
        assert words != msgid, f"{msgid!r} has no {language} translation"
        assert words in page, words


@pytest.mark.parametrize("language", TRANSLATED)
def test_an_illegal_move_is_refused_in_the_players_language(
    language: str, client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    row, player_id = _game(sqlite_database, now, site)
    _speaks(sqlite_database, player_id, language)
    game, state = current_state(row)
    reader = Reader(language)
    for typed in ("Z99-Q1", "no such move"):
        page = client.get(f"{_move_url(site, row)}/confirm", query_string={"move": typed})
        assert page.status_code == 422
        reason = resolve_typed(game, state, typed, reader=reader).reason
        words = reader.text(reason)
        assert words != str(reason), f"{reason.msgid!r} has no {language} translation"
        assert words in html.unescape(page.text), words
