"""Every player page in a real browser: axe-core finds no accessibility violations, boards fit the
screen with cells big enough to tap, and a click lands back on its cell (issue #16).

Playwright drives Debian's Chromium (never a downloaded one) against the app served in a thread,
as tests/admin/test_browser_dashboard.py does. Every page is opened with JavaScript and without
(issue 34): static/board.js runs on the pages of a board, and every page works without it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlmodel import select

from pbem.db import Database
from pbem.models import GameRecord, Player
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, create_game
from tests.browser_support import (
    WAYS,
    axe_violations,
    chromium,
    migrated,
    needs_chromium,
    new_page,
    put_back,
    screenshot,
    serving,
)
from tests.support import free_port, start_a_game

# Violations inside the board's SVG are the engine's drawing (engine/hexsvg.py and each game's
# drawing): reported apart from the page around the board, to say where to look.
IN_SVG = "svg"

pytestmark = needs_chromium


@dataclass
class Site_:
    base: str
    database: Database
    site: Site
    urls: dict[str, str]


def _path(url: str, base: str) -> str:
    return url.split("://", 1)[1].split("/", 1)[1] if "://" in url else url.lstrip("/")


def _games(database: Database, site: Site, base: str) -> dict[str, str]:
    """Games of several kinds and the URL of each page a player sees, by name."""
    now = datetime.now(UTC)
    urls: dict[str, str] = {"home": f"{base}/", "404": f"{base}/no/such/page"}
    kinds = {"mosey": ("mosey", {"order": 4}),
             "stigmergy": ("stigmergy", {"size": 10, "komi": "negotiate"}),
             "stigmergy-10": ("stigmergy", {"size": 10, "komi": "none"}),
             "refugia": ("refugia", {"board": "6-8"}), "rifugio": ("rifugio", {"players": 2})}
    for name, (kind, options) in kinds.items():
        game_pk = start_a_game(database, now, site, kind, dict(options))
        kind = name
        with database.session() as session:
            row = session.get(GameRecord, game_pk)
            assert row is not None and row.to_move is not None
            seat, ply, public_id = row.to_move, row.ply, row.public_id
            game, state = current_state(row)
        move = next((m for m in game.legal_moves(state) if not str(m).startswith("<")), None)
        cells = game.move_cells(move) if move is not None else ()
        local = lambda url: f"{base}/{_path(url, base)}"  # noqa: E731 (links name localhost)
        urls[f"{kind} game"] = local(site.links.game_url(public_id))
        urls[f"{kind} seat view"] = local(site.links.seat_view_url(game_pk, seat))
        urls[f"{kind} move"] = local(site.links.move_url(game_pk, seat, ply))
        if cells:
            urls[f"{kind} move, a piece picked"] = urls[f"{kind} move"] + f"?cells={cells[0]}"
        if kind == "stigmergy":
            urls[f"{kind} move, a typing mistake"] = urls[f"{kind} move"] + "/confirm?move=C2-E2"
            urls[f"{kind} confirm"] = urls[f"{kind} move"] + "/confirm?number=7"
        else:
            urls[f"{kind} confirm"] = urls[f"{kind} move"] + f"/confirm?move={move}"
        urls[f"{kind} resign"] = local(site.links.resign_url(game_pk, seat))
        if kind == "rifugio" and move is not None:
            urls["rifugio whole turn"] = urls[f"{kind} move"] + "/turn"
            urls["rifugio whole turn, a step taken"] = (urls[f"{kind} move"]
                                                        + f"/turn?steps={move}")
    with database.write() as session:
        invited = create_game(session, now, site, game_type="mosey", players=[
            PlayerSpec("Ann", "ann@example.test"), PlayerSpec("Bo", "bo@example.test")])
        assert invited.id is not None
        urls["invitation"] = f"{base}/{_path(site.links.invite_url(invited.id, 0), base)}"
        ann = session.exec(select(Player).where(Player.email == "ann@example.test")).one()
        assert ann.id is not None
        # The games-page link of her mail: its page with the button, then (pressed) /account.
        urls["games link"] = f"{base}/{_path(site.links.my_games_url(ann.id), base)}"
        urls["my games"] = urls["games link"]
        urls["unsubscribe"] = f"{base}/{_path(site.links.unsubscribe_url(ann.id), base)}"
    urls["damaged link"] = f"{base}/play/not-a-token"
    urls["rules"] = f"{base}/rules"
    for game_id in ("mosey", "refugia", "stigmergy", "rifugio"):
        urls[f"rules {game_id}"] = f"{base}/rules/{game_id}"
    urls["dev mail"] = f"{base}/dev/mail"
    return urls


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site_]:
    folder = tmp_path_factory.mktemp("browser-pages")
    url = migrated(folder / "pages.db")
    database = Database(url)
    with serving(database, url, "browser-pages-secret", free_port()) as app:
        site: Site = app.extensions["pbem.site"]
        base = app.config["BASE_URL"]
        yield Site_(base, database, site, _games(database, site, base))
    database.dispose()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


@pytest.fixture(name="new_page")
def new_page_fixture(browser: Any) -> Iterator[Callable[[int], Any]]:
    pages: list[Any] = []

    def make(width: int = 1280, *, script: bool = True, cookies_of: Any = None) -> Any:
        pages.append(new_page(browser, width, timeout=15_000, script=script,
                              cookies_of=cookies_of))
        return pages[-1]

    yield make
    for page in pages:
        put_back(page)


def open_my_games(page: Any, served: Site_) -> None:
    """On the page of a games-page link: press its button (it mails a sign-in link), open
    that link, press its button, and be on /account."""
    import re

    from tests.web.sessions import newest_sign_in_path

    page.get_by_role("button", name="Email me a sign-in link").click()
    page.get_by_role("heading", name="Check your mail").wait_for()
    page.goto(f"{served.base}{newest_sign_in_path(served.database)}")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/account$"))


def _split(violations: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(violations on the page around the board, violations inside the board's SVG), each as
    "rule (impact): selector" lines."""
    page_lines: list[str] = []
    svg_lines: list[str] = []
    for violation in violations:
        for node in violation["nodes"]:
            target = json.dumps(node["target"])
            line = f"{violation['id']} ({violation['impact']}): {target}"
            (svg_lines if IN_SVG in target else page_lines).append(line)
    return page_lines, svg_lines


PAGES = ["home", "invitation", "games link", "my games", "unsubscribe", "damaged link", "404",
         "405", "rules", "rules mosey", "rules refugia", "rules stigmergy", "rules rifugio",
         "dev mail",
         *(f"{kind} {page}" for kind in ("mosey", "stigmergy", "stigmergy-10", "refugia", "rifugio")
           for page in ("game", "seat view", "move", "confirm", "resign")),
         # Stigmergy opens with the komi and Rifugio with a take: no piece to pick there.
         *(f"{kind} move, a piece picked" for kind in ("mosey", "stigmergy-10", "refugia")),
         "stigmergy move, a typing mistake", "rifugio whole turn",
         "rifugio whole turn, a step taken"]


@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_no_violations(name: str, served: Site_, new_page: Any) -> None:
    if name != "405" and name not in served.urls:
        pytest.skip(f"{name}: that game has no board move in its opening")
    first = None
    for script, way in WAYS.items():
        # Without JavaScript: the same address, in the same session as the page with.
        page = new_page(1280) if script else new_page(1280, script=False, cookies_of=first)
        if name == "405":  # a form sent to a page that only shows
            page.route(f"{served.base}/", lambda route: route.continue_(method="DELETE"))
            response = page.goto(f"{served.base}/")
            assert response is not None and response.status == 405
        else:
            response = page.goto(served.urls[name] if first is None else first.url)
            assert response is not None and response.status in (200, 400, 404, 422), name
            if name == "my games" and first is None:
                open_my_games(page, served)
        around, inside = _split(axe_violations(page))
        assert not around and not inside, f"{name} {way}:\n" + "\n".join([*around, *inside])
        first = page


DASHBOARD = ["/admin/login", "/admin/", "/admin/games/new", "/admin/games/new?game=rifugio",
             "/admin/players", "/admin/mail", "/admin/audit", "/admin/account"]


def test_axe_finds_no_violations_on_the_dashboard(served: Site_, new_page: Any) -> None:
    from pbem.admin.accounts import create_admin

    with served.database.write() as session:
        create_admin(session, datetime.now(UTC), "axe@example.test", "a long enough password")
    with served.database.session() as session:
        game = session.exec(select(GameRecord)).first()
    assert game is not None
    found: dict[str, list[str]] = {}
    logged_in = None
    for script, way in WAYS.items():
        page = new_page(1280, script=script)
        page.goto(f"{served.base}/admin/login")
        found[f"/admin/login {way}"] = [line for part in _split(axe_violations(page))
                                        for line in part]
        if logged_in is None:
            page.fill("input[name=email]", "axe@example.test")
            page.fill("input[name=password]", "a long enough password")
            page.click("button[type=submit]")
            page.get_by_role("heading", name="Games").wait_for()
            logged_in = page
        else:  # the same session as the page with JavaScript
            page = new_page(1280, script=False, cookies_of=logged_in)
        for path in [*DASHBOARD[1:], f"/admin/games/{game.id}",
                     f"/admin/games/{game.id}/extend", f"/admin/games/{game.id}/replace"]:
            response = page.goto(f"{served.base}{path}")
            assert response is not None and response.status == 200, path
            found[f"{path} {way}"] = [line for part in _split(axe_violations(page))
                                      for line in part]
    assert {path: lines for path, lines in found.items() if lines} == {}


def _cell_box(page: Any) -> dict[str, float]:
    box = page.locator(".board svg a[href]").first.bounding_box()
    assert box is not None
    return dict(box)


def _board_width(page: Any) -> float:
    return float(page.locator(".board svg").bounding_box()["width"])


@pytest.mark.parametrize("script", list(WAYS), ids=list(WAYS.values()))
def test_boards_fill_the_screen_and_cells_are_big_enough_to_tap(
    served: Site_, new_page: Any, script: bool,
) -> None:
    phone = new_page(390, script=script)
    phone.goto(served.urls["stigmergy-10 move"])
    # Size 10's cells would be too small to tap at phone width: the board starts wider than
    # the page, with cells big enough (issue 33), and pans inside its box; the zoom is bigger.
    for zoom in ("start", "Zoom the board"):
        if zoom != "start":
            phone.get_by_role("link", name=zoom).click()
            assert "zoom=2" in phone.url
        assert _board_width(phone) > 390
        cell = _cell_box(phone)
        assert min(cell["width"], cell["height"]) >= 24, (zoom, cell)
        # The board scrolls inside its box; the page itself stays phone-wide.
        assert phone.evaluate("document.documentElement.scrollWidth") <= 391
    screenshot(phone, "20-phone-zoomed-board")
    desktop = new_page(1280, script=script)
    for name in ("refugia move", "stigmergy-10 move", "mosey move"):
        desktop.goto(served.urls[name])
        width = _board_width(desktop)
        # As wide as the page's column allows, up to 1.5 times the board's own drawing (a
        # small board's caption is not blown up: issue 33).
        drawn = float(desktop.locator(".board svg").get_attribute("width"))
        wanted = min(720, 1.5 * drawn)
        assert wanted - 2 <= width <= wanted + 2, f"{name}: the board is {width}px wide"
        cell = _cell_box(desktop)
        assert min(cell["width"], cell["height"]) >= 24, (name, cell)
    screenshot(desktop, "21-desktop-board")
    desktop.goto(served.urls["rifugio whole turn, a step taken"])
    screenshot(desktop, "22-whole-turn")


@pytest.mark.parametrize("script", list(WAYS), ids=list(WAYS.values()))
def test_a_click_on_a_cell_lands_on_that_cell_and_the_skip_link_passes_the_board(
    served: Site_, new_page: Any, script: bool,
) -> None:
    page = new_page(1280, script=script)
    page.goto(served.urls["mosey move"])
    link = page.locator(".board svg a[href]").first
    anchor = link.get_attribute("id")
    assert anchor and anchor.startswith("cell-")
    link.click()  # board.js answers in place, a full load without it: the address says which
    page.wait_for_url(re.compile(f"#{anchor}$"))
    # The address changes as the new page is put in place: wait until it is all there.
    page.wait_for_load_state("networkidle")
    assert page.locator(f"#{anchor}").count() == 1  # the clicked cell, now "take it back"
    skip = page.get_by_role("link", name="Skip past the board")
    assert skip.get_attribute("href") == "#after-board"
    skip.focus()
    assert skip.is_visible()  # shown when it has the focus
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile("#after-board$"))


@pytest.mark.parametrize("name", ["mosey game", "rifugio game", "invitation", "my games",
                                  "rules stigmergy"])
def test_nothing_overflows_a_360_px_phone(name: str, served: Site_, new_page: Any) -> None:
    """Long hashes, tokens and tables wrap: the page never scrolls sideways (issue 16)."""
    for script, way in WAYS.items():
        page = new_page(360, script=script)
        page.goto(served.urls[name])
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 360, f"{name} is {width} px wide on a 360 px screen {way}"
