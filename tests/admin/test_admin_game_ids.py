"""Issue #16: the dashboard names games as players see them, acts on a declined invitation, and
finds games whose mail bounced."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

import engine
from pbem.admin.queries import code_in
from pbem.clock.deadlines import clock_of
from pbem.db import Database
from pbem.models import GameRecord, OutboxEmail, Player, Seat
from pbem.services import PlayerSpec, Site, create_game, respond_to_invitation, start_game
from pbem.services.notify import subject_of
from tests.support import csrf_of, two_player_game

GAME_LINK = re.compile(r'href="/admin/games/(\d+)"')


@pytest.fixture
def app_site(app: Flask) -> Site:
    site: Site = app.extensions["pbem.site"]
    return site


def _game(database: Database, site: Site, names: list[str], *, start: bool = True,
          now: datetime | None = None) -> GameRecord:
    """A two-player game between ``names`` (addresses name@example.test), started or not."""
    game_type = two_player_game()
    now = now or datetime.now(UTC)
    with database.write() as session:
        row = create_game(session, now, site, game_type=game_type,
                          options={o.name: o.choices[0] for o in engine.GAMES[game_type].options},
                          players=[PlayerSpec(n, f"{n.lower()}@example.test") for n in names])
        assert row.id is not None
        if start:
            start_game(session, now, site, game_id=row.id, force=True)
        session.expunge(row)
    return row


def _listed(client: FlaskClient, query: str = "") -> list[int]:
    return [int(n) for n in GAME_LINK.findall(client.get("/admin/" + query).text)]


def _search(client: FlaskClient, text: str) -> list[int]:
    return [int(n) for n in GAME_LINK.findall(
        client.get("/admin/", query_string={"player": text}).text)]


def _code(row: GameRecord) -> str:
    return row.public_id[:6]


# 1. One game id for players and organisers.

def test_the_code_in_what_an_organiser_types() -> None:
    assert code_in("wVDOGE") == "wVDOGE"
    assert code_in(" (game wVDOGE) ") == "wVDOGE"  # as the subject line says it
    assert code_in("(wVDOGE)") == "wVDOGE"
    assert code_in("Your turn: Mosey vs Bob (wVDOGE)") == "wVDOGE"  # a subject, pasted
    assert code_in("http://pbem.example/g/wVDOGE_x-1abcdefg") == "wVDOGE_x-1abcdefg"
    assert code_in("Ann Example") is None and code_in("wVDOG") is None
    assert code_in("ann@example.test") is None and code_in("") is None


def test_searching_by_the_code_players_see_finds_the_game(
    admin_client: FlaskClient, sqlite_database: Database, app_site: Site,
) -> None:
    mine = _game(sqlite_database, app_site, ["Ann", "Bob"])
    other = _game(sqlite_database, app_site, ["Cid", "Dee"])
    code = _code(mine)
    with sqlite_database.session() as session:
        players = list(session.exec(select(Player).order_by(col(Player.id))))
        subject = subject_of(mine, [p.name for p in players[:2]])
    assert subject.endswith(f"{code})")  # what players read in every email
    for typed in (code, mine.public_id, f"({code})", subject,
                  app_site.links.game_url(mine.public_id)):
        assert _search(admin_client, typed) == [mine.id], typed
    assert _search(admin_client, "dee@") == [other.id]  # names and addresses still work
    if code.swapcase() != code:  # public ids are case-sensitive
        assert mine.id not in _search(admin_client, code.swapcase())

    listed = admin_client.get("/admin/").text
    assert f'title="Game id {mine.public_id}">{code}</code>' in listed
    assert f"#{mine.id} " not in listed  # the row number is only in the dashboard's URLs
    detail = admin_client.get(f"/admin/games/{mine.id}").text
    assert f"<title>Game {code} · pbem</title>" in detail
    assert re.search(rf"<h1>Game <code[^>]*>{re.escape(code)}</code>", detail)
    assert f'<code id="public-id">{mine.public_id}</code>' in detail
    assert f"Game #{mine.id}" not in detail
    action = admin_client.get(f"/admin/games/{mine.id}/abort").text
    assert f">{code}</code>" in action
    players_page = admin_client.get("/admin/players").text
    assert f">{code}</code>" in players_page and f">{_code(other)}</code>" in players_page
    for log in ("/admin/audit", "/admin/mail"):
        assert f">{code}</code>" in admin_client.get(log).text, log


# 2. A declined invitation: what the decline notice promises, on the game page.

def _declined_game(database: Database, site: Site) -> GameRecord:
    """Ann accepted, Bob declined: the game waits for the organiser."""
    row = _game(database, site, ["Ann", "Bob"], start=False)
    assert row.id is not None
    now = datetime.now(UTC)
    with database.write() as session:
        respond_to_invitation(session, now, site, game_id=row.id, seat=0, accept=True)
        respond_to_invitation(session, now, site, game_id=row.id, seat=1, accept=False)
    return row


def _post_action(client: FlaskClient, game_pk: int, action: str,
                 **fields: str) -> tuple[str, int, str]:
    """The confirm page's text, then the POST's status and where it redirects."""
    page = client.get(f"/admin/games/{game_pk}/{action}")
    assert page.status_code == 200, page.text
    done = client.post(f"/admin/games/{game_pk}/{action}",
                       data={"csrf_token": csrf_of(page.text), **fields})
    return page.text, done.status_code, done.headers.get("Location", "")


def test_a_declined_game_offers_replace_and_abort_at_the_top(
    admin_client: FlaskClient, sqlite_database: Database, app_site: Site,
) -> None:
    row = _declined_game(sqlite_database, app_site)
    page = admin_client.get(f"/admin/games/{row.id}").text
    notice = page.index('id="declined"')
    assert notice < page.index('aria-label="Actions on this game"') < page.index("<h2>Seats")
    assert "Bob declined the invitation" in page
    replace = page.index("Replace the player who declined")
    abort = page.index("Abort the game")
    assert notice < replace and notice < abort
    assert f'href="/admin/games/{row.id}/replace">Replace the player who declined' in page
    assert f'href="/admin/games/{row.id}/abort">Abort the game' in page
    # A game nobody declined does not show it.
    waiting = _game(sqlite_database, app_site, ["Cid", "Dee"], start=False)
    assert 'id="declined"' not in admin_client.get(f"/admin/games/{waiting.id}").text


def test_replacing_the_player_who_declined_invites_the_new_one(
    admin_client: FlaskClient, sqlite_database: Database, app_site: Site,
) -> None:
    row = _declined_game(sqlite_database, app_site)
    assert row.id is not None
    confirm, status, location = _post_action(admin_client, row.id, "replace",
                                             seat="1", name="Cat", email="cat@example.test")
    assert '<option value="1" selected>' in confirm  # the declined seat, preselected
    assert status == 303 and location.endswith(f"/admin/games/{row.id}")
    with sqlite_database.session() as session:
        seat = session.exec(select(Seat).where(Seat.game_id == row.id, Seat.seat == 1)).one()
        cat = session.get(Player, seat.player_id)
        assert cat is not None and cat.email == "cat@example.test"
        assert seat.status == "invited"
        invitations = session.exec(select(OutboxEmail).where(
            OutboxEmail.game_id == row.id, OutboxEmail.to_address == "cat@example.test",
            OutboxEmail.kind == "invitation")).all()
        assert len(invitations) == 1
    after = admin_client.get(location).text
    assert 'id="declined"' not in after and "cat@example.test" in after
    # Once Cat accepts, everyone has: the game starts by itself.
    with sqlite_database.write() as session:
        started = respond_to_invitation(session, datetime.now(UTC), app_site, game_id=row.id,
                                        seat=1, accept=True)
        assert started.status == "active"


def test_aborting_a_declined_game(admin_client: FlaskClient, sqlite_database: Database,
                                  app_site: Site) -> None:
    row = _declined_game(sqlite_database, app_site)
    assert row.id is not None
    _, status, location = _post_action(admin_client, row.id, "abort", reason="Bob cannot play")
    assert status == 303
    with sqlite_database.session() as session:
        aborted = session.get(GameRecord, row.id)
        assert aborted is not None and aborted.status == "aborted"
    assert 'id="declined"' not in admin_client.get(location).text


# 3. Bounced mail: a filter and a count.

def test_the_mail_bounced_filter_and_count(admin_client: FlaskClient, sqlite_database: Database,
                                           app_site: Site) -> None:
    now = datetime.now(UTC)
    bounced = _game(sqlite_database, app_site, ["Ann", "Bob"], now=now - timedelta(hours=1))
    held = _game(sqlite_database, app_site, ["Cid", "Dee"], now=now)
    quiet = _game(sqlite_database, app_site, ["Eve", "Fay"])
    over = _game(sqlite_database, app_site, ["Gus", "Hal"])
    with sqlite_database.write() as session:
        for address in ("bob@example.test", "gus@example.test"):
            player = session.exec(select(Player).where(Player.email == address)).one()
            player.bounced_at = now
            session.add(player)
        held_clock, over_row = clock_of(session, held.id), session.get(GameRecord, over.id)
        assert over_row is not None
        held_clock.held_since = now
        over_row.status = "aborted"  # over: nothing left to do about its bounce
        session.add_all([held_clock, over_row])

    assert _listed(admin_client, "?status=bounced") == [bounced.id, held.id]
    page = admin_client.get("/admin/?status=bounced").text
    assert '<option value="bounced" selected>mail bounced or held</option>' in page
    assert "mail to Bob bounced" in page and 'class="flag held"' in page
    everything = admin_client.get("/admin/").text
    assert quiet.id in _listed(admin_client) and over.id in _listed(admin_client)
    count = re.search(r'<a href="/admin/\?status=bounced" id="bounced-count"><strong>(\d+)'
                      r"</strong> open games with bounced mail or held</a>", everything)
    assert count and count[1] == "2"
    assert "mail to Gus bounced" not in everything
    # Combined with a search, by a player or by the game's code.
    assert _listed(admin_client, "?status=bounced&player=dee") == [held.id]
    assert _listed(admin_client, f"?status=bounced&player={_code(bounced)}") == [bounced.id]


def test_no_bounce_count_when_nothing_bounced(admin_client: FlaskClient,
                                              sqlite_database: Database, app_site: Site) -> None:
    _game(sqlite_database, app_site, ["Ann", "Bob"])
    assert 'id="bounced-count"' not in admin_client.get("/admin/").text
    assert "No games match" in admin_client.get("/admin/?status=bounced").text
