"""Players with mail settings, and their games, for the notifications' tests."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import col, select

from pbem.db import Database
from pbem.models import OutboxEmail, Player
from pbem.notifications.service import choose
from pbem.notifications.tables import Mode


def player(database: Database, now: datetime, number: int, *, mode: Mode = Mode.ALL,
           hour: int | None = None, zone: str = "UTC") -> int:
    """p<number>@example.test (as ClockGames and start_a_game name their players), with
    ``mode`` chosen at ``now``."""
    with database.write() as session:
        row = Player(name=f"Player {number}", email=f"p{number}@example.test", created_at=now,
                     time_zone=zone)
        session.add(row)
        session.flush()
        assert row.id is not None
        choose(session, now, player_id=row.id, mode=mode, digest_hour=hour)
        return row.id


def mail_to(database: Database, player_id: int) -> list[OutboxEmail]:
    with database.session() as session:
        return list(session.exec(select(OutboxEmail).where(OutboxEmail.player_id == player_id)
                                 .order_by(col(OutboxEmail.id))))


def statuses(database: Database, player_id: int) -> dict[str, set[str]]:
    """Each kind of email the player was written, with the statuses it ended in."""
    found: dict[str, set[str]] = {}
    for email in mail_to(database, player_id):
        found.setdefault(email.kind, set()).add(email.status)
    return found
