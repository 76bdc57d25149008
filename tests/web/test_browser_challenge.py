"""A challenge in a real browser, as two people would: Ann signs in from the mail catcher,
challenges Bob, Bob accepts from his email, they play two moves, Bob resigns, and both accept
the rematch offered in the game-over emails; with JavaScript and without (issue 34), each way on
the same server, and axe-core finds no violation on the pages checked either way.

Playwright drives Debian's Chromium (never a downloaded one) against the app served in a thread,
with a migrated SQLite file; mail goes over SMTP to the development catcher (/dev/mail), as in
tests/admin/test_browser_dashboard.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlmodel import Session, col, select

import engine
from pbem.challenges.tables import Challenge, ChallengeStatus
from pbem.models import GameRecord, GameStatus, Player
from tests.browser_support import (
    WAYS,
    Server,
    axe_violations,
    chromium,
    needs_chromium,
    new_page,
    open_mail_to,
    put_back,
    serving_with_mail,
)
from tests.support import two_player_game

ANN, BOB = "ann@example.test", "bob@example.test"

pytestmark = needs_chromium


def _invited_before(session: Session) -> None:
    for name, address in (("Ann", ANN), ("Bob", BOB)):
        session.add(Player(name=name, email=address, created_at=datetime.now(UTC)))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("browser-challenge")
    with serving_with_mail(folder / "challenge.db", "browser-challenge-secret",
                           _invited_before) as served:
        yield served


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


def _follow_mail(page: Any, server: Server, address: str, link_text: str) -> None:
    """Open the newest email to ``address`` with the link ``link_text`` and follow it, as its
    reader would."""
    server.deliver()
    open_mail_to(page, server, address, link_text)
    page.goto(page.frame_locator("iframe").get_by_role("link", name=link_text).first
              .get_attribute("href"))


def _axe_finds_nothing(page: Any, name: str) -> None:
    """axe-core's accessibility rules on the page as it is, and no sideways scrolling."""
    found = [f"{v['id']}: {node['target']}" for v in axe_violations(page) for node in v["nodes"]]
    assert not found, f"{name}: {found}"
    width, seen = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= seen + 1, f"{name}: the page is {width}px wide in a {seen}px window"


def _play_a_move(page: Any, server: Server, game_id: int) -> None:
    """From the move page: type a legal move (the page's text field), then confirm it."""
    from pbem.positions import current_state

    game, state = current_state(_game(server, game_id))
    move = next(m for m in game.legal_moves(state) if not str(m).startswith("<"))
    page.get_by_label("Or type your move:").fill(str(move))
    page.get_by_label("Or type your move:").press("Enter")
    page.wait_for_url(re.compile(r"/confirm"))
    page.get_by_role("button", name=re.compile("^Play ")).click()
    page.wait_for_load_state()


def _game(server: Server, game_id: int) -> GameRecord:
    with server.database.session() as session:
        row = session.get(GameRecord, game_id)
    assert row is not None
    return row


@pytest.mark.parametrize("script", list(WAYS), ids=list(WAYS.values()))
def test_challenge_accept_play_resign_rematch(browser: Any, server: Server, script: bool) -> None:
    from playwright.sync_api import expect

    server.forget_limits()
    game_type = two_player_game()
    info = engine.GAMES[game_type]
    # Bob is on his phone.
    ann, bob = new_page(browser, script=script), new_page(browser, width=390, script=script)

    # Ann signs in from the email the mail catcher received.
    ann.goto(f"{server.base}/sign-in")
    ann.get_by_label(re.compile("address", re.I)).fill(ANN)
    ann.get_by_role("button", name=re.compile("sign-in link|Send", re.I)).click()
    _follow_mail(ann, server, ANN, "Sign in")
    ann.get_by_role("button", name="Sign in").click()
    expect(ann).to_have_url(re.compile(r"/account$"))  # her games, no token in the address

    # From her games page: a challenge to Bob.
    ann.get_by_role("link", name="Challenge players").click()
    ann.get_by_role("link", name=info.name, exact=True).click()
    _axe_finds_nothing(ann, "new challenge form")
    ann.get_by_label(re.compile("Players to invite")).fill(BOB)
    ann.get_by_role("button", name="Send the challenge").click()
    expect(ann.get_by_text("not answered yet")).to_be_visible()
    _axe_finds_nothing(ann, "challenge page")
    ann.goto(f"{server.base}/seeks")
    _axe_finds_nothing(ann, "seeks page")

    # Bob accepts from his email, on his phone.
    _follow_mail(bob, server, BOB, "Accept or decline")
    _axe_finds_nothing(bob, "invitation on a phone")
    bob.get_by_role("button", name="Accept").click()
    expect(bob.get_by_text("The game has started")).to_be_visible()
    with server.database.session() as session:
        challenge = session.exec(select(Challenge).order_by(col(Challenge.id).desc())).first()
    assert challenge is not None
    assert challenge.status == ChallengeStatus.STARTED and challenge.game_id is not None
    game_id = challenge.game_id

    # Two moves, each from the turn email of the player to move.
    pages = {ANN: ann, BOB: bob}
    for ply in range(2):
        row = _game(server, game_id)
        assert row.ply == ply and row.to_move is not None
        mover = ANN if row.to_move == 0 else BOB
        _follow_mail(pages[mover], server, mover, "Make your move")
        _play_a_move(pages[mover], server, game_id)
    assert _game(server, game_id).ply == 2

    # Bob resigns from his latest turn email.
    _follow_mail(bob, server, BOB, "Resign")
    bob.get_by_role("button", name=re.compile("resign", re.I)).click()
    assert _game(server, game_id).status == GameStatus.FINISHED

    # Both accept the rematch from their game-over emails: it starts, seats turned round.
    _follow_mail(ann, server, ANN, "Rematch")
    _axe_finds_nothing(ann, "rematch page")
    ann.get_by_role("button", name="Accept the rematch").click()
    expect(ann.get_by_text("You have accepted")).to_be_visible()
    _follow_mail(bob, server, BOB, "Accept or decline")
    bob.get_by_role("button", name="Accept the rematch").click()
    expect(bob.get_by_text("The rematch has started")).to_be_visible()
    with server.database.session() as session:
        rematch = session.exec(select(Challenge).where(Challenge.rematch_of == game_id)).one()
        assert rematch.status == ChallengeStatus.STARTED and rematch.game_id is not None
        new = session.get(GameRecord, rematch.game_id)
        assert new is not None and new.status == GameStatus.ACTIVE
    put_back(ann)
    put_back(bob)
