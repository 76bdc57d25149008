"""Results are in the reader's language on every page, as they are in the game-over email
(issue 33): a Refugia game against the computer ended with its result sentence and "(Black)",
"(White)" in English on Dutch, German and Italian game pages, replays, seat views and lists.
The stored result is English, with the computer's English name ("Computer (easy)"); a page
rebuilt the English from the names in its own language, found no match, and showed the stored
English as it was.
"""

from __future__ import annotations

import html
import random
import re
from datetime import UTC, datetime

import pytest
from flask import Flask
from sqlmodel import select

from pbem.db import Database
from pbem.i18n import Reader
from pbem.models import GameRecord, OutboxEmail, Seat
from pbem.services import PlayerSpec, Site
from pbem.services.players import bot_spec
from tests.ratings.support import play_out
from tests.support import start_a_game
from tests.web.sessions import signed_in

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def _finished(database: Database, site: Site, language: str) -> tuple[GameRecord, int]:
    """A small Refugia game of Ann (who reads ``language``) against the computer, played to
    its end by the rules, whose result names both seats; and Ann's id."""
    ann = PlayerSpec("Ann", "ann@example.test", language=language)
    for seed in range(20):
        game_pk = start_a_game(database, NOW, site, "refugia", {"board": "2-3"},
                               players=[ann, bot_spec("easy")])
        row = play_out(database, NOW, site, game_pk, random.Random(seed))
        if "Computer (easy)" in (row.result or "") and "Ann" in (row.result or ""):
            with database.session() as session:
                ann_id = session.exec(select(Seat.player_id).where(
                    Seat.game_id == game_pk, Seat.seat == 0)).one()
            return row, ann_id
    raise AssertionError("no game whose result names both players")


def _emailed_result(database: Database, game_id: int, player_id: int) -> str:
    """The result line of the game-over email to the player (templates/email/game_over.txt)."""
    with database.session() as session:
        email = session.exec(select(OutboxEmail).where(
            OutboxEmail.game_id == game_id, OutboxEmail.player_id == player_id,
            OutboxEmail.kind == "game_over")).one()
    lines = email.text_body.splitlines()
    return next(line for line in lines if "Ann (" in line)


@pytest.mark.parametrize("language", ["nl", "de", "it"])
def test_a_refugia_result_against_the_computer_is_translated_on_every_page(
    app: Flask, sqlite_database: Database, site: Site, language: str,
) -> None:
    row, ann = _finished(sqlite_database, site, language)
    assert row.id is not None and row.result
    emailed = _emailed_result(sqlite_database, row.id, ann)
    assert emailed != row.result and "Ann" in emailed  # the email has it translated
    reader = Reader(language)
    browser = signed_in(app, sqlite_database, ann)
    pages = {"game page": f"/g/{row.public_id}", "replay": f"/games/{row.public_id}/replay",
             "seat view": site.links.seat_view_url(row.id, 0, holder=ann),
             "games list": "/account", "archive": "/archive", "profile": f"/players/{ann}"}
    colours = [reader.gettext(colour) for colour in ("White", "Black")]
    for name, url in pages.items():
        page = html.unescape(browser.get(url).text)
        assert row.result not in page, f"{name}: the result is in English"
        assert "(White)" not in page and "(Black)" not in page, f"{name}: English colours"
        assert "Computer (easy)" not in page, f"{name}: the computer's English name"
        shown = re.search(r"Ann \((?:" + "|".join(colours) + r")\)", page)
        assert shown, f"{name}: no translated label"
        if name != "games list":  # the list says it after the game's name, the same words
            assert emailed in page, f"{name}: not the result the email gave"
