"""Rate-limit counters every web process shares: a ``limits`` storage over a database table.

Flask-Limiter (``pbem.admin.limits``) keeps its counters in Redis when ``PBEM_REDIS_URL`` is set;
otherwise in the ``rate_limits`` table of pbem's own database, which every gunicorn worker and
every machine of a deployment already share and which survives restarts. Each hit is one write
transaction that counts and answers the new count (``INSERT ... ON CONFLICT DO UPDATE ...
RETURNING``, under SQLite's ``BEGIN IMMEDIATE``), so concurrent requests can never all see the
old count. Fixed windows: a key's count starts at its first hit and is forgotten ``expiry``
seconds later.

>>> from sqlmodel import SQLModel
>>> database = Database("sqlite://")
>>> SQLModel.metadata.create_all(database.engine)
>>> storage = DatabaseStorage("pbem-db://", database=database)
>>> [storage.incr("k", 60) for _ in range(3)], storage.get("k"), storage.get("other")
([1, 2, 3], 3, 0)
"""

from __future__ import annotations

import time
from typing import Any

from limits.storage import Storage
from sqlalchemy import case, delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Field, SQLModel, select

from pbem.db import Database

MAX_KEY = 200  # keys are made of hashes and addresses; anything longer is not one of ours


class RateLimitCounter(SQLModel, table=True):
    """One rate-limit key's count in its current window (see :class:`DatabaseStorage`)."""

    __tablename__ = "rate_limits"

    key: str = Field(primary_key=True, max_length=MAX_KEY)
    count: int = 0
    expires_at: float = Field(index=True)  # seconds since the epoch: when the window ends


class DatabaseStorage(Storage):
    """A ``limits`` storage (``pbem-db://``) on a :class:`pbem.db.Database`, given as the
    ``database`` option."""

    STORAGE_SCHEME = ["pbem-db"]  # noqa: RUF012  (limits registers storages by this list)

    def __init__(self, uri: str = "pbem-db://", wrap_exceptions: bool = False,
                 database: Database | None = None, **options: Any) -> None:
        if database is None:
            raise ValueError("the pbem-db rate-limit storage needs the database option")
        self.database = database
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return SQLAlchemyError

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = time.time()
        table = RateLimitCounter.__table__  # type: ignore[attr-defined]
        dialect = postgresql if not self.database.is_sqlite else sqlite
        fresh = table.c.expires_at <= now  # the stored window is over: start a new one
        insert = dialect.insert(table).values(key=key[:MAX_KEY], count=amount,
                                              expires_at=now + expiry)
        statement = insert.on_conflict_do_update(
            index_elements=[table.c.key],
            set_={"count": _case(fresh, amount, table.c.count + amount),
                  "expires_at": _case(fresh, now + expiry, table.c.expires_at)},
        ).returning(table.c.count)
        with self.database.write() as session:
            # Old windows go in the same transaction, so the table stays as small as the traffic.
            session.execute(delete(table).where(table.c.expires_at < now))
            return int(session.execute(statement).scalar_one())

    def _current(self, key: str) -> RateLimitCounter | None:
        with self.database.session() as session:
            row = session.exec(select(RateLimitCounter).where(
                RateLimitCounter.key == key[:MAX_KEY])).one_or_none()
        return row if row is not None and row.expires_at > time.time() else None

    def get(self, key: str) -> int:
        row = self._current(key)
        return row.count if row else 0

    def get_expiry(self, key: str) -> float:
        row = self._current(key)
        return row.expires_at if row else time.time()

    def check(self) -> bool:
        try:
            with self.database.session() as session:
                session.exec(select(RateLimitCounter.key).limit(1)).all()
        except SQLAlchemyError:
            return False
        return True

    def reset(self) -> int | None:
        table = RateLimitCounter.__table__  # type: ignore[attr-defined]
        with self.database.write() as session:
            return int(session.execute(delete(table)).rowcount)  # type: ignore[attr-defined]

    def clear(self, key: str) -> None:
        table = RateLimitCounter.__table__  # type: ignore[attr-defined]
        with self.database.write() as session:
            session.execute(delete(table).where(table.c.key == key[:MAX_KEY]))


def _case(condition: Any, then: Any, otherwise: Any) -> Any:
    return case((condition, then), else_=otherwise)
