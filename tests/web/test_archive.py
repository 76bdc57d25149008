"""The public archive: only finished, listed games, newest first, filtered and paged; and the
three ways to create an unlisted game (the service, the dashboard's checkbox, the command line).

Games are finished by a resignation at a chosen moment, which sets their finishing time: the
archive is about which games are listed, not how they ended.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import col, select

import pbem.ratelimit  # its table must be on the metadata the test databases use
import pbem.web.archive
from pbem.db import Database
from pbem.models import GameRecord
from pbem.services import PlayerSpec, Site, resign
from tests.support import Cli, csrf_of, start_a_game

QUICK, QUICK_OPTIONS = "refugia", {"board": "2-3"}  # two seats, the smallest board
DAY = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def _people(*names: str) -> list[PlayerSpec]:
    return [PlayerSpec(name, f"{name.lower().replace('%', 'pct')}@example.test")
            for name in names]


def finished_game(database: Database, site: Site, names: tuple[str, str], when: datetime, *,
                  game_id: str = QUICK, listed: bool = True) -> str:
    """A two-player game that ended at ``when`` (the first player resigned); its public id."""
    options = QUICK_OPTIONS if game_id == QUICK else None
    pk = start_a_game(database, when - timedelta(days=1), site, game_id, options,
                      players=_people(*names), listed=listed)
    with database.write() as session:
        return resign(session, when, site, game_id=pk, seat=0).public_id


def running_game(database: Database, site: Site, names: tuple[str, str], *,
                 listed: bool = True) -> str:
    pk = start_a_game(database, DAY, site, QUICK, QUICK_OPTIONS, players=_people(*names),
                      listed=listed)
    with database.session() as session:
        row = session.get(GameRecord, pk)
        assert row is not None
        return row.public_id


def shown(page: str) -> list[str]:
    """The public ids the archive lists, in its order (each row links its replay)."""
    return re.findall(r'href="/games/([A-Za-z0-9_-]+)/replay', page)


def test_only_finished_listed_games_newest_first(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    older = finished_game(sqlite_database, site, ("Alice", "Bob"), DAY)
    newer = finished_game(sqlite_database, site, ("Carol", "Dan"), DAY + timedelta(days=4))
    running = running_game(sqlite_database, site, ("Erin", "Fay"))
    unlisted = finished_game(sqlite_database, site, ("Gus", "Hal"), DAY + timedelta(days=9),
                             listed=False)
    page = client.get("/archive")
    assert page.status_code == 200
    assert shown(page.text) == [newer, older]
    assert "2 finished games." in page.text
    for hidden in (running, unlisted):
        assert hidden not in page.text
    assert "Gus" not in page.text and "Erin" not in page.text
    # Each row links its replay, its record in three formats, and its players' profiles.
    for kind in ("json", "txt", "sgf"):
        assert f"/games/{older}/record.{kind}" in page.text
    assert re.search(r'<a href="/players/\d+">Alice</a>', page.text)
    assert "Bob" in page.text and "resigned" in page.text
    # Unlisted is not secret-proof, only out of lists: its link still works.
    assert client.get(f"/games/{unlisted}/replay").status_code == 200
    assert client.get(f"/games/{unlisted}/record.json").status_code == 200
    assert shown(client.get("/archive", query_string={"player": "gus"}).text) == []


def test_filters_by_game_player_and_dates(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    first = finished_game(sqlite_database, site, ("Alice", "Bob"), DAY)
    second = finished_game(sqlite_database, site, ("Carol", "Alicia"), DAY + timedelta(days=2))
    other = finished_game(sqlite_database, site, ("Zed", "Yan"), DAY + timedelta(days=5),
                          game_id="mosey")

    def found(**query: str) -> list[str]:
        page = client.get("/archive", query_string=query)
        assert page.status_code == 200, page.text
        return shown(page.text)

    assert found(game="mosey") == [other]
    assert found(game=QUICK) == [second, first]
    assert found(player="ALI") == [second, first]  # part of a name, any case
    assert found(player="alicia") == [second]
    assert found(player="bob", game="mosey") == []
    assert found(**{"from": "2025-03-03"}) == [other, second]
    assert found(to="2025-03-03") == [second, first]
    assert found(**{"from": "2025-03-03", "to": "2025-03-03"}) == [second]  # both days included
    assert found(**{"from": "2025-03-04", "to": "2025-03-06"}) == [other]
    assert found(player="nobody") == []
    # The form shows again what was searched, so a search can be refined.
    page = client.get("/archive", query_string={"player": "ali", "game": "mosey"}).text
    assert 'value="ali"' in page and '<option value="mosey" selected>' in page


def test_a_name_with_percent_signs_is_searched_literally(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    plain = finished_game(sqlite_database, site, ("Ann", "Bea"), DAY)
    odd = finished_game(sqlite_database, site, ("100% Kim", "Lou"), DAY + timedelta(days=1))
    assert shown(client.get("/archive", query_string={"player": "%"}).text) == [odd]
    assert plain in client.get("/archive").text


@pytest.mark.parametrize(("query", "said"), [
    ({"from": "yesterday"}, "&#39;yesterday&#39; is not a date like 2025-07-31"),
    ({"to": "2025-02-30"}, "&#39;2025-02-30&#39; is not a date like 2025-07-31"),
    ({"from": "2025-03-05", "to": "2025-03-01"}, "the last day comes before the first day"),
    ({"game": "chess"}, "there is no game called &#39;chess&#39;"),
    ({"page": "two"}, "&#39;two&#39; is not a page number"),
    ({"page": "0"}, "&#39;0&#39; is not a page number"),
])
def test_bad_filters_are_said_clearly_and_kept(
        client: FlaskClient, sqlite_database: Database, site: Site, query: dict[str, str],
        said: str) -> None:
    finished_game(sqlite_database, site, ("Alice", "Bob"), DAY)
    page = client.get("/archive", query_string=query)
    assert page.status_code == 400
    assert said in page.text
    assert 'role="alert"' in page.text
    for value in query.values():
        if value != "chess" and not value.isdigit() and value != "two":
            assert f'value="{value}"' in page.text  # what was typed stays in the form


def test_pages_newest_first_keeping_the_filters(
        client: FlaskClient, sqlite_database: Database, site: Site,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pbem.web.archive, "PAGE_SIZE", 2)
    ids = [finished_game(sqlite_database, site, (f"Pat{n}", f"Quin{n}"), DAY + timedelta(days=n))
           for n in range(5)]
    finished_game(sqlite_database, site, ("Other", "People"), DAY + timedelta(days=9))
    newest_first = ids[::-1]
    page = client.get("/archive", query_string={"player": "pat"}).text
    assert shown(page) == newest_first[:2] and "Page 1 of 3." in page
    older = re.search(r'<a href="([^"]+)" rel="next">', page)
    assert older is not None
    second = client.get(older[1].replace("&amp;", "&")).text
    assert "player=pat" in older[1]  # the filter goes along
    assert shown(second) == newest_first[2:4] and "Page 2 of 3." in second
    assert shown(client.get("/archive?player=pat&page=3").text) == newest_first[4:]
    beyond = client.get("/archive?player=pat&page=7")
    assert beyond.status_code == 200 and shown(beyond.text) == []
    assert "There are no games on this page." in beyond.text
    # Past the counting cap, the page says "more than" and offers older pages while they are full.
    monkeypatch.setattr(pbem.web.archive, "COUNT_CAP", 3)
    page = client.get("/archive", query_string={"player": "pat"}).text
    assert "More than 3 finished games. Page 1." in page and shown(page) == newest_first[:2]
    last = client.get("/archive?player=pat&page=3").text
    assert shown(last) == newest_first[4:] and 'rel="next"' not in last


def test_the_page_works_on_a_phone_without_javascript(client: FlaskClient) -> None:
    page = client.get("/archive").text
    assert '<meta name="viewport"' in page and "<script" not in page
    assert '<form method="get"' in page and "No finished games match." in page


# -- creating unlisted games ------------------------------------------------------------------


def test_the_dashboard_checkbox_makes_an_unlisted_game(
        admin_client: FlaskClient, sqlite_database: Database) -> None:
    page = admin_client.get(f"/admin/games/new?game={QUICK}").text
    box = re.search(r'<input type="checkbox" id="unlisted"[^>]*>', page)
    assert box is not None and "checked" not in box[0]  # listed unless asked
    form = {"csrf_token": csrf_of(page), "game": QUICK, "option-board": "2-3", "name-0": "Ann",
            "email-0": "ann@example.test", "name-1": "Bob", "email-1": "bob@example.test",
            "seat_order": "given", "time_control": "3d", "timeout_policy": "pass",
            "reminders": "24h"}
    assert admin_client.post("/admin/games/new", data=form).status_code == 303
    assert admin_client.post("/admin/games/new",
                             data={**form, "unlisted": "on"}).status_code == 303
    kept = admin_client.post("/admin/games/new", data={**form, "unlisted": "on",
                                                       "time_control": "soon"})
    assert kept.status_code == 422  # another field is wrong: the box stays ticked
    box = re.search(r'<input type="checkbox" id="unlisted"[^>]*>', kept.text)
    assert box is not None and "checked" in box[0]
    with sqlite_database.session() as session:
        games = session.exec(select(GameRecord).order_by(col(GameRecord.id)))
        assert [g.listed for g in games] == [True, False]


def test_the_command_line_makes_an_unlisted_game(cli: Cli) -> None:
    for flags in ([], ["--unlisted"]):
        made = cli("create-game", QUICK, "--option=board=2-3", *flags,
                   "--player", "ann@example.test", "--player", "bob@example.test")
        assert made.exit_code == 0, made.output
    with cli.database.session() as session:
        games = session.exec(select(GameRecord).order_by(col(GameRecord.id)))
        assert [g.listed for g in games] == [True, False]


def test_the_archive_query_on_each_backend(database: Database, site: Site) -> None:
    """The same filters on SQLite and PostgreSQL: case, literal % and _, UTC days, listing."""
    from pbem.web.archive import Filters, archive_page

    first = finished_game(database, site, ("Ann_1", "Bea"), DAY)
    second = finished_game(database, site, ("100% Kim", "ann"), DAY + timedelta(days=1))
    finished_game(database, site, ("Annette", "Cy"), DAY + timedelta(days=2), listed=False)
    running_game(database, site, ("Ann", "Dee"))

    def found(**asked: Any) -> list[str]:
        with database.session() as session:
            rows, total = archive_page(session, Filters({}, **asked))
        assert total == len(rows)
        return [row.public_id for row in rows]

    assert found() == [second, first]
    assert found(player="ANN") == [second, first]
    assert found(player="n_") == [first] and found(player="%") == [second]
    assert found(game=QUICK, since=(DAY + timedelta(days=1)).date()) == [second]
    assert found(until=DAY.date()) == [first] and found(game="mosey") == []
