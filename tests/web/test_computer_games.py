"""A player starts a game against the computer from their games page: game, options, level and
who starts; no invitation to themselves, the computer's moves come from the sweep."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

from pbem.db import Database
from pbem.models import GameRecord, GameStatus, MoveSource, OutboxEmail, Player, Seat
from pbem.positions import current_state
from pbem.scheduler import sweep
from pbem.scheduler.bots import WIN_NOTE
from pbem.services import PlayerSpec, Site, create_game, resign, submit_move
from pbem.services.computer_games import MAX_COMPUTER_GAMES, start_computer_game
from pbem.services.players import bot_spec
from tests.support import clock_in, start_a_game
from tests.web.sessions import open_games_link


def games_page(database: Database, site: Site,
               client: FlaskClient | None = None) -> tuple[str, int]:
    """A player who has played before: their games page path and their id. ``client`` is
    signed in as them, with the games-page link of their mail and its button."""
    start_a_game(database, datetime.now(UTC), site, "mosey")
    with database.session() as session:
        player = session.exec(select(Player).where(Player.email == "p0@example.test")).one()
        assert player.id is not None
    if client is not None:
        link = site.links.my_games_url(player.id)[len(site.links.base_url):]
        assert open_games_link(client, link).status_code == 303
    return "/account", player.id


def new_games(database: Database, player_id: int) -> list[tuple[GameRecord, list[Seat]]]:
    with database.session() as session:
        games = session.exec(select(GameRecord).order_by(col(GameRecord.id))).all()
        found = []
        for game in games:
            seats = session.exec(select(Seat).where(Seat.game_id == game.id)
                                 .order_by(col(Seat.seat))).all()
            if any(s.player_id == player_id for s in seats) and game.id != 1:
                found.append((game, list(seats)))
        return found


def start_mosey_first(client: FlaskClient, me: str, csrf: Callable[[str], str]) -> Any:
    """Mosey against the computer (easy), started from the games page ``me``, the player first."""
    form = client.get(f"{me}/computer", query_string={"game": "mosey"})
    return client.post(f"{me}/computer", data={
        "csrf_token": csrf(form.text), "game": "mosey", "option-order": "4", "level": "easy",
        "starter": "me"})


def test_the_games_page_offers_the_computer(client: FlaskClient, sqlite_database: Database,
                                            site: Site) -> None:
    me, _ = games_page(sqlite_database, site, client)
    page = client.get(me).text
    assert 'href="/account/computer"' in page and "/me/" not in page
    choose = client.get(f"{me}/computer")
    assert choose.status_code == 200 and "?game=refugia" in choose.text
    form = client.get(f"{me}/computer", query_string={"game": "refugia"})
    assert 'name="level"' in form.text and 'name="starter"' in form.text
    assert 'name="option-board"' in form.text


def test_starting_first_goes_straight_to_the_move_page(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    me, player_id = games_page(sqlite_database, site, client)
    answer = start_mosey_first(client, me, csrf)
    assert answer.status_code == 303 and "/play/" in answer.location
    [(game, seats)] = new_games(sqlite_database, player_id)
    assert game.status == GameStatus.ACTIVE and game.to_move == 0
    assert seats[0].player_id == player_id and seats[0].status == "accepted"
    with sqlite_database.session() as session:
        bot = session.get(Player, seats[1].player_id)
        mails = session.exec(select(OutboxEmail).where(OutboxEmail.game_id == game.id)).all()
    assert bot is not None and bot.bot_level == "easy"
    # No invitation, and no turn email while the player is on the game's pages: it is held
    # for the sweep, which sends it only if they leave.
    assert [m.kind for m in mails if m.player_id == player_id] == []
    assert seats[0].turn_email_held == 0 and seats[0].page_viewed_at is not None


def test_the_computer_starts_and_the_sweep_plays_it(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    me, player_id = games_page(sqlite_database, site, client)
    form = client.get(f"{me}/computer", query_string={"game": "rifugio"})
    answer = client.post(f"{me}/computer", data={
        "csrf_token": csrf(form.text), "game": "rifugio", "option-players": "3",
        "level": "easy", "starter": "computer"})
    assert answer.status_code == 303 and "/seat/" in answer.location  # the game's own page
    page = client.get(answer.location).text
    assert "The game has started." in page and "The computer is choosing its move." in page
    [(game, seats)] = new_games(sqlite_database, player_id)
    assert [s.player_id == player_id for s in seats] == [False, False, True]  # last seat
    assert game.status == GameStatus.ACTIVE and game.to_move == 0
    sweep(sqlite_database, datetime.now(UTC), site)
    with sqlite_database.session() as session:
        row = session.get(GameRecord, game.id)
        turn = session.exec(select(OutboxEmail).where(OutboxEmail.game_id == game.id,
                                                      OutboxEmail.kind == "turn")).all()
    assert row is not None and row.to_move == 2  # both computer seats moved
    assert turn == []  # she is on the game's page, which shows the moves as they come
    sweep(sqlite_database, datetime.now(UTC) + timedelta(minutes=11), site)  # she left
    with sqlite_database.session() as session:
        turn = session.exec(select(OutboxEmail).where(OutboxEmail.game_id == game.id,
                                                      OutboxEmail.kind == "turn")).all()
    assert [m.player_id for m in turn] == [player_id]


def test_a_bad_choice_is_refused_and_starts_nothing(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    me, player_id = games_page(sqlite_database, site, client)
    form = client.get(f"{me}/computer", query_string={"game": "mosey"})
    token = csrf(form.text)
    for data in ({"level": "genius", "starter": "me"}, {"level": "easy", "starter": "both"},
                 {"level": "easy", "starter": "me", "option-order": "99"}):
        answer = client.post(f"{me}/computer", data={"csrf_token": token, "game": "mosey",
                                                     **data})
        assert answer.status_code == 400 and 'role="alert"' in answer.text
    unknown = client.post(f"{me}/computer", data={"csrf_token": token, "game": "chess"})
    assert unknown.status_code == 400 and 'role="alert"' in unknown.text
    assert "unknown game" in unknown.text and "?game=mosey" in unknown.text  # the list again
    assert new_games(sqlite_database, player_id) == []


def test_a_damaged_link_or_no_session_starts_nothing(
    app: Flask, client: FlaskClient, sqlite_database: Database, site: Site,
    csrf: Callable[[str], str],
) -> None:
    me, player_id = games_page(sqlite_database, site, client)
    link = site.links.my_games_url(player_id)[len(site.links.base_url):]
    assert client.get(f"{link[:-3]}/computer").status_code == 400  # an old link, damaged
    form: Any = client.get(f"{me}/computer", query_string={"game": "mosey"})
    stranger = app.test_client()  # nobody signed in: the sign-in page, and nothing started
    answer = stranger.post(f"{me}/computer", data={"csrf_token": csrf(form.text),
                                                   "game": "mosey", "level": "easy"})
    assert answer.status_code == 400
    answer = stranger.get(f"{me}/computer", query_string={"game": "mosey"})
    assert answer.status_code == 303 and answer.location.startswith("/sign-in?next=")
    assert new_games(sqlite_database, player_id) == []


def test_an_old_computer_link_leads_to_the_form_through_the_games_link(
    app: Flask, sqlite_database: Database, site: Site,
) -> None:
    _, player_id = games_page(sqlite_database, site)
    old = f"{site.links.my_games_url(player_id)[len(site.links.base_url):]}/computer"
    stranger = app.test_client()
    answer = stranger.get(old, query_string={"game": "mosey"})
    assert answer.status_code == 303 and "/computer" not in answer.location  # the button first
    mine = app.test_client()
    games_page_link = answer.location
    assert open_games_link(mine, games_page_link).status_code == 303
    answer = mine.get(old, query_string={"game": "mosey"})
    assert answer.status_code == 303 and answer.location == "/account/computer?game=mosey"


def test_after_a_move_the_page_waits_for_the_computers_reply(
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
    assert done.status_code == 303
    waiting = client.get(done.location).text
    assert "Your move was played." in waiting
    assert "The computer is choosing its move." in waiting
    refresh = re.search(r'<meta http-equiv="refresh" content="5; url=([^"]+)">', waiting)
    assert refresh, "the page does not look again by itself"
    again = client.get(html.unescape(refresh[1]))  # the browser's second look, counted
    assert "look=2" in again.text and "Your move was played." not in again.text
    assert "make your move" not in waiting
    # A reader who asks it to stop (a page that reloads sends a screen reader back to its top),
    # and a computer that takes minutes, leave a page that stays put.
    stop = re.search(r'<a href="([^"]+)">Stop looking again</a>', waiting)
    assert stop
    for still in (client.get(html.unescape(stop[1])).text,
                  client.get(done.location.split("?")[0], query_string={"look": 36}).text):
        assert "http-equiv" not in still and "Reload this page to see whether it has moved" in still
    sweep(sqlite_database, datetime.now(UTC), site)  # what the scheduler's job does
    answered = client.get(done.location.split("?")[0]).text
    assert "It is your turn: make your move" in answered
    assert "http-equiv" not in answered and "choosing its move" not in answered


def test_a_player_has_at_most_ten_computer_games_at_once(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    """The computer's searches serve the whole site: the eleventh unfinished game against it is
    refused with the way out, and a game finished makes room. Games with other people in them
    (an organiser's game with a computer seat) do not count."""
    me, player_id = games_page(sqlite_database, site, client)
    now = datetime.now(UTC)
    with sqlite_database.write() as session:
        player = session.get(Player, player_id)
        assert player is not None
        games = [start_computer_game(session, now, site, player=player, game_type="mosey",
                                     options={"order": 4}, level="easy").id
                 for _ in range(MAX_COMPUTER_GAMES)]
        create_game(session, now, site, game_type="rifugio", options={"players": 3},
                    players=[PlayerSpec(player.name, player.email), bot_spec("easy"),
                             PlayerSpec("Cleo", "cleo@example.test")])
    refused = start_mosey_first(client, me, csrf)
    assert refused.status_code == 400
    assert ("you have 10 games against the computer in progress, the most at once: finish or "
            "resign one to start another") in html.unescape(refused.text).lower()
    assert len(new_games(sqlite_database, player_id)) == MAX_COMPUTER_GAMES + 1
    with sqlite_database.write() as session:
        assert games[0] is not None
        resign(session, now, site, game_id=games[0], seat=0)
    assert start_mosey_first(client, me, csrf).status_code == 303


def test_a_finished_game_offers_the_same_game_against_the_computer_again(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    me, player_id = games_page(sqlite_database, site, client)
    form = client.get(f"{me}/computer", query_string={"game": "rifugio"})
    client.post(f"{me}/computer", data={
        "csrf_token": csrf(form.text), "game": "rifugio", "option-players": "4",
        "level": "strong", "starter": "me"})
    [(game, _)] = new_games(sqlite_database, player_id)
    assert game.id is not None
    seat_page = site.links.seat_view_url(game.id, 0)[len(site.links.base_url):]
    assert "Play the computer again" not in client.get(seat_page).text  # not while it runs
    with sqlite_database.write() as session:
        resign(session, datetime.now(UTC), site, game_id=game.id, seat=0)
    page = html.unescape(client.get(seat_page).text)
    again = re.search(r'<a class="button" href="([^"]+)">Play the computer again</a>', page)
    assert again, page
    assert again[1].startswith("/account/computer?") and "/me/" not in page
    prefilled = client.get(again[1]).text
    assert '<option value="4" selected>' in prefilled
    assert 'value="strong" checked' in prefilled
    public = client.get(f"/g/{game.public_id}").text
    assert "Play the computer again" not in public  # only the player's own page offers it


def test_a_game_left_by_its_player_ends_when_the_clock_runs_out(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    """The form says so; with the usual grace and random moves a game its player had left went
    on for months, one email a turn."""
    me, player_id = games_page(sqlite_database, site, client)
    form = client.get(f"{me}/computer", query_string={"game": "mosey"}).text
    assert ("Your clock: 3 days per move. If it runs out (a reminder comes first), you lose the "
            "game.") in form
    start_mosey_first(client, me, csrf)
    [(game, seats)] = new_games(sqlite_database, player_id)
    deadline = clock_in(sqlite_database, game.id).deadline
    assert deadline is not None
    sweep(sqlite_database, deadline + timedelta(seconds=1), site)
    with sqlite_database.session() as session:
        row = session.get(GameRecord, game.id)
        mail = [e.kind for e in session.exec(select(OutboxEmail).where(
            OutboxEmail.game_id == game.id, OutboxEmail.to_address == "p0@example.test"))]
    assert row is not None and row.status == GameStatus.FINISHED
    assert list(row.winners or []) == [s.seat for s in seats if s.player_id != player_id]
    assert mail[-1] == "game_over"


def test_pages_name_the_computer_in_the_players_language(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    me, player_id = games_page(sqlite_database, site, client)
    with sqlite_database.write() as session:
        player = session.get(Player, player_id)
        assert player is not None
        player.language = "it"
        session.add(player)
    start_mosey_first(client, me, csrf)
    [(game, _)] = new_games(sqlite_database, player_id)
    assert game.id is not None
    pages = [client.get(site.links.seat_view_url(game.id, 0)[len(site.links.base_url):]).text,
             client.get(me).text]
    for page in pages:
        assert "Computer (facile)" in page and "Computer (easy)" not in page



def test_the_dashboard_names_the_computer_in_the_organisers_language(
    admin_client: FlaskClient, sqlite_database: Database, site: Site,
) -> None:
    _, player_id = games_page(sqlite_database, site)
    with sqlite_database.write() as session:
        player = session.get(Player, player_id)
        assert player is not None
        row = start_computer_game(session, datetime.now(UTC), site, player=player,
                                  game_type="mosey", options={"order": 4}, level="strong")
    admin_client.get("/language/de", query_string={"next": "/admin/"})
    for path in ("/admin/", f"/admin/games/{row.id}"):
        page = admin_client.get(path).text
        assert "Computer (stark)" in page and "Computer (strong)" not in page, path


def test_the_computers_note_is_shown_in_the_players_language(
    client: FlaskClient, sqlite_database: Database, site: Site,
) -> None:
    """On the game page, as in the emails: "I expect to win" is the server's words when the
    computer wrote it, and a player's own words when a player did."""
    _, player_id = games_page(sqlite_database, site, client)
    now = datetime.now(UTC)
    with sqlite_database.write() as session:
        player = session.get(Player, player_id)
        assert player is not None
        player.language = "de"
        row = start_computer_game(session, now, site, player=player, game_type="mosey",
                                  options={"order": 4}, level="easy")
        assert row.id is not None
        game, state = current_state(row)
        submit_move(session, now, site, game_id=row.id, seat=0, ply=0, note=WIN_NOTE,
                    text=str(game.legal_moves(state)[0]))  # the player's own words
        game, state = current_state(row)
        submit_move(session, now, site, game_id=row.id, seat=1, ply=1, note=WIN_NOTE,
                    text=str(game.legal_moves(state)[0]), source=MoveSource.BOT)
    page = html.unescape(client.get(
        site.links.seat_view_url(row.id, 0)[len(site.links.base_url):]).text)
    assert page.count("“I expect to win”") == 1  # hers, once: in the conversation
    assert "“Ich rechne mit einem Sieg”" in page  # the computer's, in her language
