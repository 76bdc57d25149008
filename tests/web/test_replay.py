"""A game's replay: stepping through every position, clear refusals of positions that do not
exist, and hidden information (Rifugio's blind pile and point cards) kept hidden at every ply
while the game runs, then revealed once it is over."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime

import pytest
from flask.testing import FlaskClient
from sqlmodel import select

from pbem.db import Database
from pbem.models import GameRecord, Move
from pbem.positions import current_state, moves_of
from pbem.services import Site, resign, submit_move
from tests.support import ALICE_BOB, start_a_game

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def play_random(database: Database, site: Site, pk: int, count: int, seed: int = 3) -> None:
    """``count`` random legal moves (fewer if the game ends), through the move service."""
    rng = random.Random(seed)
    for _ in range(count):
        with database.write() as session:
            row = session.get(GameRecord, pk)
            assert row is not None
            if row.to_move is None:
                return
            game, state = current_state(row)
            moves = [m for m in game.legal_moves(state) if not hasattr(m, "low")]
            submit_move(session, NOW, site, game_id=pk, seat=row.to_move, ply=row.ply,
                        text=str(rng.choice(moves)))


def public_id(database: Database, pk: int) -> str:
    with database.session() as session:
        row = session.get(GameRecord, pk)
        assert row is not None
        return row.public_id


def test_stepping_through_every_position(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    pk = start_a_game(sqlite_database, NOW, site, "mosey", {"order": 4}, players=ALICE_BOB)
    play_random(sqlite_database, site, pk, 4)
    pid = public_id(sqlite_database, pk)
    with sqlite_database.session() as session:
        moves = moves_of(session, pk)
    assert len(moves) == 4
    base = f"/games/{pid}/replay"
    start = client.get(base, query_string={"ply": 0})
    assert start.status_code == 200
    assert "The starting position." in start.text
    assert f'href="{base}?ply=1" rel="next"' in start.text and "previous" not in start.text
    middle = client.get(base, query_string={"ply": 2}).text
    assert "Position after move 2 of 4." in middle
    for ply, rel in ((0, ""), (1, ' rel="prev"'), (3, ' rel="next"'), (4, "")):
        assert f'href="{base}?ply={ply}"{rel}' in middle
    # The move list: each move links its position and says who played it.
    listed = re.findall(r'<li(?: class="current" aria-current="step")?><a href="[^"]*\?ply=(\d)">'
                        r"([^:<]+): ([^<]+)</a>", middle)
    names = {0: "Alice", 1: "Bob"}
    assert [(int(n), who.split(" (")[0], what) for n, who, what in listed] == [
        (m.ply + 1, names[m.seat], m.notation) for m in moves]
    assert 'class="current" aria-current="step"><a href="' + f'{base}?ply=2"' in middle
    last = client.get(base).text  # no ply: the latest position
    assert "Position after move 4 of 4." in last and "rel=\"next\"" not in last
    assert '<meta name="viewport"' in last
    assert re.findall(r"<script[^>]*>", last) == [  # only our own file: nothing inline
        '<script src="/static/board.js" defer data-flip="Flip the board">']


@pytest.mark.parametrize("ply", ["5", "-1", "x", "1e3", "99999999999999999999"])
def test_a_position_that_does_not_exist_is_refused_clearly(
        client: FlaskClient, sqlite_database: Database, site: Site, ply: str) -> None:
    pk = start_a_game(sqlite_database, NOW, site, "mosey", {"order": 4}, players=ALICE_BOB)
    play_random(sqlite_database, site, pk, 4)
    page = client.get(f"/games/{public_id(sqlite_database, pk)}/replay?ply={ply}")
    assert page.status_code == 400
    assert "positions are numbered from 0 (the start) to 4 (after the last move)" in page.text


def test_an_unknown_game_is_not_found(client: FlaskClient) -> None:
    for path in ("replay", "record.json", "record.txt", "record.sgf"):
        assert client.get(f"/games/no-such-game/{path}").status_code == 404


def _shuffle_stored_piles(database: Database, pk: int, rng: random.Random) -> None:
    """Change only the order of the blind pile, in every stored position of the game."""
    def shuffled(state: dict[str, object]) -> dict[str, object]:
        pile = list(state["pile"])  # type: ignore[call-overload]
        rng.shuffle(pile)
        return {**state, "pile": pile}

    with database.write() as session:
        row = session.get(GameRecord, pk)
        assert row is not None
        row.state, row.start_state = shuffled(row.state), shuffled(row.start_state)
        session.add(row)
        for move in session.exec(select(Move).where(Move.game_id == pk)).all():
            move.state_after = shuffled(move.state_after)
            session.add(move)


def test_a_running_rifugio_game_hides_the_pile_and_cards_at_every_ply(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    pk = start_a_game(sqlite_database, NOW, site, "rifugio", {"players": 2}, players=ALICE_BOB)
    play_random(sqlite_database, site, pk, 14)
    pid = public_id(sqlite_database, pk)
    with sqlite_database.session() as session:
        total = len(moves_of(session, pk))
    base = f"/games/{pid}/replay"
    before = [client.get(base, query_string={"ply": ply}) for ply in range(total + 1)]
    assert all(page.status_code == 200 for page in before)
    _shuffle_stored_piles(sqlite_database, pk, random.Random(8))
    after = [client.get(base, query_string={"ply": ply}).text for ply in range(total + 1)]
    # Whatever the order of the pile, every position looks the same: none of it shows.
    assert [page.text for page in before] == after
    for page in after:
        assert "cards:" not in page  # neither "Your cards" nor "Bob's cards"
        assert "&#34;pile&#34;" not in page and "hidden information is revealed" in page
    # Seeing the board as one player would show their cards: refused while the game runs.
    refused = client.get(base, query_string={"ply": 3, "as": 1})
    assert refused.status_code == 403 and "Hidden until the game ends" in refused.text
    record = client.get(f"/games/{pid}/record.json").get_json()
    assert record["seed"] is None and record["start_state"] is None


def test_after_the_end_everything_is_revealed_at_every_ply(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    pk = start_a_game(sqlite_database, NOW, site, "rifugio", {"players": 2}, players=ALICE_BOB)
    play_random(sqlite_database, site, pk, 14)
    with sqlite_database.write() as session:
        resign(session, NOW, site, game_id=pk, seat=0)
    pid = public_id(sqlite_database, pk)
    with sqlite_database.session() as session:
        moves = moves_of(session, pk)
    base = f"/games/{pid}/replay"
    for ply in (0, 5, len(moves)):
        page = client.get(base, query_string={"ply": ply}).text
        state = moves[ply - 1].state_after if ply else None
        if state is not None:
            pile = re.search(r"&#34;pile&#34;: \[([^\]]*)\]", page)
            assert pile is not None  # the whole position, the pile in its order
            assert [int(t) for t in pile[1].replace(",", " ").split()] == state["pile"]
        assert "Alice (Red) resigned; Bob (Blue) won." in page
        for seat, name in ((1, "Alice"), (2, "Bob")):
            seen = client.get(base, query_string={"ply": ply, "as": seat})
            assert seen.status_code == 200
            assert "Your cards:" in seen.text  # the board as that player saw it
            assert f"<strong>{name}" in seen.text  # the page says whose view it is
    assert client.get(base, query_string={"as": 3}).status_code == 400
    assert client.get(base, query_string={"as": "Bob"}).status_code == 400


def test_the_record_downloads(client: FlaskClient, sqlite_database: Database,
                              site: Site) -> None:
    pk = start_a_game(sqlite_database, NOW, site, "mosey", {"order": 4}, players=ALICE_BOB)
    play_random(sqlite_database, site, pk, 3)
    pid = public_id(sqlite_database, pk)
    replay = client.get(f"/games/{pid}/replay").text
    for kind, mimetype, start in (("json", "application/json", "{"),
                                  ("txt", "text/plain", "Game: mosey"),
                                  ("sgf", "application/x-go-sgf", "(;GM[pbem:mosey]")):
        url = f"/games/{pid}/record.{kind}"
        assert f'href="{url}"' in replay
        got = client.get(url)
        assert got.status_code == 200 and got.mimetype == mimetype
        assert got.headers["Content-Disposition"] == (
            f'attachment; filename="pbem-mosey-{pid}.{kind}"')
        assert got.text.startswith(start)
    # The charset is said once (Werkzeug adds it again to a text mimetype that has it).
    assert client.get(f"/games/{pid}/record.txt").headers["Content-Type"] == (
        "text/plain; charset=utf-8")
    assert client.get(f"/games/{pid}/record.sgf").headers["Content-Type"] == (
        "application/x-go-sgf; charset=utf-8")
    moves = client.get(f"/games/{pid}/record.json").get_json()["moves"]
    assert [(m["ply"], m["seat"]) for m in moves] == [(0, 0), (1, 1), (2, 0)]


def test_a_resigned_games_last_position_says_the_result_not_who_is_to_move(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    pk = start_a_game(sqlite_database, NOW, site, "mosey", {"order": 4}, players=ALICE_BOB)
    play_random(sqlite_database, site, pk, 2)
    pid = public_id(sqlite_database, pk)
    with sqlite_database.write() as session:
        resign(session, NOW, site, game_id=pk, seat=0)
    last = client.get(f"/games/{pid}/replay").text
    assert "Alice (Light) resigned; Bob (Dark) won." in last
    assert "Position after move 2 of 2. </p>" in last and "Light to move." not in last.split(
        '<div class="board"')[0]
    assert "Dark to move." in client.get(f"/games/{pid}/replay", query_string={"ply": 1}).text
