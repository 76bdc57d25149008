"""Control characters in every text field of the dashboard are refused with a message, and
nothing is changed (issue 13): names and addresses go into mail headers, reasons into mail."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from pbem.db import Database
from pbem.services import Site
from tests.admin.test_admin_forgery import _running_game, _snapshot
from tests.support import csrf_of, two_player_game

BAD = ["Eve\r\nBcc: evil@example.test", "Eve\x0bX", "Eve\u2028X", "Eve\x00", "Eve\u202eX"]
GAME_FORM = {"name-0": "Ann", "email-0": "ann@example.test", "name-1": "Bob",
             "email-1": "bob@example.test", "seat_order": "given", "time_control": "3d",
             "timeout_policy": "pass", "reminders": "24h, 2h"}


def _post(client: FlaskClient, url: str, data: dict[str, str]) -> int:
    token = csrf_of(client.get(url).text)
    return client.post(url, data={**data, "csrf_token": token}).status_code


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("field", ["name-0", "email-0", "time_control", "reminders"])
def test_create_game_refuses_control_characters(admin_client: FlaskClient,
                                                sqlite_database: Database, field: str,
                                                bad: str) -> None:
    before = _snapshot(sqlite_database)
    url = f"/admin/games/new?game={two_player_game()}"
    status = _post(admin_client, url, {**GAME_FORM, "game": two_player_game(), field: bad})
    assert status == 422
    assert _snapshot(sqlite_database) == before


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize(("action", "data"), [
    ("replace", {"seat": "0", "email": "new@example.test", "name": "{bad}"}),
    ("replace", {"seat": "0", "email": "{bad}", "name": "New"}),
    ("abort", {"reason": "{bad}"}),
    ("adjudicate", {"winner": "0", "reason": "{bad}"}),
    ("extend", {"by": "{bad}"}),
])
def test_game_actions_refuse_control_characters(admin_client: FlaskClient,
                                                sqlite_database: Database, site: Site,
                                                action: str, data: dict[str, str],
                                                bad: str) -> None:
    if "\r\n" in bad and "reason" in data:
        bad = bad.replace("\r\n", "\x0b")  # a line break is fine in a reason: it is mail text
    game_pk = _running_game(sqlite_database, site)
    before = _snapshot(sqlite_database)
    filled = {key: value.replace("{bad}", bad) for key, value in data.items()}
    status = _post(admin_client, f"/admin/games/{game_pk}/{action}", filled)
    assert 400 <= status < 500
    assert _snapshot(sqlite_database) == before


def test_a_reason_may_have_line_breaks(admin_client: FlaskClient, sqlite_database: Database,
                                       site: Site) -> None:
    game_pk = _running_game(sqlite_database, site)
    status = _post(admin_client, f"/admin/games/{game_pk}/abort",
                   {"reason": "Both players left.\r\nSorry."})
    assert status == 303


@pytest.mark.parametrize("address", ["ann@@example.org", "ann@example..org", "ann@example.org.",
                                     '"><xss>@example.test', "ännä@example.test"])
def test_create_game_and_replace_refuse_addresses_that_break_delivery(
        admin_client: FlaskClient, sqlite_database: Database, site: Site, address: str) -> None:
    game_pk = _running_game(sqlite_database, site)
    before = _snapshot(sqlite_database)
    url = f"/admin/games/new?game={two_player_game()}"
    assert _post(admin_client, url, {**GAME_FORM, "game": two_player_game(),
                                     "email-1": address}) == 422
    assert 400 <= _post(admin_client, f"/admin/games/{game_pk}/replace",
                        {"seat": "0", "email": address, "name": "New"}) < 500
    assert _snapshot(sqlite_database) == before
