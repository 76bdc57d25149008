"""Seats are named alike in every email: the player and the colour the board draws them in, so
that two computer players of one level, or two people of one name, are told apart."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlmodel import Session, select

from pbem.db import Database
from pbem.models import OutboxEmail, Player
from pbem.scheduler.bots import play_bots
from pbem.services import PlayerSpec, Site, create_game, resign
from pbem.services.computer_games import computer_games_in_progress, start_computer_game
from pbem.services.players import bot_spec

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def ann_player(session: Session) -> Player:
    ann = Player(name="Ann", email="ann@example.test", created_at=NOW)
    session.add(ann)
    session.flush()
    return ann


def test_two_computers_of_one_level_are_told_apart_by_colour(sqlite_database: Database,
                                                             site: Site) -> None:
    with sqlite_database.write() as session:
        ann = ann_player(session)
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
    assert "Computer (leicht) (Blau)" in svg  # the computer in her language too
    assert "Player 1" not in svg and "Spieler 1" not in svg


def test_games_against_the_computer_in_progress_are_counted_on_every_backend(
        database: Database, site: Site) -> None:
    with database.write() as session:
        ann = ann_player(session)
        assert ann.id is not None
        first = start_computer_game(session, NOW, site, player=ann, game_type="mosey",
                                    options={"order": 4}, level="easy")
        start_computer_game(session, NOW, site, player=ann, game_type="rifugio",
                            options={"players": 3}, level="easy", starter="computer")
        create_game(session, NOW, site, game_type="rifugio", options={"players": 3},
                    players=[PlayerSpec("Ann", "ann@example.test"), bot_spec("easy"),
                             PlayerSpec("Bo", "bo@example.test")])  # a person besides Ann
        assert computer_games_in_progress(session, ann.id) == 2
        assert first.id is not None
        resign(session, NOW, site, game_id=first.id, seat=0)
        assert computer_games_in_progress(session, ann.id) == 1


def test_a_player_facing_computers_gets_no_news_before_the_turn_that_brings_it(
        sqlite_database: Database, site: Site) -> None:
    """Red (a computer) moves, then Blue (a computer), then it is Ann's turn: one email, her
    turn, listing both; not a "Computer (easy) moved" a few seconds before it."""
    with sqlite_database.write() as session:
        ann = ann_player(session)
        start_computer_game(session, NOW, site, player=ann, game_type="rifugio",
                            options={"players": 3}, level="easy", starter="computer")
    play_bots(sqlite_database, NOW, site, on_result=lambda result: None)
    with sqlite_database.session() as session:
        kinds = [e.kind for e in session.exec(select(OutboxEmail)
                                              .where(OutboxEmail.to_address == ann.email))]
    assert kinds == ["turn"], kinds  # her turn, which says the game has started


def test_a_computer_is_named_in_the_readers_language(sqlite_database: Database,
                                                     site: Site) -> None:
    """Its stored name is English; a German player reads "Computer (leicht)" in the subject,
    the moves, the board's lines and the board picture's labels."""
    with sqlite_database.write() as session:
        ann = ann_player(session)
        ann.language = "de"
        start_computer_game(session, NOW, site, player=ann, game_type="rifugio",
                            options={"players": 3}, level="easy", starter="computer")
    play_bots(sqlite_database, NOW, site, on_result=lambda result: None)
    with sqlite_database.session() as session:
        mails = list(session.exec(select(OutboxEmail)))
    turn = next(m for m in mails if m.kind == "turn")
    for part in (turn.subject, turn.text_body, turn.html_body or ""):
        assert "Computer (leicht) (Rot)" in part and "(easy)" not in part, part
    assert {m.kind for m in mails} == {"turn"}  # it says the game has started
    assert all("Computer (leicht)" in m.subject for m in mails)
