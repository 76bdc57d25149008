"""The calendar of deadlines (pbem.calendar, /calendar/<token>): parsed back with icalendar, one
event per game where it is the player's turn, at its deadline, moved when the deadline moves,
and its address dead once the player replaces their email links."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from flask import Flask
from icalendar import Calendar
from sqlmodel import select

from pbem.db import Database
from pbem.models import GameRecord, Player
from pbem.services import Site
from pbem.services.clock_actions import extend_deadline, pause_game
from pbem.services.common import seats_of
from tests.support import ALICE_BOB, BASE_URL, clock_in, csrf_of, start_a_game, two_player_game
from tests.web.sessions import signed_in


def app_site(app: Flask) -> Site:
    site: Site = app.extensions["pbem.site"]
    return site


def events(app: Flask, url: str) -> list[dict[str, object]]:
    answer = app.test_client().get(url.removeprefix(app_site(app).links.base_url))
    assert answer.status_code == 200, answer.text
    assert answer.mimetype == "text/calendar"
    calendar = Calendar.from_ical(answer.data)
    assert str(calendar["VERSION"]) == "2.0"
    return [{"uid": str(e["UID"]), "start": e.decoded("DTSTART"), "summary": str(e["SUMMARY"]),
             "url": str(e["URL"]), "description": str(e["DESCRIPTION"])}
            for e in calendar.walk("VEVENT")]


def player_to_move(database: Database, game: int) -> tuple[Player, Player, GameRecord]:
    with database.session() as session:
        row = session.get(GameRecord, game)
        assert row is not None and row.id is not None
        seats = seats_of(session, row.id)
        mover = session.get(Player, seats[row.to_move or 0].player_id)
        other = session.get(Player, seats[1 - (row.to_move or 0)].player_id)
    assert mover is not None and other is not None
    return mover, other, row


def test_the_feed_has_one_event_per_game_where_it_is_the_players_turn(
        app: Flask, sqlite_database: Database) -> None:
    site, now = app_site(app), datetime.now(UTC).replace(microsecond=0)  # as iCalendar
    game_type = two_player_game()
    games = [start_a_game(sqlite_database, now, site, game_type, players=ALICE_BOB,
                          per_move=timedelta(days=days)) for days in (3, 5, 4)]
    with sqlite_database.write() as session:  # a paused game's clock does not run
        pause_game(session, games[2], now=now, actor="test", site=site)
    mover, other, row = player_to_move(sqlite_database, games[0])
    assert mover.id is not None and other.id is not None
    assert clock_in(sqlite_database, games[0]).deadline is not None
    seated = {game: player_to_move(sqlite_database, game) for game in games[:2]}
    for player in (mover, other):
        expected = sorted((clock_in(sqlite_database, r.id).deadline, r.id, r.public_id)
                          for m, _, r in seated.values()
                          if m.id == player.id)
        found = events(app, site.links.calendar_url(player.id or 0))
        assert [(e["start"], e["uid"]) for e in found] == [
            (deadline, f"turn-{public_id}-0@{urlsplit(BASE_URL).hostname}")
            for deadline, _, public_id in expected]
    [event, *_] = events(app, site.links.calendar_url(mover.id))
    move_url = site.links.move_url(games[0], row.to_move or 0, row.ply, holder=mover.id)
    assert event["summary"] == f"Your turn: {game_type_title(row, other)}"
    assert event["url"] == move_url and event["description"] == f"Make your move: {move_url}"


def game_type_title(row: GameRecord, opponent: Player) -> str:
    from pbem.i18n import ENGLISH
    from pbem.services.notify import title_of

    names = ["Alice", "Bob"]
    seat = names.index("Bob" if opponent.name == "Alice" else "Alice")
    return title_of(row, names, seat, ENGLISH)


def test_the_event_moves_with_the_deadline_and_keeps_its_uid(app: Flask,
                                                             sqlite_database: Database) -> None:
    site, now = app_site(app), datetime.now(UTC).replace(microsecond=0)  # as iCalendar
    game = start_a_game(sqlite_database, now, site, two_player_game(), players=ALICE_BOB,
                        per_move=timedelta(days=3))
    mover, _, _ = player_to_move(sqlite_database, game)
    assert mover.id is not None
    url = site.links.calendar_url(mover.id)
    [before] = events(app, url)
    deadline = clock_in(sqlite_database, game).deadline
    with sqlite_database.write() as session:
        extend_deadline(session, game, by=timedelta(days=2), now=now, actor="test", site=site)
    [after] = events(app, url)
    assert before["start"] == deadline
    assert after["start"] == before["start"] + timedelta(days=2)  # type: ignore[operator]
    assert after["uid"] == before["uid"]


def test_a_player_reads_the_calendar_in_their_language(app: Flask,
                                                       sqlite_database: Database) -> None:
    site, now = app_site(app), datetime.now(UTC).replace(microsecond=0)  # as iCalendar
    game = start_a_game(sqlite_database, now, site, two_player_game(), players=ALICE_BOB)
    mover, _, _ = player_to_move(sqlite_database, game)
    with sqlite_database.write() as session:
        row = session.get(Player, mover.id)
        assert row is not None
        row.language = "de"
        session.add(row)
    [event] = events(app, site.links.calendar_url(mover.id or 0))
    assert str(event["description"]).startswith("Mach deinen Zug: ")


def test_replacing_the_email_links_replaces_the_calendar_address(
        app: Flask, sqlite_database: Database) -> None:
    site, now = app_site(app), datetime.now(UTC).replace(microsecond=0)  # as iCalendar
    start_a_game(sqlite_database, now, site, two_player_game(), players=ALICE_BOB)
    with sqlite_database.session() as session:
        alice = session.exec(select(Player).where(Player.email == "alice@example.test")).one()
    assert alice.id is not None
    old = site.links.calendar_url(alice.id).removeprefix(site.links.base_url)
    browser = signed_in(app, sqlite_database, alice.id)
    assert app.test_client().get(old).status_code == 200
    csrf = csrf_of(browser.get("/account").text)
    assert browser.post("/account/links", data={"csrf_token": csrf}).status_code == 200
    gone = app.test_client().get(old)
    assert gone.status_code == 410 and "BEGIN:VCALENDAR" not in gone.text
    new = site.links.calendar_url(alice.id).removeprefix(site.links.base_url)
    assert new != old and app.test_client().get(new).status_code == 200
    page = browser.get("/account/channels")
    assert site.links.base_url + new in page.text and old not in page.text


def test_a_damaged_or_foreign_token_opens_no_calendar(app: Flask,
                                                      sqlite_database: Database) -> None:
    site, now = app_site(app), datetime.now(UTC).replace(microsecond=0)  # as iCalendar
    start_a_game(sqlite_database, now, site, two_player_game(), players=ALICE_BOB)
    with sqlite_database.session() as session:
        alice = session.exec(select(Player).where(Player.email == "alice@example.test")).one()
    token = site.links.calendar_url(alice.id or 0).rpartition("/")[2]
    games_page_token = site.links.my_games_url(alice.id or 0).rpartition("/")[2]
    for bad in (token[:-3], token + "x", games_page_token):
        answer = app.test_client().get(f"/calendar/{bad}")
        assert answer.status_code == 400 and "BEGIN:VCALENDAR" not in answer.text
