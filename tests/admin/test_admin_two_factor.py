"""Two-factor sign-in for organisers (issue 31): set up from the account page with an
authenticator app's code, a code after the password at every login, no code used twice,
recovery codes that work once, wrong codes limited like passwords, switched off only with the
password, and reset by the operator from the command line. Real parts: the test client on
SQLite, the service on both backends, the ``pbem`` command, and gunicorn workers where requests
race."""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pyotp
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from pbem.admin import two_factor
from pbem.admin.accounts import authenticate, create_admin
from pbem.admin.pending_code import PENDING
from pbem.db import Database
from pbem.models import AdminUser
from pbem.models.organisers import OrganiserRecoveryCode
from tests.admin.test_admin_devices import Browser, browser
from tests.admin.test_admin_limits import LIMIT, migrated_sqlite  # noqa: F401  (a fixture)
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD, Cli, csrf_of, start_gunicorn


def login(client: FlaskClient, password: str = ADMIN_PASSWORD) -> Any:
    token = csrf_of(client.get("/admin/login?next=/admin/players").text)
    return client.post("/admin/login", data={"csrf_token": token, "email": ADMIN_EMAIL,
                                             "password": password, "next": "/admin/players"})


def send_code(client: FlaskClient, page: str, code: str) -> Any:
    """The code form of ``page`` (the code page the password step answered with)."""
    return client.post("/admin/login/code", data={"csrf_token": csrf_of(page), "code": code})


def post(client: FlaskClient, url: str, **fields: str) -> Any:
    token = csrf_of(client.get("/admin/account").text)
    return client.post(url, data={"csrf_token": token, **fields})


def log_out(client: FlaskClient) -> None:
    token = csrf_of(client.get("/admin/").text)
    assert client.post("/admin/logout", data={"csrf_token": token}).status_code == 302


def in_dashboard(client: FlaskClient) -> bool:
    return client.get("/admin/").status_code == 200


@dataclass
class Organiser:
    browser: FlaskClient  # signed in before: it has a device cookie
    phone: pyotp.TOTP  # the authenticator app
    recovery: list[str]
    setup_code: str  # the code that switched two-factor sign-in on


def set_up(app: Flask) -> Organiser:
    """Through the account page, as the organiser would."""
    client = browser(app)
    assert login(client).status_code == 302
    page = post(client, "/admin/account/two-factor/set-up")
    assert page.status_code == 200
    secret = re.search(r'<code id="secret">([A-Z2-7 ]+)</code>', page.text)
    assert secret and 'src="data:image/svg+xml' in page.text  # the QR code, inline
    app_on_phone = pyotp.TOTP(secret[1].replace(" ", ""))
    setup_code = app_on_phone.now()
    done = client.post("/admin/account/two-factor/confirm", data={
        "csrf_token": csrf_of(page.text), "code": setup_code})
    assert done.status_code == 200 and "Two-factor sign-in is on" in done.text
    codes = re.findall(r"<li><code>([a-z2-7-]+)</code></li>", done.text)
    assert len(codes) == 10 and len(set(codes)) == 10
    log_out(client)
    return Organiser(client, app_on_phone, codes, setup_code)


def future_code(app_on_phone: pyotp.TOTP, steps: int = 1) -> str:
    """The code the app shows ``steps`` periods from now (accepted: a phone's clock may be a
    little ahead), so a test needs no waiting for a fresh code."""
    return app_on_phone.at(datetime.now(UTC) + timedelta(seconds=30 * steps))


def test_set_up_then_every_login_asks_for_a_code(app: Flask, admin: AdminUser,
                                                 sqlite_database: Database) -> None:
    organiser = set_up(app)
    app_on_phone = organiser.phone
    client = browser(app, "192.0.2.9")
    asked = login(client)
    assert asked.status_code == 200 and 'name="code"' in asked.text
    assert not in_dashboard(client)  # the password alone is not enough
    wrong = send_code(client, asked.text, "000000" if app_on_phone.now() != "000000" else "1")
    assert wrong.status_code == 401 and not in_dashboard(client)
    done = send_code(client, wrong.text, future_code(app_on_phone))
    assert done.status_code == 302 and done.headers["Location"] == "/admin/players"
    page = client.get("/admin/account").text
    assert "On since" in page and "10 recovery codes left" in page
    # Nothing secret in the stored rows: the recovery codes only as hashes.
    with sqlite_database.session() as session:
        stored = [row.code_hash for row in session.exec(select(OrganiserRecoveryCode)).all()]
    assert len(stored) == 10 and not set(stored) & set(organiser.recovery)


def test_a_code_is_never_accepted_twice(app: Flask, admin: AdminUser) -> None:
    organiser = set_up(app)
    app_on_phone = organiser.phone
    # The code that switched it on cannot log in as well.
    client = browser(app)
    refused = send_code(client, login(client).text, organiser.setup_code)
    assert refused.status_code == 401 and "used already" in refused.text
    code = future_code(app_on_phone)
    assert send_code(client, refused.text, code).status_code == 302
    # Someone who saw it over a shoulder, with the password, a moment later: refused.
    onlooker = browser(app, "192.0.2.66")
    again = send_code(onlooker, login(onlooker).text, code)
    assert again.status_code == 401 and not in_dashboard(onlooker)
    # So is an older code that is still within the clock's leeway.
    older = send_code(onlooker, again.text, app_on_phone.now())
    assert older.status_code == 401
    assert send_code(onlooker, older.text, future_code(app_on_phone, 2)).status_code == 401
    # (two steps ahead is beyond the leeway of one step)


def test_a_recovery_code_works_once(app: Flask, admin: AdminUser) -> None:
    codes = set_up(app).recovery
    client = browser(app)
    typed = codes[3].upper().replace("-", " ")  # however it is typed
    assert send_code(client, login(client).text, typed).status_code == 302
    log_out(client)
    again = send_code(client, login(client).text, codes[3])
    assert again.status_code == 401 and not in_dashboard(client)
    assert send_code(client, again.text, codes[4]).status_code == 302
    assert "8 recovery codes left" in client.get("/admin/account").text


def test_wrong_codes_are_limited_but_the_owners_browser_goes_on(app: Flask,
                                                                admin: AdminUser) -> None:
    """Someone who has the password guesses codes: five wrong ones, then a wait, even for the
    right code; the organiser's own browser (it signed in before) is not kept out by it."""
    organiser = set_up(app)
    app_on_phone = organiser.phone
    thief = browser(app, "203.0.113.5")
    page = login(thief).text
    for n in range(LIMIT):
        answer = send_code(thief, page, f"{n:06d}" if f"{n:06d}" != app_on_phone.now() else "9")
        assert answer.status_code == 401
        page = answer.text
    blocked = send_code(thief, page, future_code(app_on_phone))
    assert blocked.status_code == 429 and "Too many wrong codes" in blocked.text
    assert not in_dashboard(thief)
    another = browser(app, "203.0.113.6")  # another address, another session: same account
    assert send_code(another, login(another).text, future_code(app_on_phone)).status_code == 429
    assert send_code(organiser.browser, login(organiser.browser).text,
                     future_code(app_on_phone)).status_code == 302


def test_a_known_browser_is_still_asked_for_the_code(app: Flask, admin: AdminUser) -> None:
    """The device cookie is no second factor: it only keeps strangers' guesses off the owner."""
    known = set_up(app).browser
    asked = login(known)
    assert asked.status_code == 200 and 'name="code"' in asked.text
    assert not in_dashboard(known)


def test_the_code_step_needs_its_form_token_and_its_own_session(app: Flask,
                                                                admin: AdminUser) -> None:
    app_on_phone = set_up(app).phone
    client = browser(app)
    page = login(client).text
    refused = client.post("/admin/login/code", data={"code": future_code(app_on_phone)})
    assert refused.status_code == 400 and not in_dashboard(client)
    # Without the password step first (a fresh browser), a code alone logs nobody in.
    stranger = browser(app, "192.0.2.70")
    token = csrf_of(stranger.get("/admin/login").text)
    sent = stranger.post("/admin/login/code", data={"csrf_token": token,
                                                    "code": future_code(app_on_phone)})
    assert sent.status_code == 303 and not in_dashboard(stranger)
    # A copy of the half-way session cookie at another client is no good either.
    copy = browser(app, "192.0.2.71")
    cookie = client.get_cookie("session")
    assert cookie is not None
    copy.set_cookie("session", cookie.value)
    assert send_code(copy, page, future_code(app_on_phone)).status_code == 303
    assert not in_dashboard(copy)
    # Five minutes later the code is not taken: log in again.
    with client.session_transaction() as session:
        session[PENDING] = {**session[PENDING], "until": time.time() - 1}
    late = send_code(client, page, future_code(app_on_phone))
    assert late.status_code == 303 and late.headers["Location"] == "/admin/login"
    assert not in_dashboard(client)


def test_switching_off_needs_the_password(app: Flask, admin: AdminUser) -> None:
    app_on_phone = set_up(app).phone
    client = browser(app)
    assert send_code(client, login(client).text, future_code(app_on_phone)).status_code == 302
    wrong = post(client, "/admin/account/two-factor/off", password="not my password")
    assert wrong.status_code == 422 and "not your current password" in wrong.text
    assert "Switch off two-factor sign-in" in wrong.text  # still on
    off = post(client, "/admin/account/two-factor/off", password=ADMIN_PASSWORD)
    assert off.status_code == 303
    log_out(client)
    assert login(client).status_code == 302  # the password alone again


def test_guessing_the_password_to_switch_it_off_is_limited(app: Flask, admin: AdminUser) -> None:
    app_on_phone = set_up(app).phone
    client = browser(app)
    assert send_code(client, login(client).text, future_code(app_on_phone)).status_code == 302
    for _ in range(LIMIT):
        assert post(client, "/admin/account/two-factor/off",
                    password="a wrong guess").status_code == 422
    blocked = post(client, "/admin/account/two-factor/off", password=ADMIN_PASSWORD)
    assert blocked.status_code == 429 and "Too many tries" in blocked.text
    assert "Switch off two-factor sign-in" in client.get("/admin/account").text  # still on


def test_sign_out_everywhere_ends_a_half_finished_login(app: Flask, admin: AdminUser) -> None:
    organiser = set_up(app)
    thief = browser(app, "203.0.113.5")
    page = login(thief).text  # the password is known to someone else
    known = organiser.browser
    assert send_code(known, login(known).text, future_code(organiser.phone)).status_code == 302
    assert post(known, "/admin/account/sign-out-everywhere").status_code == 303
    # Even a good (unused) recovery code no longer finishes that login.
    assert send_code(thief, page, organiser.recovery[0]).status_code == 303
    assert not in_dashboard(thief)


# -- the service, on both backends ----------------------------------------------------------------


def test_codes_and_recovery_codes_are_claimed_once_under_concurrency(database: Database,
                                                                     now: datetime) -> None:
    with database.write() as session:
        user = create_admin(session, now, ADMIN_EMAIL, ADMIN_PASSWORD)
        assert user.id is not None
        user_id = user.id
        secret = two_factor.start_set_up(session, user_id)
    assert secret is not None
    totp = pyotp.TOTP(secret)
    with database.write() as session:
        assert two_factor.switch_on(session, user_id, "000000" if totp.at(now) != "000000"
                                    else "111111", now) is None
        codes = two_factor.switch_on(session, user_id, totp.at(now), now)
    assert codes is not None and len(codes) == 10
    later = now + timedelta(seconds=30)

    def race(code: str) -> list[bool]:
        answers: list[bool] = []
        start = threading.Barrier(4)

        def one() -> None:
            start.wait()
            with database.write() as session:
                answers.append(two_factor.check_code(session, user_id, code, later))

        threads = [threading.Thread(target=one) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return answers

    assert sorted(race(totp.at(later))) == [False, False, False, True]
    assert sorted(race(codes[0])) == [False, False, False, True]
    with database.session() as session:
        assert two_factor.recovery_codes_left(session, user_id) == 9
        assert not two_factor.check_code(session, user_id, totp.at(now), later)  # older step


def test_the_operator_resets_two_factor(cli: Cli) -> None:
    assert cli("create-admin", ADMIN_EMAIL, "--password", ADMIN_PASSWORD).exit_code == 0
    now = datetime.now(UTC)
    with cli.database.write() as session:
        user = session.exec(select(AdminUser)).one()
        assert user.id is not None
        secret = two_factor.start_set_up(session, user.id)
        assert secret is not None
        assert two_factor.switch_on(session, user.id, pyotp.TOTP(secret).at(now), now)
        version = user.session_version
    reset = cli("create-admin", ADMIN_EMAIL.upper(), "--reset-two-factor")
    assert reset.exit_code == 0, reset.output
    assert "two-factor sign-in of boss@example.test is off" in reset.output
    with cli.database.write() as session:
        user = session.exec(select(AdminUser)).one()
        assert user.id is not None
        assert not two_factor.is_on(session, user.id)
        assert two_factor.recovery_codes_left(session, user.id) == 0
        assert user.session_version == version + 1  # every session of theirs ended
        assert authenticate(session, now, ADMIN_EMAIL, ADMIN_PASSWORD)  # password unchanged
    unknown = cli("create-admin", "nobody@example.test", "--reset-two-factor")
    assert unknown.exit_code == 1
    assert unknown.output.strip() == "Error: there is no organiser 'nobody@example.test'"


# -- several gunicorn workers ---------------------------------------------------------------------


def test_one_code_logs_in_one_browser_across_workers(migrated_sqlite: str  # noqa: F811
                                                     ) -> None:
    database = Database(migrated_sqlite)
    now = datetime.now(UTC)
    with database.write() as session:
        user = session.exec(select(AdminUser)).one()
        assert user.id is not None
        secret = two_factor.start_set_up(session, user.id)
        assert secret is not None
        assert two_factor.switch_on(session, user.id, pyotp.TOTP(secret).at(now), now)
    database.dispose()
    server = start_gunicorn(migrated_sqlite, workers=3, env={"PBEM_TRUSTED_PROXIES": "1"})
    try:
        browsers = [Browser(server.url, f"192.0.2.{n + 1}") for n in range(4)]
        pages = []
        for one in browsers:
            token = csrf_of(one.open("/admin/login")[1])
            status, page = one.open("/admin/login", {"csrf_token": token, "email": ADMIN_EMAIL,
                                                     "password": ADMIN_PASSWORD})
            assert status == 200 and 'name="code"' in page
            pages.append(page)
        code = pyotp.TOTP(secret).at(datetime.now(UTC) + timedelta(seconds=30))
        answers: Counter[int] = Counter()
        lock = threading.Lock()
        start = threading.Barrier(len(browsers))

        def send(one: Browser, page: str) -> None:
            start.wait()
            status = one.open("/admin/login/code", {"csrf_token": csrf_of(page), "code": code})[0]
            with lock:
                answers[status] += 1

        threads = [threading.Thread(target=send, args=pair) for pair in zip(browsers, pages,
                                                                               strict=True)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert answers == Counter({302: 1, 401: 3}), answers
    finally:
        server.stop()

