"""Typed moves written loosely, hints from the game at hand, legal moves on request, a paused game,
and the zoom for boards whose cells are small (issue #16)."""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta

from flask.testing import FlaskClient
from sqlmodel import select

from pbem.db import Database
from pbem.models import GameRecord, OutboxEmail
from pbem.positions import current_state, move_key, resolve_typed
from pbem.services import PlayerSpec, Site, submit_move
from pbem.services.clock_actions import pause_game
from tests.support import start_a_game


def _row(database: Database, game_pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None
    return row


def _move_url(database: Database, site: Site, game_pk: int) -> str:
    row = _row(database, game_pk)
    assert row.to_move is not None
    return site.links.move_url(game_pk, row.to_move, row.ply)


def test_move_keys_make_separators_and_case_uniform_but_keep_signs() -> None:
    assert move_key("b1 - d3") == move_key("B1xD3") == move_key("B1:D3")
    assert move_key("lay 2,-1") != move_key("lay 2,1")  # a minus sign is not a separator
    assert move_key(" Take  Blind ") == move_key("take blind")


def test_a_mosey_capture_typed_with_a_dash_is_taken_as_the_capture(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "mosey")
    game, state = current_state(_row(sqlite_database, game_pk))
    capture = next(str(m) for m in game.legal_moves(state) if "x" in str(m))
    typed = capture.replace("x", "-").lower()
    page = client.get(_move_url(sqlite_database, site, game_pk) + "/confirm",
                      query_string={"move": typed})
    assert page.status_code == 200, page.text
    assert f"Confirm your move: {capture}" in page.text
    assert f"You typed {typed}: that is the move {capture}" in html.unescape(page.text)
    assert f'name="move" value="{capture}"' in page.text  # the POST sends the real notation


class _Alike:
    """A stand-in game with two legal moves that read alike once written uniformly."""

    moves = ("a1-b2", "A1xB2", "c3")

    def parse_move(self, text: str) -> str:
        return text.strip()

    def why_illegal(self, state: object, move: str) -> str | None:
        return None if move in self.moves else f"{move} is not a legal move here"

    def move_choices(self, state: object) -> tuple[list[str], None]:
        return list(self.moves), None


def test_several_matches_are_named_and_none_is_guessed() -> None:
    typed = resolve_typed(_Alike(), None, "A1:B2")  # type: ignore[arg-type]
    assert typed.move is None and typed.choices == ("a1-b2", "A1xB2")
    assert "could be a1-b2 or A1xB2" in typed.reason
    assert resolve_typed(_Alike(), None, " C3 ").move == "c3"  # type: ignore[arg-type]


def test_a_game_without_pass_never_hints_at_pass(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "mosey")
    game, state = current_state(_row(sqlite_database, game_pk))
    assert "pass" not in [str(m) for m in game.legal_moves(state)]
    page = client.get(_move_url(sqlite_database, site, game_pk) + "/confirm",
                      query_string={"move": "Q9 to nowhere"})
    assert page.status_code == 422
    error = re.search(r'<div class="error" role="alert">(.*?)</div>', page.text, re.S)
    assert error, page.text
    assert "pass" not in error[1].lower()
    assert "C2-E2" not in error[1]  # the engine's generic examples are not this position's
    shown = re.search(r"Moves you can make now include: ([^<]*)\.", error[1])
    assert shown
    legal = {str(m) for m in game.legal_moves(state)}
    assert set(html.unescape(shown[1]).split(", ")) <= legal


def test_a_stigmergy_komi_error_suggests_numbers_not_stone_moves(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "stigmergy",
                           {"size": 8, "komi": "negotiate"})
    url = _move_url(sqlite_database, site, game_pk) + "/confirm"
    for typed in ("zz", "C2-E2", "pass"):
        page = client.get(url, query_string={"move": typed})
        assert page.status_code == 422
        error = re.search(r'<div class="error" role="alert">(.*?)</div>', page.text, re.S)
        assert error
        text = html.unescape(error[1])
        assert "a whole number from" in text, text
        assert "C2-E2" not in text.replace(f"'{typed}'", ""), text
        assert "take-button" not in text and "D5" not in text


def test_the_komi_field_and_email_say_how_to_choose_a_komi(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    players = [PlayerSpec("Anna", "anna@example.test", language="nl"),
               PlayerSpec("Bob", "bob@example.test")]
    game_pk = start_a_game(sqlite_database, now, site, "stigmergy",
                           {"size": 5, "komi": "negotiate"}, players=players)
    page = client.get(_move_url(sqlite_database, site, game_pk)).text
    hint = re.search(r'<p class="hint" id="hint-komi">(.*?)</p>', page, re.S)
    assert hint and "kiest daarna welke kant" in html.unescape(hint[1])  # Anna reads Dutch
    assert 'aria-describedby="hint-komi"' in page  # read out with the field
    with sqlite_database.session() as session:
        turns = session.exec(select(OutboxEmail).where(OutboxEmail.game_id == game_pk,
                                                       OutboxEmail.kind == "turn")).all()
    assert [t.to_address for t in turns] == ["anna@example.test"]
    assert "een hogere komi helpt Wit" in turns[0].text_body
    with sqlite_database.write() as session:
        submit_move(session, now, site, game_id=game_pk, seat=0, ply=0, text="3")
    # Bob chooses sides: no komi to name, so no such advice.
    page = client.get(_move_url(sqlite_database, site, game_pk)).text
    assert 'class="hint" id="hint-komi"' not in page and "komi that makes" not in page
    with sqlite_database.session() as session:
        bob = session.exec(select(OutboxEmail).where(
            OutboxEmail.to_address == "bob@example.test", OutboxEmail.kind == "turn")).one()
    assert "komi that makes" not in bob.text_body


def test_the_move_page_can_show_every_legal_move(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "mosey")
    game, state = current_state(_row(sqlite_database, game_pk))
    page = client.get(_move_url(sqlite_database, site, game_pk))
    assert '<details class="legal" id="legal-moves">' in page.text
    listed = re.search(r'id="legal-moves">(.*?)</details>', page.text, re.S)
    assert listed
    legal = [str(m) for m in game.legal_moves(state)]
    assert f"Show legal moves ({len(legal)})" in listed[1]
    for move in legal:
        assert f">{move}</a>" in listed[1]


def test_a_paused_game_says_so_first_and_the_confirm_waits(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, csrf: object,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "mosey")
    url = _move_url(sqlite_database, site, game_pk)
    game, state = current_state(_row(sqlite_database, game_pk))
    move = str(game.legal_moves(state)[0])
    with sqlite_database.write() as session:
        pause_game(session, game_pk, now=now + timedelta(hours=1), actor="olga", site=site)
    page = client.get(url)
    assert page.status_code == 200
    notice = page.text.find('id="paused"')
    assert 0 < notice < page.text.find('class="board'), "the notice comes before the board"
    confirm = client.get(url + "/confirm", query_string={"move": move})
    assert confirm.status_code == 200 and 'id="paused"' in confirm.text
    assert f"<button disabled>Play {move}</button>" in confirm.text
    # A POST anyway (a form kept open from before the pause) keeps the move and the note.
    token = csrf(confirm.text)  # type: ignore[operator]
    sent = client.post(url + "/confirm", data={"csrf_token": token, "move": move,
                                                "note": "kept"})
    assert sent.status_code == 409 and 'id="paused"' in sent.text
    assert 'value="kept"' in sent.text and f'value="{move}"' in sent.text
    assert _row(sqlite_database, game_pk).ply == 0


def test_small_cells_get_a_zoom_that_survives_clicks_and_links_land_on_the_cell(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, "stigmergy",
                           {"size": 10, "komi": "none"})
    url = _move_url(sqlite_database, site, game_pk)
    page = client.get(url)
    assert "Zoom the board" in page.text
    zoomed = client.get(url, query_string={"zoom": "2"})
    assert '<div class="board zoomed"' in zoomed.text
    assert "Fit the board to the page" in zoomed.text
    links = re.findall(r'<a href="([^"]*cells=[^"]*)"[^>]*\sid="(cell-[^"]+)"', zoomed.text)
    assert links, "cell links carry an id"
    href, anchor = links[0]
    assert "zoom=2" in href and href.endswith("#" + anchor)
    small = start_a_game(sqlite_database, now, site, "mosey")  # big cells: no zoom offered
    assert "Zoom the board" not in client.get(_move_url(sqlite_database, site, small)).text
