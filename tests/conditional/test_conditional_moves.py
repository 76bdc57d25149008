"""Conditional moves in the service: kept while it is the opponent's turn, checked by replaying
them through the engine, played in the opponent's own transaction when they match (clock and
emails as if the player had moved that instant), dropped with a word in the turn email when they
do not. On SQLite and PostgreSQL (the ``database`` fixture).
"""

from __future__ import annotations

import json
import random
import threading
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlmodel import select

import engine
from pbem.clock.controls import Fischer
from pbem.conditional.service import ConditionalRefused, clear, save, shown
from pbem.conditional.tables import ConditionalMoves
from pbem.conditional.tree import lines_of
from pbem.db import Database
from pbem.models import AuditEntry, GameRecord, Move, MoveSource, OutboxEmail, Seat
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, submit_move
from pbem.services.records import game_record, record_text
from tests.support import ALICE_BOB, clock_in, start_a_game

GAME = "mosey"
OPTIONS = {"order": 4}
HOUR = timedelta(hours=1)


def start(database: Database, now: datetime, site: Site, **create: Any) -> int:
    return start_a_game(database, now, site, GAME, OPTIONS, players=ALICE_BOB, **create)


def a_line(game: engine.AnyGame, state: Any, moves: int, seed: int = 1) -> list[str]:
    """``moves`` legal moves from ``state``, each passing the turn to the other seat."""
    rng = random.Random(seed)
    line: list[str] = []
    for _ in range(moves):
        mover = game.to_move(state)
        passing = [m for m in game.legal_moves(state)
                   if game.to_move(game.play(state, m)) not in (mover, None)]
        move = rng.choice(passing)
        line.append(str(move))
        state = game.play(state, move)
    return line


def position(database: Database, game_id: int) -> tuple[engine.AnyGame, Any, GameRecord]:
    with database.session() as session:
        row = session.get(GameRecord, game_id)
    assert row is not None
    game, state = current_state(row)
    return game, state, row


def keep(database: Database, now: datetime, game_id: int, seat: int, text: str,
         **options: Any) -> Any:
    with database.write() as session:
        return save(session, now, game_id=game_id, seat=seat, text=text, **options)


def play(database: Database, now: datetime, site: Site, game_id: int, text: str) -> None:
    _, _, row = position(database, game_id)
    assert row.to_move is not None
    with database.write() as session:
        submit_move(session, now, site, game_id=game_id, seat=row.to_move, ply=row.ply,
                    text=text)


def moves_of(database: Database, game_id: int) -> list[Move]:
    with database.session() as session:
        return list(session.exec(select(Move).where(Move.game_id == game_id)
                                 .order_by(Move.ply)))  # type: ignore[arg-type]


def emails(database: Database, **where: Any) -> list[OutboxEmail]:
    with database.session() as session:
        found = session.exec(select(OutboxEmail).order_by(OutboxEmail.id)).all()  # type: ignore[arg-type]
    return [e for e in found if all(getattr(e, k) == v for k, v in where.items())]


def tree_of(database: Database, game_id: int, seat: int) -> list[str]:
    with database.session() as session:
        row = session.get(GameRecord, game_id)
        mine = session.exec(select(Seat).where(Seat.game_id == game_id,
                                               Seat.seat == seat)).one()
        assert row is not None
        return lines_of(shown(session, row, mine).tree)


def test_a_kept_tree_is_checked_stored_and_shown_to_its_owner_only(
    database: Database, now: datetime, site: Site,
) -> None:
    game_id = start(database, now, site)
    game, state, row = position(database, game_id)
    mover = row.to_move
    assert mover is not None
    other = 1 - mover
    first = a_line(game, state, 4, seed=1)
    second = a_line(game, state, 2, seed=2)
    assert first[0] != second[0]
    # typed in lower case and with the words of another language: stored in the engine's notation
    keep(database, now, game_id, other,
         f"if {first[0].lower()} then {first[1]} then {first[2]} then {first[3]}\n\n"
         f"ALS {second[0]} DAN {second[1]}")
    assert tree_of(database, game_id, other) == [
        f"if {first[0]} then {first[1]} then {first[2]} then {first[3]}",
        f"if {second[0]} then {second[1]}"]
    assert tree_of(database, game_id, mover) == []  # the opponent's view of the same game
    # edited: the new text replaces the tree; ``add`` adds a line to it
    keep(database, now, game_id, other, f"if {second[0]} then {second[1]}")
    assert tree_of(database, game_id, other) == [f"if {second[0]} then {second[1]}"]
    keep(database, now, game_id, other, f"if {first[0]} then {first[1]}", add=True)
    assert tree_of(database, game_id, other) == [f"if {second[0]} then {second[1]}",
                                                 f"if {first[0]} then {first[1]}"]
    # cancelled
    with database.write() as session:
        assert clear(session, now, game_id=game_id, seat=other) is True
    assert tree_of(database, game_id, other) == []
    with database.session() as session:
        assert session.exec(select(ConditionalMoves)).all() == []


def test_a_matching_move_plays_the_answer_at_once_with_the_clock_and_the_emails(
    database: Database, now: datetime, site: Site,
) -> None:
    game_id = start(database, now, site, time_control=Fischer())
    game, state, row = position(database, game_id)
    mover = row.to_move
    assert mover is not None
    other = 1 - mover
    line = a_line(game, state, 2)
    keep(database, now, game_id, other, f"if {line[0]} then {line[1]}")
    before = len(emails(database))
    moved_at = now + HOUR
    play(database, moved_at, site, game_id, line[0])

    played = moves_of(database, game_id)
    assert [(m.seat, m.notation, m.source) for m in played] == [
        (mover, line[0], MoveSource.LINK), (other, line[1], MoveSource.CONDITIONAL)]
    assert played[1].made_at == moved_at and played[1].note == ""
    _, after, row = position(database, game_id)
    assert row.ply == 2 and row.to_move == mover
    assert after == game.play(game.play(state, line[0]), line[1])
    # The clock: the answer took no time (the whole increment added), and the mover's turn
    # started at that instant with their own bank (2 days - 1 hour + 1 day).
    clock = clock_in(database, game_id)
    assert clock.banks is not None
    assert clock.banks[str(other)] == int((timedelta(days=2) + timedelta(days=1))
                                          .total_seconds())
    assert clock.turn_started_at == moved_at
    assert clock.deadline == moved_at + timedelta(days=3) - HOUR
    # The emails: the mover's turn, the owner's "played by your conditional move"; no turn
    # email for the owner (it is not their turn) and no second update for them.
    new = emails(database)[before:]
    assert sorted((e.kind, e.to_address) for e in new) == [
        ("conditional_played", ALICE_BOB[other].email), ("turn", ALICE_BOB[mover].email)]
    told = next(e for e in new if e.kind == "conditional_played")
    assert "played by your conditional move" in told.text_body
    assert line[0] in told.text_body and line[1] in told.text_body
    assert told.subject.startswith("Played by your conditional move:")
    turn = next(e for e in new if e.kind == "turn")
    assert line[1] in turn.text_body and "conditional" not in turn.text_body.lower()
    assert "conditional" not in turn.html_body.lower()
    assert tree_of(database, game_id, other) == []  # used up


def test_a_deeper_chain_answers_each_move_in_turn(
    database: Database, now: datetime, site: Site,
) -> None:
    game_id = start(database, now, site)
    game, state, row = position(database, game_id)
    mover = row.to_move
    assert mover is not None
    other = 1 - mover
    line = a_line(game, state, 6, seed=5)
    keep(database, now, game_id, other, "if " + " then ".join(line))
    play(database, now + HOUR, site, game_id, line[0])
    assert tree_of(database, game_id, other) == ["if " + " then ".join(line[2:])]
    play(database, now + 2 * HOUR, site, game_id, line[2])
    assert tree_of(database, game_id, other) == [f"if {line[4]} then {line[5]}"]
    play(database, now + 3 * HOUR, site, game_id, line[4])
    assert [m.notation for m in moves_of(database, game_id)] == line
    assert [m.source for m in moves_of(database, game_id)][1::2] == [MoveSource.CONDITIONAL] * 3
    assert tree_of(database, game_id, other) == []
    told = [e.text_body for e in emails(database, kind="conditional_played")]
    assert len(told) == 3
    # each says what is still kept after the answer it reports
    assert f"plays {line[2]}, you play {line[3]}" in told[0]
    assert f"plays {line[4]}, you play {line[5]}" in told[0] and f"you play {line[3]}" \
        not in told[1]
    assert "You keep no conditional moves in this game." in told[2]


def test_a_move_the_tree_does_not_answer_drops_it_and_the_turn_email_says_so(
    database: Database, now: datetime, site: Site,
) -> None:
    game_id = start(database, now, site)
    game, state, row = position(database, game_id)
    mover = row.to_move
    assert mover is not None
    other = 1 - mover
    line = a_line(game, state, 2, seed=1)
    elsewhere = next(str(m) for m in game.legal_moves(state) if str(m) != line[0]
                     and game.to_move(game.play(state, m)) == other)
    keep(database, now, game_id, other, f"if {line[0]} then {line[1]}")
    before = len(emails(database))
    play(database, now + HOUR, site, game_id, elsewhere)
    assert [m.notation for m in moves_of(database, game_id)] == [elsewhere]
    _, _, row = position(database, game_id)
    assert row.to_move == other
    assert tree_of(database, game_id, other) == []
    turn = next(e for e in emails(database)[before:] if e.kind == "turn")
    assert turn.to_address == ALICE_BOB[other].email
    assert (f"Your conditional moves did not answer {elsewhere}, so none was played and they "
            "were dropped.") in turn.text_body
    with database.session() as session:  # told once: the row that remembered it is gone
        assert session.exec(select(ConditionalMoves)).all() == []


@pytest.mark.parametrize(("text", "reason"), [
    ("if {bad} then {b}", "line 1: their move {bad}:"),
    ("if {a} then {a}", "line 1: your move {a}:"),
    ("if {a} then {b} then {c}", "line 1 ends with their move {c}"),
    ("when {a} then {b}", "line 1 does not read as"),
    ("if {a} then {b}\nif {a} then {other}", "line 2 answers {a} with {other}, but an earlier "
                                              "line answers it with {b}"),
])
def test_an_illegal_tree_is_refused_with_its_line_and_reason_and_changes_nothing(
    database: Database, now: datetime, site: Site, text: str, reason: str,
) -> None:
    game_id = start(database, now, site)
    game, state, row = position(database, game_id)
    assert row.to_move is not None
    other = 1 - row.to_move
    line = a_line(game, state, 3, seed=3)
    after = game.play(state, line[0])
    values = {"a": line[0], "b": line[1], "c": line[2],
              "other": next(str(m) for m in game.legal_moves(after) if str(m) != line[1]),
              "bad": "Z9-Z8"}
    keep(database, now, game_id, other, f"if {line[0]} then {line[1]}")
    with pytest.raises(ConditionalRefused) as refused:
        keep(database, now, game_id, other, text.format(**values))
    assert reason.format(**values) in str(refused.value)
    assert tree_of(database, game_id, other) == [f"if {line[0]} then {line[1]}"]


def test_nothing_is_kept_on_ones_own_turn(database: Database, now: datetime, site: Site) -> None:
    game_id = start(database, now, site)
    game, state, row = position(database, game_id)
    assert row.to_move is not None
    line = a_line(game, state, 2)
    with pytest.raises(ConditionalRefused, match="it is your turn"):
        keep(database, now, game_id, row.to_move, f"if {line[0]} then {line[1]}")


def test_the_opponent_never_reads_the_tree_in_records_emails_or_the_audit(
    database: Database, now: datetime, site: Site,
) -> None:
    game_id = start(database, now, site)
    game, state, row = position(database, game_id)
    assert row.to_move is not None
    mover, other = row.to_move, 1 - row.to_move
    line = a_line(game, state, 4, seed=9)
    keep(database, now, game_id, other, "if " + " then ".join(line))
    play(database, now + HOUR, site, game_id, line[0])
    # The kept answer two plies on (line[3]) is nowhere but in the owner's own tree.
    for email in emails(database, to_address=ALICE_BOB[mover].email):
        assert "conditional" not in (email.text_body + email.html_body + email.subject).lower()
    with database.session() as session:
        row = session.get(GameRecord, game_id)
        assert row is not None
        record = game_record(session, row)
        audit = [json.dumps(entry.detail) for entry in session.exec(select(AuditEntry)).all()]
    assert "conditional" not in (json.dumps(record) + record_text(record)).lower()
    assert [m["notation"] for m in record["moves"]] == line[:2]
    assert not any(line[3] in entry for entry in audit)
    assert tree_of(database, game_id, other) == [f"if {line[2]} then {line[3]}"]


def test_an_answer_the_rules_refuse_when_it_is_due_is_not_played_and_the_tree_is_dropped(
    database: Database, now: datetime, site: Site,
) -> None:
    game_id = start(database, now, site)
    game, state, row = position(database, game_id)
    assert row.to_move is not None
    mover, other = row.to_move, 1 - row.to_move
    line = a_line(game, state, 2)
    keep(database, now, game_id, other, f"if {line[0]} then {line[1]}")
    # As if the rules had changed since it was kept: the stored answer is now illegal there.
    illegal = next(str(m) for m in game.legal_moves(state)
                   if game.why_illegal(game.play(state, line[0]), m) is not None)
    with database.write() as session:
        kept = session.exec(select(ConditionalMoves)).one()
        kept.tree = {line[0]: {"answer": illegal, "then": {}}}
        session.add(kept)
    play(database, now + HOUR, site, game_id, line[0])
    assert [m.notation for m in moves_of(database, game_id)] == [line[0]]
    assert position(database, game_id)[2].to_move == other != mover
    turn = emails(database, kind="turn")[-1]
    assert turn.to_address == ALICE_BOB[other].email
    assert (f"Your conditional moves could not be played after {line[0]} (the rules refuse "
            "them now), so they were dropped.") in turn.text_body
    assert tree_of(database, game_id, other) == []


def test_a_seat_given_to_another_player_keeps_nobodys_conditional_moves(
    database: Database, now: datetime, site: Site,
) -> None:
    from pbem.admin.actions import replace_player

    game_id = start(database, now, site)
    game, state, row = position(database, game_id)
    assert row.to_move is not None
    other = 1 - row.to_move
    line = a_line(game, state, 2)
    keep(database, now, game_id, other, f"if {line[0]} then {line[1]}")
    with database.write() as session:
        replace_player(session, now, site, game_id=game_id, seat=other,
                       new_player=PlayerSpec("Cleo", "cleo@example.test"), actor="olga")
    assert tree_of(database, game_id, other) == []  # the new holder does not see the old plan
    play(database, now + HOUR, site, game_id, line[0])
    assert [m.notation for m in moves_of(database, game_id)] == [line[0]]  # nor is it played
    with database.session() as session:
        assert session.exec(select(ConditionalMoves)).all() == []


def race_a_save_and_a_move(database: Database, now: datetime, site: Site, game_id: int,
                          line: list[str], mover: int) -> list[bool]:
    """The other seat keeps ``if line[0] then line[1]`` while ``mover`` plays line[0], both at
    once from two threads; whether the save was kept."""
    barrier = threading.Barrier(2)
    kept: list[bool] = []

    def keep_it() -> None:
        barrier.wait()
        try:
            keep(database, now, game_id, 1 - mover, f"if {line[0]} then {line[1]}")
            kept.append(True)
        except ConditionalRefused:
            kept.append(False)

    def move_it() -> None:
        barrier.wait()
        with database.write() as session:
            submit_move(session, now, site, game_id=game_id, seat=mover, ply=0, text=line[0])

    threads = [threading.Thread(target=keep_it), threading.Thread(target=move_it)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return kept


def test_a_tree_kept_while_the_opponent_moves_is_either_used_or_refused(
    database: Database, now: datetime, site: Site,
) -> None:
    """Real threads: the save and the opponent's move each lock the game row, so a tree is
    never kept against a position the move has already left."""
    for round_number in range(4):
        game_id = start(database, now, site)
        game, state, row = position(database, game_id)
        assert row.to_move is not None
        line = a_line(game, state, 2, seed=round_number)
        kept = race_a_save_and_a_move(database, now, site, game_id, line, row.to_move)
        played = [m.notation for m in moves_of(database, game_id)]
        assert played == (line[:2] if kept == [True] else line[:1]), (kept, played)
        assert tree_of(database, game_id, 1 - row.to_move) == []
