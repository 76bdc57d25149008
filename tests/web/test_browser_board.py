"""A board that answers at once (issue 34), in a real browser (Debian's Chromium through
Playwright, as tests/web/test_browser_analysis.py), with JavaScript on and off.

With JavaScript, static/board.js fetches the page a board's link or a step link leads to and puts
its <main> in place: the page is not loaded again (a marker set on ``window`` survives), yet the
address follows and Back restores the earlier position; the arrow keys step through a replay;
"Flip the board" turns the board round; confirming a move stays an ordinary POST. Without
JavaScript the same flows work by ordinary full page loads, and there is no flip button. axe-core
finds no violation either way.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from pbem.db import Database
from pbem.migrate import upgrade
from pbem.models import GameRecord
from pbem.positions import current_state, moves_of
from pbem.services import Site, submit_move
from tests.browser_support import axe_violations, chromium, needs_chromium, serving
from tests.support import free_port, start_a_game

pytestmark = needs_chromium

MARKER = "() => window.pbemMarker"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Database, Site, str]]:
    folder = tmp_path_factory.mktemp("browser-board")
    url = f"sqlite:///{folder / 'board.db'}"
    upgrade(url)
    database = Database(url)
    with serving(database, url, "browser-board-secret", free_port()) as app:
        yield database, app.extensions["pbem.site"], app.config["BASE_URL"]
    database.dispose()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def _page(browser: Any, *, script: bool) -> Any:
    # bypass_csp lets the test inject axe-core; board.js is allowed by the policy itself.
    context = browser.new_context(viewport={"width": 1280, "height": 900},
                                  java_script_enabled=script, bypass_csp=True)
    context.set_default_timeout(10_000)
    return context.new_page()


def _violations(page: Any, browser: Any, *, script: bool = True) -> list[str]:
    """axe-core's violations on the page as it is; without JavaScript axe cannot run in the page
    itself, so it runs on the same address in a page where only board.js is blocked."""
    if not script:
        checked = _page(browser, script=True)
        try:
            checked.route("**/static/board.js", lambda route: route.abort())
            checked.goto(page.url)
            return _violations_of(checked)
        finally:
            checked.context.close()
    return _violations_of(page)


def _violations_of(page: Any) -> list[str]:
    return [f"{v['id']} ({v['impact']}): {node['target']}"
            for v in axe_violations(page) for node in v["nodes"]]


def _mark(page: Any) -> None:
    page.evaluate("() => { window.pbemMarker = 'still here'; }")


def _played_game(database: Database, site: Site, count: int) -> tuple[int, str]:
    now = datetime.now(UTC)
    pk = start_a_game(database, now, site, "mosey", {"order": 4})
    rng = random.Random(7)
    for _ in range(count):
        with database.write() as session:
            row = session.get(GameRecord, pk)
            assert row is not None and row.to_move is not None
            game, state = current_state(row)
            move = rng.choice(list(game.legal_moves(state)))
            submit_move(session, now, site, game_id=pk, seat=row.to_move, ply=row.ply,
                        text=str(move))
    with database.session() as session:
        row = session.get(GameRecord, pk)
        assert row is not None
        return pk, row.public_id


def test_the_policy_allows_our_own_script_only(
    served: tuple[Database, Site, str], browser: Any,
) -> None:
    _, _, base = served
    page = _page(browser, script=True)
    try:
        response = page.goto(f"{base}/")
        assert response is not None
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy.split(
            "script-src")[1].split(";")[0]
    finally:
        page.context.close()


@pytest.mark.parametrize("script", [True, False], ids=["with JavaScript", "without JavaScript"])
def test_two_clicks_on_the_analysis_board(
    served: tuple[Database, Site, str], browser: Any, script: bool,
) -> None:
    database, site, _ = served
    pk = start_a_game(database, datetime.now(UTC), site, "mosey", {"order": 4})
    with database.session() as session:
        row = session.get(GameRecord, pk)
        assert row is not None and row.to_move is not None
        game, state = current_state(row)
        seat, ply = row.to_move, row.ply
    page = _page(browser, script=script)
    try:
        page.goto(f"{site.links.move_url(pk, seat, ply)}/analysis")
        flip = page.get_by_role("button", name="Flip the board")
        assert flip.count() == (1 if script else 0)  # the script's own, never without it
        if script:
            _mark(page)
        first = page.locator(".board svg a[href]").first
        cell = first.get_attribute("data-cell") or ""
        first.click()
        page.wait_for_url(re.compile(r"cells="))
        move = next(m for m in game.legal_moves(state)
                    if game.move_cells(m)[:1] == (cell,) and len(game.move_cells(m)) == 2)
        target = game.move_cells(move)[1]
        page.locator(f'.board svg a[data-cell="{target}"]').click()
        page.wait_for_url(re.compile(r"line="))
        assert parse_qs(urlsplit(page.url).query)["line"] == [str(move)]
        assert str(move) in page.locator("ol.analysis-line").inner_text()
        if script:
            assert page.evaluate(MARKER) == "still here", "the page was loaded again"
            assert page.title().startswith("Analysis board")
            page.go_back()  # the first click's position, restored in place
            page.wait_for_url(re.compile(r"cells=(?!.*line=)"))
            page.locator("ol.analysis-line").wait_for(state="detached")  # no line yet
            assert page.evaluate(MARKER) == "still here"
        assert _violations(page, browser, script=script) == []
    finally:
        page.context.close()


@pytest.mark.parametrize("script", [True, False], ids=["with JavaScript", "without JavaScript"])
def test_stepping_through_a_replay(
    served: tuple[Database, Site, str], browser: Any, script: bool,
) -> None:
    database, site, base = served
    _, public_id = _played_game(database, site, 3)
    page = _page(browser, script=script)
    try:
        page.goto(f"{base}/games/{public_id}/replay?ply=2")
        if script:
            _mark(page)
        page.locator("main h1").click()  # the keys go to the page, not to a field
        if script:
            page.keyboard.press("ArrowLeft")
        else:
            page.locator('a[rel="prev"]').click()
        page.wait_for_url(re.compile(r"ply=1$"))
        page.get_by_text("Position after move 1 of 3.").wait_for()
        if script:
            page.keyboard.press("ArrowRight")
            page.wait_for_url(re.compile(r"ply=2$"))
            page.keyboard.press("ArrowRight")
        else:
            page.locator('a[rel="next"]').click()
            page.wait_for_url(re.compile(r"ply=2$"))
            page.locator('a[rel="next"]').click()
        page.wait_for_url(re.compile(r"ply=3$"))
        page.get_by_text("Position after move 3 of 3.").wait_for()
        assert page.locator('a[rel="next"]').count() == 0
        if script:
            assert page.evaluate(MARKER) == "still here", "the page was loaded again"
            page.keyboard.press("ArrowRight")  # the last position: nothing further
            assert page.url.endswith("ply=3")
        assert _violations(page, browser, script=script) == []
    finally:
        page.context.close()


def test_flip_the_board_turns_it_round(
    served: tuple[Database, Site, str], browser: Any,
) -> None:
    database, site, base = served
    _, public_id = _played_game(database, site, 1)
    page = _page(browser, script=True)
    try:
        page.goto(f"{base}/games/{public_id}/replay?ply=1")
        board = page.locator(".board svg")
        box = board.bounding_box()
        word = page.locator(".board svg text").first
        before = word.bounding_box()
        flip = page.get_by_role("button", name="Flip the board")
        assert flip.get_attribute("aria-pressed") == "false"
        flip.click()
        assert flip.get_attribute("aria-pressed") == "true"
        after = word.bounding_box()
        assert box is not None and before is not None and after is not None
        # Turned round the board's centre: the word's centre is mirrored through it...
        centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        moved = (after["x"] + after["width"] / 2, after["y"] + after["height"] / 2)
        was = (before["x"] + before["width"] / 2, before["y"] + before["height"] / 2)
        assert moved == pytest.approx((2 * centre[0] - was[0], 2 * centre[1] - was[1]), abs=2)
        # ...and stays upright: turned twice, by the board and back by itself.
        turned = word.evaluate("t => new DOMMatrix(getComputedStyle(t).transform).a")
        assert turned == pytest.approx(-1)
        assert _violations(page, browser) == []
        page.keyboard.press("ArrowLeft")  # the flip stays on the next position's board
        page.wait_for_url(re.compile(r"ply=0$"))
        page.get_by_text("The starting position.").wait_for()
        assert "flipped" in (page.locator(".board").get_attribute("class") or "")
    finally:
        page.context.close()


def test_a_move_is_still_confirmed_by_an_ordinary_post(
    served: tuple[Database, Site, str], browser: Any,
) -> None:
    """The board's clicks reach the confirm page in place; its button is a POST the script never
    touches: the browser sends it and loads the answer as a new page."""
    database, site, _ = served
    pk = start_a_game(database, datetime.now(UTC), site, "mosey", {"order": 4})
    with database.session() as session:
        row = session.get(GameRecord, pk)
        assert row is not None and row.to_move is not None
        game, state = current_state(row)
        seat, ply = row.to_move, row.ply
    page = _page(browser, script=True)
    try:
        page.goto(site.links.move_url(pk, seat, ply))
        _mark(page)
        first = page.locator(".board svg a[href]").first
        cell = first.get_attribute("data-cell") or ""
        first.click()
        page.wait_for_url(re.compile(r"cells="))
        move = next(m for m in game.legal_moves(state)
                    if game.move_cells(m)[:1] == (cell,) and len(game.move_cells(m)) == 2)
        page.locator(f'.board svg a[data-cell="{game.move_cells(move)[1]}"]').click()
        page.wait_for_url(re.compile(r"/confirm\?move="))
        page.get_by_role("heading", name=re.compile("Confirm your move")).wait_for()
        assert page.evaluate(MARKER) == "still here"
        with page.expect_navigation():
            page.locator("main form[method=post] button").click()
        assert page.evaluate(MARKER) is None, "the POST was not an ordinary submission"
    finally:
        page.context.close()
    with database.session() as session:
        assert [m.notation for m in moves_of(session, pk)] == [str(move)]
