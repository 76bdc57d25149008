"""The organiser's actions: each confirmed by a POST with a CSRF token, each in the audit log."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

import engine
from pbem.admin import actions
from pbem.db import Database
from pbem.models import AuditEntry, GameRecord, OutboxEmail, Seat
from pbem.services import PlayerSpec, ServiceError, Site, create_game, start_game
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD, clock_in, csrf_of, two_player_game

EMAIL, PASSWORD = ADMIN_EMAIL, ADMIN_PASSWORD
LINK = re.compile(r"http://localhost(/(?:play|invite|seat|resign)/\S+)")


def _new_game(database: Database, site: Site, *, start: bool) -> int:
    """A game made with the app's own links (bound to seat holders once seats are committed)."""
    game_type = two_player_game()
    now = datetime.now(UTC)
    with database.write() as session:
        row = create_game(session, now, site, game_type=game_type,
                          options={o.name: o.choices[0] for o in engine.GAMES[game_type].options},
                          players=[PlayerSpec("Ann", "ann@example.test"),
                                   PlayerSpec("Bob", "bob@example.test")],
                          time_control=None)
        assert row.id is not None
        game_pk = row.id
    if start:
        with database.write() as session:
            start_game(session, now, site, game_id=game_pk, force=True)
    return game_pk


@pytest.fixture
def app_site(app: Flask) -> Site:
    site: Site = app.extensions["pbem.site"]
    return site


def _game(database: Database, game_pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None
    return row


def _audit(database: Database, game_pk: int) -> list[AuditEntry]:
    with database.session() as session:
        return list(session.exec(select(AuditEntry).where(AuditEntry.game_id == game_pk)
                                 .order_by(col(AuditEntry.id))))


def _mail(database: Database, game_pk: int, to: str, kind: str | None = None) -> list[OutboxEmail]:
    with database.session() as session:
        query = select(OutboxEmail).where(OutboxEmail.game_id == game_pk,
                                          OutboxEmail.to_address == to)
        if kind:
            query = query.where(OutboxEmail.kind == kind)
        return list(session.exec(query.order_by(col(OutboxEmail.id))))


def _links(mail: OutboxEmail) -> list[str]:
    return LINK.findall(mail.text_body)


def _act(client: FlaskClient, game_pk: int, action: str, **fields: Any) -> Any:
    page = client.get(f"/admin/games/{game_pk}/{action}")
    assert page.status_code == 200, page.text
    return client.post(f"/admin/games/{game_pk}/{action}",
                       data={"csrf_token": csrf_of(page.text), **fields})


def test_confirm_pages_do_nothing_and_forged_posts_are_refused(
    admin_client: FlaskClient, sqlite_database: Database, app_site: Site,
) -> None:
    game_pk = _new_game(sqlite_database, app_site, start=True)
    before = (_game(sqlite_database, game_pk), len(_audit(sqlite_database, game_pk)))
    for name in ("resend", "extend", "pause", "replace", "adjudicate", "abort"):
        page = admin_client.get(f"/admin/games/{game_pk}/{name}")
        assert page.status_code == 200 and "Confirm:" in page.text and "Cancel" in page.text
        forged = admin_client.post(f"/admin/games/{game_pk}/{name}",
                                   data={"by": "1d", "reason": "x", "seat": "0",
                                         "email": "eve@example.test"})
        assert forged.status_code == 400, name
    after = (_game(sqlite_database, game_pk), len(_audit(sqlite_database, game_pk)))
    assert after == before
    assert admin_client.get(f"/admin/games/{game_pk}/explode").status_code == 404


def test_resend_the_turn_email(admin_client: FlaskClient, sqlite_database: Database,
                               app_site: Site) -> None:
    game_pk = _new_game(sqlite_database, app_site, start=True)
    to_move = _game(sqlite_database, game_pk).to_move
    address = ["ann@example.test", "bob@example.test"][to_move or 0]
    assert len(_mail(sqlite_database, game_pk, address, "turn")) == 1
    done = _act(admin_client, game_pk, "resend")
    assert done.status_code == 303
    turns = _mail(sqlite_database, game_pk, address, "turn")
    assert len(turns) == 2 and _links(turns[0])[0] == _links(turns[1])[0]
    entry = _audit(sqlite_database, game_pk)[-1]
    assert entry.action == "turn email resent" and entry.detail["actor"] == EMAIL
    assert "The turn email is on its way again" in admin_client.get(done.headers["Location"]).text


def test_extend_pause_and_resume(admin_client: FlaskClient, sqlite_database: Database,
                                 app_site: Site) -> None:
    game_pk = _new_game(sqlite_database, app_site, start=True)
    deadline = clock_in(sqlite_database, game_pk).deadline
    assert deadline is not None
    bad = _act(admin_client, game_pk, "extend", by="a while")
    assert bad.status_code == 422 and 'value="a while"' in bad.text
    assert clock_in(sqlite_database, game_pk).deadline == deadline
    assert _act(admin_client, game_pk, "extend", by="1d").status_code == 303
    extended = clock_in(sqlite_database, game_pk).deadline
    assert extended is not None and extended - deadline == timedelta(days=1)
    assert _act(admin_client, game_pk, "pause").status_code == 303
    paused = clock_in(sqlite_database, game_pk)
    assert paused.paused_at is not None and paused.deadline is None
    assert "paused" in admin_client.get("/admin/").text
    again = _act(admin_client, game_pk, "pause")
    assert again.status_code == 409 and "already paused" in again.text
    assert _act(admin_client, game_pk, "resume").status_code == 303
    assert clock_in(sqlite_database, game_pk).paused_at is None
    actions_done = [(e.action, e.detail.get("actor")) for e in _audit(sqlite_database, game_pk)]
    for action in ("deadline extended", "game paused", "game resumed"):
        assert (action, EMAIL) in actions_done


def test_replacing_the_player_to_move_kills_their_links(
    admin_client: FlaskClient, client: FlaskClient, sqlite_database: Database, app_site: Site,
) -> None:
    game_pk = _new_game(sqlite_database, app_site, start=True)
    seat = _game(sqlite_database, game_pk).to_move
    assert seat is not None
    old_address = ["ann@example.test", "bob@example.test"][seat]
    old_links = [link for mail in _mail(sqlite_database, game_pk, old_address)
                 for link in _links(mail)]
    move_link = next(link for link in old_links if link.startswith("/play/"))
    assert client.get(move_link).status_code == 200
    replaced = _act(admin_client, game_pk, "replace", seat=str(seat), name="Cat",
                    email="cat@example.test")
    assert replaced.status_code == 303
    for link in old_links:
        dead = client.get(link)
        assert dead.status_code == 410, link
        assert "no longer yours" in dead.text
    token = csrf_of(client.get("/admin/account").text)  # a real token of this session
    assert client.post(move_link + "/confirm", data={"move": "x", "csrf_token": token}
                       ).status_code == 410
    turn = _mail(sqlite_database, game_pk, "cat@example.test", "turn")
    assert len(turn) == 1
    fresh = next(link for link in _links(turn[0]) if link.startswith("/play/"))
    assert fresh != move_link and client.get(fresh).status_code == 200
    with sqlite_database.session() as session:
        seat_row = session.exec(select(Seat).where(Seat.game_id == game_pk,
                                                   Seat.seat == seat)).one()
    entry = _audit(sqlite_database, game_pk)[-1]
    assert entry.action == "player replaced" and entry.detail["actor"] == EMAIL
    assert entry.player_id == seat_row.player_id
    players = admin_client.get(f"/admin/players?q={old_address}").text
    assert f"replaced in <a href=\"/admin/games/{game_pk}\">" in players
    seats = admin_client.get(f"/admin/games/{game_pk}").text.split("<h2>Clock</h2>")[0]
    assert "cat@example.test" in seats and old_address not in seats


def test_replacing_an_invited_player_kills_the_invitation(
    admin_client: FlaskClient, client: FlaskClient, sqlite_database: Database, app_site: Site,
) -> None:
    game_pk = _new_game(sqlite_database, app_site, start=False)
    invitation = _mail(sqlite_database, game_pk, "bob@example.test", "invitation")[0]
    old_invite = next(link for link in _links(invitation) if link.startswith("/invite/"))
    assert client.get(old_invite).status_code == 200
    assert _act(admin_client, game_pk, "replace", seat="1", name="",
                email="dan@example.test").status_code == 303
    dead = client.get(old_invite)
    assert dead.status_code == 410 and "no longer yours" in dead.text
    new_invite = next(link for link in _links(
        _mail(sqlite_database, game_pk, "dan@example.test", "invitation")[0])
        if link.startswith("/invite/"))
    page = client.get(new_invite)
    assert page.status_code == 200
    accepted = client.post(new_invite, data={"csrf_token": csrf_of(page.text), "answer": "accept"})
    assert accepted.status_code == 200 and "accepted" in accepted.text.lower()
    audit = admin_client.get("/admin/audit").text
    assert re.search(r"invitation accepted</td>\s*<td[^>]*>dan@example.test<", audit)
    same = _act(admin_client, game_pk, "replace", seat="1", email="ann@example.test")
    assert same.status_code == 409 and "already plays another seat" in same.text
    bad = _act(admin_client, game_pk, "replace", seat="1", email="nobody")
    assert bad.status_code == 422 and "email address" in bad.text


def test_adjudicate_and_abort(admin_client: FlaskClient, sqlite_database: Database,
                              app_site: Site) -> None:
    game_pk = _new_game(sqlite_database, app_site, start=True)
    no_reason = _act(admin_client, game_pk, "adjudicate", winner="0", reason="")
    assert no_reason.status_code == 422 and "say why" in no_reason.text
    assert _act(admin_client, game_pk, "adjudicate", winner="0",
                reason="Bob stopped answering").status_code == 303
    row = _game(sqlite_database, game_pk)
    assert row.status == "finished" and row.winners == [0]
    assert "Bob stopped answering" in row.result
    assert len(_mail(sqlite_database, game_pk, "bob@example.test", "game_over")) == 1
    over = admin_client.get(f"/admin/games/{game_pk}/abort")
    assert over.status_code == 409 and "not available" in over.text
    other = _new_game(sqlite_database, app_site, start=True)
    assert _act(admin_client, other, "abort", reason="club closed").status_code == 303
    assert _game(sqlite_database, other).status == "aborted"
    entries = {(e.action, e.detail.get("actor")) for e in _audit(sqlite_database, game_pk)}
    assert ("game adjudicated", EMAIL) in entries
    assert ("abort requested", EMAIL) in {(e.action, e.detail.get("actor"))
                                          for e in _audit(sqlite_database, other)}
    audit_page = admin_client.get("/admin/audit").text
    assert "game adjudicated" in audit_page and EMAIL in audit_page


def test_a_substitute_takes_back_a_seat_the_computer_was_playing(
    database: Database, now: datetime, site: Site,
) -> None:
    from pbem.services import resign
    from tests.support import start_rifugio_of_three

    game_pk = start_rifugio_of_three(database, now, site)
    with database.write() as session:
        resign(session, now, site, game_id=game_pk, seat=1)
    with database.write() as session:
        actions.replace_player(session, now, site, game_id=game_pk, seat=1,
                               new_player=PlayerSpec("Dan", "dan@example.test"), actor=EMAIL)
    with database.session() as session:
        seat = session.exec(select(Seat).where(Seat.game_id == game_pk, Seat.seat == 1)).one()
        assert not seat.resigned and not seat.forfeited and seat.stand_in is None


def test_admin_services_on_every_backend(database: Database, now: datetime, site: Site) -> None:
    """The services behind the actions, on SQLite and PostgreSQL."""
    game_type = two_player_game()
    with database.write() as session:
        row = create_game(session, now, site, game_type=game_type,
                          options={o.name: o.choices[0] for o in engine.GAMES[game_type].options},
                          players=[PlayerSpec("Ann", "ann@example.test"),
                                   PlayerSpec("Bob", "bob@example.test")])
        assert row.id is not None
        game_pk = row.id
        start_game(session, now, site, game_id=game_pk, force=True)
    with database.write() as session:
        actions.replace_player(session, now, site, game_id=game_pk, seat=1,
                               new_player=PlayerSpec("Cat", "cat@example.test"), actor=EMAIL)
    with database.write() as session, pytest.raises(ServiceError, match="already has"):
        actions.replace_player(session, now, site, game_id=game_pk, seat=1,
                               new_player=PlayerSpec("Cat", "cat@example.test"), actor=EMAIL)
    with database.write() as session:
        actions.resend_turn_email(session, now, site, game_id=game_pk, actor=EMAIL)
        actions.adjudicate(session, now, site, game_id=game_pk, winners=[], reason="agreed draw",
                           actor=EMAIL)
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None and row.status == "finished" and row.winners == []
        assert "a draw" in row.result
    with database.write() as session, pytest.raises(ServiceError):
        actions.abort(session, now, site, game_id=game_pk, reason="", actor=EMAIL)


def test_links_the_cli_sends_after_a_replacement_work(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Replace an invited player, then start the game from the command line: the new player's
    move link works and the old player's invitation does not."""
    from click.testing import CliRunner

    from pbem import create_app
    from pbem.cli import main
    from pbem.services.common import site_from_config

    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    env = {"PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": "cli-secret",
           "PBEM_BASE_URL": "http://localhost"}
    game_type = two_player_game()
    runner = CliRunner()
    assert runner.invoke(main, ["db", "upgrade"], env=env).exit_code == 0
    created = runner.invoke(main, ["create-game", game_type, "--player", "Ann <ann@example.test>",
                                   "--player", "Bob <bob@example.test>"], env=env)
    assert created.exit_code == 0, created.output
    database = Database(url)
    game_pk = int(created.output.split()[1].rstrip(":"))
    old_invite = next(link for link in _links(
        _mail(database, game_pk, "ann@example.test", "invitation")[0])
        if link.startswith("/invite/"))
    with database.write() as session:
        actions.replace_player(session, datetime.now(UTC), site_from_config(database, {
            "SECRET_KEY": "cli-secret", "BASE_URL": "http://localhost",
            "MAIL_FROM": "pbem <pbem@localhost>"}), game_id=game_pk, seat=0,
            new_player=PlayerSpec("Cat", "cat@example.test"), actor=EMAIL)
    assert runner.invoke(main, ["start-game", str(game_pk)], env=env).exit_code == 0
    app = create_app({"ENV": "development", "TESTING": True, "SECRET_KEY": "cli-secret",
                      "BASE_URL": "http://localhost", "DATABASE": database,
                      "DATABASE_URL": url}, read_env=False)
    client = app.test_client()
    started = [m for m in _mail(database, game_pk, "cat@example.test") if m.kind != "invitation"]
    fresh = [link for mail in started for link in _links(mail)]
    assert any(link.startswith(("/play/", "/seat/")) for link in fresh), fresh
    for link in fresh:
        assert client.get(link).status_code == 200, link
    assert client.get(old_invite).status_code == 410
    database.dispose()


def test_a_computer_put_on_a_seat_is_named_in_each_players_language(
    sqlite_database: Database, now: datetime, site: Site,
) -> None:
    from pbem.services.players import bot_spec
    from tests.support import start_a_game

    players = [PlayerSpec("Alice", "alice@example.test", language="it"),
               PlayerSpec("Bob", "bob@example.test")]
    game_pk = start_a_game(sqlite_database, now, site, "mosey", {"order": 4}, players=players)
    with sqlite_database.write() as session:
        actions.replace_player(session, now, site, game_id=game_pk, seat=1,
                               new_player=bot_spec("strong"), actor=EMAIL)
    with sqlite_database.session() as session:
        told = session.exec(select(OutboxEmail).where(
            OutboxEmail.to_address == "alice@example.test")
            .order_by(col(OutboxEmail.id).desc())).first()
    assert told is not None and "sostituisce Bob" in told.subject, told.subject
    assert "Computer (forte)" in told.subject and "strong" not in told.subject, told.subject
    assert "Computer (forte)" in told.text_body
