"""Who may get an account (PBEM_SIGNUP): ``open`` mails an unknown address a link that makes
the account on its button; ``invite`` only signs in addresses someone invited; ``closed`` makes
no new accounts at all. The answer page is the same in every case (no address can be probed)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import pbem.ratelimit  # noqa: F401  (its table must be on the test databases' metadata)
from pbem.config import ConfigError, check_config, load_config
from pbem.db import Database
from pbem.models import OutboxEmail, Player
from pbem.web.player_sessions import LINK_MINUTES
from tests.support import BASE_URL, csrf_of, two_player_game
from tests.web.test_challenges import challenge_form, make_player, signed_in

SIGN_UP = re.compile(re.escape(BASE_URL) + r"(/sign-up/[A-Za-z0-9_.-]+)")


def _ask(client: FlaskClient, email: str, ip: str = "10.0.0.9") -> Any:
    token = csrf_of(client.get("/sign-in").text)
    return client.post("/sign-in", data={"email": email, "csrf_token": token},
                       environ_overrides={"REMOTE_ADDR": ip})


def _mail(database: Database) -> list[OutboxEmail]:
    with database.session() as session:
        return list(session.exec(select(OutboxEmail).order_by(OutboxEmail.id)))  # type: ignore[arg-type]


def _players(database: Database) -> list[str]:
    with database.session() as session:
        return sorted(p.email for p in session.exec(select(Player)))


def _without_token(html: str) -> str:
    return re.sub(r'name="csrf_token" value="[^"]+"', "", html)


def test_open_sign_up_makes_the_account_on_the_button(
    app: Flask, client: FlaskClient, sqlite_database: Database,
) -> None:
    app.config["SIGNUP"] = "open"
    make_player(sqlite_database, "Ann", "ann@example.test")
    known = _ask(client, "ann@example.test")
    unknown = _ask(client, "New@Example.test")
    assert known.status_code == unknown.status_code == 200
    assert _without_token(known.text) == _without_token(unknown.text)
    signup = [m for m in _mail(sqlite_database) if m.kind == "challenge_signup"]
    assert [m.to_address for m in signup] == ["new@example.test"]
    assert _players(sqlite_database) == ["ann@example.test"]  # nothing made by asking
    path = SIGN_UP.search(signup[0].text_body)[1]  # type: ignore[index]
    newcomer = app.test_client()
    form = newcomer.get(path)  # a mail scanner's GET makes no account
    newcomer.head(path)
    assert form.status_code == 200 and "new@example.test" in form.text
    assert _players(sqlite_database) == ["ann@example.test"]
    bad = newcomer.post(path, data={"csrf_token": csrf_of(form.text), "name": "Nel <x>"})
    assert bad.status_code == 400 and "No account was made" in bad.text
    made = newcomer.post(path, data={"csrf_token": csrf_of(form.text), "name": "Nel"})
    assert made.status_code == 303
    assert _players(sqlite_database) == ["ann@example.test", "new@example.test"]
    account = newcomer.get("/account")
    assert account.status_code == 200 and "<h1>Nel's games</h1>" in account.text
    again = app.test_client()
    reused = again.post(path, data={"csrf_token": csrf_of(again.get(path).text),
                                    "name": "Mallory"})
    assert reused.status_code == 410 and "has been used" in reused.text
    assert again.get("/account").headers["Location"].endswith("/sign-in")


def test_an_expired_sign_up_link_is_refused(
    app: Flask, client: FlaskClient, sqlite_database: Database, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from itsdangerous.timed import TimestampSigner

    app.config["SIGNUP"] = "open"
    long_ago = int(time.time()) - LINK_MINUTES * 60 - 5
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda self: long_ago)
    _ask(client, "late@example.test")
    monkeypatch.undo()
    path = SIGN_UP.search(_mail(sqlite_database)[0].text_body)[1]  # type: ignore[index]
    page = client.get(path)
    assert page.status_code == 410
    assert client.post(path, data={"csrf_token": csrf_of(client.get("/sign-in").text),
                                   "name": "Late"}).status_code == 410
    assert _players(sqlite_database) == []


@pytest.mark.parametrize("policy", ["invite", "closed"])
def test_only_known_addresses_get_links(
    app: Flask, client: FlaskClient, sqlite_database: Database, policy: str,
) -> None:
    app.config["SIGNUP"] = policy
    make_player(sqlite_database, "Ann", "ann@example.test")
    known = _ask(client, "ann@example.test")
    unknown = _ask(client, "stranger@example.test")
    assert _without_token(known.text) == _without_token(unknown.text)
    assert [(m.kind, m.to_address) for m in _mail(sqlite_database)] == [
        ("sign_in", "ann@example.test")]
    assert _players(sqlite_database) == ["ann@example.test"]


NEWCOMER_NOTES = {
    "open": "we email you a link that makes your account",
    "invite": "a player challenges you at your email address",
    "closed": "when an organiser of this site gives them a seat",
}


@pytest.mark.parametrize("policy", NEWCOMER_NOTES)
def test_a_newcomer_reads_how_to_join_before_and_after_asking_for_a_link(
    app: Flask, client: FlaskClient, sqlite_database: Database, policy: str,
) -> None:
    app.config["SIGNUP"] = policy
    pages = [client.get("/").text, client.get("/sign-in").text,
             _ask(client, "stranger@example.test").text]
    for page in pages:
        for other, words in NEWCOMER_NOTES.items():  # this site's way in, no other's promise
            assert (words in page) == (other == policy), (policy, other)


def test_invite_lets_invited_addresses_in_and_closed_invites_nobody_new(
    app: Flask, sqlite_database: Database,
) -> None:
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    client = signed_in(app, sqlite_database, ann)
    app.config["SIGNUP"] = "closed"
    refused = challenge_form(client, two_player_game(), invitees="new@example.test")
    assert refused.status_code == 400 and "takes no new players" in refused.text
    assert _players(sqlite_database) == ["ann@example.test"]
    app.config["SIGNUP"] = "invite"
    assert challenge_form(client, two_player_game(),
                          invitees="new@example.test").status_code == 303
    assert _players(sqlite_database) == ["ann@example.test", "new@example.test"]
    _ask(app.test_client(), "new@example.test")
    assert any(m.kind == "sign_in" and m.to_address == "new@example.test"
               for m in _mail(sqlite_database))


def test_the_setting_is_checked() -> None:
    config = load_config({"PBEM_SIGNUP": "Everyone"}, read_dotenv=False)
    with pytest.raises(ConfigError, match="PBEM_SIGNUP"):
        check_config(config)
    assert load_config({}, read_dotenv=False)["SIGNUP"] == "invite"
