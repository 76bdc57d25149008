"""Rematches from the game-over email (pbem.web.challenges.rematch): the link only shows a
page (mail scanners follow links), its button accepts; the others get an offer and the rematch
starts, seats turned round, when all have accepted."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Flask
from sqlmodel import select

from pbem.challenges.tables import Challenge, ChallengeStatus
from pbem.db import Database
from pbem.models import GameRecord, GameStatus, Seat
from pbem.services import PlayerSpec, Site, resign
from tests.support import BASE_URL, Mailbox, csrf_of, start_a_game, two_player_game

ANN = PlayerSpec("Ann", "ann@example.test")
BOB = PlayerSpec("Bob", "bob@example.test")


def _finished_game(app: Flask, database: Database, mailbox: Mailbox) -> tuple[int, dict[str,
                                                                                          str]]:
    """A game Ann and Bob played, Bob resigned; each one's rematch link from their email."""
    site: Site = app.extensions["pbem.site"]
    now = datetime.now(UTC)
    game_id = start_a_game(database, now, site, two_player_game(), players=[ANN, BOB])
    with database.write() as session:
        resign(session, now, site, game_id=game_id, seat=1)
    links = {}
    for message in mailbox.deliver():
        if message["Subject"].startswith("Game over"):
            who = message["To"].addresses[0].username
            links[who] = Mailbox.link(message, "/rematch/").removeprefix(BASE_URL)
            assert "Rematch" in message.get_body(("html",)).get_content()
    assert set(links) == {"ann", "bob"}
    return game_id, links


def _rematch(database: Database) -> Challenge | None:
    with database.session() as session:
        return session.exec(select(Challenge)).first()


def test_a_rematch_from_the_game_over_emails(
    app: Flask, sqlite_database: Database, mailbox: Mailbox,
) -> None:
    game_id, links = _finished_game(app, sqlite_database, mailbox)
    ann = app.test_client()
    page = ann.get(links["ann"])  # a mail scanner's GET and HEAD change nothing
    ann.head(links["ann"])
    assert page.status_code == 200 and 'value="accept"' in page.text
    assert _rematch(sqlite_database) is None
    asked = ann.post(links["ann"], data={"csrf_token": csrf_of(page.text), "action": "accept"})
    assert asked.status_code == 200 and "You have accepted" in asked.text
    [offer] = mailbox.deliver()
    assert offer["To"].addresses[0].username == "bob" and "rematch" in offer["Subject"]
    bob_link = Mailbox.link(offer, "/rematch/").removeprefix(BASE_URL)
    assert bob_link == links["bob"]  # his game-over link does the same
    bob = app.test_client()
    shown = bob.get(bob_link)
    assert 'value="decline"' in shown.text and "Ann" in shown.text
    done = bob.post(bob_link, data={"csrf_token": csrf_of(shown.text), "action": "accept"})
    assert done.status_code == 200 and "The rematch has started" in done.text
    rematch = _rematch(sqlite_database)
    assert rematch is not None and rematch.status == ChallengeStatus.STARTED
    with sqlite_database.session() as session:
        old = session.get(GameRecord, game_id)
        new = session.get(GameRecord, rematch.game_id)
        assert old is not None and new is not None and new.status == GameStatus.ACTIVE
        assert new.options == old.options and new.game_type == old.game_type
        old_seats = [s.player_id for s in session.exec(
            select(Seat).where(Seat.game_id == game_id).order_by(Seat.seat))]  # type: ignore[arg-type]
        new_seats = [s.player_id for s in session.exec(
            select(Seat).where(Seat.game_id == new.id).order_by(Seat.seat))]  # type: ignore[arg-type]
    assert new_seats == old_seats[1:] + old_seats[:1]
    again = ann.post(links["ann"], data={"csrf_token": csrf_of(page.text), "action": "accept"})
    assert again.status_code == 409 and "become a game already" in again.text


def test_a_declined_rematch_tells_the_asker(
    app: Flask, sqlite_database: Database, mailbox: Mailbox,
) -> None:
    _game_id, links = _finished_game(app, sqlite_database, mailbox)
    ann = app.test_client()
    page = ann.get(links["ann"])
    ann.post(links["ann"], data={"csrf_token": csrf_of(page.text), "action": "accept"})
    mailbox.deliver()
    bob = app.test_client()
    shown = bob.get(links["bob"])
    answer = bob.post(links["bob"], data={"csrf_token": csrf_of(shown.text),
                                          "action": "decline"})
    assert answer.status_code == 200 and "Rematch declined" in answer.text
    rematch = _rematch(sqlite_database)
    assert rematch is not None and rematch.status == ChallengeStatus.DECLINED
    [told] = mailbox.deliver()
    assert told["To"].addresses[0].username == "ann" and "declined" in told["Subject"]
    assert told["Subject"] == "Rematch declined"  # not "Challenge declined"
    assert "Bob declined the rematch of" in told.get_body(("plain",)).get_content()
    assert "will not happen" in ann.get(links["ann"]).text


def test_the_rematch_declined_page_leads_on(
    app: Flask, sqlite_database: Database, mailbox: Mailbox,
) -> None:
    _game_id, links = _finished_game(app, sqlite_database, mailbox)
    ann = app.test_client()
    ann.post(links["ann"], data={"csrf_token": csrf_of(ann.get(links["ann"]).text),
                                 "action": "accept"})
    bob = app.test_client()
    answer = bob.post(links["bob"], data={"csrf_token": csrf_of(bob.get(links["bob"]).text),
                                          "action": "decline"})
    assert answer.status_code == 200 and "Rematch declined" in answer.text
    assert 'href="/account"' in answer.text  # their games page, the way on
    assert "/me/" not in answer.text  # a rematch link must not hand out the games-page link


def test_damaged_rematch_links(app: Flask, sqlite_database: Database,
                               mailbox: Mailbox) -> None:
    _game_id, links = _finished_game(app, sqlite_database, mailbox)
    client = app.test_client()
    assert client.get(links["ann"][:-3]).status_code == 400
    assert client.get("/rematch/nothing").status_code == 400
    page = client.get(links["ann"])
    assert client.post(links["ann"], data={"csrf_token": csrf_of(page.text),
                                           "action": "maybe"}).status_code == 409
    assert client.post(links["ann"], data={"action": "accept"}).status_code == 400  # no CSRF
    assert _rematch(sqlite_database) is None
