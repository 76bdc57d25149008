"""The database layer on real SQLite files and real PostgreSQL: migrations, pragmas, locks, time."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import inspect, text
from sqlmodel import select

from pbem.db import Database
from pbem.models import AuditEntry, Player

EXPECTED_TABLES = {"players", "games", "game_clocks", "seats", "moves", "outbox_emails",
                   "board_images", "audit_log", "caught_mail", "alembic_version",
                   "player_absences", "scheduler_leases"}


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_migration_builds_the_schema_the_models_use(backend: str, tmp_path: Path,
                                                        make_db: object) -> None:
    database, remove = make_db(backend, tmp_path, migrate=True)  # type: ignore[operator]
    try:
        tables = set(inspect(database.engine).get_table_names())
        assert tables >= EXPECTED_TABLES
        now = datetime(2025, 1, 1, tzinfo=UTC)
        with database.write() as session:
            session.add(Player(name="Ann", email="ann@example.test", created_at=now))
        with database.session() as session:
            assert session.exec(select(Player)).one().created_at == now
    finally:
        remove()


def test_sqlite_connections_are_set_up_for_concurrent_writers(sqlite_database: Database) -> None:
    with sqlite_database.session() as session:
        assert session.exec(text("PRAGMA journal_mode")).one()[0] == "wal"  # type: ignore[call-overload]
        assert session.exec(text("PRAGMA foreign_keys")).one()[0] == 1  # type: ignore[call-overload]
        assert session.exec(text("PRAGMA busy_timeout")).one()[0] >= 5000  # type: ignore[call-overload]


def test_foreign_keys_are_enforced(database: Database) -> None:
    now = datetime(2025, 1, 1, tzinfo=UTC)
    with pytest.raises(Exception, match=r"(?i)foreign key"), database.write() as session:
        session.add(AuditEntry(at=now, action="x", game_id=999))


def test_read_modify_write_loses_no_update_under_concurrency(database: Database) -> None:
    """Eight threads each add 1 ten times through write transactions: the total is exact.

    On SQLite this only holds because write transactions BEGIN IMMEDIATE; on PostgreSQL because
    of the row lock (SELECT ... FOR UPDATE), as the services use.
    """
    now = datetime(2025, 1, 1, tzinfo=UTC)
    with database.write() as session:
        session.add(Player(name="0", email="counter@example.test", created_at=now))

    def bump() -> None:
        for _ in range(10):
            with database.write() as session:
                player = session.exec(select(Player).with_for_update()).one()
                player.name = str(int(player.name) + 1)
                session.add(player)

    threads = [threading.Thread(target=bump) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with database.session() as session:
        assert session.exec(select(Player)).one().name == "80"


def test_times_come_back_aware_and_in_utc(database: Database) -> None:
    paris = timezone(timedelta(hours=1))
    moment = datetime(2025, 3, 1, 13, 30, tzinfo=paris)
    with database.write() as session:
        session.add(AuditEntry(at=moment, action="x"))
    with database.session() as session:
        stored = session.exec(select(AuditEntry)).one().at
    assert stored == moment and stored.tzinfo is not None and stored.utcoffset() == timedelta(0)
    with pytest.raises(Exception, match="naive"), database.write() as session:
        session.add(AuditEntry(at=datetime(2025, 1, 1), action="x"))


def test_the_migrations_match_the_models(tmp_path: Path) -> None:
    """A model change without its migration fails here (Alembic's autogenerate finds a diff)."""
    from alembic import command

    from pbem.migrate import alembic_config, upgrade

    url = f"sqlite:///{tmp_path / 'check.db'}"
    upgrade(url)
    command.check(alembic_config(url))  # raises when the models and migrations differ


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_scheduler_migration_keeps_waiting_mail(backend: str, tmp_path: Path,
                                                    make_db: object) -> None:
    """Mail written before 0002 ("pending") becomes queued or retrying, nothing is lost."""
    from sqlmodel import SQLModel

    from pbem.migrate import upgrade

    database, remove = make_db(backend, tmp_path)  # type: ignore[operator]
    try:
        SQLModel.metadata.drop_all(database.engine)  # an empty schema, then 0001 only
        schema = None
        if not database.is_sqlite:
            with database.engine.connect() as connection:
                schema = connection.execute(text("SHOW search_path")).scalar()
        url = database.url
        upgrade(url, "0001", search_path=schema)
        with database.engine.begin() as connection:
            for number, attempts in enumerate((0, 2)):
                connection.execute(text(
                    "INSERT INTO outbox_emails (kind, to_address, to_name, subject, text_body,"
                    " html_body, image_alt, message_id, in_reply_to, unsubscribe_url, essential,"
                    " status, attempts, next_attempt_at, last_error, created_at) VALUES ('n',"
                    " 'a@example.test', '', 's', 't', 'h', '', :mid, '', '', true, 'pending',"
                    " :attempts, :at, '', :at)"),
                    {"mid": f"<{number}@x>", "attempts": attempts, "at": datetime(2025, 1, 1)})
        upgrade(url, "head", search_path=schema)
        with database.engine.connect() as connection:
            rows = connection.execute(text(
                "SELECT status, claimed_by FROM outbox_emails ORDER BY id")).all()
        assert [tuple(r) for r in rows] == [("queued", ""), ("retrying", "")]
    finally:
        remove()
