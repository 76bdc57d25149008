"""Nobody can lock an organiser out (issue 31): a stranger's wrong passwords, from any address,
do not stop the organiser's own browser (a signed device cookie from an earlier login), while a
guesser without that cookie still meets the account's limit; only failures count against a
client's address. Real parts: the test client on SQLite, the counters in the database on both
backends, Redis when it answers, and gunicorn workers where requests race."""

from __future__ import annotations

import base64
import http.cookiejar
import json
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from datetime import datetime
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from itsdangerous import URLSafeTimedSerializer
from limits.storage import MemoryStorage

from pbem.admin.accounts import create_admin
from pbem.admin.devices import COOKIE
from pbem.db import Database
from pbem.models import AdminUser
from pbem.ratelimit import DatabaseStorage, RedisOrDatabaseStorage, take_back
from tests.admin.test_admin_limits import (  # noqa: F401  (migrated_sqlite is a fixture)
    ATTEMPTS,
    LIMIT,
    REDIS_URL,
    _NoRedirect,
    migrated_sqlite,
    redis_answers,
    storm,
)
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD, csrf_of, start_gunicorn

OTHER_EMAIL, OTHER_PASSWORD = "other@example.test", "another long password"
HOME = "198.51.100.7"  # the organiser's own address


def browser(app: Flask, address: str = HOME) -> FlaskClient:
    client = app.test_client()
    client.environ_base.update({"REMOTE_ADDR": address})
    return client


def login(client: FlaskClient, password: str = ADMIN_PASSWORD, email: str = ADMIN_EMAIL) -> int:
    token = csrf_of(client.get("/admin/login").text)
    return client.post("/admin/login", data={"csrf_token": token, "email": email,
                                             "password": password}).status_code


def log_out(client: FlaskClient) -> None:
    token = csrf_of(client.get("/admin/").text)
    assert client.post("/admin/logout", data={"csrf_token": token}).status_code == 302


def known_browser(app: Flask, address: str = HOME) -> FlaskClient:
    """The organiser's browser: it logged in once (and logged out again)."""
    client = browser(app, address)
    assert login(client) == 302
    assert client.get_cookie(COOKIE, path="/admin") is not None
    log_out(client)
    return client


def lock_out(app: Flask, email: str = ADMIN_EMAIL) -> None:
    """A stranger's wrong passwords, each from another address, until the account is locked."""
    for n in range(LIMIT):
        assert login(browser(app, f"203.0.113.{n + 1}"), "a wrong guess!", email) == 401
    assert login(browser(app, "203.0.113.99"), "a wrong guess!", email) == 429


def test_a_strangers_guesses_do_not_lock_out_a_browser_that_signed_in_before(
        app: Flask, admin: AdminUser) -> None:
    organiser = known_browser(app)
    lock_out(app)
    # Anyone else, the right password included, still waits: the guesser is stopped.
    assert login(browser(app, "192.0.2.50"), ADMIN_PASSWORD) == 429
    # The organiser's own browser gets in, from home or from anywhere else.
    assert login(organiser) == 302 and organiser.get("/admin/").status_code == 200
    log_out(organiser)
    organiser.environ_base.update({"REMOTE_ADDR": "192.0.2.77"})
    assert login(organiser) == 302


def test_a_known_browser_has_a_limit_of_its_own(app: Flask, admin: AdminUser) -> None:
    """A stolen device cookie is no licence to guess: its own wrong passwords are limited."""
    organiser = known_browser(app)
    for _ in range(LIMIT):
        assert login(organiser, "a wrong guess!") == 401
    assert login(organiser) == 429
    # ... and it used up nobody else's allowance: a new browser still gets its tries.
    assert login(browser(app, "192.0.2.8")) == 302


def test_successes_from_one_address_do_not_count(app: Flask, admin: AdminUser) -> None:
    """An office behind one address: many people log in, each in a browser new to the site."""
    for _ in range(LIMIT + 3):
        assert login(browser(app, "192.0.2.1")) == 302
    # Failures from there still count: the address may not spray guesses.
    for n in range(LIMIT):
        assert login(browser(app, "192.0.2.1"), "a wrong guess!", f"g{n}@example.test") == 401
    assert login(browser(app, "192.0.2.1")) == 429


def test_only_its_own_device_cookie_helps(app: Flask, admin: AdminUser,
                                          sqlite_database: Database, now: datetime) -> None:
    with sqlite_database.write() as session:
        other = create_admin(session, now, OTHER_EMAIL, OTHER_PASSWORD)
    # A browser that signed in to the *other* account before.
    elsewhere = browser(app, "192.0.2.20")
    assert login(elsewhere, OTHER_PASSWORD, OTHER_EMAIL) == 302
    log_out(elsewhere)
    organiser = known_browser(app)
    real = organiser.get_cookie(COOKIE, path="/admin")
    assert real is not None
    data = URLSafeTimedSerializer(app.secret_key or "", salt="pbem-organiser-device").loads(
        real.value)
    lock_out(app)
    payload, stamp, signature = real.value.rsplit(".", 2)
    renamed = base64.urlsafe_b64encode(json.dumps(
        {**data, "a": other.id}, separators=(",", ":")).encode()).rstrip(b"=").decode()
    theirs = elsewhere.get_cookie(COOKIE, path="/admin")
    assert theirs is not None
    forged = {
        "made up": "not-a-cookie",
        "signature changed": f"{payload}.{stamp}.{'A' if signature[0] != 'A' else 'B'}"
                             f"{signature[1:]}",
        "another secret": URLSafeTimedSerializer("another secret", salt="pbem-organiser-device"
                                                 ).dumps(data),
        "account renamed in it": f"{renamed}.{stamp}.{signature}",
        "another account's": theirs.value,
    }
    for name, value in forged.items():
        thief = browser(app, "192.0.2.30")
        thief.set_cookie(COOKIE, value, path="/admin")
        assert login(thief) == 429, name
    assert login(organiser) == 302  # the real one still works


def test_sign_out_everywhere_and_a_new_password_forget_remembered_browsers(
        app: Flask, admin: AdminUser) -> None:
    laptop, phone = known_browser(app), known_browser(app, "192.0.2.3")
    stolen = browser(app, "192.0.2.4")
    copied = laptop.get_cookie(COOKIE, path="/admin")
    assert copied is not None
    stolen.set_cookie(COOKIE, copied.value, path="/admin")
    # From the phone: sign out everywhere else. The phone stays known; the laptop and the copy
    # of its cookie are strangers now.
    assert login(phone) == 302
    token = csrf_of(phone.get("/admin/account").text)
    assert phone.post("/admin/account/sign-out-everywhere",
                      data={"csrf_token": token}).status_code == 303
    log_out(phone)
    lock_out(app)
    assert login(stolen) == 429 and login(laptop) == 429
    assert login(phone) == 302


def test_a_new_password_forgets_them_too(app: Flask, admin: AdminUser) -> None:
    laptop, phone = known_browser(app), known_browser(app, "192.0.2.3")
    new = "a brand new long password"
    assert login(phone) == 302
    token = csrf_of(phone.get("/admin/account").text)
    assert phone.post("/admin/account/password", data={
        "csrf_token": token, "current": ADMIN_PASSWORD, "new": new, "repeat": new}
    ).status_code == 303
    log_out(phone)
    lock_out(app)
    assert login(laptop, new) == 429
    assert login(phone, new) == 302


def test_the_device_cookie_is_long_lived_and_kept_from_scripts(app: Flask, admin: AdminUser
                                                               ) -> None:
    client = browser(app)
    token = csrf_of(client.get("/admin/login").text)
    answer = client.post("/admin/login", data={"csrf_token": token, "email": ADMIN_EMAIL,
                                               "password": ADMIN_PASSWORD})
    cookie = next(c for c in answer.headers.getlist("Set-Cookie") if c.startswith(COOKIE))
    assert "HttpOnly" in cookie and "Path=/admin" in cookie and "SameSite=Lax" in cookie
    assert "Max-Age=31536000" in cookie
    assert ADMIN_EMAIL not in cookie  # it names the account by number only


# -- taking back a success's hit, in every storage ------------------------------------------------


def _storages(database: Database, closed_port: int) -> dict[str, Any]:
    found: dict[str, Any] = {
        "memory": MemoryStorage(),
        "database": DatabaseStorage(database=database),
        "redis down": RedisOrDatabaseStorage(redis_url=f"redis://127.0.0.1:{closed_port}/0",
                                             database=database),
    }
    if redis_answers():
        found["redis"] = RedisOrDatabaseStorage(redis_url=REDIS_URL, database=database)
    return found


def test_a_hit_is_taken_back_never_below_zero(database: Database, closed_port: int) -> None:
    for name, storage in _storages(database, closed_port).items():
        key = f"take-back-{uuid.uuid4().hex}"
        assert [storage.incr(key, 60) for _ in range(3)] == [1, 2, 3], name
        take_back(storage, key)
        assert storage.get(key) == 2, name
        for _ in range(4):
            take_back(storage, key)
        assert storage.get(key) == 0, name
        assert storage.incr(key, 60) == 1, name
        take_back(storage, f"never-counted-{uuid.uuid4().hex}")  # nothing to take back: fine


# -- several gunicorn workers ---------------------------------------------------------------------


class Browser:
    """A real browser of sorts: its own cookies (the device cookie too) and client address."""

    def __init__(self, base: str, address: str) -> None:
        self.base, self.address = base, address
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar),
                                                  _NoRedirect())

    def open(self, path: str, data: dict[str, str] | None = None) -> tuple[int, str]:
        request = urllib.request.Request(
            self.base + path, headers={"X-Forwarded-For": self.address},
            data=urllib.parse.urlencode(data).encode() if data is not None else None)
        try:
            with self.opener.open(request, timeout=60) as answer:
                return int(answer.status), answer.read().decode()
        except urllib.error.HTTPError as error:
            return int(error.code), error.read().decode()

    def login(self, password: str = ADMIN_PASSWORD) -> int:
        token = csrf_of(self.open("/admin/login")[1])
        return self.open("/admin/login", {"csrf_token": token, "email": ADMIN_EMAIL,
                                          "password": password})[0]

    def logout(self) -> None:
        token = csrf_of(self.open("/admin/")[1])
        assert self.open("/admin/logout", {"csrf_token": token})[0] == 302

    def device_cookie(self) -> str:
        return next(c.value for c in self.jar if c.name == COOKIE and c.value)


@pytest.mark.parametrize("storage", ["database", "redis"])
def test_across_workers_the_owner_gets_past_a_storm(
        migrated_sqlite: str, storage: str) -> None:  # noqa: F811  (the fixture, imported)
    env = {"PBEM_TRUSTED_PROXIES": "1"}
    if storage == "redis":
        if not redis_answers():
            pytest.skip(f"Redis does not answer at {REDIS_URL}")
        env |= {"PBEM_REDIS_URL": REDIS_URL,
                "PBEM_BASE_URL": f"http://devices-{uuid.uuid4().hex}.example.test"}
    server = start_gunicorn(migrated_sqlite, workers=3, env=env)
    try:
        organiser = Browser(server.url, HOME)
        assert organiser.login() == 302
        organiser.logout()
        answers = storm(server.url)  # 24 wrong passwords at once, from 24 addresses
        assert answers[401] <= LIMIT and answers[401] + answers[429] == ATTEMPTS, answers
        assert Browser(server.url, "198.51.100.1").login() == 429  # a guesser stays stopped
        assert organiser.login() == 302  # the owner does not
        # A stolen copy of the device cookie, used by many at once, checks no more than the
        # limit of passwords: the device's count is as atomic as the account's.
        stolen = organiser.device_cookie()
        statuses: Counter[int] = Counter()
        lock = threading.Lock()

        def guess(n: int) -> None:
            thief = Browser(server.url, f"192.0.2.{n + 1}")
            thief.jar.set_cookie(_cookie(server.url, stolen))
            status = thief.login("a wrong password")
            with lock:
                statuses[status] += 1

        threads = [threading.Thread(target=guess, args=(n,)) for n in range(ATTEMPTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert statuses[401] <= LIMIT and statuses[401] + statuses[429] == ATTEMPTS, statuses
    finally:
        server.stop()


def _cookie(base: str, value: str) -> http.cookiejar.Cookie:
    host = urllib.parse.urlsplit(base).hostname or "127.0.0.1"
    return http.cookiejar.Cookie(
        0, COOKIE, value, None, False, host, False, False, "/admin", True, False, None, False,
        None, None, {})

