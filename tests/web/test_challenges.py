"""Challenges through the web (pbem.web.challenges): a signed-in player fills the form, the
invitee answers from the emailed link (a GET only shows), the creator or the dashboard cancels,
and bad input or a limit gets a clear answer with nothing lost."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import pbem.ratelimit  # noqa: F401  (its table must be on the test databases' metadata)
from pbem.challenges.tables import Challenge, ChallengeStatus
from pbem.db import Database
from pbem.models import GameRecord, GameStatus, Player
from tests.support import Mailbox, csrf_of, smallest_options, two_player_game
from tests.web.sessions import signed_in


def make_player(database: Database, name: str, email: str) -> int:
    with database.write() as session:
        player = Player(name=name, email=email, created_at=datetime.now(UTC))
        session.add(player)
        session.flush()
        assert player.id is not None
        return player.id


def challenge_form(client: FlaskClient, game: str, **fields: str) -> Any:
    """Open the form for ``game`` and send it with its defaults and ``fields``."""
    page = client.get(f"/challenges/new?game={game}")
    assert page.status_code == 200, page.text
    data = {"csrf_token": csrf_of(page.text), "game": game, "kind": "invite",
            "time_control": "3d per move", "policy": "default", "seat_order": "first",
            "rated": "on",
            **{f"option-{k}": str(v) for k, v in smallest_options(game).items()}, **fields}
    return client.post("/challenges/new", data=data)


def press(client: FlaskClient, path: str, **fields: str) -> Any:
    """Open ``path`` and press one of its buttons."""
    page = client.get(path)
    return client.post(path, data={"csrf_token": csrf_of(page.text), **fields})


def challenge(database: Database) -> Challenge:
    with database.session() as session:
        rows = list(session.exec(select(Challenge).order_by(Challenge.id.desc())))  # type: ignore[union-attr]
    return rows[0]


def test_a_challenge_from_the_form_to_the_game(
    app: Flask, sqlite_database: Database, mailbox: Mailbox,
) -> None:
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    client = signed_in(app, sqlite_database, ann)
    games_page = client.get("/challenges/new")
    assert games_page.status_code == 200 and "?game=" in games_page.text
    game = two_player_game()
    sent = challenge_form(client, game, invitees="Bob <BOB@example.test>",
                          seat_order="second")
    assert sent.status_code == 303
    page = client.get(sent.headers["Location"])
    assert "Bob" in page.text and "not answered yet" in page.text
    assert 'value="cancel"' in page.text
    [invitation] = [m for m in mailbox.deliver() if m["To"].addresses[0].username == "bob"]
    assert "Ann challenges you" in invitation["Subject"]
    link = Mailbox.link(invitation, "/challenge/")
    bob = app.test_client()  # Bob is not signed in: the link is enough
    path = link.removeprefix("http://localhost")
    shown = bob.get(path)  # what a mail scanner does: nothing changes
    bob.head(path)
    assert shown.status_code == 200 and 'value="accept"' in shown.text
    assert challenge(sqlite_database).status == ChallengeStatus.OPEN
    accepted = bob.post(path, data={"csrf_token": csrf_of(shown.text), "action": "accept"})
    assert accepted.status_code == 303
    row = challenge(sqlite_database)
    assert row.status == ChallengeStatus.STARTED and row.game_id is not None
    with sqlite_database.session() as session:
        made = session.get(GameRecord, row.game_id)
        assert made is not None and made.status == GameStatus.ACTIVE
    assert "The game has started" in bob.get(path).text
    turn = [m for m in mailbox.deliver() if m["To"].addresses[0].username == "bob"]
    assert any("Your turn" in m["Subject"] for m in turn)  # Bob sits first: Ann chose second


def test_a_decline_from_the_link_closes_it(
    app: Flask, sqlite_database: Database, mailbox: Mailbox,
) -> None:
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    client = signed_in(app, sqlite_database, ann)
    assert challenge_form(client, two_player_game(),
                          invitees="bob@example.test").status_code == 303
    [invitation] = mailbox.deliver()
    path = Mailbox.link(invitation, "/challenge/").removeprefix("http://localhost")
    bob = app.test_client()
    form = csrf_of(bob.get(path).text)  # a second tab, left open
    assert press(bob, path, action="decline").status_code == 303
    assert challenge(sqlite_database).status == ChallengeStatus.DECLINED
    [told] = mailbox.deliver()
    assert told["To"].addresses[0].username == "ann" and "declined" in told["Subject"]
    late = bob.post(path, data={"csrf_token": form, "action": "accept"})
    assert late.status_code == 409 and 'value="accept"' not in late.text
    assert "was declined" in late.text
    assert challenge(sqlite_database).status == ChallengeStatus.DECLINED


def test_bad_input_is_refused_and_kept(app: Flask, sqlite_database: Database) -> None:
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    client = signed_in(app, sqlite_database, ann)
    game = two_player_game()
    typo = challenge_form(client, game, invitees="bob@@example")
    assert typo.status_code == 400 and "not made" in typo.text and "bob@@example" in typo.text
    clock = challenge_form(client, game, invitees="bob@example.test",
                           time_control="1 minute per move")
    assert clock.status_code == 400 and "time controls" in clock.text
    myself = challenge_form(client, game, invitees="ann@example.test")
    assert myself.status_code == 400 and "invite the others" in myself.text
    nobody = challenge_form(client, game, invitees="")
    assert nobody.status_code == 400
    assert client.get("/challenges/new?game=no-such-game").status_code == 400
    with sqlite_database.session() as session:
        assert session.exec(select(Challenge)).first() is None


def test_signed_out_visitors_are_sent_to_sign_in(app: Flask, client: FlaskClient) -> None:
    for path in ("/challenges/new", "/challenges"):
        answer = client.get(path)
        assert answer.status_code == 303 and answer.headers["Location"].endswith("/sign-in")
    token = csrf_of(client.get("/sign-in").text)
    answer = client.post("/challenges/new", data={"csrf_token": token, "game": "x"})
    assert answer.status_code == 303
    assert client.get("/challenge/not-a-token").status_code == 400
    assert client.get("/challenges/nope").status_code == 400


def test_only_the_creator_cancels(app: Flask, sqlite_database: Database,
                                  mailbox: Mailbox) -> None:
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    bob = make_player(sqlite_database, "Bob", "bob@example.test")
    client = signed_in(app, sqlite_database, ann)
    sent = challenge_form(client, two_player_game(), invitees="bob@example.test")
    path = sent.headers["Location"]
    bobs = signed_in(app, sqlite_database, bob)
    page = bobs.get(path)
    assert 'value="cancel"' not in page.text and 'value="accept"' in page.text
    refused = bobs.post(path, data={"csrf_token": csrf_of(page.text), "action": "cancel"})
    assert refused.status_code == 409 and "only the player who made" in refused.text
    assert press(client, path, action="cancel").status_code == 303
    assert challenge(sqlite_database).status == ChallengeStatus.CANCELLED
    assert "was cancelled" in client.get(path).text
    assert "Your challenges" in client.get("/challenges").text


def test_the_open_challenge_limit(app: Flask, sqlite_database: Database) -> None:
    app.config["MAX_OPEN_CHALLENGES"] = 1
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    client = signed_in(app, sqlite_database, ann)
    game = two_player_game()
    assert challenge_form(client, game, invitees="bob@example.test").status_code == 303
    over = challenge_form(client, game, invitees="cat@example.test")
    assert over.status_code == 400 and "1 open challenges" in over.text
    assert "cat@example.test" in over.text  # what was typed is kept


def test_the_games_page_links_here(app: Flask, sqlite_database: Database) -> None:
    from pbem.services import Site

    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    site: Site = app.extensions["pbem.site"]
    link = app.test_client().get(site.links.my_games_url(ann).removeprefix("http://localhost"))
    assert "/challenges/new" not in link.text  # the link alone shows only its button
    page = signed_in(app, sqlite_database, ann).get("/account")
    assert 'href="/challenges/new"' in page.text and 'href="/seeks"' in page.text


def test_an_organiser_cancels_from_the_dashboard(
    app: Flask, sqlite_database: Database, mailbox: Mailbox,
) -> None:
    from pbem.admin.accounts import create_admin
    from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD

    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    client = signed_in(app, sqlite_database, ann)
    challenge_form(client, two_player_game(), kind="seek")
    mailbox.deliver()
    with sqlite_database.write() as session:
        create_admin(session, datetime.now(UTC), ADMIN_EMAIL, ADMIN_PASSWORD)
    admin = app.test_client()
    token = csrf_of(admin.get("/admin/login").text)
    admin.post("/admin/login", data={"csrf_token": token, "email": ADMIN_EMAIL,
                                     "password": ADMIN_PASSWORD})
    listing = admin.get("/admin/challenges")
    assert listing.status_code == 200 and "ann@example.test" in listing.text
    row = challenge(sqlite_database)
    assert client.get("/admin/challenges").status_code != 200  # a player is no organiser
    forged = admin.post("/admin/challenges/cancel", data={"challenge_id": str(row.id)})
    assert forged.status_code == 400 and challenge(sqlite_database).status == "open"
    unknown = admin.post("/admin/challenges/cancel", data={
        "csrf_token": csrf_of(listing.text), "challenge_id": "99x"})
    assert unknown.status_code == 303 and "no such challenge" in admin.get(
        "/admin/challenges").text
    done = admin.post("/admin/challenges/cancel",
                      data={"csrf_token": csrf_of(listing.text), "challenge_id": str(row.id)})
    assert done.status_code == 303
    assert challenge(sqlite_database).status == ChallengeStatus.CANCELLED
    assert "cancelled" in admin.get("/admin/challenges?status=all").text
    [told] = mailbox.deliver()
    assert told["To"].addresses[0].username == "ann" and "organisers cancelled" in \
        told.get_body(("plain",)).get_content()


def test_challenges_are_rate_limited(app: Flask, sqlite_database: Database,
                                     monkeypatch: Any) -> None:
    import pbem.web.challenges

    monkeypatch.setattr(pbem.web.challenges, "CHALLENGE_LIMIT", "2 per hour")
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    client = signed_in(app, sqlite_database, ann)
    game = two_player_game()
    for address in ("bob@example.test", "cat@example.test"):
        sent = challenge_form(client, game, invitees=address)
        assert sent.status_code == 303
        assert press(client, sent.headers["Location"], action="cancel").status_code == 303
    over = challenge_form(client, game, invitees="dan@example.test")
    assert over.status_code == 429 and "too many challenges" in over.text
    with sqlite_database.session() as session:
        assert len(session.exec(select(Challenge)).all()) == 2


def test_refused_forms_do_not_count_toward_the_limit(app: Flask, sqlite_database: Database,
                                                    monkeypatch: Any) -> None:
    import pbem.web.challenges

    monkeypatch.setattr(pbem.web.challenges, "CHALLENGE_LIMIT", "2 per hour")
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    client = signed_in(app, sqlite_database, ann)
    game = two_player_game()
    for typo in ("bob@@example", "", "ann@example.test"):
        assert challenge_form(client, game, invitees=typo).status_code == 400
    for address in ("bob@example.test", "cat@example.test"):
        sent = challenge_form(client, game, invitees=address)
        assert sent.status_code == 303
        assert press(client, sent.headers["Location"], action="cancel").status_code == 303
    assert challenge_form(client, game, invitees="dan@example.test").status_code == 429


def test_rated_is_shown_and_never_with_the_computer(
    app: Flask, sqlite_database: Database, mailbox: Mailbox,
) -> None:
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    client = signed_in(app, sqlite_database, ann)
    sent = challenge_form(client, "mosey", invitees="bob@example.test",
                          **{"option-order": "5"})
    page = client.get(sent.headers["Location"]).text
    assert "Rated." in page and "Options: Board size 5." in page and "order 5" not in page
    [invitation] = mailbox.deliver()
    assert "Rated." in invitation.get_body(("plain",)).get_content()
    assert "(Board size 5)" in invitation.get_body(("html",)).get_content()
    unrated = challenge_form(client, "mosey", invitees="bot")  # the box ticked: not counted
    assert unrated.status_code == 303
    assert "Not rated." in client.get(unrated.headers["Location"]).text
    assert challenge(sqlite_database).rated is False


def test_the_form_shows_the_example_address(app: Flask, sqlite_database: Database) -> None:
    client = signed_in(app, sqlite_database, make_player(sqlite_database, "Ann",
                                                         "ann@example.test"))
    page = client.get(f"/challenges/new?game={two_player_game()}").text
    assert "Ann &lt;ann@example.org&gt;" in page


def test_an_address_listed_twice_is_named(app: Flask, sqlite_database: Database) -> None:
    client = signed_in(app, sqlite_database, make_player(sqlite_database, "Ann",
                                                         "ann@example.test"))
    twice = challenge_form(client, "mosey", invitees="bob@example.test\nBob@example.test")
    assert twice.status_code == 400 and "bob@example.test is listed twice" in twice.text
    assert "seats" not in twice.text.split("not made")[1].split("</p>")[0]


def test_a_preset_that_does_not_parse_stops_the_start() -> None:
    import pytest

    from pbem import create_app

    with pytest.raises(ValueError, match="PBEM_CHALLENGE_TIME_CONTROLS"):
        create_app({"DATABASE_URL": "sqlite://", "CHALLENGE_TIME_CONTROLS": "3d; soon"},
                   read_env=False)


def test_an_unlisted_challenge_makes_an_unlisted_game(
    app: Flask, sqlite_database: Database, mailbox: Mailbox,
) -> None:
    """The issue: "a game can be created unlisted" — by a player's challenge too; the archive
    leaves it out, its rematch stays unlisted."""
    ann = make_player(sqlite_database, "Ann", "ann@example.test")
    client = signed_in(app, sqlite_database, ann)
    sent = challenge_form(client, two_player_game(), invitees="bob@example.test",
                          unlisted="on")
    assert sent.status_code == 303
    assert "Unlisted." in client.get(sent.headers["Location"]).text
    [invitation] = mailbox.deliver()
    path = Mailbox.link(invitation, "/challenge/").removeprefix("http://localhost")
    assert press(app.test_client(), path, action="accept").status_code == 303
    row = challenge(sqlite_database)
    assert not row.listed and row.game_id is not None
    with sqlite_database.session() as session:
        made = session.get(GameRecord, row.game_id)
        assert made is not None and not made.listed
    listed = challenge_form(client, two_player_game(), invitees="bob@example.test")
    assert "Unlisted." not in client.get(listed.headers["Location"]).text
    assert challenge(sqlite_database).listed


def test_an_unknown_game_is_named(app: Flask, sqlite_database: Database) -> None:
    """A stale form or a typo in the address: the list of games again, saying what was wrong."""
    client = signed_in(app, sqlite_database, make_player(sqlite_database, "Ann",
                                                         "ann@example.test"))
    page = client.get("/challenges/new?game=zzz")
    assert page.status_code == 400
    assert "The challenge was not made" in page.text and "zzz" in page.text
    assert "?game=" in page.text  # the games to choose from
