"""Long analysis lines (issue 34): a line whose address would be too long to share is kept under
an unguessable id, and the address names the id; a kept line never changes, so playing on from
it keeps a new one; a changed or unknown id is refused clearly."""

from __future__ import annotations

import html
import random
import re
from datetime import datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from flask.testing import FlaskClient

import engine
from pbem.analysis.stored import UnknownLine, keep_line, kept_steps
from pbem.db import Database
from pbem.models import GameRecord
from pbem.positions import shown_move
from pbem.services import Site
from tests.support import BASE_URL, start_a_game

PLIES = 300
SHAREABLE = 2000  # characters of an address that browsers, mail programs and servers all carry
OPTIONS = {"size": 10}  # Stigmergy's largest board: random games last over 300 plies


def _random_line(seed: int, plies: int) -> list[str]:
    """Random legal moves from Stigmergy's start, for both sides, as long as the game lasts."""
    game = engine.new_game("stigmergy", **OPTIONS)
    rng, position, line = random.Random(seed), game.start(), []
    while len(line) < plies and game.to_move(position) is not None:
        move = game.random_move(position, rng)
        line.append(str(move))
        position = game.apply(position, move)
    return line


def _query(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _public_url(database: Database, pk: int) -> str:
    with database.session() as session:
        row = session.get(GameRecord, pk)
    assert row is not None
    return f"/g/{row.public_id}/analysis"



def test_a_300_ply_line_and_its_branches_stay_within_an_address_anyone_can_share(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    pk = start_a_game(sqlite_database, now, site, "stigmergy", OPTIONS)
    base = _public_url(sqlite_database, pk)
    line = _random_line(seed=1, plies=PLIES)
    assert len(line) == PLIES, "the random game ended before 300 plies"
    played = client.get(base, query_string={"ply": 0, "line": ";".join(line[:-1]),
                                            "play": line[-1]})
    assert played.status_code == 302, played.text
    location = BASE_URL + played.headers["Location"]
    assert len(location) < SHAREABLE
    page = client.get(_path(location))
    assert page.status_code == 200, page.text
    assert all(f": {html.escape(shown_move(step))}</a>" in page.text for step in line)
    # A branch at step 150 keeps the long line beside it only where the address allows it.
    other = next(m for m in _moves_at(line[:150]) if m != line[150])
    branched = client.get(urlsplit(location).path,
                          query_string={**_query(location), "at": 150, "play": other})
    assert branched.status_code == 302
    assert len(BASE_URL + branched.headers["Location"]) < SHAREABLE
    shown = client.get(_path(branched.headers["Location"]))
    assert shown.status_code == 200 and f": {html.escape(shown_move(other))}</a>" in shown.text
    links = [html.unescape(h) for h in re.findall(r'href="([^"]*analysis[^"]*)"', shown.text)]
    assert links and all(len(BASE_URL + link) < SHAREABLE for link in links)


def _moves_at(steps: list[str]) -> list[str]:
    game = engine.new_game("stigmergy", **OPTIONS)
    position = game.start()
    for step in steps:
        position = game.play(position, step)
    return [str(m) for m in game.legal_moves(position)]


def test_a_line_too_long_for_its_address_is_kept_under_an_unguessable_id(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Stigmergy's notation is short: 300 plies still fit in an address. A smaller bound makes
    # the same line pass it, as a game of longer moves would.
    monkeypatch.setattr("pbem.web.analysis.MAX_ADDRESS", 1000)
    pk = start_a_game(sqlite_database, now, site, "stigmergy", OPTIONS)
    base = _public_url(sqlite_database, pk)
    line = _random_line(seed=1, plies=PLIES + 1)
    assert len(line) == PLIES + 1, "the random game ended before 301 plies"
    played = client.get(base, query_string={"ply": 0, "line": ";".join(line[:PLIES - 1]),
                                            "play": line[PLIES - 1]})
    assert played.status_code == 302, played.text
    location = played.headers["Location"]
    assert len(location) < 1000
    query = _query(location)
    assert set(query) == {"ply", "id"}
    first_id = query["id"]
    assert len(first_id) >= 22 and re.fullmatch(r"[A-Za-z0-9_-]+", first_id)
    page = client.get(_path(location))
    assert page.status_code == 200, page.text
    assert all(f": {html.escape(shown_move(step))}</a>" in page.text for step in line[:PLIES])
    # Every step's link names the kept line too: each stays short.
    links = [html.unescape(h) for h in re.findall(r'href="([^"]*analysis[^"]*)"', page.text)]
    assert links and all(len(link) < 1000 for link in links)
    assert any(_query(link).get("id") == first_id and _query(link).get("at") == "150"
               for link in links)
    step_back = client.get(base, query_string={"ply": 0, "id": first_id, "at": 150})
    assert step_back.status_code == 200 and 'aria-current="step"' in step_back.text
    # Playing on keeps a new line; the shared address still shows its 300 steps.
    more = client.get(base, query_string={"ply": 0, "id": first_id, "play": line[PLIES]})
    assert more.status_code == 302, more.text
    second_id = _query(more.headers["Location"])["id"]
    assert second_id != first_id
    longer = client.get(_path(more.headers["Location"])).text
    assert f": {html.escape(shown_move(line[PLIES]))}</a>" in longer
    again = client.get(_path(location)).text
    assert f": {html.escape(shown_move(line[PLIES]))}</a>" not in again
    assert f": {html.escape(shown_move(line[PLIES - 1]))}</a>" in again
    # Following the kept line's own next move from an earlier step keeps no new line.
    follow = client.get(base, query_string={"ply": 0, "id": first_id, "at": 10,
                                            "play": line[10]})
    assert _query(follow.headers["Location"]) == {"ply": "0", "id": first_id, "at": "11"}


@pytest.mark.parametrize(("line_id", "status"), [
    ("not-an-id", 400),  # changed by hand: no id of ours looks like this
    ("A" * 21 + "'", 400),
    ("A" * 22, 404),  # well formed, but never kept
])
def test_a_changed_or_unknown_line_id_is_refused_clearly(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, line_id: str,
    status: int,
) -> None:
    pk = start_a_game(sqlite_database, now, site, "stigmergy", OPTIONS)
    answer = client.get(_public_url(sqlite_database, pk), query_string={"id": line_id})
    assert answer.status_code == status
    assert "There is no such analysis line" in answer.text
    assert "Check that the address was copied whole" in answer.text


def test_a_line_id_of_another_game_finds_nothing_there(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    first = start_a_game(sqlite_database, now, site, "stigmergy", OPTIONS)
    other = start_a_game(sqlite_database, now, site, "stigmergy", OPTIONS)
    with sqlite_database.write() as session:
        line_id = keep_line(session, now, first, tuple(_random_line(seed=2, plies=4)))
    assert client.get(_public_url(sqlite_database, first),
                      query_string={"id": line_id}).status_code == 200
    answer = client.get(_public_url(sqlite_database, other), query_string={"id": line_id})
    assert answer.status_code == 404 and "There is no such analysis line" in answer.text


def test_kept_lines_read_back_unchanged_and_their_ids_differ(
    database: Database, now: datetime, site: Site,
) -> None:
    pk = start_a_game(database, now, site, "stigmergy", OPTIONS)
    steps = tuple(_random_line(seed=3, plies=PLIES))
    with database.write() as session:
        ids = [keep_line(session, now, pk, steps) for _ in range(50)]
    assert len(set(ids)) == len(ids), "two kept lines got the same id"
    with database.session() as session:
        assert {kept_steps(session, pk, line_id) for line_id in ids} == {";".join(steps)}
        with pytest.raises(UnknownLine) as refused:
            kept_steps(session, pk, ids[0][:-1] + ("B" if ids[0][-1] != "B" else "C"))
        assert not refused.value.malformed
        with pytest.raises(UnknownLine) as refused:
            kept_steps(session, pk, ids[0] + "x")
        assert refused.value.malformed
