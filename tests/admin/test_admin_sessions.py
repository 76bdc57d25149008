"""Organisers' sessions end for real: logging out, a new password or "sign out everywhere" make
every copy of an older session cookie useless; sessions stay with the client they were made for;
a login goes on only to a path of this site (issue 13)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from pbem.admin.accounts import create_admin
from pbem.db import Database
from pbem.models import AdminUser
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD, csrf_of

NEW_PASSWORD = "another long password"
HERE = {"REMOTE_ADDR": "198.51.100.7"}
ELSEWHERE = {"REMOTE_ADDR": "203.0.113.9"}


@pytest.fixture
def admin(sqlite_database: Database, now: datetime) -> AdminUser:
    with sqlite_database.write() as session:
        return create_admin(session, now, ADMIN_EMAIL, ADMIN_PASSWORD)


def _login(client: FlaskClient, password: str = ADMIN_PASSWORD, **extra: str) -> Any:
    token = csrf_of(client.get("/admin/login").text)
    return client.post("/admin/login", data={"csrf_token": token, "email": ADMIN_EMAIL,
                                             "password": password, **extra})


def _logged_in(app: Flask) -> FlaskClient:
    client = app.test_client()
    assert _login(client).status_code == 302
    return client


def _copy(app: Flask, client: FlaskClient) -> FlaskClient:
    """Another browser holding a copy of ``client``'s session cookie."""
    cookie = client.get_cookie("session")
    assert cookie is not None
    thief = app.test_client()
    thief.set_cookie("session", cookie.value)
    return thief


def _post_form(client: FlaskClient, page: str, url: str, **fields: str) -> Any:
    token = csrf_of(client.get(page).text)
    return client.post(url, data={"csrf_token": token, **fields})


def _opens_dashboard(client: FlaskClient) -> bool:
    return client.get("/admin/").status_code == 200


def test_a_copied_cookie_works_only_while_its_session_does(app: Flask, admin: AdminUser) -> None:
    organiser = _logged_in(app)
    copy = _copy(app, organiser)
    assert _opens_dashboard(copy)  # the copy is as good as the original until the session ends
    assert _post_form(organiser, "/admin/", "/admin/logout").status_code == 302
    assert not _opens_dashboard(copy)
    assert not _opens_dashboard(organiser)


def test_a_new_password_ends_every_other_session(app: Flask, admin: AdminUser) -> None:
    organiser = _logged_in(app)
    copy = _copy(app, organiser)
    changed = _post_form(organiser, "/admin/account", "/admin/account/password",
                         current=ADMIN_PASSWORD, new=NEW_PASSWORD, repeat=NEW_PASSWORD)
    assert changed.status_code == 303
    assert _opens_dashboard(organiser)  # who changed it stays in
    assert not _opens_dashboard(copy)
    assert _login(app.test_client()).status_code == 401
    assert _login(app.test_client(), NEW_PASSWORD).status_code == 302


def test_a_new_password_from_the_command_line_ends_sessions(
    app: Flask, admin: AdminUser, sqlite_database: Database, now: datetime,
) -> None:
    organiser = _logged_in(app)
    with sqlite_database.write() as session:
        create_admin(session, now, ADMIN_EMAIL, NEW_PASSWORD)
    assert not _opens_dashboard(organiser)


def test_sign_out_everywhere_from_another_session(app: Flask, admin: AdminUser) -> None:
    laptop, phone = _logged_in(app), _logged_in(app)
    stolen = _copy(app, laptop)
    done = _post_form(phone, "/admin/account", "/admin/account/sign-out-everywhere")
    assert done.status_code == 303
    assert "Every other session is signed out" in phone.get(done.headers["Location"]).text
    assert not _opens_dashboard(laptop) and not _opens_dashboard(stolen)
    assert _opens_dashboard(phone)


def test_the_password_form_says_what_is_wrong(app: Flask, admin: AdminUser) -> None:
    organiser = _logged_in(app)
    for fields, problem in (
        ({"current": "not it at all", "new": NEW_PASSWORD, "repeat": NEW_PASSWORD},
         "not your current password"),
        ({"current": ADMIN_PASSWORD, "new": "short", "repeat": "short"}, "at least 10"),
        ({"current": ADMIN_PASSWORD, "new": NEW_PASSWORD, "repeat": NEW_PASSWORD + "!"},
         "the two new passwords differ"),
    ):
        answer = _post_form(organiser, "/admin/account", "/admin/account/password", **fields)
        assert answer.status_code == 422 and problem in answer.text, problem
    assert _login(app.test_client()).status_code == 302  # the password is unchanged


@pytest.mark.parametrize("target", [
    "/admin/players\r\nSet-Cookie: x=1", "/admin/\nx", "//evil.example", "https://evil.example",
    "/\\evil.example", "\\\\evil.example", "javascript:alert(1)", "/admin/\x00",
])
def test_login_goes_on_only_to_a_path_of_this_site(app: Flask, admin: AdminUser,
                                                   target: str) -> None:
    answer = _login(app.test_client(), next=target)
    assert answer.status_code == 302 and answer.headers["Location"] == "/admin/"


def test_login_goes_on_to_the_page_asked_for(app: Flask, admin: AdminUser) -> None:
    client = app.test_client()
    asked = client.get("/admin/players?q=ann")
    assert asked.status_code == 302
    page = client.get(asked.headers["Location"]).text
    assert 'name="next" value="/admin/players?q=ann"' in page
    answer = _login(client, next="/admin/players?q=ann")
    assert answer.headers["Location"] == "/admin/players?q=ann"


def test_a_forged_forwarded_for_is_not_trusted(app: Flask, admin: AdminUser) -> None:
    """Without trusted proxies X-Forwarded-For is the client's own text: it neither carries a
    copied cookie to another client nor moves the organiser's own session."""
    organiser = app.test_client()
    organiser.environ_base.update(HERE)
    assert _login(organiser).status_code == 302
    assert organiser.get("/admin/", headers={"X-Forwarded-For": "192.0.2.1"}).status_code == 200
    thief = _copy(app, organiser)
    thief.environ_base.update(ELSEWHERE)
    assert thief.get("/admin/", headers={"X-Forwarded-For": HERE["REMOTE_ADDR"]}
                     ).status_code == 302
    assert _opens_dashboard(organiser)


def test_a_forged_forwarded_for_does_not_escape_the_address_limit(app: Flask,
                                                                  admin: AdminUser) -> None:
    guesser = app.test_client()
    for n in range(5):
        token = csrf_of(guesser.get("/admin/login").text)
        assert guesser.post("/admin/login", headers={"X-Forwarded-For": f"192.0.2.{n}"}, data={
            "csrf_token": token, "email": f"guess{n}@example.test", "password": "wrong guess"}
        ).status_code == 401
    token = csrf_of(guesser.get("/admin/login").text)
    assert guesser.post("/admin/login", headers={"X-Forwarded-For": "192.0.2.99"}, data={
        "csrf_token": token, "email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}).status_code == 429


def test_guessing_the_current_password_is_limited_too(app: Flask, admin: AdminUser) -> None:
    organiser = _logged_in(app)
    for _ in range(5):
        assert _post_form(organiser, "/admin/account", "/admin/account/password",
                          current="a wrong guess", new=NEW_PASSWORD, repeat=NEW_PASSWORD
                          ).status_code == 422
    blocked = _post_form(organiser, "/admin/account", "/admin/account/password",
                         current=ADMIN_PASSWORD, new=NEW_PASSWORD, repeat=NEW_PASSWORD)
    assert blocked.status_code == 429 and "Too many" in blocked.text
    assert _login(app.test_client(), NEW_PASSWORD).status_code == 401  # nothing changed
