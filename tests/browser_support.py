"""What the browser tests share: Debian's Chromium driven by Playwright (never a downloaded
browser), one per test process; the app served in a thread on a free loopback port with a migrated
SQLite file; mail over SMTP to the development catcher (/dev/mail); axe-core, with JavaScript on
and off; and screenshots.

Every flow runs both ways (issue 34): a context with JavaScript and one without walk the same
steps in the same test, on the same server. The costly parts are paid once per process: Chromium's
launch, the migration chain (a template file, copied), and axe-core's 570 kB script (loaded once
into a page of its own, into which each checked page's DOM is copied).
"""

from __future__ import annotations

import atexit
import hashlib
import re
import shutil
import sqlite3
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Playwright, sync_playwright
from sqlmodel import Session

from pbem import create_app
from pbem.db import Database
from pbem.mail.outbox import SmtpSettings, deliver_pending
from pbem.migrate import upgrade
from tests.support import free_port

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[1] / "artifacts" / "screenshots"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
MAIL_FROM = "pbem <pbem@localhost>"

needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(),
                                    reason="Debian's chromium is not installed at "
                                           "/usr/bin/chromium (make test installs it)")


def axe_script() -> Path:
    """axe-core's script, from the axe-playwright-python package."""
    return Path(str(__import__("axe_playwright_python").__file__)).with_name("axe.min.js")


# Ways to walk a flow: JavaScript on (static/board.js where a page loads it), and off.
WAYS = {True: "with JavaScript", False: "without JavaScript"}


def migrated(database_file: Path) -> str:
    """The URL of a SQLite file at ``database_file`` with the whole migration chain applied.

    The chain runs once per test process, into a template (it takes about a second); each
    server's file is a copy of it, made by SQLite's own backup.
    """
    if not _TEMPLATE:
        folder = Path(tempfile.mkdtemp(prefix="pbem-browser-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        upgrade(f"sqlite:///{folder / 'template.db'}")
        _TEMPLATE.append(folder / "template.db")
    with closing(sqlite3.connect(_TEMPLATE[0])) as template, \
            closing(sqlite3.connect(database_file)) as copy:
        template.backup(copy)
    return f"sqlite:///{database_file}"


_TEMPLATE: list[Path] = []


@dataclass
class Server:
    base: str
    database: Database
    smtp: SmtpSettings
    app: Flask

    def deliver(self) -> None:
        """One pass over the outbox into the mail catcher (pbem dev runs this every 2 s)."""
        deliver_pending(self.database, self.smtp, datetime.now(UTC))

    def forget_limits(self) -> None:
        """As if an hour had passed for the rate limits: every test's browser comes from
        127.0.0.1, and a server shared by several tests would soon refuse it more mail."""
        self.app.extensions["pbem.limiter"].reset()


@contextmanager
def serving(database: Database, url: str, secret: str, smtp_port: int) -> Iterator[Flask]:
    """The app on ``database`` (at ``url``), served in a thread; its BASE_URL is where."""
    from werkzeug.serving import make_server

    web_port = free_port()
    base = f"http://127.0.0.1:{web_port}"
    app = create_app({"ENV": "development", "SECRET_KEY": secret, "BASE_URL": base,
                      "DATABASE": database, "DATABASE_URL": url, "SMTP_HOST": "127.0.0.1",
                      "SMTP_PORT": smtp_port, "SMTP_TLS": "none", "MAIL_FROM": MAIL_FROM},
                     read_env=False)
    http = make_server("127.0.0.1", web_port, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        yield app
    finally:
        http.shutdown()


@contextmanager
def serving_with_mail(database_file: Path, secret: str,
                      seed: Callable[[Session], None]) -> Iterator[Server]:
    """A migrated SQLite file (the real migration chain) that ``seed`` fills first, the app on
    it, and the development mail catcher."""
    from pbem.mail.catcher import database_store, start_catcher

    url = migrated(database_file)
    database = Database(url)
    with database.write() as session:
        seed(session)
    smtp_port = free_port()
    catcher = start_catcher(database_store(database), host="127.0.0.1", port=smtp_port)
    try:
        with serving(database, url, secret, smtp_port) as app:
            yield Server(app.config["BASE_URL"], database,
                         SmtpSettings(host="127.0.0.1", port=smtp_port, mail_from=MAIL_FROM,
                                      timeout=10), app)
    finally:
        catcher.stop()
        database.dispose()


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium, launched by Playwright once per test process and shared by every
    module's tests (each has contexts of its own): a launch costs a second or more. It closes
    when the process ends."""
    if not _LAUNCHED:
        playwright = sync_playwright().start()
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        _LAUNCHED.append((playwright, browser))
        atexit.register(_close, playwright, browser)
    yield _LAUNCHED[0][1]


_LAUNCHED: list[tuple[Playwright, Any]] = []


def _close(playwright: Playwright, browser: Any) -> None:
    browser.close()
    playwright.stop()


def new_page(browser: Any, width: int = 1200, *, script: bool = True,
             timeout: int = 10_000, cookies_of: Any = None) -> Any:
    """A page in a context of its own (its own cookies: its own session), with JavaScript or
    without; with ``cookies_of`` (a page), it starts with a copy of that page's cookies (signed
    in as it is, in its language). The pages' own policy (script-src 'self') holds: axe-core
    runs elsewhere.

    A page costs Chromium a renderer process (a third of a second on a busy machine): one that
    a test has put back (put_back) is taken again, its cookies cleared.
    """
    cookies = cookies_of.context.cookies() if cookies_of is not None else []
    spare = _SPARE.get((browser, script))
    if spare:
        page = spare.pop()
        page.context.clear_cookies()
        page.set_viewport_size({"width": width, "height": 900})
    else:
        context = browser.new_context(viewport={"width": width, "height": 900},
                                      java_script_enabled=script)
        if not script:
            _WITHOUT_SCRIPT.add(context)
        page = context.new_page()
    page.context.set_default_timeout(timeout)
    if cookies:
        page.context.add_cookies(cookies)
    return page


def put_back(page: Any) -> None:
    """A test is done with ``page`` (from new_page): it waits, on a blank document and without
    the routes the test set, for the next new_page."""
    page.unroute_all(behavior="ignoreErrors")
    page.goto("about:blank")
    _SPARE.setdefault((page.context.browser, has_script(page)), []).append(page)


_SPARE: dict[tuple[Any, bool], list[Any]] = {}
_WITHOUT_SCRIPT: weakref.WeakSet[Any] = weakref.WeakSet()


def has_script(page: Any) -> bool:
    """Whether ``page`` runs JavaScript (its context was made by new_page(script=True))."""
    return page.context not in _WITHOUT_SCRIPT


def open_mail_to(page: Any, server: Server, address: str, link_text: str) -> None:
    """In the mail catcher, open the newest message to ``address`` with a link ``link_text``.

    Every email of a game has the same subject (mail clients thread them), so this opens them
    newest first as a reader would, until one has the link.
    """
    page.goto(f"{server.base}/dev/mail")
    count = page.locator("tr", has_text=address).count()
    for index in range(count):
        if index:
            page.goto(f"{server.base}/dev/mail")
        page.locator("tr", has_text=address).nth(index).get_by_role("link").click()
        page.wait_for_url(re.compile(r"/dev/mail/\d+$"))
        if page.frame_locator("iframe").get_by_role("link", name=link_text).count():
            return
    raise AssertionError(f"no email to {address} with a link {link_text!r}")


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's accessibility rules on the page as it is: the violations.

    axe-core runs in a page of its own, on the same origin and at the same width, into which
    the page's DOM as it is now is copied (static/board.js held back, so that what it did is
    not done twice). That page keeps axe-core loaded from one check to the next, and it runs
    JavaScript: in a page without, axe-core's timers would never fire. What it finds is a
    function of the DOM, the width and the styles alone, so a DOM already checked at that
    width is not checked again: the same page with JavaScript and without, where no script
    changed it, is one check (the sessions' CSRF tokens aside, hidden fields axe-core skips).
    """
    html = page.content()
    origin = "/".join(page.url.split("/", 3)[:3])
    size = page.viewport_size
    key = (origin, size["width"], size["height"],
           hashlib.sha256(_CSRF_FIELD.sub(_no_value, html).encode()).hexdigest())
    if key not in _CHECKED:
        checker = _checker(page.context.browser)
        if not checker.url.startswith(origin + "/"):  # where the page's own styles load from
            checker.goto(f"{origin}/axe-core")
        if checker.viewport_size != size:
            checker.set_viewport_size(size)
        checker.set_content(html)
        if not checker.evaluate("() => typeof axe === 'object'"):
            checker.add_script_tag(path=str(axe_script()))
        _CHECKED[key] = checker.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return list(_CHECKED[key])


_CHECKED: dict[tuple[str, int, int, str], list[dict[str, Any]]] = {}
_CSRF_FIELD = re.compile(r'<input[^>]*\bname="csrf_token"[^>]*>')


def _no_value(field: re.Match[str]) -> str:
    return re.sub(r'\bvalue="[^"]*"', 'value=""', field[0])


def _checker(browser: Any) -> Any:
    if browser not in _CHECKERS:
        context = browser.new_context(java_script_enabled=True)
        context.set_default_timeout(15_000)
        context.route("**/static/board.js", lambda route: route.abort())
        context.route("**/axe-core", lambda route: route.fulfill(
            content_type="text/html", body="<!DOCTYPE html><title>axe-core</title>"))
        _CHECKERS[browser] = context.new_page()
    return _CHECKERS[browser]


_CHECKERS: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def screenshot(page: Any, name: str) -> None:
    """For people to look at (artifacts/ is not committed); of the pages with JavaScript only,
    which look as the pages without do, or have more (the flip button)."""
    if not has_script(page):
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
