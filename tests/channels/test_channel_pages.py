"""The channels page of a signed-in player (/account/channels): adding a channel by its
address, which the page never shows back; its test button; its news; removing it."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem.channels.tables import PlayerChannel
from pbem.db import Database
from pbem.models import Player
from tests.channels.conftest import Receiver
from tests.support import csrf_of
from tests.web.sessions import signed_in

SECRET_PATH = "hook/s3cr3t-path"


def ann(app: Flask, database: Database) -> tuple[int, FlaskClient]:
    with database.write() as session:
        player = Player(name="Ann", email="ann@example.test", created_at=datetime.now(UTC))
        session.add(player)
        session.flush()
        player_id = player.id or 0
    return player_id, signed_in(app, database, player_id)


def post(browser: FlaskClient, path: str, **form: str) -> tuple[int, str]:
    csrf = csrf_of(browser.get("/account/channels").text)
    answer = browser.post(path, data={"csrf_token": csrf, **form}, follow_redirects=True)
    return answer.status_code, answer.text


def channel_ids(database: Database) -> list[int]:
    with database.session() as session:
        return [row.id or 0 for row in session.exec(select(PlayerChannel))]


def test_a_channel_is_added_listed_masked_tested_and_removed(
        app: Flask, sqlite_database: Database, receiver: Receiver) -> None:
    _, browser = ann(app, sqlite_database)
    assert 'href="/account/channels"' in browser.get("/account").text
    status, page = post(browser, "/account/channels/new", url=receiver.url(path=SECRET_PATH),
                        **{"news-turn": "on", "news-game_over": "on"})
    assert status == 200 and "Saved." in page
    assert "JSON" in page and "json://127.0.0.1/…" in page and "s3cr3t" not in page
    [channel_id] = channel_ids(sqlite_database)
    with sqlite_database.session() as session:
        row = session.get(PlayerChannel, channel_id)
    assert row is not None and (row.on_turn, row.on_reminder, row.on_game_over) == (
        True, False, True)

    status, page = post(browser, f"/account/channels/{channel_id}", action="test")
    assert status == 200 and "The test message was sent." in page
    assert receiver.received[-1][0] == "/" + SECRET_PATH
    receiver.answers = [500]
    status, page = post(browser, f"/account/channels/{channel_id}", action="test")
    assert "The test message was not delivered" in page and "s3cr3t" not in page

    post(browser, f"/account/channels/{channel_id}", action="save", **{"news-reminder": "on"})
    with sqlite_database.session() as session:
        row = session.get(PlayerChannel, channel_id)
    assert row is not None and (row.on_turn, row.on_reminder, row.on_game_over) == (
        False, True, False)

    status, page = post(browser, f"/account/channels/{channel_id}", action="remove")
    assert status == 200 and channel_ids(sqlite_database) == [] and "No channels yet." in page


def test_a_refused_address_is_neither_saved_nor_shown_back(app: Flask,
                                                           sqlite_database: Database) -> None:
    _, browser = ann(app, sqlite_database)
    typed = "slack://T1JJ3T3L2secretTokenA"  # the other two tokens left out
    status, page = post(browser, "/account/channels/new", url=typed)
    assert status == 400 and "incomplete or mistyped" in page
    assert "secretTokenA" not in page and channel_ids(sqlite_database) == []
    status, page = post(browser, "/account/channels/new", url="windows://")
    assert status == 400 and "not the address of a service" in page


def test_another_players_channel_cannot_be_touched(app: Flask, sqlite_database: Database,
                                                   receiver: Receiver) -> None:
    _, browser = ann(app, sqlite_database)
    post(browser, "/account/channels/new", url=receiver.url(), **{"news-turn": "on"})
    [channel_id] = channel_ids(sqlite_database)
    with sqlite_database.write() as session:
        bob = Player(name="Bob", email="bob@example.test", created_at=datetime.now(UTC))
        session.add(bob)
        session.flush()
        bob_id = bob.id or 0
    intruder = signed_in(app, sqlite_database, bob_id)
    for action in ("test", "save", "remove"):
        status, page = post(intruder, f"/account/channels/{channel_id}", action=action)
        assert status == 404 and "there is no such channel" in page
    assert channel_ids(sqlite_database) == [channel_id] and receiver.received == []


def test_the_page_is_in_the_players_language(app: Flask, sqlite_database: Database) -> None:
    player_id, browser = ann(app, sqlite_database)
    with sqlite_database.write() as session:
        player = session.get(Player, player_id)
        assert player is not None
        player.language = "it"
        session.add(player)
    page = browser.get("/account/channels").text
    assert re.search(r'<html lang="it"', page)
