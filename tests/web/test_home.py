"""A player's home (/account, issue 33): their turn first, most urgent first, with the time left;
then challenges and invitations to answer; then games waiting for others; then finished games,
collapsed. Rows name the game and the other players, never a code. Signed-in players land there
from the home page; visitors get a short home page with the games as cards (one card for a
family of variants), and the game pickers use the same cards.
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from unittest.mock import patch

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from pbem.challenges.rules import ChallengeRules
from pbem.challenges.service import create_challenge
from pbem.db import Database
from pbem.models import GameRecord, Player
from pbem.services import PlayerSpec, Site, create_game, resign
from pbem.services.turns import submit_move
from tests.support import start_a_game
from tests.web.sessions import signed_in

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
ANN, BOB, CLEO, DAN = (PlayerSpec(name, f"{name.lower()}@example.test")
                       for name in ("Ann", "Bob", "Cleo", "Dan"))
MOSEY = {"order": 4}  # Light (seat 0) moves first, 3 days a move
STIGMERGY = {"size": 5}
RULES = ChallengeRules(time_controls=("3d per move",))


def _id(database: Database, spec: PlayerSpec) -> int:
    with database.session() as session:
        player = session.exec(select(Player).where(Player.email == spec.email)).one()
    assert player.id is not None
    return player.id


def _row(database: Database, game_pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None
    return row


def _home(app: Flask, database: Database, player_id: int, client: FlaskClient | None = None
          ) -> str:
    """The player's home at NOW, as a browser signed in as them has it."""
    with patch("pbem.web.players.utc_now", lambda: NOW):
        page = (client or signed_in(app, database, player_id)).get("/account")
    assert page.status_code == 200
    return page.text


def _challenge(database: Database, site: Site, creator: PlayerSpec, *invitees: PlayerSpec
               ) -> str:
    """A challenge to ``invitees`` made now (challenges expire); its public id."""
    with database.write() as session:
        me = session.exec(select(Player).where(Player.email == creator.email)).one()
        row = create_challenge(session, datetime.now(UTC), site, RULES,
                               creator=me, game_type="mosey", options=MOSEY,
                               time_control="3d per move", timeout_policy="default",
                               invitees=list(invitees))
        return row.public_id




@pytest.fixture
def world(sqlite_database: Database, site: Site) -> dict[str, int]:
    """Ann's games: two where it is her turn (Cleo's runs out first), one waiting for Dan, one
    finished, an invitation to a game, and (made by each test that needs one) a challenge."""
    db = sqlite_database
    later = start_a_game(db, NOW - timedelta(hours=20), site, "mosey", MOSEY, players=[ANN, BOB])
    sooner = start_a_game(db, NOW - timedelta(days=1, hours=20), site, "mosey", MOSEY,
                          players=[ANN, CLEO])
    theirs = start_a_game(db, NOW - timedelta(hours=1), site, "mosey", MOSEY, players=[DAN, ANN])
    over = start_a_game(db, NOW - timedelta(days=5), site, "mosey", MOSEY, players=[ANN, DAN])
    with db.write() as session:
        resign(session, NOW - timedelta(days=4), site, game_id=over, seat=1)
        invited = create_game(session, NOW, site, game_type="mosey", options=MOSEY,
                              players=[CLEO, ANN])
    assert invited.id is not None
    return {"later": later, "sooner": sooner, "theirs": theirs, "over": over,
            "invited": invited.id, "ann": _id(db, ANN)}


def _at(page: str, text: str) -> int:
    where = page.find(text)
    assert where >= 0, f"{text!r} is not on the page"
    return where


def test_your_turn_comes_first_most_urgent_first_with_the_time_left_and_a_move_button(
    app: Flask, sqlite_database: Database, site: Site, world: dict[str, int],
) -> None:
    page = _home(app, sqlite_database, world["ann"])
    sooner, later = _at(page, "Mosey against Cleo (Dark)"), _at(page, "Mosey against Bob (Dark)")
    assert _at(page, "Your turn") < sooner < later < _at(page, "Waiting for others")
    assert "1 day 4 hours left" in page[sooner:later] and "2 days 4 hours left" in page[later:]
    for game in ("sooner", "later"):
        row = _row(sqlite_database, world[game])
        assert html.escape(site.links.move_url(world[game], 0, row.ply, holder=world["ann"])) \
            in page
    assert page.count('class="button" href="http://localhost/play/') == 2  # only her turns


def test_a_row_names_the_game_and_the_opponents_not_a_code(
    app: Flask, sqlite_database: Database, world: dict[str, int],
) -> None:
    page = _home(app, sqlite_database, world["ann"])
    for game in ("later", "sooner", "theirs", "over", "invited"):
        assert _row(sqlite_database, world[game]).public_id[:6] not in page
    assert "Mosey against Dan (Light)" in page and "you play Light" in page


def test_stigmergy_seats_are_named_by_the_sides_chosen_so_far(
    app: Flask, sqlite_database: Database, site: Site,
) -> None:
    """The home reads colours from the position only for a game whose seat names follow it:
    Stigmergy's seats are First and Second until sides are chosen, then Black and White."""
    db = sqlite_database
    start_a_game(db, NOW - timedelta(hours=2), site, "stigmergy", STIGMERGY, players=[ANN, BOB])
    chosen = start_a_game(db, NOW - timedelta(hours=1), site, "stigmergy", STIGMERGY,
                          players=[ANN, CLEO])
    with db.write() as session:
        submit_move(session, NOW, site, game_id=chosen, seat=0, ply=0, text="+7")
        submit_move(session, NOW, site, game_id=chosen, seat=1, ply=1, text="play-second")
    page = _home(app, db, _id(db, ANN))
    assert "Stigmergy against Bob (Second)" in page
    assert "Stigmergy against Cleo (White)" in page and "you play Black" in page


def test_games_waiting_for_others_say_whom_they_wait_for(
    app: Flask, sqlite_database: Database, world: dict[str, int],
) -> None:
    page = _home(app, sqlite_database, world["ann"])
    waiting = page[_at(page, "Waiting for others"):]
    assert "Mosey against Dan (Light)" in waiting and "waiting for Dan (Light)" in waiting
    # Cleo's invitation, which Cleo has not answered yet either, waits for Ann first.
    assert "Mosey against Cleo (Light)" not in waiting


def test_an_incoming_challenge_is_on_the_home_not_no_games_yet(
    app: Flask, sqlite_database: Database, site: Site,
) -> None:
    with sqlite_database.write() as session:
        for spec in (ANN, BOB):
            session.add(Player(name=spec.name, email=spec.email, created_at=NOW))
    public_id = _challenge(sqlite_database, site, BOB, ANN)
    page = _home(app, sqlite_database, _id(sqlite_database, ANN))
    assert "No games yet." not in page
    answers = page[_at(page, "Challenges and invitations"):]
    assert "Mosey against Bob" in answers and "a challenge from Bob; 3 days per move" in answers
    assert f'class="button" href="/challenges/{public_id}">Answer' in answers
    # Bob's home: his challenge waits for Ann's answer.
    bobs = _home(app, sqlite_database, _id(sqlite_database, BOB))
    assert "waiting for Ann to answer" in bobs[_at(bobs, "Waiting for others"):]


def test_an_invitation_to_a_game_waits_for_an_answer_on_the_home(
    app: Flask, sqlite_database: Database, site: Site, world: dict[str, int],
) -> None:
    page = _home(app, sqlite_database, world["ann"])
    answers = page[_at(page, "Challenges and invitations"):_at(page, "Waiting for others")]
    assert "Mosey against Cleo (Light)" in answers and "an invitation to a game" in answers
    invite = site.links.invite_url(world["invited"], 1, holder=world["ann"])
    assert html.escape(invite) in answers


def test_finished_games_are_last_and_collapsed(
    app: Flask, sqlite_database: Database, world: dict[str, int],
) -> None:
    page = _home(app, sqlite_database, world["ann"])
    finished = page[_at(page, '<details class="finished"'):]
    assert _at(page, "Waiting for others") < _at(page, '<details class="finished"')
    assert "<summary>1 finished game</summary>" in finished
    assert "Mosey against Dan (Dark)" in finished and "resigned" in finished
    assert not re.search(r'<details class="finished"[^>]*\bopen\b', page)


def test_a_player_with_nothing_at_all_reads_no_games_yet(
    app: Flask, sqlite_database: Database,
) -> None:
    with sqlite_database.write() as session:
        session.add(Player(name="Ann", email=ANN.email, created_at=NOW))
    page = _home(app, sqlite_database, _id(sqlite_database, ANN))
    assert "No games yet." in page and "Challenge players" in page


def test_signed_in_players_land_on_their_home_from_the_home_page(
    app: Flask, sqlite_database: Database, world: dict[str, int],
) -> None:
    browser = signed_in(app, sqlite_database, world["ann"])
    answer = browser.get("/")
    assert answer.status_code == 303 and answer.location.endswith("/account")


def test_the_home_page_for_visitors_is_short_with_a_card_per_family(client: FlaskClient
                                                                   ) -> None:
    page = client.get("/").text
    families = {engine.family_of(game_id) for game_id in engine.GAMES}
    assert page.count("<li><img ") == len(families)  # one card each, with its picture
    assert "/sign-in" in page and "Start a game" in page
    mosey = [game_id for game_id in engine.GAMES if engine.family_of(game_id) == "mosey"]
    assert len(mosey) == 6
    for game_id in mosey:  # the variants, a choice on Mosey's one card
        assert page.count(f'href="/rules/{game_id}"') == 1
    # Each game's summary only once, and the variants' not at all.
    assert html.escape(engine.GAMES["dont-mosey"].summary) not in page
    picture = client.get("/pictures/mosey.svg")
    assert picture.status_code == 200 and picture.mimetype == "image/svg+xml"
    assert client.get("/pictures/chess.svg").status_code == 404


@pytest.mark.parametrize("picker", ["/challenges/new", "/account/computer"])
def test_the_game_pickers_show_the_same_cards(
    app: Flask, sqlite_database: Database, picker: str,
) -> None:
    with sqlite_database.write() as session:
        session.add(Player(name="Ann", email=ANN.email, created_at=NOW))
    page = signed_in(app, sqlite_database, _id(sqlite_database, ANN)).get(picker).text
    families = {engine.family_of(game_id) for game_id in engine.GAMES}
    assert page.count("<li><img ") == len(families)
    assert "game=dont-mosey" in page  # a variant, chosen on the family's card
    assert page.count(html.escape(engine.GAMES["mosey"].summary.split(";")[0])) == 1
