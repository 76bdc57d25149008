"""Conditional moves in two-player Rifugio, a game with a hidden pile and the chance of the
draw: a tree is checked in the holder's own view and goes no further than a draw whose tile
the holder cannot know; an answer is played (its steps up to that draw) in the opponent's
transaction when the opponent's move, as anyone reads it in the move list, matches; the
opponent never sees any of it."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import select

from pbem.conditional.service import ConditionalRefused
from pbem.conditional.tables import ConditionalMoves
from pbem.db import Database
from pbem.inbound.commands import conditional_request
from pbem.inbound.reading import read_reply
from pbem.models import MoveSource
from pbem.services import PlayerSpec, Site
from tests.conditional.test_conditional_moves import (
    emails,
    keep,
    moves_of,
    play,
    position,
    tree_of,
)
from tests.support import ALICE_BOB, start_a_game

HOUR = timedelta(hours=1)


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def lay_near_walker(state: Any, seat: int, lays: list[str]) -> str:
    """A legal ``lay`` next to the seat's walker where there is one (so a step follows)."""
    q, r = state.walkers[seat]
    near = {f"lay {q + dq},{r + dr}" for dq, dr in
            ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))}
    return next((lay for lay in lays if lay.split(" r")[0] in near), lays[0])


def lay_tiles(database: Database, now: datetime, site: Site, game_id: int) -> None:
    """The seat to move takes its two tiles blind and lays them, until it may walk."""
    while True:
        game, state, row = position(database, game_id)
        assert row.to_move is not None
        legal = [str(m) for m in game.legal_moves(state)]
        if "end" in legal:
            return
        lays = [m for m in legal if m.startswith("lay")]
        step = ("take blind" if "take blind" in legal
                else lay_near_walker(state, row.to_move, lays) if lays else legal[0])
        play(database, now, site, game_id, step)


def ready_to_walk(database: Database, now: datetime, site: Site) -> tuple[int, Any, Any, int]:
    """A new two-player game whose seat to move has laid its tiles and may walk: the game's
    id, its engine game and position, and the other seat (which keeps the conditional moves)."""
    game_id = start_a_game(database, now, site, "rifugio", {"players": 2}, players=ALICE_BOB)
    lay_tiles(database, now, site, game_id)
    game, state, row = position(database, game_id)
    assert row.to_move is not None
    return game_id, game, state, 1 - row.to_move


def first_answer(game: Any, state: Any) -> list[str]:
    """After the opponent's ``end``: an open tile to take and a legal lay of it (both decided
    by what the holder sees; the lay refills the display from the pile), or ``take blind``
    where no open tile fits."""
    after = game.play(state, "end")
    take = next((str(m) for m in game.legal_moves(after) if str(m) != "take blind"), None)
    if take is None:
        return ["take blind"]
    return [take, str(game.legal_moves(game.play(after, take))[0])]


def test_an_answer_is_kept_as_far_as_the_holder_knows_played_when_matched_and_never_shown(
    client: FlaskClient, sqlite_database: Database, site: Site, csrf: Callable[[str], str],
) -> None:
    database, now = sqlite_database, datetime.now(UTC)
    game_id = start_a_game(database, now, site, "rifugio", {"players": 2}, players=ALICE_BOB)
    game, state, row = position(database, game_id)
    assert row.to_move is not None
    mover, holder = row.to_move, 1 - row.to_move
    # At the start of their turn every move of theirs draws a tile: nothing can answer it yet.
    with pytest.raises(ConditionalRefused, match="line 1: take blind draws what you cannot "
                                                 "see yet"):
        keep(database, now, game_id, holder, "if take blind; lay 1,0 then take 1")
    lay_tiles(database, now, site, game_id)
    game, state, row = position(database, game_id)
    assert not game.reveals_hidden(state, game.parse_move("end"))  # the display is full
    steps = first_answer(game, state)
    answer = "; ".join(steps)
    pages = {seat: site.links.seat_view_url(game_id, seat)[len(site.links.base_url):]
             for seat in (0, 1)}
    page = client.get(pages[holder]).text
    # Past the draw that refills the display after the lay: refused, saying why; nothing kept.
    refused = client.post(f"{pages[holder]}/conditional", data={
        "csrf_token": csrf(page), "text": f"if end then {answer}; take 2"})
    assert refused.status_code == 400
    assert (f"Nothing was changed: line 1: {steps[-1]} draws what you cannot see yet ("
            in text_of(refused.text))
    assert "it can only be the last step of your last answer" in text_of(refused.text)
    assert tree_of(database, game_id, holder) == []
    # The holder's analysis board reads its line as their move and the holder's answer, each
    # a run of steps; the line stops at the draw, which the answer may still end with.
    analysis = client.get(f"{pages[holder]}/analysis",
                          query_string={"line": ";".join(["end", *steps])}).text
    form = re.search(r'<form method="post" action="([^"]+)">(.*?)</form>', analysis, re.S)
    assert form is not None and "Save as conditional moves" in analysis
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form[2]))
    assert html.unescape(fields["text"]) == f"if end then {answer}"
    kept = client.post(html.unescape(form[1]), data={
        "csrf_token": csrf(analysis), "add": fields["add"],
        "text": html.unescape(fields["text"])})
    assert kept.status_code == 303
    assert f"plays end, you play {answer}" in text_of(client.get(pages[holder]).text)
    assert answer not in text_of(client.get(pages[mover]).text)

    play(database, now + HOUR, site, game_id, "end")
    played = moves_of(database, game_id)[-1 - len(steps):]
    assert [(m.seat, m.notation, m.source) for m in played[1:]] == [
        (holder, step, MoveSource.CONDITIONAL) for step in steps]
    assert played[0].notation == "end" and played[0].made_at == played[-1].made_at
    game, state, row = position(database, game_id)
    assert row.to_move == holder  # their second tile is theirs to choose, from the new display
    turn = emails(database, kind="turn")[-1]
    assert turn.to_address == ALICE_BOB[holder].email
    assert (f"Your conditional move played {answer} for you; the rest of this turn is "
            "yours.") in turn.text_body
    for email in emails(database, to_address=ALICE_BOB[mover].email):
        assert "conditional" not in (email.text_body + email.html_body + email.subject).lower()
    seen = text_of(client.get(pages[mover]).text)  # its own (empty) section, nothing of theirs
    assert "(your conditional move)" not in seen and f"you play {answer}" not in seen
    assert "(your conditional move)" in text_of(client.get(pages[holder]).text)
    assert tree_of(database, game_id, holder) == []  # used up

    # The other way round: a move the tree does not answer drops it, and the turn email says so.
    lay_tiles(database, now + 2 * HOUR, site, game_id)
    game, state, row = position(database, game_id)
    walks = [str(m) for m in game.legal_moves(state) if str(m).startswith("step")]
    assert walks, "the walker stands next to a laid tile"
    keep(database, now + 2 * HOUR, game_id, mover,
         f"if end then {'; '.join(first_answer(game, state))}")
    play(database, now + 3 * HOUR, site, game_id, walks[0])
    game, state, row = position(database, game_id)
    if "end" in [str(m) for m in game.legal_moves(state)]:
        play(database, now + 3 * HOUR, site, game_id, "end")
    turn = emails(database, kind="turn")[-1]
    assert turn.to_address == ALICE_BOB[mover].email
    assert "Your conditional moves did not answer" in turn.text_body
    assert "so none was played and they were dropped." in turn.text_body
    assert all(m.source != MoveSource.CONDITIONAL or m.seat == holder
               for m in moves_of(database, game_id))
    assert tree_of(database, game_id, mover) == []


def test_an_answer_the_real_position_refuses_is_dropped_and_told(
    sqlite_database: Database, site: Site,
) -> None:
    """The holder's view decides the tree; the real position decides again when it is due."""
    database, now = sqlite_database, datetime.now(UTC)
    game_id, game, state, holder = ready_to_walk(database, now, site)
    take = first_answer(game, state)[0]
    keep(database, now, game_id, holder, f"if end then {take}")
    # As if the tile the holder's view held in the display had been another: its lay is far
    # from every laid tile in the real position.
    with database.write() as session:
        kept = session.exec(select(ConditionalMoves)).one()
        kept.tree = {"end": {"answer": f"{take}; lay 40,40", "then": {}}}
        session.add(kept)
    play(database, now + HOUR, site, game_id, "end")
    assert moves_of(database, game_id)[-1].notation == "end"  # nothing played for the holder
    turn = emails(database, kind="turn")[-1]
    assert turn.to_address == ALICE_BOB[holder].email
    assert ("Your conditional moves could not be played after end (the rules refuse them now), "
            "so they were dropped.") in turn.text_body
    assert tree_of(database, game_id, holder) == []


def test_games_of_more_than_two_players_refuse_them_and_say_why(
    sqlite_database: Database, site: Site,
) -> None:
    now = datetime.now(UTC)
    specs = [*ALICE_BOB, PlayerSpec("Cleo", "cleo@example.test")]
    game_id = start_a_game(sqlite_database, now, site, "rifugio", {"players": 3}, players=specs)
    _, _, row = position(sqlite_database, game_id)
    assert row.to_move is not None
    with pytest.raises(ConditionalRefused, match="only for games of two players: with more, "
                                                 "the others' moves come between"):
        keep(sqlite_database, now, game_id, (row.to_move + 1) % 3, "if end then take 1")


def test_a_reply_keeps_the_steps_of_one_move_together() -> None:
    reply = read_reply("if end then take 2; lay 1,0\nif step NE; end then take blind\n")
    assert conditional_request(reply.steps) == ("if end then take 2; lay 1,0\n"
                                                "if step NE; end then take blind")
    assert read_reply("take 2; lay 1,0").steps == ("take 2", "lay 1,0")  # a move, as before


def test_a_tree_kept_before_their_last_steps_shows_and_answers_what_is_left(
    sqlite_database: Database, site: Site,
) -> None:
    database, now = sqlite_database, datetime.now(UTC)
    game_id, game, state, holder = ready_to_walk(database, now, site)
    walk = next(str(m) for m in game.legal_moves(state) if str(m).startswith("step"))
    take = first_answer(game, state)[0]
    keep(database, now, game_id, holder, f"if end then {take}\nif {walk}; end then {take}")
    play(database, now + HOUR, site, game_id, walk)
    assert tree_of(database, game_id, holder) == [f"if end then {take}"]  # from the walk on
    play(database, now + HOUR, site, game_id, "end")
    last = moves_of(database, game_id)[-1]
    assert (last.seat, last.notation, last.source) == (holder, take, MoveSource.CONDITIONAL)
