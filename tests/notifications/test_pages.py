"""The mail settings on a player's pages: the account's "Email from pbem" section, and the mute
switch of a player's own page of a game."""

from __future__ import annotations

from datetime import UTC, datetime

from flask.testing import FlaskClient
from sqlmodel import select

from pbem.db import Database
from pbem.models import Player
from pbem.notifications.policy import is_muted
from pbem.notifications.service import setting_of
from pbem.notifications.tables import Mode, NotificationSetting
from pbem.services import Site
from pbem.web.player_sessions import issue_link
from tests.support import csrf_of, start_a_game


def sign_in(client: FlaskClient, database: Database, address: str) -> int:
    with database.write() as session:
        player_id = session.exec(select(Player.id).where(Player.email == address)).one()
        assert player_id is not None
        token = issue_link(session, datetime.now(UTC), player_id)
    page = client.get(f"/sign-in/{token}")
    assert client.post(f"/sign-in/{token}",
                       data={"csrf_token": csrf_of(page.text)}).status_code == 303
    return player_id


def test_the_account_page_chooses_the_daily_digest_and_its_hour(
        client: FlaskClient, sqlite_database: Database, now: datetime, site: Site) -> None:
    start_a_game(sqlite_database, now, site, "mosey")
    player_id = sign_in(client, sqlite_database, "p0@example.test")
    page = client.get("/account")
    assert 'id="notifications"' in page.text
    assert 'name="mode" value="all" checked' in page.text
    saved = client.post("/account/notifications", data={
        "csrf_token": csrf_of(page.text), "mode": "digest", "digest_hour": "7"})
    assert saved.status_code == 303 and saved.location.endswith("#notifications")
    with sqlite_database.session() as session:
        setting = setting_of(session, player_id)
    assert (setting.mode, setting.digest_hour) == (Mode.DIGEST, 7)
    again = client.get("/account")
    assert 'name="mode" value="digest" checked' in again.text
    assert '<option value="7" selected>07:00</option>' in again.text


def test_a_bad_choice_is_refused_and_saves_nothing(
        client: FlaskClient, sqlite_database: Database, now: datetime, site: Site) -> None:
    start_a_game(sqlite_database, now, site, "mosey")
    player_id = sign_in(client, sqlite_database, "p0@example.test")
    token = csrf_of(client.get("/account").text)
    for form in ({"mode": "digest", "digest_hour": "24"}, {"mode": "sometimes"}):
        refused = client.post("/account/notifications", data={"csrf_token": token, **form})
        assert refused.status_code == 400 and "Nothing was saved" in refused.text
    with sqlite_database.session() as session:
        assert session.get(NotificationSetting, player_id) is None  # nothing was stored


def test_a_player_mutes_and_unmutes_a_game_on_its_page(
        client: FlaskClient, sqlite_database: Database, now: datetime, site: Site) -> None:
    game = start_a_game(sqlite_database, now, site, "mosey")
    url = site.links.seat_view_url(game, 1)[len(site.links.base_url):]
    page = client.get(url)
    assert "Mute this game" in page.text
    muted = client.post(f"{url}/mute", data={"csrf_token": csrf_of(page.text), "muted": "1"})
    assert muted.status_code == 303
    with sqlite_database.session() as session:
        holder = session.exec(select(Player.id).where(Player.email == "p1@example.test")).one()
        assert holder is not None and is_muted(session, holder, game)
    page = client.get(url)
    assert "Unmute this game" in page.text
    client.post(f"{url}/mute", data={"csrf_token": csrf_of(page.text), "muted": "0"})
    with sqlite_database.session() as session:
        assert not is_muted(session, holder, game)
