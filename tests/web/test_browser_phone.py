"""Phones (issue 33): the forms, the mail catcher, the standings, the navigation and the boards
at 360 and 390 px, one named test per defect, each a page load or two.

Nothing scrolls sideways (the document is no wider than the window), tables become cards rather
than clip, every navigation link is a 24 px target (measured with getBoundingClientRect), a skip
link leads to the content, Rifugio's players' table is HTML text with the game's own values, its
glossary starts closed, a small board's caption is not blown up to the window's width, and a
large board's cells can be tapped. axe-core finds nothing on each page touched. Each test walks
its pages with JavaScript and without (issue 34); the page without starts signed in as the page
with is.

Playwright drives Debian's Chromium against the app served in a thread, as
tests/web/test_browser_pages.py does; mail goes over SMTP to the development catcher, as in
tests/browser_support.py. The widths measured are printed (``-s``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlmodel import select

from pbem.admin.accounts import create_admin
from pbem.db import Database
from pbem.mail.outbox import SmtpSettings, deliver_pending
from pbem.models import GameRecord, Player, Seat
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, resign
from pbem.tournaments.service import create_tournament, start_tournament
from pbem.web.player_sessions import issue_link
from tests.browser_support import (
    MAIL_FROM,
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

ADMIN, PASSWORD = "organiser@example.test", "a long enough password for phones"
# Long names and addresses, as people have them: they must wrap, not widen the page.
PLAYERS = [PlayerSpec(name, f"{name.split()[0].lower()}.{name.split()[1].lower()}"
                      "@a-rather-long-domain.example.test")
           for name in ("Annemarie Vandenberghe", "Bartholomew Featherstonehaugh",
                        "Cleopatra Montgomery", "Dorothea Wolkenstein", "Evangeline Papadopoulos",
                        "Fitzgerald Oyelaran")]
TAP = 24  # px: WCAG 2.5.8's smallest pointer target


@dataclass
class Served:
    base: str
    database: Database
    ann: int
    tournament: str
    rifugio: int
    urls: dict[str, str]


def _seed(database: Database, site: Site, base: str, smtp: SmtpSettings) -> Served:
    now = datetime.now(UTC)
    local = lambda url: base + "/" + url.split("://", 1)[1].split("/", 1)[1]  # noqa: E731
    urls: dict[str, str] = {}
    with database.write() as session:
        create_admin(session, now, ADMIN, PASSWORD)
        tournament = create_tournament(session, now, site, name="Autumn cup of the long names",
                                       game_type="mosey", players=PLAYERS, fmt="round-robin",
                                       options={"order": 4})
        assert tournament.id is not None
        start_tournament(session, now, site, tournament_id=tournament.id)
        slug = tournament.slug
    with database.write() as session:  # two results, so that the crosstable has scores
        for game in session.exec(select(GameRecord).limit(2)).all():
            assert game.id is not None
            resign(session, now, site, game_id=game.id, seat=1)
    rifugio = start_a_game(database, now, site, "rifugio", {"players": 2})
    small = start_a_game(database, now, site, "refugia", {"board": "2-3"})
    large = start_a_game(database, now, site, "stigmergy", {"size": 10, "komi": "none"})
    with database.session() as session:
        for name, game_pk in (("rifugio", rifugio), ("small", small), ("large", large)):
            row = session.get(GameRecord, game_pk)
            assert row is not None and row.to_move is not None
            urls[f"{name} game"] = local(site.links.game_url(row.public_id))
            urls[f"{name} move"] = local(site.links.move_url(game_pk, row.to_move, row.ply))
        ann = session.exec(select(Player.id).where(Player.email == PLAYERS[0].email)).one()
    assert ann is not None
    deliver_pending(database, smtp, now)  # the invitations, into the catcher for /dev/mail
    return Served(base, database, ann, slug, rifugio, urls)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    from pbem.mail.catcher import database_store, start_catcher

    folder = tmp_path_factory.mktemp("browser-phone")
    url = migrated(folder / "phone.db")
    database = Database(url)
    smtp_port = free_port()
    catcher = start_catcher(database_store(database), host="127.0.0.1", port=smtp_port)
    try:
        with serving(database, url, "browser-phone-secret", smtp_port) as app:
            smtp = SmtpSettings(host="127.0.0.1", port=smtp_port, mail_from=MAIL_FROM,
                                timeout=10)
            yield _seed(database, app.extensions["pbem.site"], app.config["BASE_URL"], smtp)
    finally:
        catcher.stop()
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


def _fits(page: Any, name: str) -> None:
    """No axe-core violation, and the document no wider than the window."""
    found = [f"{v['id']} ({v['impact']}): {node['target']}"
             for v in axe_violations(page) for node in v["nodes"]]
    assert not found, f"{name}: {found}"
    wide, window = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    print(f"\n{name}: {wide} px wide in a {window} px window")
    assert wide <= window, f"{name}: {wide} px wide in a {window} px window"


def _sign_in(page: Any, served: Served) -> None:
    with served.database.write() as session:
        token = issue_link(session, datetime.now(UTC), served.ann)
    page.goto(f"{served.base}/sign-in/{token}")
    page.locator("main form button").first.click()
    page.wait_for_url(f"{served.base}/account")


def _log_in_as_organiser(page: Any, served: Served) -> None:
    page.goto(f"{served.base}/admin/login")
    page.get_by_label("Email address").fill(ADMIN)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")
    page.get_by_role("heading", name="Games").wait_for()


def test_the_challenge_form_fits_a_360_px_phone(served: Served, page_at: Any) -> None:
    signed_in = page_at(360)
    _sign_in(signed_in, served)
    for script, way in WAYS.items():
        page = signed_in if script else page_at(360, script=False, cookies_of=signed_in)
        page.goto(f"{served.base}/challenges/new?game=rifugio")
        page.get_by_role("button", name="Send the challenge").wait_for()
        _fits(page, f"/challenges/new?game=rifugio at 360 px {way}")


def test_the_tournament_form_fits_a_360_px_phone(served: Served, page_at: Any) -> None:
    logged_in = page_at(360)
    _log_in_as_organiser(logged_in, served)
    for script, way in WAYS.items():
        page = logged_in if script else page_at(360, script=False, cookies_of=logged_in)
        page.goto(f"{served.base}/admin/tournaments/new?game=rifugio")
        _fits(page, f"/admin/tournaments/new?game=rifugio at 360 px {way}")
        assert _small_targets(page) == []  # the dashboard's menus too


@pytest.mark.parametrize("script", list(WAYS), ids=list(WAYS.values()))
def test_the_mail_catcher_fits_a_360_px_phone(served: Served, page_at: Any,
                                              script: bool) -> None:
    page = page_at(360, script=script)
    page.goto(f"{served.base}/dev/mail")
    assert page.locator("main a[href*='/dev/mail/']").count() >= len(PLAYERS)
    _fits(page, f"/dev/mail at 360 px {WAYS[script]}")
    page.locator("main a[href*='/dev/mail/']").first.click()
    page.wait_for_selector("iframe")
    _fits(page, f"/dev/mail/<id> at 360 px {WAYS[script]}")


# Every cell shown of the standings and the crosstable (their headings are out of sight on a
# phone, for screen readers): its right edge, and whether its content reaches past its own box
# (clipped or overflowing text).
CLIPPED = """() => Array.from(document.querySelectorAll(
    'table.standings tbody :is(th, td), table.crosstable tbody :is(th, td)'))
  .filter(cell => cell.getClientRects().length)
  .filter(cell => cell.getBoundingClientRect().right > window.innerWidth + 0.5
                  || cell.scrollWidth > cell.clientWidth + 1)
  .map(cell => cell.textContent.trim())"""


@pytest.mark.parametrize("script", list(WAYS), ids=list(WAYS.values()))
def test_standings_and_crosstable_are_cards_on_a_phone(
    served: Served, page_at: Any, script: bool,
) -> None:
    page = page_at(360, script=script)
    page.goto(f"{served.base}/tournaments/{served.tournament}")
    assert page.locator("table.crosstable a").count() >= 4  # two results, seen from both sides
    assert page.evaluate(CLIPPED) == []
    # A card says what each number is: the column's heading comes with it.
    labels = page.evaluate("""() => Array.from(document.querySelectorAll(
        'table.standings tbody tr:first-child td, table.crosstable tbody tr:first-child td'))
      .filter(cell => cell.getClientRects().length)
      .map(cell => getComputedStyle(cell, '::before').content)""")
    assert '"Points: "' in labels, labels
    assert any("Bartholomew Featherstonehaugh" in label for label in labels), labels
    _fits(page, "/tournaments/<slug> at 360 px")


def _small_targets(page: Any) -> list[tuple[str, float, float]]:
    """The links and buttons of the page's menus (and its skip link) under 24 by 24 px."""
    sizes = page.evaluate("""() => Array.from(document.querySelectorAll(
        'nav a, nav button, a.skip')).map(link => {
          const box = link.getBoundingClientRect();
          return [link.textContent.trim(), box.width, box.height];
        })""")
    assert len(sizes) >= 8, sizes
    return [(name, w, h) for name, w, h in sizes if w < TAP or h < TAP]


@pytest.mark.parametrize("script", list(WAYS), ids=list(WAYS.values()))
def test_navigation_links_are_24_px_targets(
    served: Served, page_at: Any, script: bool,
) -> None:
    page = page_at(360, script=script)
    page.goto(f"{served.base}/")
    small = _small_targets(page)
    assert not small, f"targets under {TAP} px: {small}"


@pytest.mark.parametrize("script", list(WAYS), ids=list(WAYS.values()))
def test_the_skip_link_is_focusable_and_jumps_to_the_content(
    served: Served, page_at: Any, script: bool,
) -> None:
    page = page_at(390, script=script)
    page.goto(served.urls["rifugio game"])
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to content")
    assert skip.evaluate("link => link === document.activeElement")
    assert skip.is_visible()
    page.keyboard.press("Enter")
    assert page.url.endswith("#content")
    page.keyboard.press("Tab")  # the next stop is inside the content, past the navigation
    assert page.evaluate("document.activeElement.closest('main') !== null")


@pytest.mark.parametrize("script", list(WAYS), ids=list(WAYS.values()))
def test_rifugio_players_table_is_text_beside_the_board(
    served: Served, page_at: Any, script: bool,
) -> None:
    page = page_at(390, script=script)
    with served.database.session() as session:
        row = session.get(GameRecord, served.rifugio)
        assert row is not None and row.to_move is not None
        seat = row.to_move
        names = [p.name for p in session.exec(
            select(Player).join(Seat).where(Seat.game_id == served.rifugio)
            .order_by(Seat.seat))]
        game, state = current_state(row)
    seen = game.view(state, seat)  # type: ignore[attr-defined]
    page.goto(served.urls["rifugio move"])
    table = page.locator("table.side-table")
    headings = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    assert headings[1:] == ["At", "Huts left", "Step cards", "Point cards", "Score"], headings
    rows = [[c.strip() for c in r.locator("th, td").all_inner_texts()]
            for r in table.locator("tbody tr").all()]
    assert len(rows) == len(seen["seats"]) == len(names)
    for cells, entry, name in zip(rows, seen["seats"], names, strict=True):
        assert name in cells[0]
        assert cells[1:] == [entry["walker"], str(entry["huts_left"]), str(entry["step_cards"]),
                             str(entry["point_cards"]),
                             str(entry["score"]) if "score" in entry else "?"], cells
    # The text is page text, readable: as big as the page's own.
    size = table.locator("td").first.evaluate("cell => parseFloat(getComputedStyle(cell).fontSize)")
    assert size >= 14
    # The glossary is there, closed, and the board comes before the fold's second screen.
    assert page.locator("details.terms").count() == 1
    assert not page.locator("details.terms").get_attribute("open") is not None
    board_top = page.locator(".board svg").bounding_box()["y"]
    print(f"\nRifugio's board starts {board_top:.0f} px down at 390 px")
    assert board_top < 900
    _fits(page, "Rifugio's move page at 390 px")


# The shown size of each board's caption: its font size times the board's scale.
CAPTIONS = """() => Array.from(document.querySelectorAll('.board svg')).map(svg => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return parseFloat(svg.querySelector('text').getAttribute('font-size')) * scale;
  })"""


@pytest.mark.parametrize("script", list(WAYS), ids=list(WAYS.values()))
def test_a_small_boards_caption_is_not_blown_up(
    served: Served, page_at: Any, script: bool,
) -> None:
    page = page_at(1280, script=script)
    page.goto(served.urls["small game"])
    [size] = page.evaluate(CAPTIONS)
    print(f"\nRefugia 2-3's caption at 1280 px: {size:.1f} px")
    assert 12 <= size <= 20, size
    _fits(page, "Refugia 2-3's game page at 1280 px")
    page.goto(f"{served.base}/rules/refugia")  # a picture of every board size
    sizes = page.evaluate(CAPTIONS)
    assert len(sizes) >= 5 and all(12 <= size <= 20 for size in sizes), sizes


@pytest.mark.parametrize("script", list(WAYS), ids=list(WAYS.values()))
def test_a_large_boards_cells_can_be_tapped_on_a_phone(
    served: Served, page_at: Any, script: bool,
) -> None:
    page = page_at(360, script=script)
    page.goto(served.urls["large move"])
    cells = page.evaluate("""() => Array.from(document.querySelectorAll('.board svg a[href]'))
        .map(link => { const box = link.getBoundingClientRect();
                       return Math.min(box.width, box.height); })""")
    print(f"\nStigmergy 10's smallest cell at 360 px: {min(cells):.1f} px")
    assert cells and min(cells) >= TAP, min(cells)
    _fits(page, "Stigmergy 10's move page at 360 px")
