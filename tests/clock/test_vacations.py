"""Vacations: absences stop a player's clocks, within a yearly allowance, from the my-games page.

The service tests run on SQLite and PostgreSQL; the page test on SQLite through the web app.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import select

from pbem.clock.deadlines import clock_of
from pbem.db import Database
from pbem.i18n import Reader
from pbem.models import Player, PlayerAbsence
from pbem.services import PlayerSpec, Site, create_game, start_game
from pbem.services.vacations import AbsenceRefused, add_absence, remove_absence
from tests.support import ClockGames
from tests.web.sessions import open_games_link

MONDAY = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)


def _player_to_move(games: ClockGames, game_id: int) -> int:
    row = games.game(game_id)
    with games.database.session() as session:
        player = session.exec(select(Player).where(
            Player.email == f"p{row.to_move}@example.test")).one()
    assert player.id is not None
    return player.id


def test_an_absence_stops_the_clock_of_the_games_waiting_on_the_player(
    clock_games: ClockGames,
) -> None:
    game_id = clock_games.start("mosey", MONDAY)
    strict = clock_games.start("mosey", MONDAY, vacations_allowed=False)
    assert clock_games.clock(game_id).deadline == MONDAY + timedelta(days=3)
    player_id = _player_to_move(clock_games, game_id)
    with clock_games.database.write() as session:
        add_absence(session, MONDAY + timedelta(hours=1), player_id=player_id,
                    start=date(2025, 3, 4), end=date(2025, 3, 7))
    # Tuesday to Friday (4 days) do not count: the deadline moves 4 days on.
    assert clock_games.clock(game_id).deadline == MONDAY + timedelta(days=7)
    assert clock_games.clock(game_id).next_due_at == MONDAY + timedelta(days=6)
    assert clock_games.clock(strict).deadline == MONDAY + timedelta(days=3)
    assert clock_games.sweep(MONDAY + timedelta(days=3, hours=1)).work_done == 1  # strict only


def test_the_yearly_allowance_and_other_mistakes_are_refused_with_reasons(
    clock_games: ClockGames,
) -> None:
    game_id = clock_games.start("mosey", MONDAY)
    player_id = _player_to_move(clock_games, game_id)
    with clock_games.database.write() as session:
        add_absence(session, MONDAY, player_id=player_id, start=date(2025, 7, 1),
                    end=date(2025, 7, 25))
    cases = [
        ((date(2025, 8, 1), date(2025, 8, 6)), "only 5 of your 30 vacation days for 2025"),
        ((date(2025, 7, 20), date(2025, 7, 28)), "overlaps"),
        ((date(2025, 3, 1), date(2025, 3, 2)), "in the past"),
        ((date(2025, 9, 2), date(2025, 9, 1)), "before it starts"),
    ]
    for (start, end), reason in cases:
        with pytest.raises(AbsenceRefused, match=reason), \
                clock_games.database.write() as session:
            add_absence(session, MONDAY, player_id=player_id, start=start, end=end)
    with clock_games.database.write() as session:
        add_absence(session, MONDAY, player_id=player_id, start=date(2025, 12, 27),
                    end=date(2026, 1, 10))  # 5 days of 2025, 10 of 2026
        absence = session.exec(select(PlayerAbsence).where(
            PlayerAbsence.start == date(2025, 12, 27))).one()
        assert absence.id is not None
        remove_absence(session, MONDAY, player_id=player_id, absence_id=absence.id)
    with clock_games.database.session() as session:
        assert len(session.exec(select(PlayerAbsence)).all()) == 1


def test_the_my_games_page_adds_absences_and_shows_refusals(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Any,
) -> None:
    now = datetime.now(UTC)
    with sqlite_database.write() as session:
        row = create_game(session, now, site, game_type="mosey",
                          players=[PlayerSpec("Ann", "ann@example.test"),
                                   PlayerSpec("Bob", "bob@example.test")])
        assert row.id is not None
        start_game(session, now, site, game_id=row.id, force=True)
        mover = session.exec(select(Player).where(
            Player.email == ("ann@example.test" if row.to_move == 0 else "bob@example.test"))
        ).one()
        game_pk, player_id = row.id, mover.id
    link = site.links.my_games_url(player_id)[len("http://localhost"):]
    open_games_link(client, link)
    url = "/account"
    page = client.get(url)
    assert page.status_code == 200 and "30 of 30 days left" in page.text
    token = csrf(page.text)
    today = now.date()
    next_year = today.year + 1
    bad = client.post(url, data={"csrf_token": token, "action": "add_absence",
                                 "start": f"{next_year}-01-10", "end": f"{next_year}-02-20"})
    assert bad.status_code == 400 and "This absence was not added" in bad.text
    assert "vacation days" in bad.text
    garbled = client.post(url, data={"csrf_token": token, "action": "add_absence",
                                     "start": "next week", "end": ""})
    assert garbled.status_code == 400 and "not a date like" in garbled.text
    with sqlite_database.session() as session:
        before = clock_of(session, game_pk)
        assert before.deadline is not None
    good = client.post(url, data={"csrf_token": token, "action": "add_absence",
                                  "start": str(today + timedelta(days=1)),
                                  "end": str(today + timedelta(days=1))})
    assert good.status_code == 303
    shown = client.get(url)
    assert Reader("en").day(today + timedelta(days=1)) in shown.text  # as pages write days
    if (today + timedelta(days=1)).year == today.year:
        assert "29 of 30 days left" in shown.text
    with sqlite_database.session() as session:
        after = clock_of(session, game_pk)
        assert after.deadline is not None
        assert after.deadline - before.deadline == timedelta(days=1)
