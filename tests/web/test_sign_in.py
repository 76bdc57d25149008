"""Players sign in by email (pbem.web.signin): a one-time link that only a POST uses, a session
that "sign out everywhere" ends, and that never opens the dashboard (nor an organiser's a
player's pages)."""

from __future__ import annotations

import hashlib
import html
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem.admin.accounts import create_admin
from pbem.db import Database
from pbem.i18n import Reader
from pbem.models import AdminUser, OutboxEmail, Player, SignInLink
from pbem.services import Site
from pbem.web.player_sessions import LINK_MINUTES, issue_link
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD, BASE_URL, csrf_of
from tests.web.sessions import signed_in

LINK = re.compile(re.escape(BASE_URL) + r"(/sign-in/[A-Za-z0-9_-]+)")


def _player(database: Database, name: str, email: str, **fields: Any) -> int:
    with database.write() as session:
        player = Player(name=name, email=email, created_at=datetime.now(UTC), **fields)
        session.add(player)
        session.flush()
        assert player.id is not None
        return player.id


def _ask(client: FlaskClient, email: str, ip: str = "10.0.0.1") -> Any:
    token = csrf_of(client.get("/sign-in").text)
    return client.post("/sign-in", data={"email": email, "csrf_token": token},
                       environ_overrides={"REMOTE_ADDR": ip})


def _emails(database: Database) -> list[OutboxEmail]:
    with database.session() as session:
        return list(session.exec(select(OutboxEmail).where(OutboxEmail.kind == "sign_in")
                                 .order_by(OutboxEmail.id)))  # type: ignore[arg-type]


def _link_in(email: OutboxEmail) -> str:
    """The link's path, read from the email's text as a person would."""
    found = LINK.search(email.text_body)
    assert found, email.text_body
    return found[1]


def _post_link(client: FlaskClient, path: str) -> Any:
    """Open the link and press its button."""
    page = client.get(path)
    assert page.status_code == 200, page.text
    return client.post(path, data={"csrf_token": csrf_of(page.text)})


def _account(client: FlaskClient) -> str:
    """What /account is to this browser: the heading of the games page it shows when signed in
    ("Alice's games"), else where it is sent (the sign-in)."""
    answer = client.get("/account")
    if answer.status_code == 200:
        found = re.search(r"<h1>(.*?)</h1>", answer.text)
        assert found, answer.text
        return html.unescape(found[1])
    assert answer.status_code == 303
    return answer.headers["Location"]


def _links(database: Database) -> list[SignInLink]:
    with database.session() as session:
        return list(session.exec(select(SignInLink)))


def test_the_whole_flow_from_the_email(
    app: Flask, client: FlaskClient, sqlite_database: Database, site: Site,
) -> None:
    alice = _player(sqlite_database, "Alice", "alice@example.test", language="nl")
    assert 'href="/sign-in"' in client.get("/").text  # every page's navigation
    assert _ask(client, " Alice@Example.test ").status_code == 200
    [email] = _emails(sqlite_database)
    assert email.to_address == "alice@example.test" and email.player_id == alice
    assert email.subject == Reader("nl").gettext("Your sign-in link")  # her own language
    path = _link_in(email)
    assert BASE_URL + path in email.html_body
    assert _account(client).endswith("/sign-in")

    page = client.get(path)  # what a mail scanner does: it only shows
    assert page.status_code == 200 and 'method="post"' in page.text
    client.head(path)
    assert [link.used_at for link in _links(sqlite_database)] == [None]
    assert _account(client).endswith("/sign-in")

    signed = client.post(path, data={"csrf_token": csrf_of(page.text)})
    assert signed.status_code == 303 and signed.headers["Location"].endswith("/account")
    assert _account(client) == Reader("nl").gettext("%(name)s's games") % {"name": "Alice"}
    assert "Alice" in client.get("/sign-in").text  # the navigation names her
    [link] = _links(sqlite_database)
    assert link.used_at is not None

    again = client.post(path, data={"csrf_token": csrf_of(client.get("/sign-in").text)})
    assert again.status_code == 410  # in her language: she is signed in
    assert Reader("nl").gettext("This sign-in link has been used") in again.text
    other = app.test_client()
    assert other.get(path).status_code == 410
    assert _account(other).endswith("/sign-in")


def test_only_the_tokens_hash_is_stored(client: FlaskClient, sqlite_database: Database) -> None:
    _player(sqlite_database, "Alice", "alice@example.test")
    _ask(client, "alice@example.test")
    token = _link_in(_emails(sqlite_database)[0]).rpartition("/")[2]
    [link] = _links(sqlite_database)
    assert link.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in repr(link.model_dump())
    assert link.expires_at - link.created_at == timedelta(minutes=LINK_MINUTES)


def test_the_link_needs_the_pages_csrf_token(
    client: FlaskClient, sqlite_database: Database,
) -> None:
    alice = _player(sqlite_database, "Alice", "alice@example.test")
    with sqlite_database.write() as session:
        token = issue_link(session, datetime.now(UTC), alice)
    assert client.post(f"/sign-in/{token}").status_code == 400
    assert [link.used_at for link in _links(sqlite_database)] == [None]
    assert _account(client).endswith("/sign-in")


def test_an_expired_link_is_refused(client: FlaskClient, sqlite_database: Database) -> None:
    alice = _player(sqlite_database, "Alice", "alice@example.test")
    long_ago = datetime.now(UTC) - timedelta(minutes=LINK_MINUTES + 1)
    with sqlite_database.write() as session:
        token = issue_link(session, long_ago, alice)
    path = f"/sign-in/{token}"
    assert client.get(path).status_code == 410
    answer = client.post(path, data={"csrf_token": csrf_of(client.get("/sign-in").text)})
    assert answer.status_code == 410
    assert Reader("en").gettext("This sign-in link has expired") in answer.text
    assert _account(client).endswith("/sign-in")


def test_a_tampered_link_is_refused(client: FlaskClient, sqlite_database: Database) -> None:
    alice = _player(sqlite_database, "Alice", "alice@example.test")
    with sqlite_database.write() as session:
        token = issue_link(session, datetime.now(UTC), alice)
    csrf = csrf_of(client.get("/sign-in").text)
    flipped = token[:-1] + ("A" if token[-1] != "A" else "B")
    for bad in (flipped, token[:-4], token + "x"):
        assert client.get(f"/sign-in/{bad}").status_code == 400
        assert client.post(f"/sign-in/{bad}", data={"csrf_token": csrf}).status_code == 400
    assert [link.used_at for link in _links(sqlite_database)] == [None]
    assert _account(client).endswith("/sign-in")
    assert _post_link(client, f"/sign-in/{token}").status_code == 303  # the real one still works


def test_unknown_addresses_get_the_same_page_and_no_email(
    client: FlaskClient, sqlite_database: Database,
) -> None:
    _player(sqlite_database, "Alice", "alice@example.test")
    _player(sqlite_database, "Robot", "bot-1@bots.invalid", bot_level="easy")
    known = _ask(client, "alice@example.test")
    unknown = _ask(client, "nobody@example.test")
    bot = _ask(client, "bot-1@bots.invalid")  # not an address anyone can have: refused
    assert known.status_code == unknown.status_code == 200 and bot.status_code == 400
    assert known.data == unknown.data
    assert [email.to_address for email in _emails(sqlite_database)] == ["alice@example.test"]


def test_requests_are_limited_per_address_and_per_client(
    client: FlaskClient, sqlite_database: Database,
) -> None:
    _player(sqlite_database, "Alice", "alice@example.test")
    _player(sqlite_database, "Bob", "bob@example.test")
    for n in range(5):  # per address, from different clients
        assert _ask(client, "alice@example.test", ip=f"10.0.1.{n}").status_code == 200
    assert _ask(client, "alice@example.test", ip="10.0.1.9").status_code == 429
    assert len(_emails(sqlite_database)) == 5
    for n in range(5):  # per client, over different addresses
        assert _ask(client, f"x{n}@example.test", ip="10.0.2.1").status_code == 200
    assert _ask(client, "bob@example.test", ip="10.0.2.1").status_code == 429
    assert len(_emails(sqlite_database)) == 5
    assert _ask(client, "bob@example.test", ip="10.0.2.2").status_code == 200
    assert len(_emails(sqlite_database)) == 6


def test_a_bad_address_is_refused_before_it_is_counted(
    client: FlaskClient, sqlite_database: Database,
) -> None:
    _player(sqlite_database, "Alice", "alice@example.test")
    for typo in ("", "   ", "alice@@example.test", "alice", "x" * 400):
        refused = _ask(client, typo, ip="10.0.3.1")
        assert refused.status_code == 400 and 'role="alert"' in refused.text
        assert "Enter your email address, such as ann@example.org" in refused.text
    for _ in range(5):  # the five typos used none of the client's allowance
        assert _ask(client, "alice@example.test", ip="10.0.3.1").status_code == 200
    assert _ask(client, "alice@example.test", ip="10.0.3.1").status_code == 429
    assert len(_emails(sqlite_database)) == 5


def test_only_a_local_next_is_followed() -> None:
    from pbem.web.redirects import safe_next

    assert safe_next("/seeks") == "/seeks"
    for bad in ("", None, "//evil.example", "https://evil.example/", "/\\evil.example",
                "seeks", "/a\r\nLocation: x"):
        assert safe_next(bad) is None


def test_signing_out(app: Flask, sqlite_database: Database, site: Site) -> None:
    alice = _player(sqlite_database, "Alice", "alice@example.test")
    browser = signed_in(app, sqlite_database, alice)
    page = browser.get("/sign-out")  # the navigation's "Sign out" only shows the buttons
    assert page.status_code == 200 and _account(browser) == "Alice's games"
    assert browser.post("/sign-out").status_code == 400  # no CSRF token: still signed in
    assert _account(browser) == "Alice's games"
    answer = browser.post("/sign-out", data={"csrf_token": csrf_of(page.text)})
    assert answer.status_code == 200
    assert _account(browser).endswith("/sign-in")
    assert browser.get("/sign-out").status_code == 303


def test_sign_out_everywhere_ends_every_other_session(
    app: Flask, sqlite_database: Database, site: Site,
) -> None:
    alice = _player(sqlite_database, "Alice", "alice@example.test")
    bob = _player(sqlite_database, "Bob", "bob@example.test")
    laptop, phone = (signed_in(app, sqlite_database, alice) for _ in range(2))
    bobs = signed_in(app, sqlite_database, bob)
    page = laptop.get("/sign-out")
    answer = laptop.post("/sign-out-everywhere", data={"csrf_token": csrf_of(page.text)})
    assert answer.status_code == 200
    assert _account(laptop) == "Alice's games"  # who asked stays in
    assert _account(phone).endswith("/sign-in")
    assert _account(bobs) == "Bob's games"  # nobody else is touched
    with sqlite_database.session() as session:
        row = session.get(Player, alice)
        assert row is not None and row.session_version == 1


def _organiser(app: Flask, database: Database) -> FlaskClient:
    with database.write() as session:
        create_admin(session, datetime.now(UTC), ADMIN_EMAIL, ADMIN_PASSWORD)
    client = app.test_client()
    token = csrf_of(client.get("/admin/login").text)
    assert client.post("/admin/login", data={"csrf_token": token, "email": ADMIN_EMAIL,
                                             "password": ADMIN_PASSWORD}).status_code == 302
    assert client.get("/admin/").status_code == 200
    return client


def test_a_players_session_never_opens_the_dashboard(
    app: Flask, sqlite_database: Database,
) -> None:
    organiser = _organiser(app, sqlite_database)  # admin 1
    alice = _player(sqlite_database, "Alice", "alice@example.test")
    assert alice == 1  # the same number as the organiser's: ids of both kinds must not mix
    player = signed_in(app, sqlite_database, alice)
    for path in ("/admin/", "/admin/account", "/admin/players", "/admin/games/new"):
        answer = player.get(path)
        assert answer.status_code == 302 and "/admin/login" in answer.headers["Location"]
    login = player.get("/admin/login")  # the login form, not a loop of redirects
    assert login.status_code == 200 and "Log out" not in login.text
    answer = player.post("/admin/logout", data={"csrf_token": csrf_of(login.text)})
    assert answer.status_code == 302 and "/admin/login" in answer.headers["Location"]
    with sqlite_database.session() as session:
        admin = session.exec(select(AdminUser)).one()
        assert admin.session_version == 0  # the player's POST ended no organiser's session
    assert organiser.get("/admin/").status_code == 200


def test_an_organiser_is_not_a_signed_in_player(app: Flask, sqlite_database: Database) -> None:
    organiser = _organiser(app, sqlite_database)
    _player(sqlite_database, "Alice", "alice@example.test")
    assert _account(organiser).endswith("/sign-in")
    assert organiser.get("/sign-out").status_code == 303
    page = organiser.get("/sign-in")
    assert "You are signed in as" not in page.text
    csrf = csrf_of(page.text)
    for path in ("/sign-out", "/sign-out-everywhere"):
        assert organiser.post(path, data={"csrf_token": csrf}).status_code == 303
    assert organiser.get("/admin/").status_code == 200  # and their session goes on


def test_signing_in_as_a_player_ends_the_organisers_session_in_that_browser(
    app: Flask, sqlite_database: Database, site: Site,
) -> None:
    browser = _organiser(app, sqlite_database)
    alice = _player(sqlite_database, "Alice", "alice@example.test")
    with sqlite_database.write() as session:
        token = issue_link(session, datetime.now(UTC), alice)
    assert _post_link(browser, f"/sign-in/{token}").status_code == 303
    assert _account(browser) == "Alice's games"
    assert browser.get("/admin/").status_code == 302
