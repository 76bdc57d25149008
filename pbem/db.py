"""Database engines and sessions for SQLite and PostgreSQL.

SQLite needs care to be safe under concurrent writers: WAL (readers never block the writer),
``busy_timeout`` (wait for the lock instead of failing at once), ``foreign_keys=ON`` (off by
default), and ``BEGIN IMMEDIATE`` for write transactions. Without the last, two requests could both
read ply 7 under a shared lock and then race to upgrade it; with it, the second waits at BEGIN and
then reads the first one's result. pysqlite's own implicit BEGIN is switched off so that we can emit
the right BEGIN ourselves.

>>> from sqlalchemy import text
>>> database = Database("sqlite://")
>>> with database.write() as session:
...     session.exec(text("select 1")).one()
(1,)
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlmodel import Session

BUSY_TIMEOUT_MS = 15_000
# PostgreSQL ends a session left idle inside a transaction this long (PBEM_DATABASE_IDLE_
# TRANSACTION_SECONDS): a host cut off mid-transaction would otherwise keep its row locks, and
# everyone waiting on them, until TCP gives up on it (hours). Inside a transaction pbem waits
# for nothing but the database and its own work, for well under this.
IDLE_TRANSACTION_SECONDS = 60
# The server's keepalives on each session, so that it also notices a vanished host whose session
# is idle, and frees its connection slot, in about a minute instead of the kernel's two hours.
KEEPALIVE_OPTIONS = ("-ctcp_keepalives_idle=30 -ctcp_keepalives_interval=10 "
                     "-ctcp_keepalives_count=3")
_BEGIN_OPTION = "pbem_sqlite_begin"


def make_engine(url: str, *, search_path: str | None = None,
                idle_transaction_seconds: float = IDLE_TRANSACTION_SECONDS) -> Engine:
    """An engine for ``url``; ``search_path`` puts PostgreSQL tables into one schema (tests);
    a PostgreSQL session idle in a transaction for ``idle_transaction_seconds`` is ended."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 15})
        _configure_sqlite(engine)
    else:
        idle_ms = round(idle_transaction_seconds * 1000)
        options = [KEEPALIVE_OPTIONS, f"-cidle_in_transaction_session_timeout={idle_ms}"]
        if search_path:
            options.append(f"-csearch_path={search_path}")
        connect_args: dict[str, Any] = {"options": " ".join(options)}
        engine = create_engine(url, connect_args=connect_args, pool_pre_ping=True)
    _forget_connections_after_fork(engine)
    return engine


def _forget_connections_after_fork(engine: Engine) -> None:
    """A forked child (``gunicorn --preload``'s workers, a process pool) must not use the
    parent's pooled connections: two processes on one socket or SQLite handle corrupt each
    other's traffic. The child drops them without closing them, which would close the
    parent's too, and opens its own."""
    reference = weakref.ref(engine)  # a strong one would keep every test's engine alive

    def after_fork() -> None:
        if (alive := reference()) is not None:
            alive.dispose(close=False)

    os.register_at_fork(after_in_child=after_fork)


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves (see module docstring)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")  # safe with WAL; fsync at checkpoints only
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Any) -> None:
        mode = connection.get_execution_options().get(_BEGIN_OPTION, "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")


def conflict_insert(session: Session, table: Any) -> postgresql.Insert | sqlite.Insert:
    """An INSERT into ``table`` that may say what a conflict does (``on_conflict_do_nothing``,
    ``on_conflict_do_update``), in the SQL of ``session``'s database: SQLite and PostgreSQL
    write ON CONFLICT alike, but SQLAlchemy offers it per dialect."""
    if session.get_bind().dialect.name == "sqlite":
        return sqlite.insert(table)
    return postgresql.insert(table)


class Database:
    """One engine plus the two kinds of session the app uses: reading and writing."""

    def __init__(self, url: str, *, search_path: str | None = None,
                 idle_transaction_seconds: float = IDLE_TRANSACTION_SECONDS) -> None:
        self.url = url
        self.engine = make_engine(url, search_path=search_path,
                                  idle_transaction_seconds=idle_transaction_seconds)
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        # Shares the pool; on SQLite its transactions start with BEGIN IMMEDIATE.
        self._write_engine = self.engine.execution_options(**{_BEGIN_OPTION: "IMMEDIATE"})

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Database:
        """The database of a site's settings (PBEM_DATABASE_URL and its neighbours)."""
        return cls(str(config["DATABASE_URL"]), search_path=config.get("DATABASE_SEARCH_PATH"),
                   idle_transaction_seconds=float(config.get("DATABASE_IDLE_TRANSACTION_SECONDS",
                                                             IDLE_TRANSACTION_SECONDS)))

    def session(self) -> Session:
        """A session for reading (it may write too, but without the early SQLite lock)."""
        return Session(self.engine, expire_on_commit=False)

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A write transaction: commits when the block ends, rolls back if it raises."""
        session = Session(self._write_engine, expire_on_commit=False)
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def dispose(self) -> None:
        self.engine.dispose()
