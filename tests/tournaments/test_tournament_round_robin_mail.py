"""A whole 4-player round robin of Mosey (the smallest board) played through the emails only.

The tournament makes its six games at once; every move is made by following the emailed turn
link, choosing a random legal move on the page and confirming it there, as a player would, while
the real outbox delivers to a real SMTP server. At the end every player has the final standings
by email, in the thread the tournament started with them, and the public standings page agrees
with the results the games stored.
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime
from typing import Any

from flask.testing import FlaskClient
from sqlmodel import col, select

from pbem.db import Database
from pbem.models import GameRecord, GameStatus, Player, Seat
from pbem.positions import current_state
from pbem.ratings.tables import RatingChange
from pbem.services import PlayerSpec, Site
from pbem.tournaments.service import create_tournament, start_tournament
from pbem.tournaments.tables import Tournament, TournamentStatus
from tests.support import Mailbox, csrf_of

NAMES = ("Ann", "Bob", "Cid", "Dee")


def _plain(message: Any) -> str:
    return str(message.get_body(("plain",)).get_content())


def _hidden_move(html: str) -> str:
    import html as html_lib

    match = re.search(r'<input type="hidden" name="move" value="([^"]*)">', html)
    assert match, "the confirm page names no move"
    return html_lib.unescape(match[1])


def _game_of(database: Database, site: Site, url: str) -> GameRecord:
    """The game a move link is for: the running game whose turn link it is."""
    with database.session() as session:
        for row in session.exec(select(GameRecord).where(GameRecord.status == "active")):
            assert row.id is not None and row.to_move is not None
            seat = session.exec(select(Seat).where(Seat.game_id == row.id,
                                                   Seat.seat == row.to_move)).one()
            if site.links.move_url(row.id, row.to_move, row.ply, holder=seat.player_id) == url:
                return row
    raise AssertionError(f"no game is at the turn {url} links")


def _play_turn(client: FlaskClient, database: Database, site: Site, url: str,
               rng: random.Random) -> int:
    """Follow an emailed move link and make a random legal move; the plies played."""
    plies = 0
    while url:  # a turn of several steps goes on page after page
        assert client.get(url).status_code == 200
        row = _game_of(database, site, url)
        game, state = current_state(row)
        move = game.random_move(state, rng)
        numbers = game.move_choices(state)[1]
        query = ({"number": str(move)} if numbers is not None and numbers.covers(move)
                 else {"move": str(move)})
        confirm = client.get(f"{url}/confirm", query_string=query)
        assert confirm.status_code == 200, confirm.text
        done = client.post(f"{url}/confirm", data={"csrf_token": csrf_of(confirm.text),
                                                   "move": _hidden_move(confirm.text)})
        assert done.status_code in (302, 303), done.text
        plies += 1
        url = done.location if "/play/" in done.location else ""
    return plies


def test_a_whole_round_robin_through_the_emailed_links(
        client: FlaskClient, sqlite_database: Database, mailbox: Mailbox, site: Site) -> None:
    rng = random.Random(20)
    now = datetime.now(UTC)
    with sqlite_database.write() as session:
        tournament = create_tournament(
            session, now, site, name="Mail cup", game_type="mosey", options={"order": 4},
            fmt="round-robin", rated=True,
            players=[PlayerSpec(n, f"{n.lower()}@example.test") for n in NAMES])
        assert tournament.id is not None
        tournament_id, slug = tournament.id, tournament.slug
    welcome = mailbox.deliver()
    assert sorted(str(m["To"].addresses[0].addr_spec) for m in welcome) == [
        f"{n.lower()}@example.test" for n in NAMES]
    thread = {str(m["To"].addresses[0].addr_spec): str(m["Message-ID"]) for m in welcome}
    with sqlite_database.write() as session:
        start_tournament(session, datetime.now(UTC), site, tournament_id=tournament_id)

    inbox = mailbox.deliver()
    schedules = [m for m in inbox if "your games" in str(m["Subject"])]
    # One email per player: their six games start without one each.
    assert len(schedules) == len(inbox) == 4
    first_moves = 0
    for message in schedules:  # in the player's tournament thread, a link to each game
        assert str(message["In-Reply-To"]) == thread[str(message["To"].addresses[0].addr_spec)]
        seat_links = [u for u in mailbox.links(message) if "/seat/" in u]
        assert len(seat_links) == 3
        assert client.get(seat_links[0]).status_code == 200
        first_moves += len([u for u in mailbox.links(message) if "/play/" in u])
    assert first_moves == 6  # each game's first move, linked in its player's email

    plies, everything = 0, list(inbox)
    while True:
        links = [u for m in inbox if "your turn" in _plain(m) or "Your move:" in _plain(m)
                 for u in mailbox.links(m) if "/play/" in u]
        if not links:
            break
        for url in links:
            plies += _play_turn(client, sqlite_database, site, url, rng)
        inbox = mailbox.deliver()
        everything += inbox
        assert plies < 5000, "the games do not end"

    with sqlite_database.session() as session:
        finished = session.get(Tournament, tournament_id)
        games = session.exec(select(GameRecord)).all()
        rated = session.exec(select(RatingChange)).all()
        seats_of = {g.id: [s.player_id for s in session.exec(
            select(Seat).where(Seat.game_id == g.id).order_by(col(Seat.seat)))] for g in games}
        names = {p.id: p.name for p in session.exec(select(Player))}
    assert finished is not None and finished.status == TournamentStatus.FINISHED
    assert len(games) == 6 and all(g.status == GameStatus.FINISHED for g in games)
    assert len(rated) == 12  # a rated tournament's games count for ratings
    final = [m for m in everything if "final standings" in str(m["Subject"])]
    assert sorted(str(m["To"].addresses[0].addr_spec) for m in final) == sorted(thread)
    for message in final:
        assert str(message["In-Reply-To"]) == thread[str(message["To"].addresses[0].addr_spec)]
    game_over = [m for m in everything if str(m["Subject"]).startswith("Game over:")]
    assert len(game_over) == 12

    # The standings by hand from the stored results: a win 1, a shared result (draw) 0.5.
    points = dict.fromkeys(names, 0.0)
    for game in games:
        winners = game.winners or []
        for seat, player in enumerate(seats_of[game.id]):
            points[player] += 1.0 if seat in winners and len(winners) == 1 else (
                0.5 if not winners else 0.0)
    page = client.get(f"/tournaments/{slug}")
    assert page.status_code == 200
    shown = dict(re.findall(r"<tr><td[^>]*>\d+</td><td[^>]*>(?:<a [^>]*>)?([^<]+)(?:</a>)?</td>"
                            r"<td[^>]*>([^<]+)</td>", page.text))
    assert shown == {names[p]: f"{v:g}" for p, v in points.items()}
    assert sum(points.values()) == 6.0
    for game in games:  # every game linked from the page
        assert f"/g/{game.public_id}" in page.text
    body = _plain(final[0])
    best = max(points.values())
    leaders = [names[p] for p, v in points.items() if v == best]
    assert re.search(rf"  1\. ({'|'.join(leaders)}): points {best:g}, games 3", body), body
