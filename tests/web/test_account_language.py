"""Every page a signed-in player opens is in their account's language (issue 33): the switcher's
cookie and the browser's Accept-Language count only for visitors. A signed-in player's pages
offer language buttons whose POST changes the account; the switcher's links (a GET) store
nothing, and set only the cookie that counts once the player signs out.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem.db import Database
from pbem.i18n import LANGUAGE_COOKIE
from pbem.models import AuditEntry, Player
from tests.support import csrf_of
from tests.web.sessions import signed_in

ENGLISH_BROWSER = {"Accept-Language": "en-GB,en;q=0.9"}


def _lang(page: str) -> str:
    match = re.search(r'<html lang="([^"]*)"', page)
    assert match, "the page has no <html lang>"
    return match[1]


@pytest.fixture
def ann(sqlite_database: Database) -> int:
    """Ann, whose account is in Dutch, and Bob, whom she challenges."""
    with sqlite_database.write() as session:
        for name in ("Ann", "Bob"):
            session.add(Player(name=name, email=f"{name.lower()}@example.test", language="nl",
                               created_at=datetime.now(UTC)))
        session.flush()
        found = session.exec(select(Player.id).where(Player.name == "Ann")).one()
    assert found is not None
    return found


def _language_of(database: Database, player_id: int) -> str:
    with database.session() as session:
        player = session.get(Player, player_id)
    assert player is not None
    return player.language


def test_challenge_pages_are_in_the_account_language_whatever_the_browser_says(
    app: Flask, sqlite_database: Database, ann: int,
) -> None:
    """The worst defect of the review: the pages flipped to English halfway through starting a
    game, following the browser's Accept-Language instead of the account."""
    browser = signed_in(app, sqlite_database, ann)
    browser.set_cookie(LANGUAGE_COOKIE, "de")  # a choice made before signing in
    for url in ("/challenges/new", "/challenges/new?game=mosey", "/challenges", "/account",
                "/account/computer", "/seeks", "/rules/mosey", "/no/such/page"):
        page = browser.get(url, headers=ENGLISH_BROWSER)
        assert _lang(page.text) == "nl", url
    form = browser.get("/challenges/new?game=mosey", headers=ENGLISH_BROWSER).text
    made = browser.post("/challenges/new", headers=ENGLISH_BROWSER, data={
        "csrf_token": csrf_of(form), "game": "mosey", "option-order": "4", "kind": "invite",
        "invitees": "bob@example.test", "time_control": "3d per move", "policy": "default",
        "seat_order": "first"})
    assert made.status_code == 303, made.text
    challenge = browser.get(made.location, headers=ENGLISH_BROWSER)
    assert "/challenges/" in made.location and _lang(challenge.text) == "nl"


def test_the_account_language_wins_over_the_switchers_cookie(
    app: Flask, sqlite_database: Database, ann: int,
) -> None:
    browser = signed_in(app, sqlite_database, ann)
    browser.set_cookie(LANGUAGE_COOKIE, "it")
    assert _lang(browser.get("/account", headers=ENGLISH_BROWSER).text) == "nl"
    # Signed out, the same browser's cookie counts again.
    page = browser.get("/sign-out")
    browser.post("/sign-out", data={"csrf_token": csrf_of(page.text)})
    assert _lang(browser.get("/rules", headers=ENGLISH_BROWSER).text) == "it"


def test_choosing_a_language_while_signed_in_is_a_post_that_changes_the_account(
    app: Flask, sqlite_database: Database, ann: int,
) -> None:
    browser = signed_in(app, sqlite_database, ann)
    page = browser.get("/challenges", headers=ENGLISH_BROWSER).text
    assert 'action="/account/language"' in page and 'value="/challenges"' in page
    assert 'href="/language/' not in page  # no link that would change nothing
    answer = browser.post("/account/language", data={
        "csrf_token": csrf_of(page), "language": "de", "next": "/challenges"})
    assert answer.status_code == 303 and answer.location.endswith("/challenges")
    assert _language_of(sqlite_database, ann) == "de"
    assert _lang(browser.get("/challenges", headers=ENGLISH_BROWSER).text) == "de"
    # The cookie follows, so the site stays German after signing out.
    cookie = browser.get_cookie(LANGUAGE_COOKIE)
    assert cookie is not None and cookie.value == "de"
    # Another site's address is no place to go back to; an unknown language changes nothing.
    away = browser.post("/account/language", data={
        "csrf_token": csrf_of(page), "language": "fr", "next": "//evil.test/"})
    assert away.status_code == 303 and away.location.endswith("/account")
    assert _language_of(sqlite_database, ann) == "de"


def test_the_switchers_link_stores_nothing_for_a_signed_in_player(
    app: Flask, sqlite_database: Database, ann: int,
) -> None:
    browser = signed_in(app, sqlite_database, ann)
    with sqlite_database.session() as session:
        audits = len(session.exec(select(AuditEntry)).all())
    answer = browser.get("/language/it?next=/account")
    assert answer.status_code == 302
    assert _language_of(sqlite_database, ann) == "nl"  # a GET changes no account
    with sqlite_database.session() as session:
        assert len(session.exec(select(AuditEntry)).all()) == audits
    assert _lang(browser.get("/account").text) == "nl"


def test_a_visitor_still_chooses_with_the_switchers_links(client: FlaskClient) -> None:
    page = client.get("/", headers=ENGLISH_BROWSER).text
    assert 'href="/language/nl?next=/"' in page and "/account/language" not in page
    client.get("/language/nl?next=/")
    assert _lang(client.get("/", headers=ENGLISH_BROWSER).text) == "nl"
    # Without a session the account's buttons do nothing but send the visitor to sign in.
    answer = client.post("/account/language", data={
        "csrf_token": csrf_of(page), "language": "de"})
    assert answer.status_code == 303 and "/sign-in" in answer.location
