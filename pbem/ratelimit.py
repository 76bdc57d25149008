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

With Redis, :class:`RedisOrDatabaseStorage` (``pbem-redis://``) counts in Redis and, while Redis
does not answer, in the database: logins go on being limited, never answer 500. Each worker
finds out for itself that Redis is gone (one log line each) and tries it again every
:data:`REDIS_RETRY_AFTER` seconds; since every worker then counts in the same table, the limits
hold across workers during the outage as they do in Redis. A count started in one storage does
not move to the other: around a switch an account may get up to twice its allowance once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import parse_qs, unquote, urlsplit

import redis
from limits.storage import MemoryStorage, RedisStorage, Storage
from redis.backoff import NoBackoff
from redis.retry import Retry
from sqlalchemy import case, delete, update
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Field, SQLModel, select

from pbem.db import Database, conflict_insert
from pbem.logs import mask_secrets

log = logging.getLogger(__name__)
MAX_KEY = 200  # keys are made of hashes and addresses; anything longer is not one of ours
REDIS_TIMEOUT = 1.0  # seconds: a login waits this long at most for a Redis that is gone
REDIS_RETRY_AFTER = 30.0  # seconds of counting in the database before Redis is tried again
T = TypeVar("T")


class RateLimitCounter(SQLModel, table=True):
    """One rate-limit key's count in its current window (see :class:`DatabaseStorage`)."""

    __tablename__ = "rate_limits"

    key: str = Field(primary_key=True, max_length=MAX_KEY)
    count: int = 0
    expires_at: float = Field(index=True)  # seconds since the epoch: when the window ends


class DatabaseStorage(Storage):
    """A ``limits`` storage (``pbem-db://``) on a :class:`pbem.db.Database`, given as the
    ``database`` option; ``clock`` (seconds since the epoch, ``time.time`` by default) lets
    tests move time on instead of waiting for it."""

    STORAGE_SCHEME = ["pbem-db"]  # noqa: RUF012  (limits registers storages by this list)

    def __init__(self, uri: str = "pbem-db://", wrap_exceptions: bool = False,
                 database: Database | None = None, clock: Callable[[], float] = time.time,
                 **options: Any) -> None:
        if database is None:
            raise ValueError("the pbem-db rate-limit storage needs the database option")
        self.database = database
        self.clock = clock
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return SQLAlchemyError

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = self.clock()
        table = RateLimitCounter.__table__  # type: ignore[attr-defined]
        fresh = table.c.expires_at <= now  # the stored window is over: start a new one
        with self.database.write() as session:
            # Old windows go in the same transaction, so the table stays as small as the traffic.
            session.execute(delete(table).where(table.c.expires_at < now))
            return int(session.execute(conflict_insert(session, table).values(
                key=key[:MAX_KEY], count=amount, expires_at=now + expiry,
            ).on_conflict_do_update(
                index_elements=[table.c.key],
                set_={"count": _case(fresh, amount, table.c.count + amount),
                      "expires_at": _case(fresh, now + expiry, table.c.expires_at)},
            ).returning(table.c.count)).scalar_one())

    def _current(self, key: str) -> RateLimitCounter | None:
        with self.database.session() as session:
            row = session.exec(select(RateLimitCounter).where(
                RateLimitCounter.key == key[:MAX_KEY])).one_or_none()
        return row if row is not None and row.expires_at > self.clock() else None

    def get(self, key: str) -> int:
        row = self._current(key)
        return row.count if row else 0

    def get_expiry(self, key: str) -> float:
        row = self._current(key)
        return row.expires_at if row else self.clock()

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

    def decr(self, key: str) -> None:
        """One hit of ``key``'s current window taken back (never below 0; nothing once the
        window is over): see :func:`take_back`."""
        table = RateLimitCounter.__table__  # type: ignore[attr-defined]
        with self.database.write() as session:
            session.execute(update(table).where(
                table.c.key == key[:MAX_KEY], table.c.count > 0,
                table.c.expires_at > self.clock()).values(count=table.c.count - 1))


def redis_address(url: str) -> str:
    """Where a Redis URL points, for logs and /healthz: never its user or password.

    >>> redis_address("redis://:s3cret@cache.internal:6380/2")
    'cache.internal:6380/2'
    >>> redis_address("redis://127.0.0.1")
    '127.0.0.1:6379/0'
    >>> redis_address("unix://:s3cret@/run/redis/redis.sock?db=1")
    '/run/redis/redis.sock?db=1'
    """
    try:
        parts = urlsplit(url)
        if parts.scheme == "unix":
            db = parse_qs(parts.query).get("db", [""])[-1]
            return parts.path + (f"?db={db}" if db else "")
        db = parts.path.strip("/") or parse_qs(parts.query).get("db", ["0"])[-1]
        return f"{parts.hostname}:{parts.port or 6379}/{db}"
    except ValueError:
        return "PBEM_REDIS_URL (not a redis:// URL)"


def _quick(url: str) -> Any:
    """A connection pool for ``url`` that gives up within :data:`REDIS_TIMEOUT`: redis-py would
    otherwise retry three times with growing pauses, keeping a login waiting for seconds."""
    return redis.ConnectionPool.from_url(url, socket_connect_timeout=REDIS_TIMEOUT,
                                         socket_timeout=REDIS_TIMEOUT,
                                         retry=Retry(NoBackoff(), 0))


def redis_client(url: str) -> Any:
    """A Redis client for ``url`` that answers or fails within :data:`REDIS_TIMEOUT`."""
    return redis.Redis(connection_pool=_quick(url))


def redis_error(error: BaseException, url: str) -> str:
    """One line about a Redis failure, without the URL's password."""
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    try:
        password = urlsplit(url).password or ""
    except ValueError:
        password = ""
    for secret in {password, unquote(password)} - {""}:
        text = text.replace(secret, "***")
    return mask_secrets(" ".join(text.split()))[:300]


def redis_status(client: Any, url: str) -> str | None:
    """None when Redis at ``url`` answers PING through ``client``, else what went wrong."""
    try:
        client.ping()
    except Exception as error:  # whatever redis-py raises, the answer is "unreachable"
        return redis_error(error, url)
    return None


class RedisOrDatabaseStorage(Storage):
    """A ``limits`` storage (``pbem-redis://``, options ``redis_url`` and ``database``): Redis,
    or the database (:class:`DatabaseStorage`) while Redis does not answer (module docstring)."""

    STORAGE_SCHEME = ["pbem-redis"]  # noqa: RUF012  (limits registers storages by this list)

    def __init__(self, uri: str = "pbem-redis://", wrap_exceptions: bool = False,
                 redis_url: str = "", database: Database | None = None,
                 retry_after: float = REDIS_RETRY_AFTER, **options: Any) -> None:
        if not redis_url:
            raise ValueError("the pbem-redis rate-limit storage needs the redis_url option")
        self.redis_url = redis_url
        self.redis = RedisStorage(redis_url, connection_pool=_quick(redis_url))
        self.database_storage = DatabaseStorage(database=database)
        self.retry_after = retry_after
        self.redis_down = False  # what this process last found
        self.retry_at = 0.0  # time.monotonic() from which Redis is tried again while down
        self.lock = threading.Lock()
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return SQLAlchemyError  # Redis's are handled here: only the database's can escape

    def _use(self, operation: Callable[[Storage], T]) -> T:
        with self.lock:
            wait = self.redis_down and time.monotonic() < self.retry_at
        if wait:
            return operation(self.database_storage)
        try:
            result = operation(self.redis)
        except self.redis.base_exceptions as error:
            with self.lock:
                first, self.redis_down = not self.redis_down, True
                self.retry_at = time.monotonic() + self.retry_after
            if first:
                log.warning("rate limits: Redis at %s does not answer (%s); counting in the "
                            "database until it does", redis_address(self.redis_url),
                            redis_error(error, self.redis_url))
            return operation(self.database_storage)
        with self.lock:
            recovered, self.redis_down = self.redis_down, False
        if recovered:
            log.info("rate limits: Redis at %s answers again; counting there",
                     redis_address(self.redis_url))
        return result

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        return self._use(lambda storage: storage.incr(key, expiry, amount))

    def get(self, key: str) -> int:
        return self._use(lambda storage: storage.get(key))

    def get_expiry(self, key: str) -> float:
        return self._use(lambda storage: storage.get_expiry(key))

    def check(self) -> bool:
        return self.redis.check() or self.database_storage.check()

    def reset(self) -> int | None:
        return self._use(lambda storage: storage.reset())

    def clear(self, key: str) -> None:
        # Both: a count left in the database would come back at the next outage.
        self.database_storage.clear(key)
        self._use(lambda storage: storage.clear(key))

    def decr(self, key: str) -> None:
        self._use(lambda storage: take_back(storage, key))


# Lua, so that reading and decrementing are one step: a DECR on a key whose window just ended
# would make a key of -1 that never expires.
_REDIS_DECR = ("local n = tonumber(redis.call('get', KEYS[1]) or '0') "
               "if n > 0 then return redis.call('decr', KEYS[1]) end return 0")


def take_back(storage: Storage, key: str) -> None:
    """Un-count one hit of ``key`` in its current window, in any storage pbem uses: a login that
    turned out to be right does not count against its client's address (pbem.admin.limits).
    Never below 0, and nothing when the window has ended meanwhile.

    >>> from limits.storage import MemoryStorage
    >>> memory = MemoryStorage()
    >>> memory.incr("k", 60), memory.incr("k", 60)
    (1, 2)
    >>> take_back(memory, "k"); take_back(memory, "k"); take_back(memory, "k")
    >>> memory.get("k")
    0
    """
    if isinstance(storage, DatabaseStorage | RedisOrDatabaseStorage):
        storage.decr(key)
    elif isinstance(storage, RedisStorage):
        connection: Any = storage.get_connection()
        connection.eval(_REDIS_DECR, 1, storage.prefixed_key(key))
    elif isinstance(storage, MemoryStorage):
        storage.decr(key)
    else:
        raise TypeError(f"pbem cannot take back a hit in a {type(storage).__name__}")


def _case(condition: Any, then: Any, otherwise: Any) -> Any:
    return case((condition, then), else_=otherwise)
