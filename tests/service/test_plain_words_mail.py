"""Plain words in the emails (issue 33): no seeds or hashes, colours instead of seat numbers,
a forced pass told as the server's, a text board with its legend, records in the right
colours."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import col, select

from pbem.db import Database
from pbem.models import GameRecord, OutboxEmail
from pbem.services import Site, resign
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
