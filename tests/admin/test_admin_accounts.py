"""Organisers' accounts: passwords, the create-admin command, logging in and out, rate limits."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import inspect
from sqlmodel import select

from pbem import create_app
from pbem.admin.accounts import AccountError, authenticate, create_admin
from pbem.admin.passwords import check_password, hash_password
from pbem.cli import main
from pbem.db import Database
from pbem.models import AdminUser
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD, csrf_of

EMAIL, PASSWORD = ADMIN_EMAIL, ADMIN_PASSWORD
PRODUCTION_SECRET = "a production secret long enough for the checks"


def _login(client: FlaskClient, email: str = EMAIL, password: str = PASSWORD,
           **extra: str) -> Any:
    token = csrf_of(client.get("/admin/login").text)
    return client.post("/admin/login", data={"csrf_token": token, "email": email,
                                             "password": password, **extra})


@pytest.fixture
def admin(sqlite_database: Database, now: datetime) -> AdminUser:
    with sqlite_database.write() as session:
        return create_admin(session, now, EMAIL, PASSWORD)


def test_passwords_are_salted_scrypt_hashes() -> None:
    first, second = hash_password("same password"), hash_password("same password")
    assert first.startswith("scrypt$") and second.startswith("scrypt$")
    assert first != second  # a salt per hash: equal passwords do not look equal
    assert "same password" not in first
    assert check_password("same password", first)
    assert not check_password("same passwore", first)
    assert not check_password("same password", "md5$garbage")


def test_accounts_need_an_address_and_a_long_password(database: Database, now: datetime) -> None:
    with database.write() as session, pytest.raises(AccountError, match="email"):
        create_admin(session, now, "nobody", PASSWORD)
    with database.write() as session, pytest.raises(ValueError, match="at least"):
        create_admin(session, now, EMAIL, "short")
    with database.write() as session:
        create_admin(session, now, " Boss@Example.TEST ", PASSWORD)
    with database.write() as session:
        user = authenticate(session, now, EMAIL, PASSWORD)
        assert user is not None and user.email == EMAIL and user.last_login_at == now
        assert authenticate(session, now, EMAIL, "wrong password!") is None
        assert authenticate(session, now, "other@example.test", PASSWORD) is None


def test_every_dashboard_page_needs_a_login(client: FlaskClient) -> None:
    for path in ("/admin/", "/admin/games/new", "/admin/games/1", "/admin/games/1/extend",
                 "/admin/players", "/admin/mail", "/admin/mail/1", "/admin/audit"):
        response = client.get(path)
        assert response.status_code == 302, path
        assert response.headers["Location"].startswith("/admin/login?next=")
    # A POST without this session's CSRF token is refused before anything else is looked at.
    assert client.post("/admin/games/1/abort", data={"reason": "x"}).status_code == 400


def test_log_in_and_out(client: FlaskClient, admin: AdminUser) -> None:
    wrong = _login(client, password="not the password")
    assert wrong.status_code == 401
    assert "do not match" in wrong.text and EMAIL in wrong.text  # what was typed is kept
    assert client.get("/admin/").status_code == 302
    right = _login(client, next="/admin/players")
    assert right.status_code == 302 and right.headers["Location"] == "/admin/players"
    page = client.get("/admin/")
    assert page.status_code == 200 and f"Log out {EMAIL}" in page.text
    # Logging out is a POST with the CSRF token; a GET or a forged POST does nothing.
    assert client.get("/admin/logout").status_code == 405
    assert client.post("/admin/logout", data={"csrf_token": "forged"}).status_code == 400
    assert client.get("/admin/").status_code == 200
    out = client.post("/admin/logout", data={"csrf_token": csrf_of(page.text)})
    assert out.status_code == 302
    assert client.get("/admin/").status_code == 302


def test_login_never_redirects_to_another_site(client: FlaskClient, admin: AdminUser) -> None:
    for target in ("https://evil.example/", "//evil.example/x", "javascript:alert(1)"):
        client.post("/admin/logout")  # a fresh start each time
        with client.session_transaction() as session:
            session.clear()
        response = _login(client, next=target)
        assert response.headers["Location"] == "/admin/", target


def test_login_without_csrf_token_is_refused(client: FlaskClient, admin: AdminUser) -> None:
    client.get("/admin/login")
    response = client.post("/admin/login", data={"email": EMAIL, "password": PASSWORD})
    assert response.status_code == 400
    assert client.get("/admin/").status_code == 302


def test_guessing_is_rate_limited(client: FlaskClient, admin: AdminUser) -> None:
    for _ in range(5):
        assert _login(client, password="a wrong guess!").status_code == 401
    blocked = _login(client)  # even the right password waits now
    assert blocked.status_code == 429 and "Too many failed logins" in blocked.text
    assert client.get("/admin/").status_code == 302


def test_session_cookie_flags(sqlite_database: Database, admin: AdminUser) -> None:
    app = create_app({"ENV": "production", "SECRET_KEY": PRODUCTION_SECRET,
                      "BASE_URL": "https://pbem.example", "DATABASE": sqlite_database,
                      "DATABASE_URL": sqlite_database.url}, read_env=False)
    client = app.test_client()
    page = client.get("/admin/login", base_url="https://pbem.example")
    cookie = page.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_development_cookies_work_over_http(app: Flask) -> None:
    assert app.config["SESSION_COOKIE_SECURE"] is False
    assert app.config["SESSION_COOKIE_HTTPONLY"] is True


def test_create_admin_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    env = {"PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": "cli-secret"}
    runner = CliRunner()
    assert runner.invoke(main, ["db", "upgrade"], env=env).exit_code == 0
    asked = runner.invoke(main, ["create-admin", "ann@example.test"], env=env,
                          input=f"{PASSWORD}\n{PASSWORD}\n")
    assert asked.exit_code == 0, asked.output
    generated = runner.invoke(main, ["create-admin", "bob@example.test", "--generate"], env=env)
    assert generated.exit_code == 0, generated.output
    password = re.search(r"password: (\S+)", generated.output)
    assert password
    weak = runner.invoke(main, ["create-admin", "eve@example.test", "--password", "123"], env=env)
    assert weak.exit_code != 0 and "at least" in weak.output
    database = Database(url)
    with database.write() as session:
        assert authenticate(session, datetime.now(UTC), "ann@example.test", PASSWORD)
        assert authenticate(session, datetime.now(UTC), "bob@example.test", password[1])
        assert session.exec(select(AdminUser).where(
            AdminUser.email == "eve@example.test")).first() is None
    database.dispose()


def test_migrations_chain_to_the_accounts_tables(tmp_path: Path) -> None:
    from pbem.migrate import downgrade, upgrade

    url = f"sqlite:///{tmp_path / 'm.db'}"
    upgrade(url)
    database = Database(url)
    tables = set(inspect(database.engine).get_table_names())
    assert {"admin_users", "seat_replacements", "games"} <= tables
    with database.session() as session:
        assert session.exec(select(AdminUser)).all() == []
    database.dispose()
    downgrade(url, "0002")
    database = Database(url)
    assert "admin_users" not in inspect(database.engine).get_table_names()
    database.dispose()


def test_pbem_dev_gets_a_working_development_login(tmp_path: Path) -> None:
    from pbem.admin.cli import DEV_ADMIN_EMAIL, ensure_dev_admin

    database = Database(f"sqlite:///{tmp_path / 'dev.db'}")
    from sqlmodel import SQLModel

    SQLModel.metadata.create_all(database.engine)
    email, first = ensure_dev_admin(database)
    email_again, second = ensure_dev_admin(database)  # a restart prints a login that works
    assert email == email_again == DEV_ADMIN_EMAIL and first != second
    with database.write() as session:
        assert authenticate(session, datetime.now(UTC), email, first) is None
        assert authenticate(session, datetime.now(UTC), email, second) is not None
    database.dispose()


def test_behind_a_trusted_proxy_the_limit_is_per_client(sqlite_database: Database,
                                                         admin: AdminUser) -> None:
    app = create_app({"ENV": "development", "TESTING": True, "SECRET_KEY": "s",
                      "DATABASE": sqlite_database, "DATABASE_URL": sqlite_database.url,
                      "TRUSTED_PROXIES": 1}, read_env=False)

    def attempt(client: FlaskClient, ip: str, email: str, password: str) -> int:
        headers = {"X-Forwarded-For": ip}
        token = csrf_of(client.get("/admin/login", headers=headers).text)
        return client.post("/admin/login", headers=headers, data={
            "csrf_token": token, "email": email, "password": password}).status_code

    guesser = app.test_client()
    for n in range(5):
        assert attempt(guesser, "203.0.113.9", f"guess{n}@example.test", "wrong password") == 401
    assert attempt(guesser, "203.0.113.9", EMAIL, PASSWORD) == 429
    # The organiser at another address is not locked out by someone else's guessing.
    assert attempt(app.test_client(), "198.51.100.7", EMAIL, PASSWORD) == 302
