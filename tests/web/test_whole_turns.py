"""Rifugio's whole turn on one page: steps in the URL, undo, rotations with pictures and reasons,
hidden draws that end the preview, and one confirm that plays all steps or none (issue #16)."""

from __future__ import annotations

import html
import random
import re
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from flask.testing import FlaskClient

import engine
from engine.svg import TARGET
from pbem.db import Database
from pbem.models import GameRecord
from pbem.positions import current_state, moves_of
from pbem.services import Site
from tests.support import start_a_game, start_rifugio_of_three


def _row(database: Database, game_pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None
    return row


def _turn_url(database: Database, site: Site, game_pk: int) -> str:
    row = _row(database, game_pk)
    assert row.to_move is not None
    return site.links.move_url(game_pk, row.to_move, row.ply) + "/turn"


def _open_take(game: Any, state: Any) -> str:
    return next(str(m) for m in game.legal_moves(state) if str(m) != "take blind")


def _rifugio(database: Database, now: datetime, site: Site) -> int:
    """A started two-player Rifugio whose open display has a tile that fits (the deal is random:
    now and then only the blind pile can be taken)."""
    for _ in range(20):
        game_pk = start_a_game(database, now, site, "rifugio", {"players": 2})
        game, state = current_state(_row(database, game_pk))
        if any(str(m) != "take blind" for m in game.legal_moves(state)):
            return game_pk
    pytest.skip("no deal with an open tile that fits")


def _opening(database: Database, now: datetime, site: Site) -> tuple[int, str, Any, Any, str]:
    """(game id, turn builder URL, engine, position, an open take) of a fresh Rifugio."""
    game_pk = _rifugio(database, now, site)
    game, state = current_state(_row(database, game_pk))
    return game_pk, _turn_url(database, site, game_pk), game, state, _open_take(game, state)


def test_the_move_page_leads_to_the_turn_builder_only_for_turns_of_several_steps(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    rifugio = _rifugio(sqlite_database, now, site)  # a deal whose first step can be shown
    url = _turn_url(sqlite_database, site, rifugio)
    assert "Build your whole turn on one page" in client.get(url[: -len("/turn")]).text
    mosey = start_a_game(sqlite_database, now, site, "mosey")
    page = client.get(_turn_url(sqlite_database, site, mosey)[: -len("/turn")])
    assert "Build your whole turn" not in page.text


def test_steps_build_up_in_the_url_with_undo_and_a_hidden_draw_ends_the_preview(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk, url, game, state, take = _opening(sqlite_database, now, site)
    first = client.get(url)
    assert first.status_code == 200 and f'value="{take}"' in first.text
    added = client.get(url, query_string={"add": take})
    assert added.status_code == 302
    assert parse_qs(urlparse(added.location).query)["steps"] == [take]
    page = client.get(added.location)
    assert f"<li>{take}</li>" in page.text and "Undo last step" in page.text
    undo = re.search(r'<a href="([^"]+)">Undo last step', page.text)
    assert undo and "steps=" not in html.unescape(undo[1])
    # The position shown is the one after the take, played on a copy; nothing is stored.
    after = game.play(state, take)
    described = game.describe(after, _row(sqlite_database, game_pk).to_move)
    # The page names the player where the engine says "Player 1".
    assert re.sub(r"Player \d", "P0 (Red)", described) in html.unescape(page.text)
    assert _row(sqlite_database, game_pk).ply == 0
    # A lay that refills the open display from the blind pile is not played for the page.
    revealing = next((str(m) for m in game.legal_moves(after)
                      if game.reveals_hidden(after, m)), None)
    if revealing is None:
        pytest.skip("no lay in this deal refills the display")
    last = client.get(url, query_string={"steps": f"{take};{revealing}"})
    assert last.status_code == 200
    effect = game.hidden_effect(after, game.parse_move(revealing))
    assert effect in html.unescape(last.text)
    assert "Next step" not in last.text  # nothing can follow a step whose result is hidden
    assert "Confirm the whole turn (2 steps)" in last.text


def test_the_places_a_step_can_use_are_ringed_and_the_prompt_offers_only_what_is_there(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    _, url, _, _, take = _opening(sqlite_database, now, site)
    page = client.get(url, query_string={"steps": take})  # now the tile is laid: places only
    board = page.text.split('<div class="board"', 1)[1].split("</svg>", 1)[0]
    assert f'stroke="{TARGET}"' in board  # the open places where the tile fits are ringed
    assert "Click a highlighted cell on the board." in page.text
    assert "or choose below" not in page.text  # no buttons below: the board is the way on


def test_the_whole_turn_is_confirmed_at_once_and_the_turn_goes_on_after_a_hidden_step(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, csrf: Any,
) -> None:
    game_pk, url, game, state, take = _opening(sqlite_database, now, site)
    seat = _row(sqlite_database, game_pk).to_move
    lay = str(game.legal_moves(game.play(state, take))[0])
    page = client.get(url, query_string={"steps": f"{take};{lay}"})
    done = client.post(url, data={"csrf_token": csrf(page.text), "steps": f"{take};{lay}",
                                  "note": "two at once"})
    assert done.status_code == 303, done.text
    row = _row(sqlite_database, game_pk)
    assert row.ply == 2
    with sqlite_database.session() as session:
        assert [m.notation for m in moves_of(session, game_pk)] == [take, lay]
    if row.to_move == seat and row.status == "active":
        assert done.location.endswith("/turn")  # the rest of the turn, built the same way
        rest = client.get(done.location)
        assert rest.status_code == 200
        assert f"Your turn goes on. Played so far this turn: {take}, {lay}." in rest.text


def test_a_step_confirmed_on_the_move_page_leads_to_the_next_with_the_turn_so_far(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, csrf: Any,
) -> None:
    game_pk = _rifugio(sqlite_database, now, site)
    row = _row(sqlite_database, game_pk)
    game, state = current_state(row)
    take = _open_take(game, state)
    url = site.links.move_url(game_pk, row.to_move, 0)
    assert "Your turn goes on" not in client.get(url).text  # nothing played yet
    page = client.get(f"{url}/confirm", query_string={"move": take})
    done = client.post(f"{url}/confirm", data={"csrf_token": csrf(page.text), "move": take})
    assert done.status_code == 302 and "/play/" in done.location, done.text
    assert _row(sqlite_database, game_pk).ply == 1
    rest = client.get(done.location)
    assert f"Your turn goes on. Played so far this turn: {take}." in rest.text


def test_a_step_that_fails_plays_no_step_of_the_turn(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, csrf: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import pbem.services.turns as turns

    game_pk, url, game, state, take = _opening(sqlite_database, now, site)
    lay = str(game.legal_moves(game.play(state, take))[0])
    page = client.get(url, query_string={"steps": take})
    token = csrf(page.text)
    # Written wrongly: refused before anything is played.
    refused = client.post(url, data={"csrf_token": token, "steps": f"{take};lay 99,99"})
    assert refused.status_code == 422 and "lay 99,99" in html.unescape(refused.text)
    # The second step fails inside the transaction: the first is rolled back with it.
    real = turns.apply_move
    calls: list[str] = []

    def second_fails(session: Any, now: Any, row: Any, move: Any, **kwargs: Any) -> Any:
        calls.append(str(move))
        if len(calls) == 2:
            raise engine.IllegalMove("the table was knocked over")
        return real(session, now, row, move, **kwargs)

    monkeypatch.setattr(turns, "apply_move", second_fails)
    failed = client.post(url, data={"csrf_token": token, "steps": f"{take};{lay}"})
    assert failed.status_code == 409 and "Nothing was played" in failed.text
    assert _row(sqlite_database, game_pk).ply == 0


def _position_with_rotations() -> tuple[Any, Any, str, list[str]]:
    """A Rifugio position where one cell takes the tile in hand in several rotations."""
    game = engine.new_game("rifugio", players=2)
    rng = random.Random(3)
    state = game.start(seed=0)
    for _ in range(400):
        moves = [str(m) for m in game.legal_moves(state)]
        lays: dict[str, list[str]] = {}
        for move in moves:
            if move.startswith("lay") and " r" in move:
                lays.setdefault(move.rsplit(" ", 1)[0], []).append(move)
        several = [group for group in lays.values() if len(group) > 1]
        if several:
            return game, state, several[0][0].rsplit(" ", 1)[0], several[0]
        state = game.play(state, game.random_move(state, rng))
    pytest.skip("no position with several rotations in this deal")


def test_each_rotation_is_a_button_with_a_picture_and_missing_ones_say_why(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game, state, base, rotations = _position_with_rotations()
    game_pk = start_a_game(sqlite_database, now, site, "rifugio", {"players": 2})
    with sqlite_database.write() as session:  # the game jumps to that position
        row = session.get(GameRecord, game_pk)
        assert row is not None
        row.state, row.to_move = game.encode(state), game.to_move(state)
        session.add(row)
    url = _turn_url(sqlite_database, site, game_pk)
    cell = game.move_cells(game.parse_move(rotations[0]))[0]
    page = client.get(url, query_string={"cells": cell})
    assert page.status_code == 200, page.text
    text = html.unescape(page.text)
    for rotation in rotations:
        assert f'name="add" value="{rotation}"' in text
    pictures = sum(not game.reveals_hidden(state, game.parse_move(r)) for r in rotations)
    assert text.count('<div class="thumb">') == pictures
    offered = {r.rsplit(" r", 1)[1] for r in rotations}
    for turn in sorted({str(n) for n in range(6)} - offered):
        why = game.why_illegal(state, game.parse_move(f"{base} r{turn}"))
        assert f"r{turn}: {why}" in text


def test_a_paused_game_keeps_the_planned_turn_and_plays_none_of_it(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, csrf: Any,
) -> None:
    from datetime import timedelta

    from pbem.services.clock_actions import pause_game

    game_pk, url, _, _, take = _opening(sqlite_database, now, site)
    with sqlite_database.write() as session:
        pause_game(session, game_pk, now=now + timedelta(hours=1), actor="olga", site=site)
    page = client.get(url, query_string={"steps": take})
    assert 'id="paused"' in page.text and "<button disabled>Confirm the whole turn" in page.text
    sent = client.post(url, data={"csrf_token": csrf(page.text), "steps": take, "note": "hi"})
    assert sent.status_code == 409 and f"<li>{take}</li>" in sent.text
    assert 'value="hi"' in sent.text and _row(sqlite_database, game_pk).ply == 0


def test_a_hidden_step_that_ends_the_turn_says_to_confirm_not_to_continue(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    """With three players a turn lays one tile; its end refills the display from the blind pile,
    so the page cannot show it, but it is the turn's last step: nothing comes afterwards."""
    for _ in range(20):
        game_pk = start_rifugio_of_three(sqlite_database, now, site)
        game, state = current_state(_row(sqlite_database, game_pk))
        if any(str(m) != "take blind" for m in game.legal_moves(state)):
            break
    else:
        pytest.skip("no deal with an open tile that fits")
    take = _open_take(game, state)
    after = game.play(state, take)
    lay = str(game.legal_moves(after)[0])
    walking = game.play(after, lay)
    assert game.reveals_hidden(walking, game.parse_move("end"))
    url = _turn_url(sqlite_database, site, game_pk)
    page = html.unescape(client.get(url, query_string={"steps": f"{take};{lay};end"}).text)
    assert "end: your turn ends" in page and "This step ends your turn: confirm it below." in page
    assert "you continue afterwards" not in page and "Confirm the whole turn (3 steps)" in page
    blind = html.unescape(client.get(url, query_string={"steps": "take blind"}).text)
    assert "confirm the turn so far, and you continue afterwards" in blind
