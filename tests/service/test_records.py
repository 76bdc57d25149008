"""Game records (pbem.services.records): the JSON replays through the engine to the stored final
position and result; the text and SGF-like forms say the same; hidden parts only after the end.
Each test runs on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime, timedelta

from sqlmodel import col, select

import engine
from pbem.db import Database
from pbem.models import GameRecord, Move
from pbem.services import PlayerSpec, Site, resign, submit_move
from pbem.services.records import game_record, record_sgf, record_text
from tests.support import start_a_game

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
ALICE_BOB = [PlayerSpec("Alice", "alice@example.test"), PlayerSpec("Bob", "bob@example.test")]


def play_random(database: Database, site: Site, pk: int, count: int = 10_000,
                seed: int = 1) -> None:
    """Random legal moves until the game ends or ``count`` were played, a minute apart."""
    rng = random.Random(seed)
    for n in range(count):
        with database.write() as session:
            row = session.get(GameRecord, pk)
            assert row is not None
            if row.to_move is None:
                return
            game = engine.new_game(row.game_type, **row.options)
            state = game.decode(row.state)
            moves, numbers = game.move_choices(state)
            text = str(numbers.low) if numbers is not None else str(rng.choice(moves))
            submit_move(session, NOW + timedelta(minutes=n), site, game_id=pk,
                        seat=row.to_move, ply=row.ply, text=text,
                        note="thinking [hard] \\o/" if n == 1 else "")


def record_of(database: Database, pk: int) -> tuple[GameRecord, dict[str, object]]:
    with database.session() as session:
        row = session.get(GameRecord, pk)
        assert row is not None
        # Through JSON text, as a download would be read back.
        return row, json.loads(json.dumps(game_record(session, row)))


def replayed(record: dict[str, object]) -> tuple[engine.AnyGame, object]:
    game = engine.new_game(str(record["game"]), **record["options"])  # type: ignore[arg-type]
    state = game.decode(record["start_state"])  # type: ignore[arg-type]
    for move in record["moves"]:  # type: ignore[attr-defined]
        state = game.play(state, move["notation"], seat=move["seat"])
    return game, state


def test_a_finished_games_json_replays_to_its_final_position_and_result(
        database: Database, site: Site) -> None:
    pk = start_a_game(database, NOW, site, "refugia", {"board": "2-3"}, players=ALICE_BOB)
    play_random(database, site, pk)
    row, record = record_of(database, pk)
    assert row.status == "finished" and record["status"] == "finished"
    game, state = replayed(record)
    assert game.encode(state) == row.state
    outcome = game.outcome(state)
    assert outcome is not None and list(outcome.winners) == record["winners"] == row.winners
    assert record["result"] == row.result and record["result"]
    # The seed was secret during play; now it rebuilds the very same start.
    assert game.encode(game.start(record["seed"])) == record["start_state"]
    assert [m["ply"] for m in record["moves"]] == list(range(len(record["moves"])))  # type: ignore[attr-defined]
    assert [p["name"] for p in record["players"]] == ["Alice", "Bob"]  # type: ignore[attr-defined]
    assert record["game"] == "refugia" and record["options"] == row.options
    assert record["moves"][0]["time"] == NOW.isoformat()  # type: ignore[index]


def test_a_resigned_rifugio_game_reveals_its_pile_and_replays(
        database: Database, site: Site) -> None:
    pk = start_a_game(database, NOW, site, "rifugio", {"players": 2}, players=ALICE_BOB)
    play_random(database, site, pk, 12)
    _, running = record_of(database, pk)
    # While it runs: the moves, never the seed nor the starting pile.
    assert running["seed"] is None and running["start_state"] is None
    assert running["winners"] is None and len(running["moves"]) == 12  # type: ignore[arg-type]
    assert "pile" not in json.dumps(running)
    with database.session() as session:
        row = session.get(GameRecord, pk)
        assert row is not None
        running_text, running_sgf = record_text(running), record_sgf(running)
    assert row.seed not in running_text + running_sgf + json.dumps(running)
    with database.write() as session:
        resign(session, NOW + timedelta(hours=1), site, game_id=pk, seat=1)
    row, record = record_of(database, pk)
    game, state = replayed(record)
    assert game.encode(state) == row.state
    assert record["winners"] == [0] and record["result"] == "Bob (Blue) resigned; Alice (Red) won."
    assert record["players"][1]["resigned"] is True  # type: ignore[index]
    assert record["start_state"]["pile"] == row.start_state["pile"]  # type: ignore[index]


def test_the_text_record(database: Database, site: Site) -> None:
    pk = start_a_game(database, NOW, site, "refugia", {"board": "2-3"}, players=ALICE_BOB)
    play_random(database, site, pk)
    row, record = record_of(database, pk)
    with database.session() as session:
        moves = list(session.exec(select(Move).where(Move.game_id == pk)
                                  .order_by(col(Move.ply))))
    text = record_text(record)
    assert text.startswith("Game: refugia\n")
    assert f"Page: {row.public_id}\n" in text and "Options: board=2-3\n" in text
    assert "Seat 1: Alice" in text and "Seat 2: Bob" in text
    assert f"Result: {row.result}\n" in text and f"Seed: {row.seed}\n" in text
    names = {0: "Alice", 1: "Bob"}
    lines = [line for line in text.splitlines() if re.match(r"\d+\. ", line)]
    assert [line.split("  [")[0] for line in lines] == [
        f"{m.ply + 1}. {names[m.seat]}: {m.notation}" for m in moves]
    assert "{thinking [hard] \\o/}" in lines[1]


def test_the_sgf_record(database: Database, site: Site) -> None:
    people = [PlayerSpec("Ann ]Bracket", "ann@example.test"),
              PlayerSpec("Bob", "bob@example.test")]
    pk = start_a_game(database, NOW, site, "refugia", {"board": "2-3"}, players=people)
    play_random(database, site, pk)
    row, record = record_of(database, pk)
    sgf = record_sgf(record)
    assert sgf.startswith("(;GM[pbem:refugia]FF[4]CA[UTF-8]AP[pbem]") and sgf.endswith(")\n")
    assert f"GN[{row.public_id}]" in sgf and "DT[2025-03-01]" in sgf and "OP[board=2-3]" in sgf
    # Ann, in the first seat, plays White in Refugia: SGF's W.
    assert "PB[Bob]PW[Ann \\]Bracket]" in sgf and "PN[Ann \\]Bracket][Bob]" in sgf
    assert f"SD[{row.seed}]" in sgf and f"SC[{row.seed_commitment}]" in sgf
    assert f"WN[{']['.join(str(w + 1) for w in row.winners or [])}]" in sgf
    nodes = re.findall(r"\n;([BW])\[((?:[^\]\\]|\\.)*)\]MT\[([^\]]+)\]", sgf)
    assert [(seat, notation) for seat, notation, _ in nodes] == [
        ("WB"[m["seat"]], m["notation"]) for m in record["moves"]]  # type: ignore[attr-defined]
    assert "C[thinking [hard\\] \\\\o/]" in sgf  # ] and \ escaped as SGF does


def test_games_of_more_than_two_seats_name_seats_by_letter(
        database: Database, site: Site) -> None:
    people = [PlayerSpec(name, f"{name.lower()}@example.test") for name in ("Ann", "Bob", "Cy")]
    pk = start_a_game(database, NOW, site, "rifugio", {"players": 3}, players=people)
    play_random(database, site, pk, 16)
    _, record = record_of(database, pk)
    sgf = record_sgf(record)
    assert "PB[" not in sgf and "PN[Ann][Bob][Cy]" in sgf and "SD[" not in sgf
    used = re.findall(r"\n;(M[A-Z])\[", sgf)
    assert used == ["M" + "ABC"[m["seat"]] for m in record["moves"]]  # type: ignore[attr-defined]
    assert set(used) == {"MA", "MB", "MC"}
