"""The home in a real browser (issue 33): a signed-in player's /account and the visitors' home
page, at 1280, 390 and 360 px, in every language. axe-core finds no violation, nothing scrolls
sideways, no word of a row or a card is broken over two lines, the player's sections come in
the order of attention, and on a phone the visitors' home is short with "Sign in" on the first
screen. Both with JavaScript and without (issue 34): the page without starts with the cookies of
the page with, signed in as it is.

Playwright drives Debian's Chromium (never a downloaded one) against the app served in a thread,
as tests/web/test_browser_pages.py does; the page heights measured are printed (``-s``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlmodel import select

from pbem.challenges.rules import ChallengeRules
from pbem.challenges.service import create_challenge
from pbem.db import Database
from pbem.i18n import LANGUAGES
from pbem.models import Player
from pbem.services import PlayerSpec, Site, create_game, resign
from pbem.web.player_sessions import issue_link
from tests.browser_support import (
    WAYS,
    axe_violations,
    chromium,
    migrated,
    needs_chromium,
    new_page,
    put_back,
    serving,
)
from tests.support import free_port, start_a_game

pytestmark = needs_chromium

WIDTHS = (1280, 390, 360)
PHONE_SCREEN = 700  # px: what a phone shows before scrolling, the address bar aside
ANN, BOB, CLEO, DAN = (PlayerSpec(name, f"{name.lower()}@example.test")
                       for name in ("Ann", "Bob", "Cleo", "Dan"))
# Per text node of the rows and cards: each word (hyphens may break, as typesetters allow) on
# one line only; the words only screen readers get are left out.
BROKEN_WORDS = """() => {
  const broken = [];
  for (const row of document.querySelectorAll("ul.home li, ul.cards li")) {
    const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement.closest(".hidden-words")) continue;
      for (const word of node.textContent.matchAll(/[^\\s\\-]+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set(Array.from(range.getClientRects())
          .filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
}"""


@dataclass
class Served:
    base: str
    database: Database
    ann: int


def _seed(database: Database, site: Site) -> int:
    """Ann's games, as tests/web/test_home.py has them: two of her turns, one waiting for Dan,
    one finished, an invitation and a challenge from Bob; her id."""
    now = datetime.now(UTC)
    mosey = {"order": 4}
    start_a_game(database, now - timedelta(hours=20), site, "mosey", mosey, players=[ANN, BOB])
    start_a_game(database, now - timedelta(days=1, hours=20), site, "refugia", {"board": "2-3"},
                 players=[ANN, CLEO])
    start_a_game(database, now, site, "mosey", mosey, players=[DAN, ANN])
    over = start_a_game(database, now - timedelta(days=5), site, "dont-mosey", mosey,
                        players=[ANN, DAN])
    with database.write() as session:
        resign(session, now - timedelta(days=4), site, game_id=over, seat=1)
        create_game(session, now, site, game_type="keep-a-riding", options=mosey,
                    players=[CLEO, ANN])
        bob = session.exec(select(Player).where(Player.email == BOB.email)).one()
        create_challenge(session, now, site, ChallengeRules(time_controls=("3d per move",)),
                         creator=bob, game_type="stigmergy", options={"size": 5},
                         time_control="3d per move", timeout_policy="default",
                         invitees=[ANN])
        ann = session.exec(select(Player.id).where(Player.email == ANN.email)).one()
    assert ann is not None
    return ann


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("browser-home")
    url = migrated(folder / "home.db")
    database = Database(url)
    with serving(database, url, "browser-home-secret", free_port()) as app:
        yield Served(app.config["BASE_URL"], database, _seed(database, app.extensions[
            "pbem.site"]))
    database.dispose()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page_at(browser: Any) -> Iterator[Any]:
    pages: list[Any] = []

    def make(width: int, *, script: bool = True, cookies_of: Any = None) -> Any:
        pages.append(new_page(browser, width, timeout=15_000, script=script,
                              cookies_of=cookies_of))
        return pages[-1]

    yield make
    for page in pages:
        put_back(page)


def _sign_in(page: Any, served: Served) -> None:
    """As Ann does: her sign-in link's page, and its button."""
    with served.database.write() as session:
        token = issue_link(session, datetime.now(UTC), served.ann)
    page.goto(f"{served.base}/sign-in/{token}")
    page.locator("main form button").first.click()
    page.wait_for_url(f"{served.base}/account")


def _speaks(served: Served, language: str) -> None:
    with served.database.write() as session:
        ann = session.get(Player, served.ann)
        assert ann is not None
        ann.language = language
        session.add(ann)


def _fits(page: Any, width: int, name: str, *, axe: bool = True) -> None:
    if axe:
        found = [f"{v['id']} ({v['impact']}): {node['target']}"
                 for v in axe_violations(page) for node in v["nodes"]]
        assert not found, f"{name}: {found}"
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, f"{name}: {wide} px wide on a {width} px screen"
    broken = page.evaluate(BROKEN_WORDS)
    assert not broken, f"{name}: words broken over two lines: {broken}"


def _at_width(page: Any, width: int) -> None:
    """The same page on another screen: the layout follows the viewport, as on a turned phone
    or a resized window, without loading the page again."""
    page.set_viewport_size({"width": width, "height": 900})


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_players_home_fits_and_passes_axe(served: Served, page_at: Any,
                                              language: str) -> None:
    _speaks(served, language)
    signed_in = page_at(WIDTHS[0])
    _sign_in(signed_in, served)
    for script, way in WAYS.items():
        page = signed_in if script else page_at(WIDTHS[0], script=False, cookies_of=signed_in)
        if not script:
            page.goto(f"{served.base}/account")
        assert page.locator("html").get_attribute("lang") == language
        for width in WIDTHS:
            _at_width(page, width)
            name = f"/account at {width} px in {language} {way}"
            sections = page.evaluate("""() => ['your-turn', 'answers', 'waiting', 'finished']
                .map(id => document.getElementById(id).getBoundingClientRect().top)""")
            assert sections == sorted(sections), f"{name}: the sections are out of order"
            assert page.locator("#your-turn + ul.home li").count() == 2
            # Bob's challenge, Cleo's game.
            assert page.locator("#answers + ul.home li").count() == 2
            finished = page.locator("details.finished summary")
            assert not page.locator("details.finished ul.home").is_visible()  # collapsed
            # axe skips what is hidden: run once, with the finished games open (all there is).
            _fits(page, width, name, axe=False)
            finished.click()
            _fits(page, width, f"{name}, finished games open")
            height = page.evaluate("document.documentElement.scrollHeight")
            print(f"\n{name}: {height} px tall")
            finished.click()  # closed again, as the page opens


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_the_visitors_home_is_short_and_passes_axe(served: Served, page_at: Any,
                                                   language: str) -> None:
    for script, way in WAYS.items():
        page = page_at(WIDTHS[0], script=script)
        page.goto(f"{served.base}/language/{language}?next=/")
        assert page.locator("html").get_attribute("lang") == language
        for width in WIDTHS:
            _at_width(page, width)
            name = f"/ at {width} px in {language} {way}"
            _fits(page, width, name)
            sign_in = page.locator("main a.button").first.bounding_box()
            height = page.evaluate("document.documentElement.scrollHeight")
            print(f"\n{name}: {height} px tall, sign-in at {sign_in['y']:.0f} px")
            if width < 400:
                assert sign_in["y"] + sign_in["height"] < PHONE_SCREEN, f"{name}: sign in is below"
                assert height < 1600, f"{name}: {height} px tall"
