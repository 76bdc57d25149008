"""With PBEM_REDIS_URL set and Redis gone, organisers' logins are still limited (in the database)
and never answer 500; /healthz and /metrics show Redis. Real parts: the Redis at 127.0.0.1:6379
(its own database number and a fresh site's key prefix), a Redis server of this test's own that
it stops and starts again, and a loopback port nothing listens on.
"""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem.db import Database
from pbem.ratelimit import RateLimitCounter, RedisOrDatabaseStorage
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD, MAIL_FROM, SECRET, csrf_of, free_port

SHARED_REDIS = "redis://127.0.0.1:6379/7"  # a database number no other test uses
LIMIT = 5


def redis_answers(url: str) -> bool:
    try:
        import redis

        return bool(redis.Redis.from_url(url, socket_timeout=2).ping())
    except Exception:  # any failure: no Redis here, the test is skipped (never faked)
        return False


def login_app(database: Database, redis_url: str, base_url: str) -> Flask:
    from pbem import create_app
    from pbem.admin.accounts import create_admin

    with database.write() as session:
        create_admin(session, datetime.now(UTC), ADMIN_EMAIL, ADMIN_PASSWORD)
    return create_app({
        "ENV": "test", "TESTING": True, "SECRET_KEY": SECRET, "BASE_URL": base_url,
        "DATABASE": database, "DATABASE_URL": database.url, "METRICS": True,
        "SMTP_HOST": "127.0.0.1", "SMTP_PORT": free_port(), "MAIL_FROM": MAIL_FROM,
        "REDIS_URL": redis_url,
    }, read_env=False)


def wrong_logins(client: FlaskClient, count: int) -> list[int]:
    answers = []
    for _ in range(count):
        token = csrf_of(client.get("/admin/login").text)
        answers.append(client.post("/admin/login", data={
            "csrf_token": token, "email": ADMIN_EMAIL, "password": "a wrong password"}
        ).status_code)
    return answers


def counters(database: Database) -> int:
    with database.session() as session:
        return len(session.exec(select(RateLimitCounter)).all())


def test_logins_are_limited_in_the_database_while_redis_is_down(
    database: Database, closed_port: int, caplog: pytest.LogCaptureFixture,
) -> None:
    redis_url = f"redis://:redis-pa55@127.0.0.1:{closed_port}/0"
    app = login_app(database, redis_url, "http://redis-down.example.test")
    client: Any = app.test_client()
    caplog.set_level(logging.INFO, logger="pbem")
    assert wrong_logins(client, LIMIT + 2) == [401] * LIMIT + [429, 429]
    assert counters(database) > 0  # counted where every worker counts too
    warnings = [r for r in caplog.records if "Redis" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert f"127.0.0.1:{closed_port}/0" in warnings[0].getMessage()
    assert "redis-pa55" not in caplog.text

    response = client.get("/healthz")
    assert response.status_code == 503
    redis = response.json["checks"]["redis"]
    assert redis["ok"] is False and redis["fallback"] == "database"
    assert redis["address"] == f"127.0.0.1:{closed_port}/0"
    assert "Connection refused" in redis["error"] and "redis-pa55" not in response.text
    metrics = client.get("/metrics").text
    assert re.search(r"^pbem_redis_up 0\.0$", metrics, re.MULTILINE), metrics


def test_a_live_redis_counts_the_logins_and_shows_in_healthz(sqlite_database: Database) -> None:
    if not redis_answers(SHARED_REDIS):
        pytest.skip(f"Redis does not answer at {SHARED_REDIS}")
    # A fresh site: its own key prefix in Redis, so counts of other runs do not meet it.
    base_url = f"http://r-{uuid.uuid4().hex}.example.test"
    app = login_app(sqlite_database, SHARED_REDIS, base_url)
    client: Any = app.test_client()
    try:
        assert wrong_logins(client, LIMIT + 1) == [401] * LIMIT + [429]
        assert counters(sqlite_database) == 0  # all in Redis
        response = client.get("/healthz")
        assert response.json["checks"]["redis"] == {"ok": True, "address": "127.0.0.1:6379/7"}
        metrics = client.get("/metrics").text
        assert re.search(r"^pbem_redis_up 1\.0$", metrics, re.MULTILINE), metrics
    finally:  # this site's keys only (pbem.admin.limits names them by the site)
        import redis

        shared = redis.Redis.from_url(SHARED_REDIS)
        prefix = "pbem:" + hashlib.sha256(base_url.encode()).hexdigest()[:12]
        for key in shared.scan_iter(match=f"*{prefix}*"):
            shared.delete(key)


def test_no_redis_setting_no_redis_check(client: Any) -> None:
    assert "redis" not in client.get("/healthz").json["checks"]


# -- Redis stops, then comes back --------------------------------------------------------------


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    """(the URL of a Redis server of this test's own, a function that stops or starts it)."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed")
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    process: list[subprocess.Popen[bytes]] = []

    def running(up: bool) -> None:
        if not up:
            process[-1].terminate()
            process[-1].wait(timeout=10)
            return
        process.append(subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
             "no", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 10
        while not redis_answers(url):
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)  # a real redis-server is starting: no clock of ours to move

    running(True)
    yield url, running
    if process[-1].poll() is None:
        running(False)


def test_the_storage_falls_back_while_redis_is_down_and_returns_after(
    database: Database, own_redis: tuple[str, Any], caplog: pytest.LogCaptureFixture,
) -> None:
    url, running = own_redis
    # retry_after=0: Redis is tried again at every count, so no test waits for the retry.
    storage = RedisOrDatabaseStorage(redis_url=url, database=database, retry_after=0)
    caplog.set_level(logging.INFO, logger="pbem")
    assert [storage.incr("k", 60) for _ in range(2)] == [1, 2]
    assert counters(database) == 0 and not caplog.records
    running(False)
    assert [storage.incr("k", 60) for _ in range(3)] == [1, 2, 3]  # the database's own count
    assert storage.get("k") == 3 and counters(database) == 1
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    running(True)  # empty: it keeps nothing on disk
    assert storage.incr("k", 60) == 1 and storage.get("k") == 1
    assert [r.levelno for r in caplog.records] == [logging.WARNING, logging.INFO]
    assert "answers again" in caplog.records[-1].getMessage()
    storage.clear("k")  # a success clears both: no count comes back at the next outage
    running(False)
    assert storage.get("k") == 0
