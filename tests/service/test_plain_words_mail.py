"""Plain words in the emails (issue 33): no seeds or hashes, colours instead of seat numbers,
a forced pass told as the server's, a text board with its legend, records in the right
colours."""

from __future__ import annotations

import re
from datetime import datetime

from sqlmodel import col, select

from pbem.db import Database
from pbem.models import GameRecord, OutboxEmail
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, resign, submit_move
from pbem.services.records import game_record, record_sgf
from pbem.tournaments.service import create_tournament, start_tournament
from tests.support import ALICE_BOB, start_a_game


def _emails(database: Database, game_pk: int, kind: str) -> list[OutboxEmail]:
    with database.session() as session:
        return list(session.exec(select(OutboxEmail).where(
            OutboxEmail.game_id == game_pk, OutboxEmail.kind == kind).order_by(
            col(OutboxEmail.id))))


def _row(database: Database, game_pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None
        return row


def test_the_game_over_email_links_to_how_the_pile_was_shuffled_instead_of_the_seed(
    sqlite_database: Database, now: datetime, site: Site,
) -> None:
    for game_id, options in (("rifugio", {"players": 2}), ("mosey", {"order": 4})):
        pk = start_a_game(sqlite_database, now, site, game_id, options, players=ALICE_BOB)
        with sqlite_database.write() as session:
            resign(session, now, site, game_id=pk, seat=0)
        row = _row(sqlite_database, pk)
        emails = _emails(sqlite_database, pk, "game_over")
        assert len(emails) == 2
        for email in emails:
            body = email.text_body + email.html_body
            assert row.seed not in body and row.seed_commitment[:12] not in body
            assert "SHA-256" not in body and "seed" not in body.lower()
            shuffled = f"{site.links.game_url(row.public_id)}#shuffle"
            if game_id == "rifugio":
                assert f"How was the draw pile shuffled? {shuffled}" in email.text_body
                assert f'<a href="{shuffled}">How was the draw pile shuffled?</a>' in (
                    email.html_body)
            else:
                assert "shuffled" not in body


def test_the_refugia_text_board_has_a_key_in_the_readers_language(
    sqlite_database: Database, now: datetime, site: Site,
) -> None:
    players = [PlayerSpec("Alice", "alice@example.test", language="it"),
               PlayerSpec("Bob", "bob@example.test", language="de")]
    pk = start_a_game(sqlite_database, now, site, "refugia", {"board": "3-4"}, players=players)
    with sqlite_database.write() as session:
        submit_move(session, now, site, game_id=pk, seat=0, ply=0, text="D4")
    turn = _emails(sqlite_database, pk, "turn")[-1]
    assert turn.to_address == "bob@example.test"
    board, _, key = turn.text_body.partition("Legende: ")
    assert " W " in board.replace("\n", " ")  # the board itself, then its key
    assert key.startswith("W weiße Scheibe, B schwarze Scheibe, N neutraler Stein, . leeres Feld.")
    italian = _emails(sqlite_database, pk, "turn")[0]
    assert italian.to_address == "alice@example.test"
    assert ("Legenda: W disco bianco, B disco nero, N disco neutrale, . casella vuota."
            in italian.text_body)


def test_the_sgf_record_writes_each_seat_in_its_own_colour(
    database: Database, now: datetime, site: Site,
) -> None:
    """Black (or Dark) is SGF's B and White (or Light) its W, whoever moves first; a game
    whose seats have no such colours gives B to the first mover, as Go does."""
    for game_id, options, first, pb, pw in (
            ("refugia", {"board": "3-4"}, "D4", "Bob", "Alice"),  # White moves first
            ("mosey", {"order": 4}, None, "Bob", "Alice"),  # Light moves first
            ("stigmergy", {"size": 5, "komi": "none"}, "C3", "Alice", "Bob")):  # Black first
        pk = start_a_game(database, now, site, game_id, options, players=ALICE_BOB)
        with database.write() as session:
            row = session.get(GameRecord, pk)
            assert row is not None
            game, state = current_state(row)
            move = first or str(game.legal_moves(state)[0])
            submit_move(session, now, site, game_id=pk, seat=0, ply=0, text=move)
        with database.session() as session:
            row = session.get(GameRecord, pk)
            assert row is not None
            sgf = record_sgf(game_record(session, row))
        assert f"PB[{pb}]PW[{pw}]" in sgf, game_id
        letter = "B" if pb == "Alice" else "W"
        assert f"\n;{letter}[{move}]" in sgf, game_id


def test_a_tournaments_games_email_names_the_colour_each_player_plays(
    sqlite_database: Database, now: datetime, site: Site,
) -> None:
    people = [PlayerSpec("Ann", "ann@example.test"), PlayerSpec("Bob", "bob@example.test",
                                                                 language="it")]
    with sqlite_database.write() as session:
        tournament = create_tournament(
            session, now, site, name="Colour cup", game_type="refugia",
            options={"board": "3-4"}, fmt="round-robin", rated=False, players=people)
        assert tournament.id is not None
        start_tournament(session, now, site, tournament_id=tournament.id)
    with sqlite_database.session() as session:
        rounds = {e.to_address: e for e in session.exec(
            select(OutboxEmail).where(OutboxEmail.kind == "tournament_round"))}
    bodies = [rounds[a].text_body + rounds[a].html_body for a in rounds]
    assert all("seat " not in body for body in bodies)
    english, italian = rounds["ann@example.test"], rounds["bob@example.test"]
    plays = re.findall(r"against Bob, you play (White|Black)", english.text_body)
    assert plays and plays == re.findall(r"against Bob, you play (White|Black)",
                                         english.html_body)
    other = {"White": "Nero", "Black": "Bianco"}[plays[0]]
    assert f"contro Ann, giochi come {other}" in italian.text_body
