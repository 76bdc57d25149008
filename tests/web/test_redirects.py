"""Every ``next`` goes through one rule (pbem.web.redirects.safe_next), checked against the WHATWG
URL standard as ada implements it (the parser of Node.js; ``ada-url`` on PyPI): whatever the rule
keeps, a browser resolves on this site. Then the flows that follow a ``next``: a player's sign-in
(issue #31: ``/sign-in?next=%2F%09%2Fevil.test`` ended at ``Location: //evil.test``), sign-up,
and an organiser's login.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, unquote

import ada_url
import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlmodel import select

from pbem.admin.accounts import create_admin
from pbem.db import Database
from pbem.models import OutboxEmail, Player
from pbem.web.redirects import MAX_NEXT, safe_next
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD, BASE_URL, csrf_of

SITE = "https://pbem.example"
PAGE = f"{SITE}/sign-in/abc"  # the page whose answer carries the Location

KEPT = [
    "/", "/seeks", "/account#settings", "/games/abc/replay?ply=3", "/archive?player=Zo%C3%AB",
    "/players/Zoë", "/a//b", "/a/b/", "/javascript:alert(1)", "/x?next=//evil.test",
    "/admin/games/3?tab=moves#log", "/%41", "/a.b/c..d/.e",
]
REFUSED = [
    None, "", "seeks", "./seeks", "?x=1", "#x", "x/y",
    # another host, the plain ways
    "//evil.test", "///evil.test", "////evil.test", "//evil.test/a", "//127.0.0.1",
    # backslashes: a slash to browsers in http(s) URLs
    "/\\evil.test", "\\\\evil.test", "\\/evil.test", "/\\/evil.test", "/a\\b",
    # tabs and newlines: browsers drop them before parsing
    "/\t/evil.test", "/\n/evil.test", "/\r/evil.test", "/\r\n/evil.test", "\t//evil.test",
    "//\tevil.test", "/\t\\evil.test", "/a\r\nLocation: https://evil.test",
    # leading and trailing C0 controls and spaces: stripped before parsing
    " //evil.test", " /seeks", "/seeks ", "\x00//evil.test", "\x1f//evil.test", "/seeks\x00",
    # the other controls, and Unicode's spaces and formats (invisible, or spoofing the address)
    "/\x00/evil.test", "/\x0b/evil.test", "/\x0c/evil.test", "/\x7f/evil.test",
    "/\x85/evil.test", "/\u00a0/evil.test", "/\u2028/evil.test", "/\u3000/evil.test",
    "/\u200b/evil.test", "/\u202e/evil.test", "/\ufeff/evil.test", "/a b",
    # schemes
    "https://evil.test", "https:evil.test", "https:/evil.test", "http:\\\\evil.test",
    "HTTPS://evil.test", "javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,x",
    "mailto:x@evil.test", "evil.test:443/x",
    # percent-encoded once: a proxy or framework that decodes them would see the above
    "/%09/evil.test", "/%0a/evil.test", "/%0D%0A/evil.test", "%2F%2Fevil.test",
    "/%2F/evil.test", "/%2f%2fevil.test", "/%5Cevil.test", "/%5cevil.test", "/%00x",
    "/%20/evil.test", "/%E2%80%AE/evil.test",
    # dot segments: "/.//evil" resolves to the path "//evil"
    "/.//evil.test", "/./seeks", "/../evil.test", "/a/../..//evil.test", "/%2e//evil.test",
    "/%2E%2E/x", "/a/.", "/a/..", "/.?x", "/..#x",
    # longer than any link of ours
    "/" + "a" * MAX_NEXT,
]


@pytest.mark.parametrize("target", KEPT)
def test_a_path_on_this_site_is_kept_as_it_is(target: str) -> None:
    assert safe_next(target) == target


@pytest.mark.parametrize("target", REFUSED)
def test_anything_else_is_refused(target: str | None) -> None:
    assert safe_next(target) is None


def _resolved(target: str) -> Any:
    """``target`` as a browser resolves it against our page (WHATWG, by ada)."""
    return ada_url.URL(target, PAGE)


def _stays(target: str) -> bool:
    """Whether a browser stays on our site with ``target``, and a link built from where it
    lands stays too (its path does not start with ``//``)."""
    try:
        url = _resolved(target)
    except ValueError:  # not a URL at all: a browser goes nowhere
        return True
    return url.origin == SITE and not url.pathname.startswith("//")


@pytest.mark.parametrize("target", KEPT)
def test_browsers_keep_what_is_kept_on_this_site(target: str) -> None:
    assert _stays(target) and _stays(unquote(target))


def test_the_standard_does_send_the_refused_ones_away() -> None:
    """The oracle knows what the issue found: each of these goes to another host in a
    browser, so refusing them is no excess of caution (and the oracle is wired up right)."""
    away = ["//evil.test", "/\t/evil.test", "/\\evil.test", "\\\\evil.test", " //evil.test",
            "\x00//evil.test", "/\r\n/evil.test", "http:evil.test", "///evil.test"]
    for target in away:
        assert _resolved(target).host != "pbem.example", target
        assert safe_next(target) is None


# What a hostile next is made of: an opening, a few characters that matter to URL parsers (in
# any order, some percent-encoded), and a tail.
OPENINGS = st.sampled_from(["/", "", " ", "\x00", "\t", "\\", "%2F", "https:", "http:",
                            "javascript:", "/."])
SEPARATORS = st.sampled_from(["/", "\\", "\t", "\n", "\r", " ", "\x00", "\x0b", "\x1f", "\x7f",
                              "\u00a0", "\u3000", "\u202e", "\uff0f", ".", "..", "%09", "%0a",
                              "%2F", "%2f", "%5C", "%2e", "%20", "%25", ":", "@", "a"])
TAILS = st.sampled_from(["evil.test", "evil.test/x?y=1#z", "a", "", "?x=//evil.test", "#//x"])
HOSTILE_NEXTS = st.tuples(OPENINGS, st.lists(SEPARATORS, max_size=5), TAILS).map(
    lambda parts: parts[0] + "".join(parts[1]) + parts[2])


@settings(max_examples=3000, deadline=None)
@given(HOSTILE_NEXTS)
def test_whatever_is_kept_a_browser_resolves_on_this_site(target: str) -> None:
    if safe_next(target) is not None:
        assert _stays(target), target
        assert _stays(unquote(target)), target


# -- the flows that follow a next ------------------------------------------------------------

HOSTILE = ["/%09/evil.test", "//evil.test", "/\\evil.test", "https://evil.test/",
           "/%5Cevil.test", "/.//evil.test", " /seeks"]


def _sign_in_with_next(app: Flask, database: Database, target: str) -> str:
    """A new player's new browser opens ``/sign-in?next=<target>`` (``target`` quoted once, as a
    link carries it), asks for its link, opens the mailed link and presses its button; where it
    is sent then."""
    with database.write() as session:
        number = len(session.exec(select(Player)).all())
        address = f"player{number}@example.test"
        session.add(Player(name="Alice", email=address, created_at=datetime.now(UTC)))
    browser = app.test_client()
    page = browser.get(f"/sign-in?next={quote(target, safe='')}")
    asked = browser.post("/sign-in", data={"email": address, "csrf_token": csrf_of(page.text)},
                         environ_overrides={"REMOTE_ADDR": f"10.0.0.{number}"})
    assert asked.status_code == 200
    with database.session() as session:
        email = session.exec(select(OutboxEmail).where(OutboxEmail.to_address == address)).one()
    found = re.search(re.escape(BASE_URL) + r"(/sign-in/[A-Za-z0-9_-]+)", email.text_body)
    assert found
    confirm = browser.get(found[1])
    answer = browser.post(found[1], data={"csrf_token": csrf_of(confirm.text)})
    assert answer.status_code == 303
    return str(answer.headers["Location"])


def test_the_sign_in_link_lands_on_the_games_page_whatever_next_said(
    app: Flask, sqlite_database: Database,
) -> None:
    tab = _sign_in_with_next(app, sqlite_database, "/\t/evil.test")  # the issue's own
    assert tab == "/account"
    for target in HOSTILE:
        assert _sign_in_with_next(app, sqlite_database, target) == "/account", target


def test_the_sign_in_link_keeps_a_next_on_this_site(
    app: Flask, sqlite_database: Database,
) -> None:
    kept = _sign_in_with_next(app, sqlite_database, "/games/abc/replay?ply=3")
    assert kept == "/games/abc/replay?ply=3"


def test_sign_up_follows_the_same_rule(app: Flask, sqlite_database: Database) -> None:
    app.config["SIGNUP"] = "open"
    for target, lands in (("/%09/evil.test", "/account"), ("/seeks", "/seeks")):
        address = f"new{len(target)}@example.test"
        browser = app.test_client()
        page = browser.get(f"/sign-in?next={quote(target, safe='')}")
        browser.post("/sign-in", data={"email": address, "csrf_token": csrf_of(page.text)})
        with sqlite_database.session() as session:
            email = session.exec(select(OutboxEmail).where(
                OutboxEmail.to_address == address)).one()
        found = re.search(re.escape(BASE_URL) + r"(/sign-up/[A-Za-z0-9_.-]+)", email.text_body)
        assert found, email.text_body
        form = browser.get(found[1])
        answer = browser.post(found[1], data={"name": "New", "csrf_token": csrf_of(form.text)})
        assert answer.status_code == 303 and answer.headers["Location"] == lands, target


def _organiser_login(app: Flask, target: str, number: int) -> str:
    """A new browser logs in from the login page a ``?next=`` link opened (each from its own
    client address: the login limits count successes too); where the login sends it."""
    client = app.test_client()
    page = client.get(f"/admin/login?next={quote(target, safe='')}")
    assert 'name="next"' in page.text
    answer = client.post("/admin/login", data={
        "csrf_token": csrf_of(page.text), "email": ADMIN_EMAIL, "password": ADMIN_PASSWORD,
        "next": target}, environ_overrides={"REMOTE_ADDR": f"10.0.1.{number}"})
    assert answer.status_code == 302, answer.text
    return str(answer.headers["Location"])


def test_an_organisers_login_follows_the_same_rule(app: Flask, sqlite_database: Database) -> None:
    with sqlite_database.write() as session:
        create_admin(session, datetime.now(UTC), ADMIN_EMAIL, ADMIN_PASSWORD)
    games = "/admin/"
    for number, target in enumerate([*HOSTILE, "/\t/evil.test", "/\u202e/evil.test"]):
        assert _organiser_login(app, target, number) == games, target
    kept = "/admin/games/new?game=mosey"
    assert _organiser_login(app, kept, 99) == kept


def test_the_language_switcher_follows_the_same_rule(client: FlaskClient) -> None:
    for target in [*HOSTILE, "/\t/evil.test", "/\u202e/evil.test"]:
        answer = client.get(f"/language/nl?next={quote(target, safe='')}")
        assert answer.status_code == 302 and answer.headers["Location"] == "/", target
    kept = client.get(f"/language/nl?next={quote('/archive?page=2', safe='')}")
    assert kept.headers["Location"] == "/archive?page=2"
