"""The dashboard in a real browser: Playwright drives Debian's Chromium against a real server.

The server runs in a thread on a free loopback port with a migrated SQLite file; mail goes over
SMTP to the real development catcher (aiosmtpd), which stores it in the database for /dev/mail.
Screenshots of the main pages go to artifacts/screenshots/ (not committed) for people to look at.
The flow runs with JavaScript and without (issue 34), each way on the same server, and axe-core
finds no violation on the pages it passes either way.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlmodel import Session, select

import engine
from pbem.admin.accounts import create_admin
from pbem.models import GameRecord
from tests.browser_support import (
    WAYS,
    Server,
    axe_violations,
    chromium,
    needs_chromium,
    new_page,
    open_mail_to,
    put_back,
    screenshot,
    serving_with_mail,
)
from tests.support import two_player_game

ADMIN = "organiser@example.test"
PASSWORD = "browser test password"

pytestmark = needs_chromium


def _an_organiser(session: Session) -> None:
    create_admin(session, datetime.now(UTC), ADMIN, PASSWORD)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("browser-dashboard")
    with serving_with_mail(folder / "browser.db", "browser-secret", _an_organiser) as served:
        yield served


@pytest.fixture(params=list(WAYS), ids=list(WAYS.values()))
def page(server: Server, request: pytest.FixtureRequest) -> Iterator[Any]:
    server.forget_limits()
    with chromium() as browser:
        opened = new_page(browser, script=request.param)
        yield opened
        put_back(opened)


def _axe_finds_nothing(page: Any, name: str) -> None:
    found = [f"{v['id']}: {node['target']}" for v in axe_violations(page) for node in v["nodes"]]
    assert not found, f"{name}: {found}"


def _click_link_in_mail(page: Any, text: str) -> None:
    """Follow a link in the HTML part, as a reader of the email would."""
    page.frame_locator("iframe").get_by_role("link", name=text).click()
    page.wait_for_url(re.compile(r"/(invite|play)/"))


@pytest.mark.early
def test_an_organiser_runs_a_game_in_the_browser(page: Any, server: Server) -> None:
    from playwright.sync_api import expect

    game_type = two_player_game()
    info = engine.GAMES[game_type]

    # Log in (the dashboard sends us to the login page first).
    page.goto(f"{server.base}/admin/")
    expect(page).to_have_url(re.compile(r"/admin/login"))
    # By keyboard only: the address field has the focus, Tab moves on, Enter sends.
    expect(page.get_by_label("Email address")).to_be_focused()
    page.keyboard.type(ADMIN)
    page.keyboard.press("Tab")
    page.keyboard.type(PASSWORD)
    screenshot(page, "01-login")
    _axe_finds_nothing(page, "the login page")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Games")).to_be_visible()
    page.keyboard.press("Tab")  # the first stop is the skip link, then the menu
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Games"

    # Create a game through the form, after one mistake that the form reports.
    page.get_by_role("link", name="Create a game").click()
    page.get_by_label(re.compile(rf"^{re.escape(info.name)}")).check()
    page.get_by_role("button", name=re.compile("Next")).click()
    page.get_by_label("Player 1: name").fill("Ann")
    page.get_by_label("Player 1: email").fill("ann@example.test")
    page.get_by_label("Player 2: name").fill("Bob")
    page.get_by_label("Player 2: email").fill("bob at example")
    page.get_by_label("Time control").fill("2d")
    page.get_by_role("button", name=re.compile("Create the game")).click()
    expect(page.get_by_text("The game was not created")).to_be_visible()
    expect(page.get_by_label("Player 1: name")).to_have_value("Ann")  # kept
    screenshot(page, "02-create-game-errors")
    _axe_finds_nothing(page, "the create form with errors")
    page.get_by_label("Player 2: email").fill("bob@example.test")
    page.get_by_role("button", name=re.compile("Create the game")).click()
    expect(page.locator(".flash")).to_contain_text("Game created")
    game_url = page.url
    game_pk = int(game_url.rsplit("/", 1)[1])

    # Both players accept from the invitation in the mail catcher.
    server.deliver()
    for address in ("ann@example.test", "bob@example.test"):
        open_mail_to(page, server, address, "Accept or decline")
        if address.startswith("ann"):
            screenshot(page, "03-mail-catcher-invitation")
        _click_link_in_mail(page, "Accept or decline")
        page.get_by_role("button", name="Accept").click()
        expect(page.get_by_role("heading", name="Invitation accepted")).to_be_visible()

    # The first player follows the move link and plays by clicking the board.
    with server.database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None and row.status == "active" and row.to_move is not None
        mover = row.to_move
    addresses = ["ann@example.test", "bob@example.test"]
    server.deliver()
    open_mail_to(page, server, addresses[mover], "Make your move")
    _click_link_in_mail(page, "Make your move")
    screenshot(page, "04-move-page")
    _axe_finds_nothing(page, "the move page")
    clicked: list[str] = []
    for _ in range(6):  # a move is one or a few clicks, depending on the game
        if "/confirm" in page.url:
            break
        # A cell already clicked is a link too (clicking it again takes the click back).
        labels = page.locator(".board svg a").evaluate_all(
            "links => links.map(a => a.getAttribute('aria-label'))")
        label = next(cell for cell in labels if cell not in clicked)
        clicked.append(label)
        page.locator(f'.board svg a[aria-label="{label}"]').click()
        page.wait_for_load_state()
    assert "/confirm" in page.url, "clicking cells never reached the confirm page"
    page.get_by_role("button", name=re.compile("^Play ")).click()
    page.wait_for_load_state()

    # The dashboard shows the move.
    page.goto(game_url)
    with server.database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None and row.ply == 1
    expect(page.locator("#moves li")).to_have_count(1)
    screenshot(page, "05-game-detail")
    _axe_finds_nothing(page, "the game page")

    # Extend the deadline, with its confirm page.
    before = page.locator("#deadline").inner_text()
    page.get_by_role("link", name="Extend deadline").click()
    page.get_by_label("Extra time").fill("1d")
    screenshot(page, "06-confirm-extend")
    page.get_by_role("button", name=re.compile("Confirm")).click()
    expect(page.locator(".flash")).to_contain_text("Deadline extended by 1d")
    assert page.locator("#deadline").inner_text() != before

    # Replace the player now to move; their move link dies with a clear page.
    server.deliver()
    with server.database.session() as session:
        row = session.exec(select(GameRecord).where(GameRecord.id == game_pk)).one()
        waiting = row.to_move
    assert waiting is not None
    open_mail_to(page, server, addresses[waiting], "Make your move")
    old_link = page.frame_locator("iframe").get_by_role(
        "link", name="Make your move").get_attribute("href")
    assert old_link and "/play/" in old_link
    page.goto(game_url)
    page.get_by_role("link", name="Replace a player").click()
    page.get_by_label("Seat").select_option(str(waiting))
    page.get_by_label("New player's name").fill("Cat")
    page.get_by_label("New player's email").fill("cat@example.test")
    page.get_by_role("button", name=re.compile("Confirm")).click()
    expect(page.locator(".flash")).to_contain_text("now plays seat")
    response = page.goto(old_link)
    assert response is not None and response.status == 410
    expect(page.get_by_role("heading", name="This link is no longer yours")).to_be_visible()
    screenshot(page, "07-replaced-link")
    _axe_finds_nothing(page, "a replaced link")
    server.deliver()
    open_mail_to(page, server, "cat@example.test", "Make your move")
    _click_link_in_mail(page, "Make your move")
    expect(page.locator(".board svg a").first).to_be_visible()

    # The other pages, on a desktop and on a phone.
    for path, name in (("/admin/", "08-games"), ("/admin/mail", "09-mail-log"),
                       ("/admin/audit", "10-audit"), ("/admin/players", "11-players")):
        page.goto(server.base + path)
        screenshot(page, name)
    expect(page.get_by_text("cat@example.test")).to_be_visible()
    page.set_viewport_size({"width": 390, "height": 844})
    for path, name in ((game_url, "12-phone-game"), (f"{server.base}/admin/", "13-phone-games")):
        page.goto(path)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390 + 1, f"{name}: the page is {width}px wide on a 390px phone"
        screenshot(page, name)
