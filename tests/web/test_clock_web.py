"""What players see of the clock on the web: the game page, and moves while paused."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from flask.testing import FlaskClient
from sqlmodel import select

from pbem.clock.controls import Fischer, PerMove
from pbem.clock.deadlines import clock_of
from pbem.db import Database
from pbem.models import GameRecord, Seat
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, create_game, start_game
from pbem.services.clock_actions import pause_game
from tests.support import clock_in
from tests.web.sessions import open_games_link


def test_the_game_page_shows_the_clock_and_a_pause(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Any,
) -> None:
    now = datetime.now(UTC)
    with sqlite_database.write() as session:
        row = create_game(session, now, site, game_type="mosey",
                          players=[PlayerSpec("Ann", "ann@example.test"),
                                   PlayerSpec("Bob", "bob@example.test")],
                          time_control=Fischer(weekends_off=True), timeout_policy="hold")
        assert row.id is not None
        start_game(session, now, site, game_id=row.id, force=True)
        game_pk, public_id, mover = row.id, row.public_id, row.to_move
    game_path = site.links.game_url(public_id)[len("http://localhost"):]
    page = client.get(game_path)
    assert page.status_code == 200, page.text
    assert "Clock: 2 days to start, plus 1 day per move, at most 4 days; weekends off" in page.text
    assert "the game waits and the organisers are alerted" in page.text
    with sqlite_database.write() as session:
        pause_game(session, game_pk, now=now + timedelta(hours=1), actor="olga", site=site)
    assert "has paused this game" in client.get(game_path).text
    # A move confirmed while paused is not played, and the page says why.
    with sqlite_database.session() as session:
        game, state = current_state(session.get(GameRecord, game_pk))  # type: ignore[arg-type]
    move = str(game.random_move(state, random.Random(0)))
    move_path = site.links.move_url(game_pk, mover or 0, 0)[len("http://localhost"):]
    confirm = client.get(f"{move_path}/confirm", query_string={"move": move})
    assert confirm.status_code == 200, confirm.text
    done = client.post(f"{move_path}/confirm", data={"csrf_token": csrf(confirm.text),
                                                     "move": move})
    assert done.status_code == 409 and "paused this game" in done.text
    with sqlite_database.session() as session:
        assert session.get(GameRecord, game_pk).ply == 0  # type: ignore[union-attr]


def test_a_new_time_zone_moves_the_weekend_and_the_deadline(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Any,
) -> None:
    saturday_early_utc = datetime(2025, 3, 8, 2, 0, tzinfo=UTC)  # Friday 18:00 in Los Angeles
    with sqlite_database.write() as session:
        row = create_game(session, saturday_early_utc, site, game_type="mosey",
                          players=[PlayerSpec("Ann", "ann@example.test"),
                                   PlayerSpec("Bob", "bob@example.test")],
                          time_control=PerMove(timedelta(days=1), weekends_off=True),
                          vacations_allowed=False)  # weekends are not vacations
        assert row.id is not None
        start_game(session, saturday_early_utc, site, game_id=row.id, force=True)
        game_pk = row.id
        mover = session.exec(select(Seat).where(Seat.game_id == game_pk,
                                                Seat.seat == row.to_move)).one()
        # Monday + 1 day, UTC
        assert clock_of(session, game_pk).deadline == datetime(2025, 3, 11, 0, 0, tzinfo=UTC)
    link = site.links.my_games_url(mover.player_id)[len("http://localhost"):]
    open_games_link(client, link)
    url = "/account"
    page = client.get(url)
    saved = client.post(url, data={"csrf_token": csrf(page.text), "name": "Ann",
                                   "time_zone": "America/Los_Angeles", "language": "en"})
    assert saved.status_code == 303
    # 6 hours of Friday in Los Angeles, then Monday 00:00 PDT + 18 h = Tuesday 01:00 UTC.
    assert clock_in(sqlite_database, game_pk).deadline == datetime(2025, 3, 11, 1, 0, tzinfo=UTC)
