"""The games-page link at the foot of every email is no password (issue #31): alone it shows a
button, not the games; one press signs that browser in and opens ``/account``, which has no token
in its address; each such sign-in is listed on the account page; and "Replace my email links"
(or "sign out everywhere") makes every earlier link say it was replaced, mailing the new one,
while the links to moves keep working."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem.db import Database
from pbem.models import AuditEntry, GameRecord, OutboxEmail, Player, PlayerSignIn, SignInLink
from pbem.services import Site
from pbem.services.common import site_from_config
from pbem.web.email_links import KEEP_SIGN_INS
from pbem.web.player_sessions import issue_link
from tests.support import ALICE_BOB, BASE_URL, csrf_of, start_a_game, two_player_game
from tests.web.sessions import open_games_link, signed_in

FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
          "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1")
REPLACED = "This link was replaced"
GAMES_LINK = re.compile(re.escape(BASE_URL) + r"/me/[A-Za-z0-9_.-]+")


def _game(database: Database, now: datetime, site: Site) -> tuple[int, int, GameRecord]:
    """Alice and Bob in a started game: their ids and the game."""
    game_id = start_a_game(database, now, site, two_player_game(), players=ALICE_BOB)
    with database.session() as session:
        alice, bob = (session.exec(select(Player).where(Player.name == name)).one()
                      for name in ("Alice", "Bob"))
        row = session.get(GameRecord, game_id)
    assert alice.id is not None and bob.id is not None and row is not None
    return alice.id, bob.id, row


def _path(url: str) -> str:
    return url.removeprefix(BASE_URL)


def _press(browser: FlaskClient, url: str, user_agent: str = FIREFOX,
           address: str = "192.0.2.1") -> Any:
    """Open a games-page link and press its button, as that browser: it mails a one-time
    sign-in link, which the browser then opens and confirms. The last answer."""
    return open_games_link(browser, url, user_agent=user_agent, address=address)


def _heading(browser: FlaskClient) -> str:
    """The heading of /account in this browser ("Alice's games"), or where it is sent."""
    answer = browser.get("/account")
    if answer.status_code != 200:
        return str(answer.headers["Location"])
    found = re.search(r"<h1>(.*?)</h1>", answer.text)
    assert found
    return html.unescape(found[1])


def _sign_ins(database: Database) -> list[PlayerSignIn]:
    with database.session() as session:
        return list(session.exec(select(PlayerSignIn).order_by(PlayerSignIn.id)))  # type: ignore[arg-type]


def _version(database: Database, player_id: int) -> int:
    with database.session() as session:
        player = session.get(Player, player_id)
        assert player is not None
        return player.links_version


def _mailed_games_links(database: Database, player_id: int) -> list[str]:
    """The games-page links of the "links" emails to the player, oldest first."""
    with database.session() as session:
        emails = session.exec(select(OutboxEmail).where(
            OutboxEmail.kind == "links", OutboxEmail.player_id == player_id)
            .order_by(OutboxEmail.id)).all()  # type: ignore[arg-type]
    found = [GAMES_LINK.search(email.text_body) for email in emails]
    assert all(found)
    return [match[0] for match in found if match]


def test_the_link_alone_shows_a_button_and_changes_nothing(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    alice, _bob, _row = _game(sqlite_database, now, site)
    url = _path(site.links.my_games_url(alice))
    browser = app.test_client()
    with sqlite_database.session() as session:
        audits = len(session.exec(select(AuditEntry)).all())
    page = browser.get(url)  # what a mail scanner, or anyone with a forwarded email, sees
    assert page.status_code == 200 and browser.head(url).status_code == 200
    assert 'method="post"' in page.text and "Email me a sign-in link" in page.text
    for private in ("Bob", "/play/", "/seat/", "alice@example.test", 'name="time_zone"',
                    "Replace my email links"):
        assert private not in page.text, private
    assert _heading(browser).endswith("/sign-in")
    assert _sign_ins(sqlite_database) == []
    with sqlite_database.session() as session:
        assert len(session.exec(select(AuditEntry)).all()) == audits


def test_the_link_alone_signs_nobody_in(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    """The games-page link stays in every email's footer for as long as the mail is kept: on
    its own (a forwarded email, a mailbox someone else reads) it must open nothing."""
    alice, _bob, _row = _game(sqlite_database, now, site)
    url = _path(site.links.my_games_url(alice))
    browser = app.test_client()
    sent = browser.post(url, data={"csrf_token": csrf_of(browser.get(url).text)})
    assert sent.status_code == 200 and "Check your mail" in sent.text
    assert _heading(browser).endswith("/sign-in") and _sign_ins(sqlite_database) == []
    with sqlite_database.session() as session:
        [email] = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "sign_in")).all()
    assert email.to_address == "alice@example.test"  # to her mailbox, not to the browser
    assert "/sign-in/" not in sent.text


def test_the_button_and_a_fresh_sign_in_link_open_the_games_at_account(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    alice, _bob, row = _game(sqlite_database, now, site)
    url = site.links.my_games_url(alice)
    token = url.rpartition("/")[2]
    browser = app.test_client()
    answer = _press(browser, url)
    assert answer.status_code == 303 and answer.headers["Location"] == "/account"
    page = browser.get("/account")
    assert page.status_code == 200 and "Bob" in page.text
    assert site.links.move_url(row.id or 0, 0, row.ply, holder=alice) in page.text
    assert token not in page.request.url
    again = browser.get(_path(url))  # the link again, in a browser signed in as her: no button
    assert again.status_code == 303 and again.headers["Location"] == "/account"
    pressed = browser.post(_path(url), data={"csrf_token": csrf_of(page.text)})
    assert pressed.status_code == 303  # a second press changes nothing
    assert len(_sign_ins(sqlite_database)) == 1


def test_the_button_needs_the_pages_csrf_token(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    alice, _bob, _row = _game(sqlite_database, now, site)
    browser = app.test_client()
    assert browser.post(_path(site.links.my_games_url(alice))).status_code == 400
    assert _heading(browser).endswith("/sign-in") and _sign_ins(sqlite_database) == []


def test_each_sign_in_by_a_link_is_listed_without_the_clients_address(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    alice, _bob, _row = _game(sqlite_database, now, site)
    url = site.links.my_games_url(alice)
    phone, laptop = app.test_client(), app.test_client()
    assert _press(phone, url, IPHONE, "198.51.100.7").status_code == 303
    assert _press(laptop, url, FIREFOX, "203.0.113.9").status_code == 303
    with sqlite_database.write() as session:
        token = issue_link(session, datetime.now(UTC), alice)
    tablet = app.test_client()  # a one-time sign-in link is listed too
    confirm = tablet.get(f"/sign-in/{token}", headers={"User-Agent": ""})
    tablet.post(f"/sign-in/{token}", data={"csrf_token": csrf_of(confirm.text)},
                headers={"User-Agent": ""})

    page = html.unescape(laptop.get("/account").text)
    listed = page[page.index('id="sign-ins"'):page.index('id="links"')]
    assert "Firefox on Linux (this browser)" in re.sub(r"<[^>]+>", "", listed)
    assert "Mobile Safari on iOS" in listed
    assert "a browser that does not say which" in listed and "a sign-in link" in listed
    assert listed.index("does not say") < listed.index("Firefox") < listed.index("Safari")
    for address in ("198.51.100.7", "203.0.113.9"):
        assert address not in page
    assert [(s.browser, s.system, s.via) for s in _sign_ins(sqlite_database)] == [
        ("Mobile Safari", "iOS", "sign-in-link"), ("Firefox", "Linux", "sign-in-link"),
        ("", "", "sign-in-link")]


def test_only_the_latest_sign_ins_are_kept(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    alice, bob, _row = _game(sqlite_database, now, site)
    signed_in(app, sqlite_database, bob)
    for _ in range(KEEP_SIGN_INS + 3):
        signed_in(app, sqlite_database, alice)
    rows = _sign_ins(sqlite_database)
    assert len([r for r in rows if r.player_id == alice]) == KEEP_SIGN_INS
    assert len([r for r in rows if r.player_id == bob]) == 1  # nobody else's is touched


def test_a_browser_signed_in_as_someone_else_is_told_before_it_switches(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    alice, bob, _row = _game(sqlite_database, now, site)
    shared = signed_in(app, sqlite_database, bob)
    page = shared.get(_path(site.links.my_games_url(alice)))
    assert page.status_code == 200 and "signed in as Bob" in page.text
    assert _heading(shared) == "Bob's games"  # only seeing the page changes nothing
    assert _press(shared, site.links.my_games_url(alice)).status_code == 303
    assert _heading(shared) == "Alice's games"


def test_replacing_the_links_retires_every_earlier_one_and_mails_the_new_one(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    alice, _bob, row = _game(sqlite_database, now, site)
    old = site.links.my_games_url(alice)  # as in every email she has had so far
    laptop = app.test_client()
    _press(laptop, old)
    with sqlite_database.write() as session:
        unused = issue_link(session, datetime.now(UTC), alice)
    page = laptop.get("/account")
    assert "Replace my email links" in page.text
    refused = app.test_client().post("/account/links")  # no session, no CSRF token
    assert refused.status_code == 400 and _version(sqlite_database, alice) == 0
    done = laptop.post("/account/links", data={"csrf_token": csrf_of(page.text)})
    assert done.status_code == 200 and "Your email links were replaced" in done.text
    assert _version(sqlite_database, alice) == 1

    stranger = app.test_client()  # the old link: refused, by GET and by POST
    answer = stranger.get(_path(old))
    assert answer.status_code == 410 and REPLACED in html.unescape(answer.text)
    assert "Alice" not in answer.text and "Email me a sign-in link" not in answer.text
    csrf = csrf_of(stranger.get("/sign-in").text)
    assert stranger.post(_path(old), data={"csrf_token": csrf}).status_code == 410
    assert _heading(stranger).endswith("/sign-in")
    confirm = stranger.get(f"/sign-in/{unused}")  # unused sign-in links are retired too
    assert confirm.status_code == 410

    [new] = _mailed_games_links(sqlite_database, alice)
    assert new != old and new == site_from_config(sqlite_database, app.config).links \
        .my_games_url(alice, version=1)
    assert _press(app.test_client(), new).status_code == 303
    with sqlite_database.session() as session:
        email = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "links")).one()
    assert email.subject == "Your new games page link"
    assert "You replaced your email links" in email.text_body

    assert _heading(laptop) == "Alice's games"  # this browser stays signed in
    move = app.test_client().get(_path(site.links.move_url(row.id or 0, 0, row.ply,
                                                           holder=alice)))
    assert move.status_code == 200  # the game goes on from the turn email she has
    assert app.test_client().get(_path(site.links.unsubscribe_url(alice))).status_code == 200


def test_sign_out_everywhere_replaces_the_links_too(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    alice, _bob, _row = _game(sqlite_database, now, site)
    old = site.links.my_games_url(alice)
    lost_phone, laptop = app.test_client(), app.test_client()
    _press(lost_phone, old, IPHONE)
    _press(laptop, old)
    page = laptop.get("/sign-out")
    answer = laptop.post("/sign-out-everywhere", data={"csrf_token": csrf_of(page.text)})
    assert answer.status_code == 200 and "we have emailed you a new one" in answer.text
    assert _heading(lost_phone).endswith("/sign-in")
    assert app.test_client().get(_path(old)).status_code == 410  # nor can the phone come back
    assert _heading(laptop) == "Alice's games"
    listed = laptop.get("/account").text
    assert "(this browser)" in listed  # still this browser's own line
    [new] = _mailed_games_links(sqlite_database, alice)
    assert _press(app.test_client(), new).status_code == 303


def test_links_in_mail_sent_after_replacing_work(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    """Every email's footer is signed by the services' Site, which reads the version (the
    scheduler's and the CLI's are made the same way, by site_from_config)."""
    alice, _bob, _row = _game(sqlite_database, now, site)
    laptop = signed_in(app, sqlite_database, alice)
    laptop.post("/account/links", data={"csrf_token": csrf_of(laptop.get("/account").text)})
    footer = site_from_config(sqlite_database, app.config).links.my_games_url(alice)
    assert app.test_client().get(_path(footer)).status_code == 200
    asked = app.test_client()  # the home page's "email me my links"
    asked.post("/links", data={"email": "alice@example.test",
                               "csrf_token": csrf_of(asked.get("/").text)})
    assert _mailed_games_links(sqlite_database, alice)[-1] == footer


def test_a_replaced_link_in_a_browser_signed_in_as_its_player_says_so_too(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    alice, _bob, _row = _game(sqlite_database, now, site)
    old = site.links.my_games_url(alice)
    laptop = app.test_client()
    _press(laptop, old)
    laptop.post("/account/links", data={"csrf_token": csrf_of(laptop.get("/account").text)})
    answer = laptop.get(_path(old))
    assert answer.status_code == 410 and 'href="/account"' in answer.text


def test_the_unsubscribe_page_hands_out_no_games_link(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    alice, _bob, _row = _game(sqlite_database, now, site)
    answer = app.test_client().post(_path(site.links.unsubscribe_url(alice)))
    assert answer.status_code == 200 and "/me/" not in answer.text
    assert 'href="/account"' in answer.text


def test_a_computer_players_games_link_is_damaged(
    app: Flask, sqlite_database: Database, site: Site,
) -> None:
    with sqlite_database.write() as session:
        bot = Player(name="Robot", email="bot-1@bots.invalid", bot_level="easy",
                     created_at=datetime.now(UTC))
        session.add(bot)
        session.flush()
        assert bot.id is not None
        bot_id = bot.id
    assert app.test_client().get(_path(site.links.my_games_url(bot_id))).status_code == 400


def test_signing_in_with_a_link_leaves_no_trace_of_sign_in_links_to_others(
    app: Flask, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    """Sign-in links of the player stay usable when the games-page link signs a browser in
    (with a sign-in link of its own): only replacing the links retires them."""
    alice, _bob, _row = _game(sqlite_database, now, site)
    with sqlite_database.write() as session:
        token = issue_link(session, datetime.now(UTC), alice)
    _press(app.test_client(), site.links.my_games_url(alice))
    with sqlite_database.session() as session:
        links = session.exec(select(SignInLink).order_by(SignInLink.id)).all()  # type: ignore[arg-type]
    assert [link.used_at is None for link in links] == [True, False]
    assert app.test_client().get(f"/sign-in/{token}").status_code == 200
