"""Open seeks (pbem.web.seeks): the list, filtered by game, its join buttons, and the last seat
joined by two players at the same moment through a real server with several worker processes
(one seat each at most, the one too late told so, never a server error)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from flask import Flask
from sqlmodel import select

import engine
from pbem.challenges.tables import Challenge, ChallengePlayer, ChallengeStatus
from pbem.db import Database
from pbem.models import GameRecord, Seat
from pbem.web.player_sessions import issue_link
from tests.support import BACKENDS, csrf_of, make_database, start_gunicorn, two_player_game
from tests.web.test_challenges import challenge_form, make_player, signed_in
from tests.web.test_double_confirm import Browser, _schema, post_at_once

ROUNDS = 3


def _seek_ids(database: Database) -> list[str]:
    with database.session() as session:
        return [c.public_id for c in session.exec(select(Challenge).order_by(Challenge.id))]  # type: ignore[arg-type]


def test_the_seeks_page_filters_and_joins(app: Flask, sqlite_database: Database) -> None:
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    bob = make_player(sqlite_database, "Bob", "bob@example.test")
    game = two_player_game()
    anns = signed_in(app, sqlite_database, ann)
    assert challenge_form(anns, game, kind="seek").status_code == 303
    [seek] = _seek_ids(sqlite_database)
    visitor = app.test_client()
    listing = visitor.get("/seeks")
    assert listing.status_code == 200 and seek in listing.text
    assert "Sign in to join" in listing.text and "/join" not in listing.text
    other = next((g for g in engine.GAMES if g != game), None)
    if other is not None:
        assert seek not in visitor.get(f"/seeks?game={other}").text
    assert seek in visitor.get(f"/seeks?game={game}").text
    unknown = visitor.get("/seeks?game=zzz")  # an unknown filter shows all, and says so
    assert seek in unknown.text and "There is no game called zzz" in unknown.text
    assert "Sign in to join" in visitor.get(f"/challenges/{seek}").text

    own = anns.get("/seeks")
    assert "(you are in)" in own.text
    again = anns.post(f"/seeks/{seek}/join",
                      data={"csrf_token": csrf_of(anns.get("/sign-in").text)})
    assert again.status_code == 400 and "joined this seek already" in again.text

    bobs = signed_in(app, sqlite_database, bob)
    page = bobs.get(f"/seeks?game={game}")
    joined = bobs.post(f"/seeks/{seek}/join", data={"csrf_token": csrf_of(page.text),
                                                     "game": game})
    assert joined.status_code == 303
    with sqlite_database.session() as session:
        row = session.exec(select(Challenge)).one()
        assert row.status == ChallengeStatus.STARTED and row.game_id is not None
        assert session.get(GameRecord, row.game_id) is not None
    assert seek not in visitor.get("/seeks").text  # a full seek is no longer listed
    assert "The game has started" in bobs.get(f"/challenges/{seek}").text


def test_joining_needs_a_signed_in_player(app: Flask, sqlite_database: Database) -> None:
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    challenge_form(signed_in(app, sqlite_database, ann), two_player_game(), kind="seek")
    [seek] = _seek_ids(sqlite_database)
    visitor = app.test_client()
    token = csrf_of(visitor.get("/sign-in").text)
    answer = visitor.post(f"/seeks/{seek}/join", data={"csrf_token": token})
    assert answer.status_code == 303 and "/sign-in?" in answer.headers["Location"]
    assert visitor.post(f"/seeks/{seek}/join").status_code == 400  # no CSRF token
    told = visitor.get(answer.headers["Location"])  # why, and back to the seeks afterwards
    assert "Sign in to join this seek" in told.text
    with sqlite_database.write() as session:
        link = issue_link(session, datetime.now(UTC), ann)
    page = visitor.get(f"/sign-in/{link}")
    back = visitor.post(f"/sign-in/{link}", data={"csrf_token": csrf_of(page.text)})
    assert back.status_code == 303 and back.headers["Location"] == "/seeks"


def test_the_seeks_page_says_rated_and_words_the_options(
    app: Flask, sqlite_database: Database,
) -> None:
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    assert challenge_form(signed_in(app, sqlite_database, ann), "mosey", kind="seek",
                          **{"option-order": "5"}).status_code == 303
    listing = app.test_client().get("/seeks").text
    assert "(Board size 5)" in listing and "order 5" not in listing
    assert "; rated." in listing


def _browser_signed_in(database: Database, url: str, player_id: int) -> Browser:
    with database.write() as session:
        token = issue_link(session, datetime.now(UTC), player_id)
    browser = Browser()
    status, page = browser.open(f"{url}/sign-in/{token}")
    assert status == 200
    status, _ = browser.open(f"{url}/sign-in/{token}", {"csrf_token": csrf_of(page)})
    assert status == 303
    return browser


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_joins_for_the_last_seat_at_once(backend: str, tmp_path: Path) -> None:
    database, remove = make_database(backend, tmp_path, migrate=True)
    server = start_gunicorn(database.url, workers=3, env=_schema(database))
    try:
        game = two_player_game()
        ann = make_player(database, "Ann", "ann@example.test")
        joiners = [make_player(database, name, f"{name.lower()}@example.test")
                   for name in ("Bob", "Cat")]
        creator = _browser_signed_in(database, server.url, ann)
        browsers = [_browser_signed_in(database, server.url, p) for p in joiners]
        for _ in range(ROUNDS):
            status, page = creator.open(f"{server.url}/challenges/new?game={game}")
            assert status == 200
            options = {f"option-{o.name}": str(o.choices[0]) for o in engine.GAMES[game].options}
            status, _ = creator.open(f"{server.url}/challenges/new", {
                "csrf_token": csrf_of(page), "game": game, "kind": "seek",
                "time_control": "3d per move", "policy": "default", "seat_order": "first",
                **options})
            assert status == 303
            seek = _seek_ids(database)[-1]
            forms = []
            for browser in browsers:
                status, page = browser.open(f"{server.url}/seeks")
                assert status == 200 and seek in page
                forms.append({"csrf_token": csrf_of(page)})
            answers = post_at_once(f"{server.url}/seeks/{seek}/join", browsers, forms)
            statuses = sorted(status for status, _ in answers)
            assert statuses == [303, 409], answers
            refused = next(page for status, page in answers if status == 409)
            assert "You did not join" in refused and "seat" in refused
            with database.session() as session:
                row = session.exec(select(Challenge).where(Challenge.public_id == seek)).one()
                people = session.exec(select(ChallengePlayer).where(
                    ChallengePlayer.challenge_id == row.id)).all()
                assert row.status == ChallengeStatus.STARTED and row.game_id is not None
                seats = session.exec(select(Seat).where(Seat.game_id == row.game_id)).all()
            assert sorted(p.slot for p in people) == [0, 1]
            assert len({s.player_id for s in seats}) == len(seats) == 2
            assert ann in {s.player_id for s in seats}
    finally:
        server.stop()
        remove()
