"""Plain words on the pages (issue 33): buttons, sentences that apply to the game at hand, the
rules without the code behind them, names that lead to their players, one date format."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

import engine
from pbem.challenges.tables import Challenge
from pbem.db import Database
from pbem.i18n import Reader
from pbem.models import GameRecord, MoveSource, OutboxEmail, Player
from pbem.positions import current_state
from pbem.scheduler import sweep
from pbem.services import Site, resign, submit_move
from pbem.services.moves import FORCED_PASS_NOTE
from pbem.services.vacations import add_absence
from pbem.tournaments.service import create_tournament, start_tournament
from tests.support import ALICE_BOB, ALICE_BOB_CLEO, start_a_game
from tests.web.sessions import signed_in
from tests.web.test_challenges import challenge_form, make_player
from tests.web.test_computer_games import games_page, new_games, start_mosey_first


def _buttons(html: str) -> list[str]:
    return [re.sub(r"\s+", " ", b).strip() for b in re.findall(r"<button[^>]*>(.*?)</button>",
                                                               html, re.S)]


def test_a_pass_button_says_pass_without_the_notation_after_it(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "refugia", {"board": "3-4"})
    page = client.get(site.links.move_url(game_pk, 0, 0))
    assert "Pass" in _buttons(page.text)
    assert not [b for b in _buttons(page.text) if "\u2014" in b]


def test_only_a_game_with_hidden_information_says_nothing_is_hidden_any_more(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    pages = {}
    for game_id, options in (("mosey", {"order": 4}), ("rifugio", {"players": 2})):
        pk = start_a_game(sqlite_database, now, site, game_id, options, players=ALICE_BOB)
        with sqlite_database.write() as session:
            resign(session, now, site, game_id=pk, seat=0)
            row = session.get(GameRecord, pk)
            assert row is not None
            public_id = row.public_id
        pages[game_id] = client.get(f"/games/{public_id}/replay").text
    assert "nothing is hidden any more" in pages["rifugio"]
    assert "nothing is hidden" not in pages["mosey"]
    assert "hidden information" not in pages["mosey"]


def test_a_two_player_game_does_not_speak_of_a_stand_in_taking_over_a_seat(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    pages = {}
    for game_id, options, players in (("mosey", {"order": 4}, ALICE_BOB),
                                      ("rifugio", {"players": 3}, ALICE_BOB_CLEO)):
        pk = start_a_game(sqlite_database, now, site, game_id, options, players=players,
                          timeout_policy="forfeit-bot")
        pages[game_id] = client.get(site.links.seat_view_url(pk, 0)).text
    assert "if it runs out: the player loses." in pages["mosey"]
    assert "three or more" not in pages["mosey"] and "computer plays their seat" not in pages[
        "mosey"]
    assert "with three or more, the computer plays their seat" in pages["rifugio"]


def test_a_forced_pass_is_told_as_the_servers_remark_not_quoted_as_the_players_note(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    pk = start_a_game(sqlite_database, now, site, "refugia", {"board": "3-4"}, players=ALICE_BOB)
    with sqlite_database.write() as session:
        submit_move(session, now, site, game_id=pk, seat=0, ply=0, text="pass",
                    note=FORCED_PASS_NOTE, source=MoveSource.FORCED_PASS)
    with sqlite_database.write() as session:
        submit_move(session, now, site, game_id=pk, seat=1, ply=1, text="D4", note="good luck")
    page = client.get(site.links.seat_view_url(pk, 0)).text
    assert "(forced pass: the only legal move)" in page
    assert "&ldquo;forced pass" not in page
    assert "<em>&ldquo;good luck&rdquo;</em>" in page  # a player's own words stay quoted
    with sqlite_database.session() as session:
        bobs = session.exec(select(OutboxEmail).where(
            OutboxEmail.game_id == pk, OutboxEmail.kind == "turn",
            OutboxEmail.to_address == "bob@example.test").order_by(col(OutboxEmail.id))).all()
    told = bobs[-1]
    assert "pass  (forced pass: the only legal move)" in told.text_body
    assert '"forced pass' not in told.text_body and "&ldquo;forced" not in told.html_body
    assert "(forced pass: the only legal move)" in told.html_body


def test_a_challenge_to_the_computer_is_made_unrated_rather_than_refused(
    app: Flask, sqlite_database: Database,
) -> None:
    client = signed_in(app, sqlite_database, make_player(sqlite_database, "Ann",
                                                         "ann@example.test"))
    sent = challenge_form(client, "mosey", invitees="bot:easy", rated="on")
    assert sent.status_code == 303
    page = client.get(sent.headers["Location"]).text
    assert "Not rated." in page and "never rated" not in page
    # A form shown again (here for a mistake elsewhere) has the box unticked for a computer.
    again = challenge_form(client, "mosey", invitees="bot\nnot an address", rated="on")
    assert again.status_code == 400 and 'name="rated">' in again.text


def test_the_challenge_page_says_who_moves_first(
    app: Flask, sqlite_database: Database,
) -> None:
    client = signed_in(app, sqlite_database, make_player(sqlite_database, "Ann",
                                                         "ann@example.test"))
    said = {}
    for order in ("first", "second", "random"):
        sent = challenge_form(client, "mosey", invitees="Bob <bob@example.test>",
                              seat_order=order)
        said[order] = client.get(sent.headers["Location"]).text
    assert "Ann moves first." in said["first"]
    assert "Bob moves first." in said["second"]
    assert "Who moves first is drawn at random when the game starts." in said["random"]


def _player_id(database: Database, email: str) -> int:
    with database.session() as session:
        player = session.exec(select(Player).where(Player.email == email)).one()
        assert player.id is not None
        return player.id


def test_player_names_link_to_their_profiles_on_game_pages_and_standings(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    pk = start_a_game(sqlite_database, now, site, "mosey", {"order": 4}, players=ALICE_BOB)
    alice, bob = (_player_id(sqlite_database, p.email) for p in ALICE_BOB)
    with sqlite_database.write() as session:
        hidden = session.get(Player, bob)
        assert hidden is not None
        hidden.profile_hidden = True  # a hidden profile's name stays plain text
    page = client.get(site.links.seat_view_url(pk, 0)).text
    assert f'<a href="/players/{alice}">Alice (Light)</a> (you)' in page
    assert "Bob (Dark)" in page and f'href="/players/{bob}"' not in page
    with sqlite_database.write() as session:
        tournament = create_tournament(
            session, now, site, name="Link cup", game_type="mosey", options={"order": 4},
            fmt="round-robin", rated=False, players=[*ALICE_BOB, ALICE_BOB_CLEO[2]])
        assert tournament.id is not None
        start_tournament(session, now, site, tournament_id=tournament.id)
        slug = tournament.slug
    standings = client.get(f"/tournaments/{slug}").text.split('id="crosstable"')[0]
    cleo = _player_id(sqlite_database, "cleo@example.test")
    assert f'<a href="/players/{alice}">Alice</a>' in standings
    assert f'<a href="/players/{cleo}">Cleo</a>' in standings
    assert f'href="/players/{bob}"' not in standings


def test_the_page_waiting_for_the_computer_lands_on_the_move_page_once_it_has_moved(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    me, player_id = games_page(sqlite_database, site, client)
    move_page = start_mosey_first(client, me, csrf).location
    [(game, _)] = new_games(sqlite_database, player_id)
    engine_game, state = current_state(game)
    move = str(engine_game.legal_moves(state)[0])
    confirm = client.get(f"{move_page}/confirm", query_string={"move": move})
    done = client.post(f"{move_page}/confirm", data={"csrf_token": csrf(confirm.text),
                                                      "move": move})
    waiting = client.get(done.location).text
    refresh = re.search(r'<meta http-equiv="refresh" content="\d+; url=([^"]+)">', waiting)
    assert refresh
    sweep(sqlite_database, datetime.now(UTC), site)  # the computer answers
    landed = client.get(html.unescape(refresh[1]))
    assert landed.status_code == 303 and "/play/" in landed.location
    page = client.get(landed.location)
    assert page.status_code == 200 and "<button" in page.text  # the move page, its buttons
    # Opened by hand (no look counted), the game page stays the game page.
    assert client.get(done.location.split("?")[0]).status_code == 200


ISO_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def test_dates_are_written_one_way_per_language(
    app: Flask, sqlite_database: Database, site: Site,
) -> None:
    """The challenge's expiry, the account's absences and a game record's times are written as
    every other date of the reader's language, never as 2026-11-25 or with strftime."""
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    with sqlite_database.write() as session:
        player = session.get(Player, ann)
        assert player is not None
        player.language, player.time_zone = "de", "Europe/Berlin"
        start = datetime.now(UTC).date() + timedelta(days=30)
        add_absence(session, datetime.now(UTC), player_id=ann, start=start,
                    end=start + timedelta(days=2))
    german = Reader("de", "Europe/Berlin")
    client = signed_in(app, sqlite_database, ann)
    sent = challenge_form(client, "mosey", invitees="bob@example.test")
    page = client.get(sent.headers["Location"]).text
    with sqlite_database.session() as session:
        expires = session.exec(select(Challenge)).one().expires_at
    assert f"{german.when(expires)}" in html.unescape(page) and "(UTC)" not in page
    away = html.unescape(client.get("/account").text).split('id="away"')[1]
    assert german.day(start) in away and german.day(start + timedelta(days=2)) in away
    assert german.day(start).startswith(german.when(datetime.combine(
        start, datetime.min.time(), UTC)).split(",")[0])  # the same way as a moment's day
    pk = start_a_game(sqlite_database, datetime.now(UTC), site, "mosey", {"order": 4},
                      players=ALICE_BOB)
    with sqlite_database.session() as session:
        row = session.get(GameRecord, pk)
        assert row is not None and row.started_at is not None
    record = client.get(f"/games/{row.public_id}/record.txt").text
    assert f": {german.when(row.started_at)}" in record
    for text in (page.split("<main")[-1], away, record):
        assert not ISO_DAY.search(text)


DEVELOPERS = re.compile(r"\.py\b|engine/|tests/|\bLudii\b|\.lud\b|Abstract Play|shared/|\.md\b"
                        r"|Outcome\.|seed_sha256|\bplayout|bitboard|JavaScript|#\d+")


@pytest.mark.parametrize("language", ["en", "nl", "de", "it"])
def test_rules_pages_say_the_rulings_without_code_paths_tests_or_ludii(
    client: FlaskClient, language: str,
) -> None:
    for game_id in engine.GAMES:
        page = client.get(f"/rules/{game_id}", headers={"Accept-Language": language}).text
        fine_print = page.split('class="fine-print"')[1]
        assert fine_print.count("<li>") >= 3, game_id  # the rulings are still there
        assert not DEVELOPERS.search(html.unescape(fine_print)), (
            game_id, DEVELOPERS.findall(html.unescape(fine_print)))
