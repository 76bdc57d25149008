"""The analysis board (issue 34): from the move page, the game pages and the replay, moves for
every side played in the address, stepped back and forward and branched, nothing sent; hidden
information kept hidden; "Play the first move" ending on the confirm page; damaged addresses
refused clearly."""

from __future__ import annotations

import html
import random
import re
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from flask.testing import FlaskClient
from markupsafe import escape
from sqlmodel import col, select

import engine
from engine import AnyGame
from pbem.analysis import tables as _kept_lines  # noqa: F401  (in the schema made from models)
from pbem.analysis.line import start_for, stop_reason
from pbem.db import Database
from pbem.models import GameRecord, Move, Player
from pbem.positions import current_state, moves_of, shown_move, state_at
from pbem.services import Site, submit_move
from pbem.web.terms import name_numbered_players, seat_label, seat_names
from tests.support import start_a_game, two_player_game

HISTORY = 2  # moves played in the game before it is analysed
STEPS = 3  # moves played on the analysis board


def _row(database: Database, pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, pk)
    assert row is not None
    return row


def _path(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _get(client: FlaskClient, url: str, **extra: Any) -> Any:
    """GET ``url`` with ``extra`` added to its query."""
    parts = urlsplit(url)
    return client.get(parts.path, query_string={**_query(url), **extra})


def _query(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def _text_board(page: str) -> str:
    found = re.search(r'<pre class="text-board"[^>]*>(.*?)</pre>', page, re.S)
    assert found, "the page shows no text board"
    return html.unescape(found[1])


def _expected_text(game: AnyGame, position: Any, viewer: int | None, game_type: str) -> str:
    """The engine's text board as the page names the players (P0 (Red) for "Player 1")."""
    names = seat_names(game_type, game.seat_names(position))
    labels = [seat_label(f"P{n}", names[n]) for n in range(game.num_players)]
    return name_numbered_players(str(game.render_text(position, viewer)), labels)


def _described(page: str, game: AnyGame, position: Any, viewer: int | None,
               game_type: str) -> bool:
    """Whether ``page`` says the position's description in words, its players named."""
    names = seat_names(game_type, game.seat_names(position))
    labels = [seat_label(f"P{n}", names[n]) for n in range(game.num_players)]
    described = name_numbered_players(str(game.describe(position, viewer)), labels)
    return str(escape(described)) in page


def _open_moves(game: AnyGame, position: Any) -> list[str]:
    """Legal moves here that the line can go on after (no draw from a hidden pile)."""
    if game.to_move(position) is None:
        return []
    return [str(m) for m in game.legal_moves(position) if not stop_reason(game, position, m)]


def _play_history(database: Database, now: datetime, site: Site, pk: int, count: int,
                  seed: int = 7) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        with database.write() as session:
            row = session.get(GameRecord, pk)
            assert row is not None
            if row.to_move is None:
                return
            game, state = current_state(row)
            move = game.random_move(state, rng)
            submit_move(session, now, site, game_id=pk, seat=row.to_move, ply=row.ply,
                        text=str(move))


def _moves_in_db(database: Database, pk: int) -> int:
    with database.session() as session:
        return len(moves_of(session, pk))


def test_analysis_plays_every_side_steps_back_and_forward_and_branches_in_every_game(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, game_id: str,
) -> None:
    pk = start_a_game(sqlite_database, now, site, game_id)
    _play_history(sqlite_database, now, site, pk, HISTORY)
    row = _row(sqlite_database, pk)
    with sqlite_database.session() as session:
        history = moves_of(session, pk)
    game = current_state(row)[0]
    base = f"/g/{row.public_id}/analysis"
    for ply in sorted({0, len(history)}):
        start = start_for(game, state_at(game, row, history, ply), None)
        first = client.get(base, query_string={"ply": ply})
        assert first.status_code == 200, first.text
        assert _text_board(first.text) == _expected_text(game, start, None, game_id)
        # Moves for whoever is to move, each sent as the move form sends it.
        line: list[str] = []
        positions, movers = [start], set()
        url = f"{base}?ply={ply}"
        for _ in range(STEPS):
            choices = _open_moves(game, positions[-1])
            if not choices:
                break
            move = choices[len(choices) // 2]
            movers.add(game.to_move(positions[-1]))
            played = _get(client, url, **{"play": move})
            assert played.status_code == 302, played.text
            url = _path(played.headers["Location"])
            line.append(move)
            assert _query(url) == {"ply": str(ply), "line": ";".join(line)}
            positions.append(game.play(positions[-1], move))
            page = client.get(url)
            assert page.status_code == 200
            assert _text_board(page.text) == _expected_text(game, positions[-1], None, game_id)
            assert _described(page.text, game, positions[-1], None, game_id)
            for step in line:
                assert f": {html.escape(shown_move(step))}</a>" in page.text
        if not game.info.hidden_information and len(line) == STEPS:
            assert len(movers) >= 2, "the line played for one side only"
        if len(line) < 2:
            continue
        # Back one step, then forward again: the line stays whole.
        back = _get(client, url, **{"at": len(line) - 1})
        assert _text_board(back.text) == _expected_text(game, positions[-2], None, game_id)
        assert all(f": {html.escape(shown_move(step))}</a>" in back.text for step in line)
        assert 'aria-current="step"' in back.text
        forward = _get(client, url, **{"at": len(line)})
        assert _text_board(forward.text) == _expected_text(game, positions[-1], None, game_id)
        # At the first step, the line's own next move follows it; another one branches.
        choices = _open_moves(game, positions[1])
        follow = _get(client, url, **{"at": 1, "play": line[1]})
        assert _query(follow.headers["Location"]) == {"ply": str(ply), "line": ";".join(line),
                                                      "at": "2"}
        others = [m for m in choices if m != line[1]]
        if others:
            branched = _get(client, url, **{"at": 1, "play": others[0]})
            branch = f"{line[0]};{others[0]}"
            assert _query(branched.headers["Location"]) == {
                "ply": str(ply), "line": branch, "was": ";".join(line)}
            # The line it left stays beside it, one click away (and this one beside that).
            page = client.get(_path(branched.headers["Location"])).text
            switch = re.search(r'<a href="([^"]+)">Switch to that line</a>', page)
            assert switch, "the line a branch left is lost"
            assert _query(html.unescape(switch[1])) == {
                "ply": str(ply), "line": ";".join(line), "at": "2", "was": branch}
    assert _moves_in_db(sqlite_database, pk) == len(history), "the analysis played a move"


def test_from_the_move_page_the_first_move_of_a_line_opens_the_confirm_page(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_id = two_player_game()
    pk = start_a_game(sqlite_database, now, site, game_id)
    row = _row(sqlite_database, pk)
    assert row.to_move is not None
    move_path = _path(site.links.move_url(pk, row.to_move, row.ply))
    assert f'href="{move_path}/analysis"' in client.get(move_path).text
    seat_page = client.get(_path(site.links.seat_view_url(pk, row.to_move))).text
    own = re.search(r'<a class="button" href="([^"]+)">It is your turn', seat_page)
    assert own and f'href="{own[1]}/analysis"' in seat_page  # the turn's own analysis
    game, state = current_state(row)
    url = f"{move_path}/analysis"
    line = []
    for _ in range(2):  # the player's move, then the reply
        move = _open_moves(game, state)[0]
        url = _path(_get(client, url, **{"play": move}).headers["Location"])
        line.append(move)
        state = game.play(state, move)
    page = client.get(url).text
    confirm = re.search(r'<a class="button" href="([^"]+)">Play the first move', page)
    assert confirm, "no way to play the first move"
    target = html.unescape(confirm[1])
    assert urlsplit(target).path == f"{move_path}/confirm"
    assert _query(target) == {"move": line[0]}
    confirmed = client.get(target)
    assert confirmed.status_code == 200 and 'name="csrf_token"' in confirmed.text
    assert html.escape(line[0]) in confirmed.text
    assert _moves_in_db(sqlite_database, pk) == 0, "nothing is played before the confirm"
    # The seat's page and the public page of an older position offer no first move to play.
    other = 1 - row.to_move
    for view in (_path(site.links.seat_view_url(pk, other)) + "/analysis",
                 f"/g/{row.public_id}/analysis"):
        follow = client.get(view, query_string={"ply": 0, "line": ";".join(line)})
        assert follow.status_code == 200
        assert "Play the first move" not in follow.text


def test_the_seat_page_at_another_ply_analyses_that_position_as_the_seat_sees_it(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_id = two_player_game()
    pk = start_a_game(sqlite_database, now, site, game_id)
    _play_history(sqlite_database, now, site, pk, 2)
    seat_path = _path(site.links.seat_view_url(pk, 0))
    page = client.get(seat_path, query_string={"ply": 1}).text
    assert f'href="{seat_path}/analysis?ply=1"' in page
    answer = client.get(f"{seat_path}/analysis", query_string={"ply": 1})
    row = _row(sqlite_database, pk)
    with sqlite_database.session() as session:
        history = moves_of(session, pk)
    game = current_state(row)[0]
    assert _text_board(answer.text) == _expected_text(
        game, state_at(game, row, history, 1), 0, game_id)
    replay = client.get(f"/games/{row.public_id}/replay", query_string={"ply": 1}).text
    assert f'href="/g/{row.public_id}/analysis?ply=1"' in replay


# -- hidden information -------------------------------------------------------------------------


def _set_hidden(database: Database, pk: int, change: Any) -> None:
    """Change the stored position (the game's, and the last move's, which pages at a ply
    read)."""
    with database.write() as session:
        row = session.get(GameRecord, pk)
        assert row is not None
        row.state = change(dict(row.state))
        session.add(row)
        last = session.exec(select(Move).where(Move.game_id == pk)
                            .order_by(col(Move.ply).desc())).first()
        if last is not None:
            last.state_after = change(dict(last.state_after))
            session.add(last)


def _rifugio_with_cards(database: Database, now: datetime, site: Site) -> int:
    """A two-player Rifugio played on until seat 1 holds point cards (seat 0 must not see
    which)."""
    for seed in range(6):
        pk = start_a_game(database, now, site, "rifugio", {"players": 2})
        for _ in range(40):
            state = _row(database, pk).state
            if state["features"][1] or state["bears"][1] or state["hut_cards"][1]:
                return pk
            _play_history(database, now, site, pk, 6, seed=seed)
    pytest.skip("no seat drew a point card in the games tried")


def _analysis_pages(client: FlaskClient, site: Site, row: GameRecord, viewer: int | None,
                    ) -> dict[str, str]:
    """The analysis at the game's position as ``viewer`` sees it, and after a few steps."""
    assert row.id is not None
    path = (f"/g/{row.public_id}/analysis" if viewer is None
            else _path(site.links.seat_view_url(row.id, viewer)) + "/analysis")
    url, pages = f"{path}?ply={row.ply}", {}
    for _ in range(3):
        page = client.get(url)
        assert page.status_code == 200, page.text
        pages[url] = page.text
        moves = re.findall(r'<button name="play" value="([^"]+)"', page.text)
        if not moves:
            break
        url = _path(_get(client, url, **{"play": html.unescape(moves[0])})
                    .headers["Location"])
    return pages


def test_rifugio_analysis_never_shows_the_pile_the_seed_or_another_seats_cards(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    pk = _rifugio_with_cards(sqlite_database, now, site)
    viewers: list[int | None] = [0, None, 1]
    before = {v: _analysis_pages(client, site, _row(sqlite_database, pk), v) for v in viewers}

    def hidden_otherwise(state: dict[str, Any]) -> dict[str, Any]:
        """Another pile order and seed, and seat 1 holding other cards (as many of them)."""
        features, bears, huts = list(state["features"]), list(state["bears"]), \
            list(state["hut_cards"])
        if features[1]:
            features[1], bears[1] = features[1][1:], bears[1] + 1
        elif bears[1]:
            bears[1], huts[1] = bears[1] - 1, huts[1] + 1
        else:
            huts[1], bears[1] = huts[1] - 1, bears[1] + 1
        return {**state, "pile": state["pile"][::-1], "seed": "another seed",
                "features": features, "bears": bears, "hut_cards": huts}

    _set_hidden(sqlite_database, pk, hidden_otherwise)
    after = {v: _analysis_pages(client, site, _row(sqlite_database, pk), v) for v in viewers}
    assert before[0] == after[0], "seat 0's analysis depends on what seat 0 may not know"
    assert before[None] == after[None], "the public analysis depends on what is hidden"
    # The control: seat 1's own analysis shows its own cards, so a leak would be seen above.
    assert before[1] != after[1]


def test_a_step_that_draws_from_the_blind_pile_stops_the_line_and_says_so(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    pk = start_a_game(sqlite_database, now, site, "rifugio", {"players": 2})
    row = _row(sqlite_database, pk)
    assert row.to_move is not None
    url = _path(site.links.move_url(pk, row.to_move, 0)) + "/analysis"
    drawn = _get(client, url, **{"play": "take blind"})
    assert drawn.status_code == 302
    page = client.get(_path(drawn.headers["Location"]))
    assert "you will draw the top tile of the blind pile" in page.text
    assert "The analysis stops here" in page.text
    assert 'name="play"' not in page.text, "a move offered after a hidden draw"
    game, state = current_state(row)
    assert _text_board(page.text) == _expected_text(game, start_for(game, state, row.to_move),
                                                    row.to_move, "rifugio")
    # The confirm page plays it for real (and shows the draw only then).
    assert "Play the first move (take blind)" in page.text
    after = _get(client, _path(drawn.headers["Location"]), **{"play": "take 1"})
    assert after.status_code == 422 and "nothing can follow take blind here" in after.text
    following = _get(client, url, **{"line": "take blind;take 1"})
    assert following.status_code == 400
    assert "nothing can follow take blind here" in following.text
    assert _moves_in_db(sqlite_database, pk) == 0


# -- damaged addresses ---------------------------------------------------------------------------


@pytest.fixture
def mosey(sqlite_database: Database, now: datetime, site: Site) -> tuple[int, str]:
    pk = start_a_game(sqlite_database, now, site, "mosey", {"order": 4})
    return pk, f"/g/{_row(sqlite_database, pk).public_id}/analysis"


def test_a_damaged_line_is_refused_clearly_and_its_good_part_kept(
    client: FlaskClient, mosey: tuple[int, str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    _pk, url = mosey
    answer = _get(client, url, **{"line": "G5xF4;Z9;G5-F5"})
    assert answer.status_code == 400
    assert "Step 2 of the line in this address (Z9) cannot be played" in answer.text
    assert ": G5xF4</a>" in answer.text and "Z9</a>" not in answer.text
    # A line longer than the bound on the work one address may ask: refused after the bound.
    monkeypatch.setattr("pbem.analysis.line.MAX_STEPS", 2)
    game = engine.new_game("mosey", order=4)
    line = ["G5xF4"]
    line.append(str(game.legal_moves(game.play(game.start(), "G5xF4"))[0]))
    line.append(str(game.legal_moves(game.play(game.play(game.start(), "G5xF4"), line[1]))[0]))
    over = _get(client, url, **{"line": ";".join(line)})
    assert over.status_code == 400 and "a line has at most 2 steps" in over.text
    assert f": {line[1]}</a>" in over.text


@pytest.mark.parametrize(("query", "message"), [
    ({"ply": "99"}, "99 is not a position of this game"),
    ({"ply": "-1"}, "-1 is not a position of this game"),
    ({"ply": "two"}, "two is not a position of this game"),
    ({"line": "G5xF4", "at": "7"}, "7 is not a step of this line"),
    ({"line": "G5xF4", "at": "x"}, "x is not a step of this line"),
])
def test_a_position_or_step_out_of_range_is_refused_clearly(
    client: FlaskClient, mosey: tuple[int, str], query: dict[str, str], message: str,
) -> None:
    answer = client.get(mosey[1], query_string=query)
    assert answer.status_code == 400
    assert message in answer.text


def test_an_illegal_typed_move_says_why_and_keeps_the_line(
    client: FlaskClient, mosey: tuple[int, str],
) -> None:
    answer = client.get(mosey[1], query_string={"line": "G5xF4", "play": "G5-F5"})
    assert answer.status_code == 422
    assert 'role="alert"' in answer.text and "Moves you can make now include" in answer.text
    assert ": G5xF4</a>" in answer.text
    assert '<input type="hidden" name="line" value="G5xF4">' in answer.text
    assert 'value="G5-F5"' in answer.text  # what was typed stays in the field


def test_a_damaged_token_gets_the_damaged_link_page(client: FlaskClient) -> None:
    for url in ("/play/not-a-token/analysis", "/seat/not-a-token/analysis"):
        answer = client.get(url)
        assert answer.status_code == 400 and "This link is damaged" in answer.text


def test_a_players_analysis_is_in_their_language(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    pk = start_a_game(sqlite_database, now, site, "mosey", {"order": 4})
    with sqlite_database.write() as session:
        for player in session.exec(select(Player)):
            player.language = "nl"
            session.add(player)
    page = client.get(_path(site.links.seat_view_url(pk, 0)) + "/analysis").text
    assert "Analysebord" in page and "Analysis board" not in page


def test_a_board_of_small_cells_can_be_zoomed_and_stays_zoomed_while_the_line_grows(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    pk = start_a_game(sqlite_database, now, site, "stigmergy", {"size": 10, "komi": "none"})
    url = f"/g/{_row(sqlite_database, pk).public_id}/analysis"
    page = client.get(url).text
    zoom = re.search(r'<a href="([^"]+)">Zoom the board</a>', page)
    assert zoom, "no zoom for a board whose cells are small on a phone"
    zoomed = client.get(html.unescape(zoom[1]))
    assert '<div class="board zoomed"' in zoomed.text
    assert '<input type="hidden" name="zoom" value="2">' in zoomed.text
    cells = re.findall(r'<a href="([^"]*cells=[^"]*)"', zoomed.text)
    assert cells and all("zoom=2" in html.unescape(link) for link in cells)
    game, state = current_state(_row(sqlite_database, pk))
    played = _get(client, html.unescape(zoom[1]), play=_open_moves(game, state)[0])
    assert _query(played.headers["Location"])["zoom"] == "2"
    assert "Fit the board to the page" in client.get(_path(played.headers["Location"])).text


def test_control_characters_in_the_address_are_not_repeated(
    client: FlaskClient, mosey: tuple[int, str],
) -> None:
    for query in ({"line": "G5xF4;\x1b[31mZ9"}, {"ply": "\x07"}, {"line": "G5xF4", "at": "\x00"}):
        answer = client.get(mosey[1], query_string=query)
        assert answer.status_code == 400
        assert not any(c in answer.text for c in "\x1b\x07\x00"), query


def test_the_whole_turn_page_opens_the_analysis_with_the_steps_so_far(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    pk = start_a_game(sqlite_database, now, site, "rifugio", {"players": 2})
    row = _row(sqlite_database, pk)
    assert row.to_move is not None
    game, state = current_state(row)
    step = next((m for m in _open_moves(game, start_for(game, state, row.to_move))), None)
    if step is None:
        pytest.skip("no open tile to take in this deal")
    turn = _path(site.links.move_url(pk, row.to_move, 0)) + "/turn"
    page = client.get(turn, query_string={"steps": step}).text
    link = re.search(r'<a href="([^"]+)">Analyse this position</a>', page)
    assert link and _query(html.unescape(link[1])) == {"line": step}
    analysis = client.get(html.unescape(link[1]))
    assert analysis.status_code == 200 and f": {step}</a>" in analysis.text


TAMPERED: list[dict[str, str]] = [
    {"line": ";;;"}, {"line": "G5xF4;" * 600}, {"line": "\u202eG5xF4"}, {"line": "x" * 5000},
    {"line": "G5xF4", "cells": "Z9.Q1.\u00e9"}, {"line": "G5xF4", "cells": "." * 300},
    {"line": "G5xF4", "play": "\U0001f600" * 50}, {"line": "G5xF4", "play": "A1\nA2"},
    {"line": "G5xF4", "at": "0", "play": "G5xF4", "was": "Z9;;G5"},
    {"was": "G5xF4;" * 500}, {"id": "A" * 22}, {"id": "../../etc"}, {"id": ""},
    {"ply": "1e3"}, {"ply": "99999999999999999999"}, {"at": "-0"}, {"zoom": "\x00"},
]


def test_a_tampered_address_gets_a_clear_page_never_a_server_error(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    pk = start_a_game(sqlite_database, now, site, "mosey", {"order": 4})
    row = _row(sqlite_database, pk)
    assert row.to_move is not None
    urls = (f"/g/{row.public_id}/analysis",
            _path(site.links.seat_view_url(pk, row.to_move)) + "/analysis",
            _path(site.links.move_url(pk, row.to_move, row.ply)) + "/analysis")
    for url, query in ((url, query) for url in urls for query in TAMPERED):
        answer = client.get(url, query_string=query)
        assert answer.status_code in (200, 302, 400, 404, 422), (query, answer.status_code)
        assert "Traceback" not in answer.text, query
        if answer.status_code >= 400:
            assert 'role="alert"' in answer.text or "<h1>" in answer.text, query
    assert _moves_in_db(sqlite_database, pk) == 0
