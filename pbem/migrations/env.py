"""Alembic's entry point. The URL comes from pbem's config (see pbem.migrate), never from a file."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from alembic import context
from sqlalchemy import Connection
from sqlmodel import SQLModel

# Every table on the metadata: the core's, then each feature's (the core never imports them).
from pbem import models  # noqa: F401
from pbem.analysis import tables as analysis_tables  # noqa: F401
from pbem.challenges import tables as challenge_tables  # noqa: F401
from pbem.channels import tables as channel_tables  # noqa: F401
from pbem.chat import tables as chat_tables  # noqa: F401
from pbem.clock import tables as clock_tables  # noqa: F401
from pbem.conditional import tables as conditional_tables  # noqa: F401
from pbem.db import make_engine
from pbem.notifications import tables as notification_tables  # noqa: F401
from pbem.ratings import tables as rating_tables  # noqa: F401
from pbem.tournaments import tables as tournament_tables  # noqa: F401

target_metadata = SQLModel.metadata


class ForeignKeysBroken(RuntimeError):
    """A migration left rows pointing at rows that are not there (SQLite's check at the end)."""


@contextmanager
def sqlite_foreign_keys_off(connection: Connection) -> Iterator[None]:
    """SQLite alters a table by copying it and dropping the old copy (batch mode), and with
    foreign keys on, dropping a table that other rows point at fails (``games``: seats, moves,
    its clock). The pragma is ignored inside a transaction, so it is switched off on the driver's
    connection before the migrations' transaction begins; :func:`run_migrations` checks every
    foreign key before committing instead."""
    if connection.dialect.name != "sqlite":
        yield
        return
    driver = connection.connection.driver_connection
    assert driver is not None
    driver.execute("PRAGMA foreign_keys=OFF")
    try:
        yield
    finally:
        driver.execute("PRAGMA foreign_keys=ON")


def run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite can only ALTER tables by copying them
        compare_type=True,
    )
    with sqlite_foreign_keys_off(connection), context.begin_transaction():
        context.run_migrations()
        if connection.dialect.name == "sqlite":
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
            if broken:
                raise ForeignKeysBroken(f"the migrations left broken foreign keys: {broken}")


def run() -> None:
    config = context.config
    connection = config.attributes.get("connection")
    if connection is not None:
        run_migrations(connection)
        return
    engine = make_engine(config.get_main_option("sqlalchemy.url") or "",
                         search_path=config.attributes.get("search_path"))
    with engine.connect() as connection:
        run_migrations(connection)
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("pbem runs migrations online only: pbem db upgrade")
run()
