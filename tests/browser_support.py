"""What the browser tests share: Debian's Chromium driven by Playwright (never a downloaded
browser), the app served in a thread on a free loopback port with a migrated SQLite file, mail
over SMTP to the development catcher (/dev/mail), axe-core and screenshots.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
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


@dataclass
class Server:
    base: str
    database: Database
    smtp: SmtpSettings

    def deliver(self) -> None:
        """One pass over the outbox into the mail catcher (pbem dev runs this every 2 s)."""
        deliver_pending(self.database, self.smtp, datetime.now(UTC))


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

    url = f"sqlite:///{database_file}"
    upgrade(url)
    database = Database(url)
    with database.write() as session:
        seed(session)
    smtp_port = free_port()
    catcher = start_catcher(database_store(database), host="127.0.0.1", port=smtp_port)
    try:
        with serving(database, url, secret, smtp_port) as app:
            yield Server(app.config["BASE_URL"], database,
                         SmtpSettings(host="127.0.0.1", port=smtp_port, mail_from=MAIL_FROM,
                                      timeout=10))
    finally:
        catcher.stop()
        database.dispose()


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium, launched by Playwright."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser: Any, width: int = 1200, *, timeout: int = 10_000,
             bypass_csp: bool = True) -> Any:
    """A page in a context of its own (its own cookies: its own session).

    bypass_csp: the pages send script-src 'self'; axe-core is injected by the test only.
    """
    context = browser.new_context(viewport={"width": width, "height": 900},
                                  bypass_csp=bypass_csp)
    context.set_default_timeout(timeout)
    return context.new_page()


def open_mail_to(page: Any, server: Server, address: str, link_text: str) -> None:
    """In the mail catcher, open the newest message to ``address`` with a link ``link_text``.

    Every email of a game has the same subject (mail clients thread them), so this opens them
    newest first as a reader would, until one has the link.
    """
    import re

    page.goto(f"{server.base}/dev/mail")
    count = page.locator("tr", has_text=address).count()
    for index in range(count):
        page.goto(f"{server.base}/dev/mail")
        page.locator("tr", has_text=address).nth(index).get_by_role("link").click()
        page.wait_for_url(re.compile(r"/dev/mail/\d+$"))
        if page.frame_locator("iframe").get_by_role("link", name=link_text).count():
            return
    raise AssertionError(f"no email to {address} with a link {link_text!r}")


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's accessibility rules on the page as it is: the violations."""
    page.add_script_tag(path=str(axe_script()))
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return list(result["violations"])


def screenshot(page: Any, name: str) -> None:
    """For people to look at (artifacts/ is not committed)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
