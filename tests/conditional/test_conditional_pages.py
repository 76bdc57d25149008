"""Conditional moves on the seat's own page (``/seat/<token>``): the form keeps, edits and
cancels them, a refused line comes back with its reason and loses nothing, and no other page
(the opponent's seat page, the public page, the records) ever shows them; once played, the
owner's move list marks the answer, nobody else's does."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from flask.testing import FlaskClient

from pbem.db import Database
from pbem.models import GameRecord
from pbem.services import PlayerSpec, Site
from tests.conditional.test_conditional_moves import a_line, moves_of, play, position, start
from tests.support import ALICE_BOB, start_a_game

HOUR = timedelta(hours=1)


def local(site: Site, url: str) -> str:
    return url[len(site.links.base_url):]


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_the_seat_page_keeps_edits_and_cancels_conditional_moves(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    now = datetime.now(UTC)
    game_id = start(sqlite_database, now, site)
    game, state, row = position(sqlite_database, game_id)
    assert row.to_move is not None
    other = 1 - row.to_move
    line = a_line(game, state, 4, seed=2)
    page_url = local(site, site.links.seat_view_url(game_id, other))
    page = client.get(page_url).text
    assert "You keep no conditional moves in this game." in page
    keep_url = f"{page_url}/conditional"
    answer = client.post(keep_url, data={"csrf_token": csrf(page),
                                         "text": "if " + " then ".join(line)})
    assert answer.status_code == 303
    page = client.get(answer.headers["Location"]).text
    shown = text_of(page)
    assert "Your conditional moves are kept: 2 answers." in shown
    assert f"plays {line[0]}, you play {line[1]}" in shown
    assert f"plays {line[2]}, you play {line[3]}" in shown
    assert "if " + " then ".join(line) in html.unescape(page)  # the form's text, to edit
    # edited: a shorter tree replaces it
    answer = client.post(keep_url, data={"csrf_token": csrf(page),
                                         "text": f"if {line[0]} then {line[1]}"})
    page = client.get(answer.headers["Location"]).text
    assert "Your conditional moves are kept: 1 answer." in text_of(page)
    assert f"you play {line[3]}" not in text_of(page)
    # refused: the reason, the text as typed, and the kept tree unchanged
    refused = client.post(keep_url, data={"csrf_token": csrf(page),
                                          "text": f"if {line[0]} then Z9-Z8"})
    assert refused.status_code == 400
    assert "Nothing was changed: line 1: your move Z9-Z8:" in text_of(refused.text)
    assert f"if {line[0]} then Z9-Z8" in html.unescape(refused.text)
    assert f"plays {line[0]}, you play {line[1]}" in text_of(client.get(page_url).text)
    # cancelled
    answer = client.post(f"{page_url}/conditional/cancel", data={"csrf_token": csrf(page)})
    assert answer.status_code == 303
    page = client.get(answer.headers["Location"]).text
    assert "You keep no conditional moves now." in text_of(page)
    assert f"you play {line[1]}" not in text_of(page)


def test_a_post_without_the_pages_csrf_token_keeps_nothing(
    client: FlaskClient, sqlite_database: Database, site: Site,
) -> None:
    now = datetime.now(UTC)
    game_id = start(sqlite_database, now, site)
    game, state, row = position(sqlite_database, game_id)
    assert row.to_move is not None
    line = a_line(game, state, 2)
    page_url = local(site, site.links.seat_view_url(game_id, 1 - row.to_move))
    answer = client.post(f"{page_url}/conditional", data={"text": f"if {line[0]} then {line[1]}"})
    assert answer.status_code == 400
    assert f"you play {line[1]}" not in text_of(client.get(page_url).text)


def test_the_opponent_never_sees_them_and_only_the_owner_sees_them_marked_once_played(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    now = datetime.now(UTC)
    game_id = start(sqlite_database, now, site)
    game, state, row = position(sqlite_database, game_id)
    assert row.to_move is not None
    mover, other = row.to_move, 1 - row.to_move
    line = a_line(game, state, 4, seed=4)
    owner_url = local(site, site.links.seat_view_url(game_id, other))
    client.post(f"{owner_url}/conditional", data={
        "csrf_token": csrf(client.get(owner_url).text), "text": "if " + " then ".join(line)})
    with sqlite_database.session() as session:
        public_id = session.get(GameRecord, game_id).public_id  # type: ignore[union-attr]
    opponent_url = local(site, site.links.seat_view_url(game_id, mover))

    def others_pages() -> list[str]:
        pages = [client.get(opponent_url).text, client.get(f"/g/{public_id}").text]
        pages += [client.get(f"/games/{public_id}/record.{kind}").text
                  for kind in ("json", "txt")]
        pages += [client.get(f"/games/{public_id}/replay", query_string={"ply": ply}).text
                  for ply in range(len(moves_of(sqlite_database, game_id)) + 1)]
        return pages

    for page in others_pages():  # before: no trace of the tree
        assert "conditional" not in page.lower() and "you play" not in page
        assert not any(move in page for move in line)
    play(sqlite_database, now + HOUR, site, game_id, line[0])
    assert [m.notation for m in moves_of(sqlite_database, game_id)] == line[:2]
    for page in others_pages():  # after: the answer is a move like any other
        assert "conditional" not in page.lower() and "you play" not in page
        assert line[1] in page and line[3] not in page
    # The opponent's turn: their move page and its analysis board (which list their own legal
    # moves, so only the words are looked for).
    move_url = local(site, site.links.move_url(game_id, mover, 2))
    for answer in (client.get(move_url), client.get(f"{move_url}/analysis")):
        assert answer.status_code == 200, answer.text
        assert "conditional" not in answer.text.lower() and ", you play" not in answer.text
    owner = text_of(client.get(owner_url).text)
    assert f"{line[1]} (your conditional move)" in " ".join(owner.split())
    assert f"plays {line[2]}, you play {line[3]}" in owner


def test_an_analysis_board_adds_a_line_and_a_game_without_them_refuses_clearly(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    now = datetime.now(UTC)
    game_id = start(sqlite_database, now, site)
    game, state, row = position(sqlite_database, game_id)
    assert row.to_move is not None
    first, second = a_line(game, state, 2, seed=1), a_line(game, state, 2, seed=2)
    page_url = local(site, site.links.seat_view_url(game_id, 1 - row.to_move))
    token = csrf(client.get(page_url).text)
    for line in (first, second):  # each posted alone, as a board that explored it would
        answer = client.post(f"{page_url}/conditional", data={
            "csrf_token": token, "text": f"if {line[0]} then {line[1]}", "add": "1"})
        assert answer.status_code == 303
    shown = text_of(client.get(page_url).text)
    assert f"plays {first[0]}, you play {first[1]}" in shown
    assert f"plays {second[0]}, you play {second[1]}" in shown

    rifugio = start_a_game(sqlite_database, now, site, "rifugio", {"players": 3},
                           players=[*ALICE_BOB, PlayerSpec("Cleo", "cleo@example.test")])
    _, _, row = position(sqlite_database, rifugio)
    assert row.to_move is not None
    page_url = local(site, site.links.seat_view_url(rifugio, (row.to_move + 1) % 3))
    page = client.get(page_url).text
    assert "Your conditional moves" not in page  # nothing offered where they cannot be kept
    refused = client.post(f"{page_url}/conditional", data={"csrf_token": token,
                                                           "text": "if pass then pass"})
    assert refused.status_code == 400
    assert ("conditional moves are only for games of two players: with more, the others' "
            "moves come between your opponent's move and yours") in text_of(refused.text)


def test_a_line_of_the_analysis_board_is_saved_as_conditional_moves(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    now = datetime.now(UTC)
    game_id = start(sqlite_database, now, site)
    game, state, row = position(sqlite_database, game_id)
    assert row.to_move is not None
    other = 1 - row.to_move
    line = a_line(game, state, 3, seed=5)  # their move, my answer, their next move
    seat_url = local(site, site.links.seat_view_url(game_id, other))
    analysis = client.get(f"{seat_url}/analysis", query_string={"line": ";".join(line)}).text
    assert "Save as conditional moves" in analysis
    form = re.search(r'<form method="post" action="([^"]+)">(.*?)</form>', analysis, re.S)
    assert form is not None
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form[2]))
    assert html.unescape(fields["text"]) == f"if {line[0]} then {line[1]}"  # the last unanswered
    answer = client.post(html.unescape(form[1]), data={
        "csrf_token": csrf(analysis), "add": fields["add"], "text": html.unescape(fields["text"])})
    assert answer.status_code == 303
    page = text_of(client.get(answer.headers["Location"]).text)
    assert f"plays {line[0]}, you play {line[1]}" in page
    # the player to move, and the public, are offered nothing to keep
    mover_url = local(site, site.links.seat_view_url(game_id, row.to_move))
    assert "Save as conditional moves" not in client.get(
        f"{mover_url}/analysis", query_string={"line": ";".join(line)}).text
    assert "Save as conditional moves" not in client.get(
        f"/g/{row.public_id}/analysis", query_string={"line": ";".join(line)}).text
