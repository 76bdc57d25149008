"""The analysis board in a real browser (Debian's Chromium through Playwright, as
tests/web/test_browser_pages.py): from the move page, two clicks on the board make an analysis
move, nothing is sent, and axe-core finds no accessibility violations; the other analysis pages
with JavaScript and without (test_browser_board.py makes analysis moves without it)."""

from __future__ import annotations

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
from pbem.services import Site
from tests.browser_support import (
    axe_violations,
    chromium,
    needs_chromium,
    new_page,
    screenshot,
    serving,
)
from tests.support import free_port, start_a_game

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Database, Site]]:
    folder = tmp_path_factory.mktemp("browser-analysis")
    url = f"sqlite:///{folder / 'analysis.db'}"
    upgrade(url)
    database = Database(url)
    with serving(database, url, "browser-analysis-secret", free_port()) as app:
        yield database, app.extensions["pbem.site"]
    database.dispose()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def _violations(page: Any) -> list[str]:
    return [f"{v['id']} ({v['impact']}): {node['target']}"
            for v in axe_violations(page) for node in v["nodes"]]


def test_two_clicks_on_the_board_make_an_analysis_move_and_axe_finds_nothing(
    served: tuple[Database, Site], browser: Any,
) -> None:
    database, site = served
    pk = start_a_game(database, datetime.now(UTC), site, "mosey", {"order": 4})
    with database.session() as session:
        row = session.get(GameRecord, pk)
        assert row is not None and row.to_move is not None
        game, state = current_state(row)
        seat, ply = row.to_move, row.ply
    page = new_page(browser, 1280)
    try:
        page.goto(site.links.move_url(pk, seat, ply))
        page.get_by_role("link", name="Analyse this position").click()
        page.get_by_role("heading", name="Analysis board: Mosey").wait_for()
        assert _violations(page) == []
        first = page.locator(".board svg a[href]").first
        cell = first.get_attribute("data-cell") or ""
        first.click()
        page.wait_for_url(re.compile(r"cells="))
        # The second click finishes a move starting at that cell.
        move = next(m for m in game.legal_moves(state)
                    if game.move_cells(m)[:1] == (cell,) and len(game.move_cells(m)) == 2)
        target = game.move_cells(move)[1]
        page.locator(f'.board svg a[data-cell="{target}"]').click()
        page.wait_for_url(re.compile(r"line="))
        assert parse_qs(urlsplit(page.url).query)["line"] == [str(move)]
        line = page.locator("ol.analysis-line")
        assert str(move) in line.inner_text()
        assert _violations(page) == []
        screenshot(page, "40-analysis-board")
    finally:
        page.context.close()
    with database.session() as session:
        assert moves_of(session, pk) == [], "an analysis move was played in the game"


@pytest.mark.parametrize(("game_id", "options", "query"), [
    ("rifugio", {"players": 2}, "?line=take%20blind"),  # a line that a draw stops
    ("stigmergy", {"size": 10, "komi": "negotiate"}, ""),  # a number to name, small cells
    ("mosey", {"order": 4}, "?line=Z9"),  # a damaged line
])
@pytest.mark.parametrize("script", [True, False], ids=["with JavaScript", "without JavaScript"])
def test_axe_finds_no_violations_on_other_analysis_pages(
    served: tuple[Database, Site], browser: Any, game_id: str, options: dict[str, object],
    query: str, script: bool,
) -> None:
    database, site = served
    pk = start_a_game(database, datetime.now(UTC), site, game_id, dict(options))
    with database.session() as session:
        row = session.get(GameRecord, pk)
        assert row is not None and row.to_move is not None
        seat, ply = row.to_move, row.ply
    page = new_page(browser, 1280, script=script)
    try:
        response = page.goto(f"{site.links.move_url(pk, seat, ply)}/analysis{query}")
        assert response is not None and response.status in (200, 400)
        assert _violations(page) == []
        if script:
            screenshot(page, f"41-analysis-{game_id}")
        page.set_viewport_size({"width": 360, "height": 800})  # a phone: nothing overflows
        width = page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 360, f"{game_id}'s analysis is {width} px wide on a 360 px screen"
    finally:
        page.context.close()
