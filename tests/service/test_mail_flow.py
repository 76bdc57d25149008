"""Fewer, better emails (issue 33), on SQLite and PostgreSQL: the turn service publishes and a
subscriber writes the turn emails; a game's start is one email for its first player; a person
playing the computer on the web is not mailed while they watch; a turn email says how to answer
it when play by reply is on.
"""

from __future__ import annotations

import ast
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from sqlmodel import col, select

from pbem.db import Database
from pbem.models import GameRecord, OutboxEmail, Player, Seat
from pbem.positions import current_state
from pbem.scheduler.bots import play_bots
from pbem.scheduler.sweep import sweep
from pbem.services import Site, submit_move
from pbem.services.computer_games import start_computer_game
from pbem.services.events import EVENTS, GameFinished, TurnStarted
from pbem.services.turn_mail import record_page_view
from tests.support import ALICE_BOB, start_a_game

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
SERVICES = Path(__file__).resolve().parents[2] / "pbem" / "services"


def _mail(database: Database, address: str | None = None) -> list[OutboxEmail]:
    query = select(OutboxEmail).order_by(col(OutboxEmail.id))
    if address is not None:
        query = query.where(OutboxEmail.to_address == address)
    with database.session() as session:
        return list(session.exec(query))


def _row(database: Database, game_id: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_id)
        assert row is not None
        return row


def _play_random(database: Database, site: Site, game_id: int, now: datetime) -> None:
    row = _row(database, game_id)
    game, state = current_state(row)
    assert row.to_move is not None
    with database.write() as session:
        submit_move(session, now, site, game_id=game_id, seat=row.to_move, ply=row.ply,
                    text=str(game.legal_moves(state)[0]))


# -- 1. the turn service publishes; a subscriber writes the emails ------------------------------


def test_the_turn_service_knows_nothing_of_mail() -> None:
    """turns.py and moves.py import no mail module: what a turn writes comes from subscribers."""
    for name in ("turns.py", "moves.py"):
        tree = ast.parse((SERVICES / name).read_text())
        imported = {node.module for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) and node.module}
        assert not imported & {"pbem.services.notify", "pbem.services.turn_mail",
                               "pbem.mail", "pbem.mail.outbox"}, (name, imported)


def test_a_move_mails_through_the_subscribers_only(
        database: Database, site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the mail subscribers a move writes no email; with them, the turn email."""
    game_id = start_a_game(database, NOW, site, "mosey", {"order": 4}, players=ALICE_BOB)
    before = len(_mail(database))
    handlers = dict(EVENTS._handlers)
    monkeypatch.setattr(EVENTS, "_handlers", {
        kind: [h for h in found if h.__module__ != "pbem.services.turn_mail"]
        for kind, found in handlers.items()})
    _play_random(database, site, game_id, NOW)
    assert len(_mail(database)) == before  # the move is played, nobody is told
    monkeypatch.setattr(EVENTS, "_handlers", handlers)
    mover = _row(database, game_id).to_move
    _play_random(database, site, game_id, NOW + timedelta(minutes=1))
    new = _mail(database)[before:]
    assert [e.kind for e in new] == ["turn"]
    assert new[0].to_address == ALICE_BOB[1 - (mover or 0)].email
    assert {TurnStarted, GameFinished} <= set(handlers)


# -- 2. "Game started" and "Your turn" are one email --------------------------------------------


def test_a_new_game_sends_its_first_player_one_email_saying_it_started(
        database: Database, site: Site) -> None:
    game_id = start_a_game(database, NOW, site, "mosey", {"order": 4}, players=ALICE_BOB)
    first = _row(database, game_id).to_move or 0
    mover, waiter = ALICE_BOB[first], ALICE_BOB[1 - first]
    theirs = [e for e in _mail(database, mover.email) if e.kind != "invitation"]
    assert [e.kind for e in theirs] == ["turn"]
    assert "The game of Mosey has started, and it is your turn" in theirs[0].text_body
    assert theirs[0].subject.startswith("Your turn: ")
    others = [e for e in _mail(database, waiter.email) if e.kind != "invitation"]
    assert [e.subject.split(":")[0] for e in others] == ["Game started"]
    _play_random(database, site, game_id, NOW + timedelta(minutes=1))
    turn = _mail(database, waiter.email)[-1]
    assert "It is your turn in Mosey" in turn.text_body  # a person has moved: a plain turn


def test_a_person_whose_computer_moves_first_gets_one_email(
        database: Database, site: Site) -> None:
    with database.write() as session:
        ann = Player(name="Ann", email="ann@example.test", created_at=NOW)
        session.add(ann)
        session.flush()
        start_computer_game(session, NOW, site, player=ann, game_type="mosey",
                            options={"order": 4}, level="easy", starter="computer")
    assert _mail(database, "ann@example.test") == []  # no "Game started" ahead of the turn
    play_bots(database, NOW, site, on_result=lambda result: None)
    mails = _mail(database, "ann@example.test")
    assert [e.kind for e in mails] == ["turn"]
    assert "The game of Mosey has started, and it is your turn" in mails[0].text_body


# -- 4. no turn email while the person watches the computer's reply -----------------------------


def _computer_game(database: Database, site: Site) -> int:
    """Ann (seat 0) against the computer, her first move played from the page at NOW."""
    with database.write() as session:
        ann = Player(name="Ann", email="ann@example.test", created_at=NOW)
        session.add(ann)
        session.flush()
        row = start_computer_game(session, NOW, site, player=ann, game_type="mosey",
                                  options={"order": 4}, level="easy", starter="me")
        assert row.id is not None
        game_id = row.id
    with database.write() as session:
        record_page_view(session, NOW, game_id, 0)
    _play_random(database, site, game_id, NOW)
    play_bots(database, NOW + timedelta(seconds=2), site, on_result=lambda result: None)
    return game_id


def _turns(database: Database) -> list[OutboxEmail]:
    return [e for e in _mail(database, "ann@example.test") if e.kind == "turn"]


def test_a_turn_email_waits_while_the_player_watches_the_computer(
        database: Database, site: Site) -> None:
    game_id = _computer_game(database, site)
    row = _row(database, game_id)
    assert row.to_move == 0 and row.ply == 2  # the computer answered
    assert len(_turns(database)) == 1  # only the first turn's, written at the start
    assert sweep(database, NOW + timedelta(minutes=5), site, bots=False).held_turn_emails == 0
    with database.write() as session:  # still on the page (it reloads while it waits)
        record_page_view(session, NOW + timedelta(minutes=8), game_id, 0)
    assert sweep(database, NOW + timedelta(minutes=17), site, bots=False).held_turn_emails == 0
    assert len(_turns(database)) == 1
    # Gone for ten minutes: the turn email, for the turn she still has.
    summary = sweep(database, NOW + timedelta(minutes=18, seconds=1), site, bots=False)
    assert summary.held_turn_emails == 1
    turns = _turns(database)
    assert len(turns) == 2 and turns[-1].subject.startswith("Your turn: ")
    assert "/play/" in turns[-1].text_body
    assert sweep(database, NOW + timedelta(hours=1), site, bots=False).held_turn_emails == 0
    with database.session() as session:
        assert session.exec(select(Seat).where(col(Seat.turn_email_held).is_not(None))
                            ).all() == []


def test_a_turn_played_on_the_page_is_never_mailed(database: Database, site: Site) -> None:
    game_id = _computer_game(database, site)
    _play_random(database, site, game_id, NOW + timedelta(minutes=1))  # from the page, at once
    assert sweep(database, NOW + timedelta(hours=1), site, bots=False).held_turn_emails == 0
    assert len(_turns(database)) == 1


def test_a_game_between_people_is_mailed_however_they_watch(
        database: Database, site: Site) -> None:
    game_id = start_a_game(database, NOW, site, "mosey", {"order": 4}, players=ALICE_BOB)
    with database.write() as session:
        record_page_view(session, NOW, game_id, 0)
        record_page_view(session, NOW, game_id, 1)
    before = len(_mail(database))
    _play_random(database, site, game_id, NOW)
    assert [e.kind for e in _mail(database)[before:]] == ["turn"]


def test_the_move_page_and_the_seat_page_record_the_view(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    game_id = start_a_game(sqlite_database, NOW, site, "mosey", {"order": 4},
                           players=ALICE_BOB)
    row = _row(sqlite_database, game_id)
    assert row.to_move is not None
    with sqlite_database.session() as session:
        seats = {s.seat: s for s in session.exec(select(Seat).where(Seat.game_id == game_id))}
    mover, other = seats[row.to_move], seats[1 - row.to_move]
    assert client.get(site.links.move_url(game_id, mover.seat, row.ply,
                                          holder=mover.player_id)).status_code == 200
    assert client.get(site.links.seat_view_url(game_id, other.seat,
                                               holder=other.player_id)).status_code == 200
    with sqlite_database.session() as session:
        viewed = {s.seat: s.page_viewed_at for s in session.exec(
            select(Seat).where(Seat.game_id == game_id))}
    assert viewed[mover.seat] is not None and viewed[other.seat] is not None


def test_a_computer_game_started_on_the_web_mails_its_first_turn_only_if_left(
        database: Database, site: Site) -> None:
    with database.write() as session:
        ann = Player(name="Ann", email="ann@example.test", created_at=NOW)
        session.add(ann)
        session.flush()
        start_computer_game(session, NOW, site, player=ann, game_type="mosey",
                            options={"order": 4}, level="easy", starter="me", watching=True)
    assert _mail(database, "ann@example.test") == []  # she is on the move page already
    assert sweep(database, NOW + timedelta(minutes=9), site, bots=False).held_turn_emails == 0
    assert sweep(database, NOW + timedelta(minutes=10), site, bots=False).held_turn_emails == 1
    turns = _turns(database)
    assert len(turns) == 1
    assert "The game of Mosey has started, and it is your turn" in turns[0].text_body
