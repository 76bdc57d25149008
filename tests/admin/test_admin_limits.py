"""Login rate limits hold across processes: the counters are shared (the database, or Redis when
PBEM_REDIS_URL is set) and each attempt is counted before its password is checked (issue 13)."""

from __future__ import annotations

import http.cookiejar
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pbem.admin.accounts import create_admin
from pbem.db import Database
from pbem.ratelimit import DatabaseStorage
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD, csrf_of, free_port, start_gunicorn

REDIS_URL = "redis://127.0.0.1:6379/0"
ATTEMPTS = 24
LIMIT = 5


def redis_answers() -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping())
    except Exception:  # any failure: no Redis here, the test is skipped (never faked)
        return False


def test_the_database_storage_counts_atomically(database: Database) -> None:
    storage = DatabaseStorage(database=database)
    counts: list[int] = []
    start = threading.Barrier(ATTEMPTS)

    def hit() -> None:
        start.wait()
        counts.append(storage.incr("k", 60))

    threads = [threading.Thread(target=hit) for _ in range(ATTEMPTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(counts) == list(range(1, ATTEMPTS + 1))  # no two hits saw the same count
    assert storage.get("k") == ATTEMPTS and storage.get_expiry("k") > time.time()
    storage.clear("k")
    assert storage.get("k") == 0 and storage.check()


def test_a_window_ends(database: Database) -> None:
    moment = [time.time()]
    storage = DatabaseStorage(database=database, clock=lambda: moment[0])
    assert [storage.incr("w", 1) for _ in range(3)] == [1, 2, 3]
    moment[0] += 1.1
    assert storage.get("w") == 0 and storage.incr("w", 1) == 1


# -- several gunicorn workers, as in production ----------------------------------------------


def _attempt(base: str, password: str, client_ip: str) -> int:
    """One browser: open the login page (its own cookie session and CSRF token), then log in.
    The status: 302 in, 401 a checked wrong password, 429 refused unchecked."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
        _NoRedirect())
    headers = {"X-Forwarded-For": client_ip}
    page = opener.open(urllib.request.Request(f"{base}/admin/login", headers=headers), timeout=60)
    body = urllib.parse.urlencode({"csrf_token": csrf_of(page.read().decode()),
                                   "email": ADMIN_EMAIL, "password": password}).encode()
    try:
        with opener.open(urllib.request.Request(f"{base}/admin/login", data=body,
                                                headers=headers), timeout=60) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def storm(base: str, attempts: int = ATTEMPTS) -> Counter[int]:
    """``attempts`` wrong passwords for one account at once, each from its own client address
    (so only the account's limit can stop them)."""
    answers: Counter[int] = Counter()
    lock = threading.Lock()

    def one(n: int) -> None:
        status = _attempt(base, "a wrong password", f"192.0.2.{n + 1}")
        with lock:
            answers[status] += 1

    threads = [threading.Thread(target=one, args=(n,)) for n in range(attempts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


@pytest.fixture
def migrated_sqlite(tmp_path: Path) -> Iterator[str]:
    from pbem.migrate import upgrade

    url = f"sqlite:///{tmp_path / 'pbem.db'}"
    upgrade(url)
    database = Database(url)
    with database.write() as session:
        create_admin(session, datetime.now(UTC), ADMIN_EMAIL, ADMIN_PASSWORD)
    database.dispose()
    yield url


@pytest.mark.parametrize("storage", ["database", "redis", "redis down"])
def test_concurrent_guesses_across_workers(migrated_sqlite: str, storage: str) -> None:
    env = {"PBEM_TRUSTED_PROXIES": "1"}
    if storage == "redis":
        if not redis_answers():
            pytest.skip(f"Redis does not answer at {REDIS_URL}")
        # Counters are kept per site (BASE_URL): a fresh site, fresh counters.
        env |= {"PBEM_REDIS_URL": REDIS_URL,
                "PBEM_BASE_URL": f"http://limits-{uuid.uuid4().hex}.example.test"}
    if storage == "redis down":
        # Set, but nothing listens: every worker counts in the database instead, never a 500.
        env |= {"PBEM_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"}
    server = start_gunicorn(migrated_sqlite, workers=3, env=env)
    try:
        answers = storm(server.url)
        print(f"\n{storage}: {ATTEMPTS} concurrent wrong passwords -> {dict(answers)}")
        assert answers[401] <= LIMIT, answers  # passwords actually checked
        assert answers[401] + answers[429] == ATTEMPTS, answers
        # The right password from yet another address waits too: the account is locked.
        assert _attempt(server.url, ADMIN_PASSWORD, "198.51.100.1") == 429
        if storage == "redis down":
            health = _healthz(server.url)
            assert health["checks"]["redis"]["ok"] is False, health
            assert health["checks"]["redis"]["fallback"] == "database"
    finally:
        server.stop()


def _healthz(base: str) -> Any:
    import json

    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=60) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:  # 503: what is wrong is in the body all the same
        return json.load(error)


@pytest.mark.early
def test_limits_survive_a_restart(migrated_sqlite: str) -> None:
    """The database keeps the count: restarting the web server forgets nothing."""
    # The same site (BASE_URL, which names its counters) on another port after the restart.
    env = {"PBEM_TRUSTED_PROXIES": "1", "PBEM_BASE_URL": "http://restart.example.test"}
    server = start_gunicorn(migrated_sqlite, workers=2, env=env)
    try:
        assert storm(server.url, LIMIT)[401] == LIMIT
    finally:
        server.stop()
    server = start_gunicorn(migrated_sqlite, workers=2, env=env)
    try:
        assert _attempt(server.url, ADMIN_PASSWORD, "198.51.100.1") == 429
    finally:
        server.stop()
