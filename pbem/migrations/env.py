"""Alembic's entry point. The URL comes from pbem's config (see pbem.migrate), never from a file."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection
from sqlmodel import SQLModel

# Every table on the metadata: the core's, then each feature's (the core never imports them).
from pbem import models  # noqa: F401
from pbem.challenges import tables as challenge_tables  # noqa: F401
from pbem.channels import tables as channel_tables  # noqa: F401
from pbem.db import make_engine
from pbem.ratings import tables as rating_tables  # noqa: F401
from pbem.tournaments import tables as tournament_tables  # noqa: F401

target_metadata = SQLModel.metadata


def run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite can only ALTER tables by copying them
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


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
