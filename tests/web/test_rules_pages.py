"""Rules pages, the terms each game explains, and names with colours on the game and
invitation pages (issue #16)."""

from __future__ import annotations

import html
import itertools
import random
import re
from datetime import datetime

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

import engine
from pbem.db import Database
from pbem.models import GameRecord, Move, OutboxEmail, Player
from pbem.services import PlayerSpec, Site, create_game, resign, submit_move
from pbem.web import rules
from pbem.web.games import turns_of
from pbem.web.terms import seat_names, terms_for
from tests.support import ALICE_BOB, start_a_game, start_rifugio_of_three


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    """The app with the rules blueprint, whether or not the app factory registers it yet."""
    if "rules.rules_page" not in app.view_functions:
        rules.init_app(app)
    return app.test_client()


def _row(database: Database, game_pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None
    return row


def test_rules_index_links_every_game(client: FlaskClient) -> None:
    page = html.unescape(client.get("/rules").text)
    for game_id, info in engine.GAMES.items():
        assert f'href="/rules/{game_id}"' in page and info.name in page


def test_rules_page_has_summary_terms_and_every_board(game_id: str, client: FlaskClient) -> None:
    info = engine.GAMES[game_id]
    page = client.get(f"/rules/{game_id}")
    assert page.status_code == 200
    text = html.unescape(page.text)
    assert info.summary in text
    boards = info.options[0].choices if info.options else (None,)
    assert text.count("<svg") == len(boards)
    assert "<script" not in text.lower()
    for term, _ in terms_for(game_id, {}):
        assert term in text


def test_rules_page_names_options_and_their_choices_as_players_read_them(
    client: FlaskClient,
) -> None:
    english = html.unescape(client.get("/rules/stigmergy").text)
    assert "Komi: negotiated, zero (usually negotiated)" in english
    assert "Board side: 5, 6, 7, 8, 9, 10 (usually 8)" in english
    assert "The start, Board side 5" in english  # the option's label, never its stored name
    german = html.unescape(client.get("/rules/stigmergy",
                                      headers={"Accept-Language": "de"}).text)
    options = german.split("<h2>Optionen</h2>", 1)[1].split("</ul>", 1)[0]
    assert "Komi: ausgehandelt, null (meist ausgehandelt)" in options, options


def test_the_option_form_shows_words_and_sends_the_stored_value(
    app: Flask, sqlite_database: Database,
) -> None:
    from tests.web.sessions import signed_in
    from tests.web.test_challenges import make_player

    player_id = make_player(sqlite_database, "Ann", "ann@example.test")
    with sqlite_database.write() as session:  # her account's language, whatever the browser's
        ann = session.get(Player, player_id)
        assert ann is not None
        ann.language = "it"
    client = signed_in(app, sqlite_database, player_id)
    form = client.get("/challenges/new", query_string={"game": "stigmergy"},
                      headers={"Accept-Language": "de"}).text
    assert '<option value="negotiate" selected>negoziato</option>' in form
    assert '<option value="none">zero</option>' in form


def test_unknown_rules_page_is_not_found(client: FlaskClient) -> None:
    assert client.get("/rules/nine-men").status_code == 404


def test_terms_explain_each_games_own_words() -> None:
    stigmergy = dict(terms_for("stigmergy", {"komi": "negotiate"}))
    assert "points added to the second player's score" in stigmergy["Komi"].lower()
    assert "Play second" in stigmergy["Choosing sides"]
    assert "Take the button (+\u00bd point)" in stigmergy["Button"]
    assert "Komi" not in dict(terms_for("stigmergy", {"komi": "none"}))
    rifugio = dict(terms_for("rifugio", {"players": 3}))
    for code in ("AR", "MA", "BU", "W2", "T2", "P3", "IB", "BR"):
        assert code in rifugio
    refugia = dict(terms_for("refugia", {}))
    assert "mutual enemy" in refugia["Neutral stone"] and "Hop" in refugia
    assert {"Capture", "Group"} <= dict(terms_for("mosey", {})).keys()
    assert terms_for("nine-men", {}) == []


def test_generic_seat_names_become_colours() -> None:
    assert seat_names("rifugio", ["Player 1", "Player 2"]) == ["Red", "Blue"]
    assert seat_names("mosey", ["Light", "Dark"]) == ["Light", "Dark"]


def test_game_page_names_seats_and_explains_terms(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "stigmergy",
                           {"size": 5, "komi": "negotiate"}, players=ALICE_BOB)
    page = client.get(f"/g/{_row(sqlite_database, game_pk).public_id}").text
    assert "Alice (First)" in page and "Bob (Second)" in page
    assert 'href="/rules/stigmergy"' in page
    assert "points added to the second player&#39;s score" in page.lower()
    assert "Player 1" not in page


def test_rifugio_page_has_colours_and_tile_legend(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_rifugio_of_three(sqlite_database, now, site)
    page = client.get(f"/g/{_row(sqlite_database, game_pk).public_id}").text
    assert "Alice (Red)" in page and "Cleo (Yellow)" in page
    assert "<dt>AR</dt>" in page and "<dt>P3</dt>" in page
    assert "Player 1" not in page


def test_invitation_shows_clock_colours_organiser_rules_and_board(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    with sqlite_database.write() as session:
        row = create_game(session, now, site, game_type="mosey", options={"order": 4},
                          players=ALICE_BOB, organiser=PlayerSpec("Olga", "olga@example.test"))
        assert row.id is not None
        game_pk = row.id
    page = client.get(site.links.invite_url(game_pk, 1)).text
    assert "Alice (Light)" in page and "Bob (Dark) (you)" in page
    assert "Organiser: Olga" in page
    assert "Time control:" in page and "If a clock runs out:" in page
    assert 'href="/rules/mosey"' in page and "<svg" in page
    assert "<dt>Capture</dt>" in page


def test_resign_button_lists_several_opponents_in_the_pages_language(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    players = [PlayerSpec("Alice", "alice@example.test", language="de"), ALICE_BOB[1],
               PlayerSpec("Cleo", "cleo@example.test"), PlayerSpec("Dirk", "dirk@example.test")]
    game_pk = start_a_game(sqlite_database, now, site, "rifugio", {"players": 4},
                           players=players)
    page = client.get(site.links.resign_url(game_pk, 0)).text
    button = re.search(r"<button[^>]*>([^<]*)</button>", page)
    assert button and button[1] == "Rifugio gegen Bob, Cleo und Dirk aufgeben"


def test_a_player_who_resigned_a_game_of_three_is_shown_the_game_not_a_move_form(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_rifugio_of_three(sqlite_database, now, site)
    row = _row(sqlite_database, game_pk)
    mover = row.to_move
    assert mover is not None
    page = client.get(site.links.resign_url(game_pk, mover)).text
    assert "the computer plays your seat to the end" in page
    with sqlite_database.write() as session:
        resign(session, now, site, game_id=game_pk, seat=mover)
    answer = client.get(site.links.move_url(game_pk, mover, row.ply))
    assert answer.status_code == 403
    assert "You are out of this game" in answer.text and 'name="move"' not in answer.text
    again = client.get(site.links.resign_url(game_pk, mover)).text
    assert "You are out of this game" in again and "Resign this game?" not in again
    assert "You are out of this game" in client.get(site.links.seat_view_url(game_pk,
                                                                              mover)).text


def test_result_and_resign_read_with_names(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "mosey", {"order": 4},
                           players=ALICE_BOB)
    page = client.get(site.links.resign_url(game_pk, 0)).text
    button = re.search(r"<button[^>]*>([^<]*)</button>", page)
    assert button and button[1] == "Resign from Mosey against Bob"
    assert 'class="warning"' in button[0]
    with sqlite_database.write() as session:
        resign(session, now, site, game_id=game_pk, seat=0)
    row = _row(sqlite_database, game_pk)
    page = client.get(f"/g/{row.public_id}").text
    assert row.result and row.result.replace("'", "&#39;") in page
    assert "Resign this game" not in page


def test_moves_of_one_turn_share_a_line() -> None:
    moves = [Move(game_id=1, ply=n, seat=seat, notation=f"m{n}")
             for n, seat in enumerate([0, 0, 0, 1, 1, 0])]
    turns = turns_of(moves)
    assert [(seat, [number for number, _ in steps]) for seat, steps in turns] == [
        (0, [1, 2, 3]), (1, [4, 5]), (0, [6])]


def test_game_page_groups_a_rifugio_turn(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    from tests.web.test_web_pages import _play_random  # plays random moves through the service

    game_pk = start_a_game(sqlite_database, now, site, "rifugio", {"players": 2},
                           players=ALICE_BOB)
    _play_random(sqlite_database, now, site, game_pk, 6, random.Random(3))
    with sqlite_database.session() as session:
        seats = [m.seat for m in session.exec(select(Move).where(Move.game_id == game_pk))]
    page = client.get(f"/g/{_row(sqlite_database, game_pk).public_id}").text
    lines = re.findall(r"<li[^>]*>(?:Alice|Bob) \(", page.split('<ol class="moves">')[1])
    assert len(lines) == 1 + sum(a != b for a, b in itertools.pairwise(seats))


def test_a_finished_game_without_a_stored_result_gets_a_sentence(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    """Games that ended before results were sentences still read as one, with names."""
    from tests.web.test_web_pages import _play_random

    game_pk = start_a_game(sqlite_database, now, site, "mosey", {"order": 4}, players=ALICE_BOB)
    _play_random(sqlite_database, now, site, game_pk, 3000, random.Random(5))
    with sqlite_database.write() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None and row.status == "finished"
        row.result = ""
        session.add(row)
    page = html.unescape(client.get(f"/g/{_row(sqlite_database, game_pk).public_id}").text)
    sentence = re.search(r'class="notice result"><strong>([^<]+)</strong>', page)
    assert sentence and re.match(r"(Alice \(Light\)|Bob \(Dark\)) won", sentence[1])
    assert "last player to move wins" in sentence[1]


def _terms_open(page: str) -> bool:
    tag = re.search(r'<details class="terms"[^>]*>', page)
    assert tag, "the page has the glossary"
    return " open" in tag[0]


def test_the_glossary_is_closed_above_the_board_and_open_below_it_until_the_player_has_moved(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    """Rifugio's glossary is twenty rows: on the move page, above the board, it is one closed
    line (issue 33: it pushed the board 1,400 px down a phone); below the board of a seat's
    page it is open until the player has moved. Spectators keep it open."""
    game_pk = start_rifugio_of_three(sqlite_database, now, site)
    local = len("http://localhost")
    assert not _terms_open(client.get(site.links.move_url(game_pk, 0, 0)[local:]).text)
    assert _terms_open(client.get(site.links.seat_view_url(game_pk, 0)[local:]).text)
    with sqlite_database.write() as session:
        submit_move(session, now, site, game_id=game_pk, seat=0, ply=0, text="take blind")
    assert not _terms_open(client.get(site.links.move_url(game_pk, 0, 1)[local:]).text)
    assert not _terms_open(client.get(site.links.seat_view_url(game_pk, 0)[local:]).text)
    assert _terms_open(client.get(site.links.seat_view_url(game_pk, 1)[local:]).text)
    assert _terms_open(client.get(f"/g/{_row(sqlite_database, game_pk).public_id}").text)


def test_a_named_komi_is_listed_as_a_komi_not_a_bare_number(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "stigmergy",
                           {"size": 5, "komi": "negotiate"}, players=ALICE_BOB)
    with sqlite_database.write() as session:
        submit_move(session, now, site, game_id=game_pk, seat=0, ply=0, text="3")
        turn = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "turn")
                            .order_by(col(OutboxEmail.id).desc())).first()
    page = client.get(f"/g/{_row(sqlite_database, game_pk).public_id}").text
    assert '<a href="?ply=1">komi 3</a>' in page
    assert turn is not None and "1. Alice (First): komi 3\n" in turn.text_body
    assert "<strong>Alice (First)</strong>: komi 3" in (turn.html_body or "")
