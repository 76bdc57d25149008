"""Seats are named alike in every email: the player and the colour the board draws them in, so
that two computer players of one level, or two people of one name, are told apart."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlmodel import select

from pbem.db import Database
from pbem.models import OutboxEmail, Player
from pbem.scheduler.bots import play_bots
from pbem.services import Site
from pbem.services.computer_games import start_computer_game

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_two_computers_of_one_level_are_told_apart_by_colour(sqlite_database: Database,
                                                             site: Site) -> None:
    with sqlite_database.write() as session:
        ann = Player(name="Ann", email="ann@example.test", created_at=NOW)
        session.add(ann)
        session.flush()
        start_computer_game(session, NOW, site, player=ann, game_type="rifugio",
                            options={"players": 3}, level="easy", starter="computer")
    play_bots(sqlite_database, NOW, site, on_result=lambda result: None)  # both computers move
    with sqlite_database.session() as session:
        turn = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "turn")).one()
    assert turn.to_address == "ann@example.test"
    text = turn.text_body
    listed = [line.split(":")[0].split(". ", 1)[1] for line in text.splitlines()
              if line.startswith("  ") and ". Computer" in line]
    assert set(listed) == {"Computer (easy) (Red)", "Computer (easy) (Blue)"}, text
    board = text.split("The board:", 1)[1]
    for label in ("Computer (easy) (Red)", "Computer (easy) (Blue)", "Ann (Yellow)"):
        assert f"\n{label}: at " in board, board  # the text board's line per seat
    assert "\nComputer (easy): " not in text  # nobody is left nameless
    # The subject too: an inbox with several such games shows which computers each one has.
    assert turn.subject.startswith(
        "Your turn: Rifugio vs Computer (easy) (Red) and Computer (easy) (Blue) ("), turn.subject


def test_the_emailed_board_names_the_seats_as_the_text_does(
    sqlite_database: Database, site: Site, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pbem.mail import boards

    drawn: list[str] = []
    monkeypatch.setattr(boards, "svg_to_png", lambda svg: drawn.append(svg) or b"png")
    with sqlite_database.write() as session:
        ann = Player(name="Ann <&>", email="ann@example.test", created_at=NOW, language="de")
        session.add(ann)
        session.flush()
        row = start_computer_game(session, NOW, site, player=ann, game_type="rifugio",
                                  options={"players": 3}, level="easy")
        game_id = row.id
    assert game_id is not None
    boards.board_png(sqlite_database, game_id, 0, 0, "de")
    svg = drawn[-1]
    assert "Ann &lt;&amp;&gt; (Rot)" in svg  # the player's name, escaped, and her colour in German
    assert "Computer (easy) (Blau)" in svg
    assert "Player 1" not in svg and "Spieler 1" not in svg
