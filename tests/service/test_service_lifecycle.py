"""The game lifecycle as services: create, invite, accept or decline, start, move, resign, abort.

Each test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import hashlib
import random
from datetime import datetime, timedelta

import pytest
from sqlmodel import Session, col, select

import engine
from pbem.clock.deadlines import clock_of
from pbem.db import Database
from pbem.models import (
    AuditEntry,
    GameRecord,
    GameStatus,
    Move,
    OutboxEmail,
    Player,
    Seat,
    SeatStatus,
)
from pbem.positions import current_state
from pbem.services import (
    GameMovedOn,
    GameNotActive,
    NotYourTurn,
    PlayerSpec,
    ServiceError,
    Site,
    abort_game,
    create_game,
    resign,
    respond_to_invitation,
    start_game,
    submit_move,
)
from tests.support import clock_in, start_a_game

ANN = PlayerSpec("Ann", "ann@example.test")
BOB = PlayerSpec("Bob", "bob@example.test")


def _people(game_id: str, options: dict[str, object]) -> list[PlayerSpec]:
    count = engine.new_game(game_id, **options).num_players
    return [ANN, BOB, *(PlayerSpec(f"P{n}", f"p{n}@example.test") for n in range(2, count))]


def _outbox(session: Session, kind: str | None = None) -> list[OutboxEmail]:
    query = select(OutboxEmail).order_by(col(OutboxEmail.id))
    if kind:
        query = query.where(OutboxEmail.kind == kind)
    return list(session.exec(query))


def _started(database: Database, now: datetime, site: Site, game_id: str,
             options: dict[str, object], **kwargs: object) -> int:
    return start_a_game(database, now, site, game_id, options,
                        players=_people(game_id, options), **kwargs)


def test_creating_a_game_invites_every_seat_in_the_given_order(
    database: Database, now: datetime, site: Site, any_game: str, smallest_options: object,
) -> None:
    options = smallest_options(any_game)  # type: ignore[operator]
    people = _people(any_game, options)
    with database.write() as session:
        row = create_game(session, now, site, game_type=any_game, options=options, players=people,
                          per_move=timedelta(days=3))
    with database.session() as session:
        game = session.exec(select(GameRecord)).one()
        seats = session.exec(select(Seat).order_by(col(Seat.seat))).all()
        emails = {p.id: p.email for p in session.exec(select(Player))}
        invitations = _outbox(session)
    assert game.status == GameStatus.INVITED and game.public_id == row.public_id
    assert len(game.public_id) >= 16  # unguessable
    assert [emails[s.player_id] for s in seats] == [p.email for p in people]
    assert all(s.status == SeatStatus.INVITED for s in seats)
    assert [e.kind for e in invitations] == ["invitation"] * len(people)
    assert all("/invite/" in e.text_body for e in invitations)
    # The seed stays secret; its SHA-256 is published from the start.
    assert game.seed_commitment == hashlib.sha256(game.seed.encode()).hexdigest()
    assert game.seed not in invitations[0].text_body
    assert clock_in(database, game.id).time_control == {
        "kind": "per_move", "per_move_seconds": 3 * 24 * 3600, "weekends_off": False}


def test_random_seat_order_is_a_permutation(
    database: Database, now: datetime, site: Site, any_game: str, smallest_options: object,
) -> None:
    options = smallest_options(any_game)  # type: ignore[operator]
    people = _people(any_game, options)
    orders = set()
    for seed in range(8):
        with database.write() as session:
            row = create_game(session, now, site, game_type=any_game, options=options,
                              players=people, random_seats=True, rng=random.Random(seed))
            seats = session.exec(select(Seat).where(Seat.game_id == row.id)
                                 .order_by(col(Seat.seat))).all()
            emails = {p.id: p.email for p in session.exec(select(Player))}
            orders.add(tuple(emails[s.player_id] for s in seats))
    assert all(sorted(order) == sorted(p.email for p in people) for order in orders)
    assert len(orders) > 1


def test_bad_requests_are_refused_with_reasons(
    database: Database, now: datetime, site: Site, any_game: str,
) -> None:
    with database.write() as session, pytest.raises(ServiceError, match="unknown game"):
        create_game(session, now, site, game_type="nine-men-morris", players=[ANN, BOB])
    with database.write() as session, pytest.raises(ServiceError, match="own email"):
        create_game(session, now, site, game_type=any_game, players=[ANN, ANN])
    with database.write() as session, pytest.raises(ServiceError, match="seats"):
        create_game(session, now, site, game_type=any_game, players=[ANN])
    with database.session() as session:
        assert session.exec(select(GameRecord)).all() == []  # nothing half-made


def test_the_game_starts_when_everyone_accepts(
    database: Database, now: datetime, site: Site, any_game: str, smallest_options: object,
) -> None:
    options = smallest_options(any_game)  # type: ignore[operator]
    people = _people(any_game, options)
    with database.write() as session:
        row = create_game(session, now, site, game_type=any_game, options=options, players=people,
                          per_move=timedelta(days=2))
        game_pk = row.id
    assert game_pk is not None
    for seat in range(len(people)):
        with database.session() as session:
            assert session.get(GameRecord, game_pk).status == GameStatus.INVITED  # type: ignore[union-attr]
        with database.write() as session:
            respond_to_invitation(session, now, site, game_id=game_pk, seat=seat, accept=True)
    with database.session() as session:
        game = session.get(GameRecord, game_pk)
        assert game is not None and game.status == GameStatus.ACTIVE
        first = current_state(game)[0].to_move(current_state(game)[1])
        assert game.to_move == first
        assert clock_of(session, game_pk).deadline == now + timedelta(days=2)
        turn = _outbox(session, "turn")
        assert len(turn) == 1 and turn[0].to_address == people[first].email
        assert "/play/" in turn[0].text_body
        # Emails of a game reply to the seat's first email, so they form one thread.
        invitation = [e for e in _outbox(session, "invitation")
                      if e.to_address == turn[0].to_address]
        assert turn[0].in_reply_to == invitation[0].message_id
        # The subject says what happened; the thread is kept by the headers alone.
        assert turn[0].subject.startswith("Your turn: ")
        assert invitation[0].subject.startswith("Invitation: ")
    with database.write() as session, pytest.raises(GameNotActive):
        respond_to_invitation(session, now, site, game_id=game_pk, seat=0, accept=False)


def test_a_decline_keeps_the_game_waiting_and_tells_the_others(
    database: Database, now: datetime, site: Site, any_game: str, smallest_options: object,
) -> None:
    options = smallest_options(any_game)  # type: ignore[operator]
    with database.write() as session:
        row = create_game(session, now, site, game_type=any_game, options=options,
                          players=_people(any_game, options))
        game_pk = row.id
    assert game_pk is not None
    with database.write() as session:
        respond_to_invitation(session, now, site, game_id=game_pk, seat=1, accept=False)
    with database.session() as session:
        assert session.get(GameRecord, game_pk).status == GameStatus.INVITED  # type: ignore[union-attr]
        notices = _outbox(session, "notice")
        assert notices and all(n.to_address != BOB.email for n in notices)
        assert "Bob declined" in notices[0].text_body
    with database.write() as session, pytest.raises(ServiceError, match="accepted"):
        start_game(session, now, site, game_id=game_pk)
    with database.write() as session:  # the organiser starts it anyway
        start_game(session, now, site, game_id=game_pk, force=True)
    with database.session() as session:
        assert session.get(GameRecord, game_pk).status == GameStatus.ACTIVE  # type: ignore[union-attr]


def test_moves_are_checked_against_ply_seat_and_rules(
    database: Database, now: datetime, site: Site, any_game: str, smallest_options: object,
) -> None:
    game_pk = _started(database, now, site, any_game, smallest_options(any_game))  # type: ignore[operator]
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None
    game, state = current_state(row)
    seat = game.to_move(state)
    move = str(game.random_move(state, random.Random(1)))
    with database.write() as session, pytest.raises(NotYourTurn):
        submit_move(session, now, site, game_id=game_pk, seat=(seat + 1) % 2, ply=0, text=move)
    with database.write() as session, pytest.raises(GameMovedOn):
        submit_move(session, now, site, game_id=game_pk, seat=seat, ply=5, text=move)
    with database.write() as session, pytest.raises(engine.IllegalMove):
        submit_move(session, now, site, game_id=game_pk, seat=seat, ply=0, text="Z99-Q1")
    with database.write() as session:
        made = submit_move(session, now, site, game_id=game_pk, seat=seat, ply=0, text=move,
                           note="  good   luck ")
    assert made.notation == move and made.note == "good luck"
    with database.write() as session, pytest.raises(GameMovedOn):
        submit_move(session, now, site, game_id=game_pk, seat=seat, ply=0, text=move)
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
        moves = session.exec(select(Move)).all()
        audit = session.exec(select(AuditEntry).where(AuditEntry.action == "move")).all()
    assert row is not None and row.ply == 1 and len(moves) == 1 and len(audit) == 1
    assert current_state(row)[1] == game.play(state, move)


def test_resigning_ends_the_game_and_tells_everyone(
    database: Database, now: datetime, site: Site, any_game: str, smallest_options: object,
) -> None:
    options = smallest_options(any_game)  # type: ignore[operator]
    game_pk = _started(database, now, site, any_game, options)
    with database.write() as session:
        resign(session, now, site, game_id=game_pk, seat=0)
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
        over = _outbox(session, "game_over")
    assert row is not None and row.status == GameStatus.FINISHED and row.to_move is None
    assert 0 not in (row.winners or []) and row.winners
    assert "resigned" in row.result
    assert len(over) == len(_people(any_game, options))
    assert row.seed not in over[0].text_body  # the game page reveals it (#shuffle), not mail
    with database.write() as session, pytest.raises(GameNotActive):
        resign(session, now, site, game_id=game_pk, seat=1)


def test_aborting_stops_the_game(
    database: Database, now: datetime, site: Site, any_game: str, smallest_options: object,
) -> None:
    game_pk = _started(database, now, site, any_game, smallest_options(any_game))  # type: ignore[operator]
    with database.write() as session:
        abort_game(session, now, site, game_id=game_pk, reason="testing")
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
        notices = [e for e in _outbox(session, "notice") if "aborted" in e.text_body]
    assert row is not None and row.status == GameStatus.ABORTED and notices
    with database.write() as session, pytest.raises(GameMovedOn):
        submit_move(session, now, site, game_id=game_pk, seat=0, ply=5, text="pass")


def test_a_failed_move_writes_nothing(
    database: Database, now: datetime, site: Site, any_game: str, smallest_options: object,
) -> None:
    """The move and its emails share one transaction: an error leaves neither."""
    game_pk = _started(database, now, site, any_game, smallest_options(any_game))  # type: ignore[operator]
    with database.session() as session:
        before = len(_outbox(session))
    with pytest.raises(RuntimeError), database.write() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None
        game, state = current_state(row)
        submit_move(session, now, site, game_id=game_pk, seat=game.to_move(state) or 0, ply=0,
                    text=str(game.random_move(state, random.Random(2))))
        raise RuntimeError("the request died after the move")
    with database.session() as session:
        assert len(_outbox(session)) == before
        assert session.exec(select(Move)).all() == []
        assert session.get(GameRecord, game_pk).ply == 0  # type: ignore[union-attr]
