"""The dashboard's games list, create-game form, game page, players, mail and audit logs."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from flask.testing import FlaskClient
from sqlmodel import col, select

import engine
from pbem.admin.accounts import create_admin
from pbem.clock.deadlines import clock_of
from pbem.db import Database
from pbem.models import AuditEntry, GameRecord, OutboxEmail
from pbem.services import PlayerSpec, Site, create_game, resign, start_game
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD, csrf_of, start_a_game, two_player_game

EMAIL, PASSWORD = ADMIN_EMAIL, ADMIN_PASSWORD


def _game(database: Database, now: datetime, site: Site, game_type: str, names: list[str],
          *, start: bool = True) -> int:
    with database.write() as session:
        row = create_game(session, now, site, game_type=game_type,
                          options={o.name: o.choices[0] for o in engine.GAMES[game_type].options},
                          players=[PlayerSpec(n, f"{n.lower()}@example.test") for n in names])
        assert row.id is not None
        if start:
            start_game(session, now, site, game_id=row.id, force=True)
        return row.id


def _form(game_type: str, **fields: str) -> dict[str, str]:
    values = {"game": game_type, "name-0": "Ann", "email-0": "ann@example.test",
              "name-1": "Bob", "email-1": "bob@example.test", "seat_order": "given",
              "time_control": "3d", "timeout_policy": "pass", "reminders": "24h, 2h",
              "vacations_allowed": "on"}
    values.update(fields)
    return values


def test_the_form_offers_every_option_of_every_game(admin_client: FlaskClient) -> None:
    chooser = admin_client.get("/admin/games/new").text
    for game_id, info in engine.GAMES.items():
        assert f'value="{game_id}"' in chooser
        page = admin_client.get(f"/admin/games/new?game={game_id}").text
        for option in info.options:
            select = re.search(rf'<select id="option-{option.name}".*?</select>', page, re.S)
            assert select, f"{game_id}: no field for {option.name}"
            offered = re.findall(r'<option value="([^"]*)"', select[0])
            assert offered == [str(c) for c in option.choices]
            assert re.search(rf'<option value="{option.default}" selected', select[0])
            assert f'<label for="option-{option.name}">' in page
        for row in range(info.max_players):
            assert f'<label for="email-{row}">' in page and f'id="name-{row}"' in page
        for field in ("time_control", "timeout_policy", "reminders", "vacations_allowed"):
            assert f'id="{field}"' in page, field
        assert 'value="random"' in page


def test_creating_a_game_invites_its_players(admin_client: FlaskClient,
                                             sqlite_database: Database) -> None:
    game_type = two_player_game()
    page = admin_client.get(f"/admin/games/new?game={game_type}").text
    response = admin_client.post("/admin/games/new", data={
        **_form(game_type, time_control="fischer 2d+1d max 4d", timeout_policy="forfeit",
                reminders="12h"), "csrf_token": csrf_of(page)})
    assert response.status_code == 303, response.text
    game_pk = int(response.headers["Location"].rsplit("/", 1)[1])
    with sqlite_database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None and row.game_type == game_type and row.status == "invited"
        clock = clock_of(session, game_pk)
        assert clock.timeout_policy == "forfeit" and clock.reminder_seconds == [12 * 3600]
        assert clock.time_control and clock.time_control["kind"] == "fischer"
        invitations = session.exec(select(OutboxEmail).where(
            OutboxEmail.game_id == game_pk, OutboxEmail.kind == "invitation")).all()
        assert sorted(m.to_address for m in invitations) == ["ann@example.test",
                                                             "bob@example.test"]
        audit = session.exec(select(AuditEntry).where(AuditEntry.game_id == game_pk)).all()
        assert any(e.action == "admin: game created" and e.detail["actor"] == EMAIL
                   for e in audit)
    detail = admin_client.get(response.headers["Location"]).text
    assert "Game created" in detail and "ann@example.test" in detail


def test_form_errors_are_shown_and_what_was_typed_is_kept(admin_client: FlaskClient,
                                                         sqlite_database: Database) -> None:
    game_type = two_player_game()
    token = csrf_of(admin_client.get(f"/admin/games/new?game={game_type}").text)
    bad = admin_client.post("/admin/games/new", data={
        **_form(game_type, **{"email-1": "not an address", "time_control": "soonish",
                              "reminders": "2 parsecs", "name-0": "Ann Typed"}),
        "csrf_token": token})
    assert bad.status_code == 422
    assert "The game was not created" in bad.text
    assert "enter an email address" in bad.text
    assert "is not a time control" in bad.text
    assert 'value="Ann Typed"' in bad.text and 'value="soonish"' in bad.text
    assert 'value="not an address"' in bad.text
    too_few = admin_client.post("/admin/games/new", data={
        **_form(game_type, **{"name-1": "", "email-1": ""}), "csrf_token": token})
    assert too_few.status_code == 422 and "you entered 1" in too_few.text
    twice = admin_client.post("/admin/games/new", data={
        **_form(game_type, **{"email-1": "ann@example.test"}), "csrf_token": token})
    assert twice.status_code == 422 and "their own email address" in twice.text
    forged = admin_client.post("/admin/games/new", data=_form(game_type))
    assert forged.status_code == 400
    unknown = admin_client.get("/admin/games/new?game=chess")
    assert unknown.status_code == 404 and "There is no game" in unknown.text
    with sqlite_database.session() as session:
        assert session.exec(select(GameRecord)).all() == []


def test_the_list_filters_sorts_flags_and_pages(admin_client: FlaskClient,
                                               sqlite_database: Database, site: Site) -> None:
    game_type = two_player_game()
    now = datetime.now(UTC)
    overdue = _game(sqlite_database, now - timedelta(days=10), site, game_type, ["Ann", "Bob"])
    later = _game(sqlite_database, now, site, game_type, ["Cid", "Dee"])
    waiting = _game(sqlite_database, now, site, game_type, ["Eve", "Fay"], start=False)
    with sqlite_database.write() as session:
        mail = session.exec(select(OutboxEmail).where(OutboxEmail.game_id == later)).first()
        assert mail is not None
        mail.status, mail.last_error = "failed", "550 5.1.1 no such user"
        session.add(mail)
    page = admin_client.get("/admin/").text
    order = [int(n) for n in re.findall(r'href="/admin/games/(\d+)"', page)]
    assert order == [overdue, later, waiting]  # soonest deadline first, none last
    assert page.count('class="flag overdue"') == 1 and "1 failed mail" in page
    only_overdue = admin_client.get("/admin/?status=overdue").text
    assert re.findall(r'href="/admin/games/(\d+)"', only_overdue) == [str(overdue)]
    invited = admin_client.get("/admin/?status=invited").text
    assert re.findall(r'href="/admin/games/(\d+)"', invited) == [str(waiting)]
    by_player = admin_client.get("/admin/?player=DEE").text
    assert re.findall(r'href="/admin/games/(\d+)"', by_player) == [str(later)]
    by_game = admin_client.get("/admin/?game=" + game_type).text
    assert len(re.findall(r'href="/admin/games/(\d+)"', by_game)) == 3
    assert "No games match" in admin_client.get("/admin/?game=nosuchgame").text


def test_pagination(admin_client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    game_type = two_player_game()
    now = datetime.now(UTC)
    for n in range(27):
        _game(sqlite_database, now, site, game_type, [f"A{n}", f"B{n}"], start=False)
    first = admin_client.get("/admin/").text
    second = admin_client.get("/admin/?page=2").text
    assert len(re.findall(r'href="/admin/games/(\d+)"', first)) == 25
    assert len(re.findall(r'href="/admin/games/(\d+)"', second)) == 2
    assert "Page 1 of 2" in first and 'rel="next"' in first and 'rel="prev"' in second
    assert "Page 2 of 2" in admin_client.get("/admin/?page=99").text


def test_the_game_page_shows_board_moves_seats_clock_and_mail(
    admin_client: FlaskClient, sqlite_database: Database, site: Site,
) -> None:
    game_type = two_player_game()
    game_pk = _game(sqlite_database, datetime.now(UTC), site, game_type, ["Ann", "Bob"])
    page = admin_client.get(f"/admin/games/{game_pk}")
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    text = page.text
    assert "<svg" in text  # the engine's board, inline
    assert "ann@example.test" in text and "bob@example.test" in text
    assert "to move" in text and 'id="deadline"' in text and "Time control" in text
    with sqlite_database.session() as session:
        mails = session.exec(select(OutboxEmail).where(OutboxEmail.game_id == game_pk)
                             .order_by(col(OutboxEmail.id))).all()
    assert mails
    for mail in mails:
        assert f'href="/admin/mail/{mail.id}"' in text
    shown = admin_client.get(f"/admin/mail/{mails[0].id}").text
    assert mails[0].subject in shown and "Attempts" in shown and "Last error" in shown
    assert admin_client.get("/admin/games/9999").status_code == 404
    assert admin_client.get("/admin/mail/9999").status_code == 404


def test_players_mail_and_audit_pages(admin_client: FlaskClient, sqlite_database: Database,
                                     site: Site) -> None:
    game_type = two_player_game()
    game_pk = _game(sqlite_database, datetime.now(UTC), site, game_type, ["Ann", "Bob"])
    with sqlite_database.write() as session:
        mail = session.exec(select(OutboxEmail).where(
            OutboxEmail.to_address == "bob@example.test")).first()
        assert mail is not None
        mail.status, mail.last_error = "failed", "550 mailbox unavailable"
        session.add(mail)
    players = admin_client.get("/admin/players").text
    with sqlite_database.session() as session:
        row = session.get(GameRecord, game_pk)
        assert row is not None
        code = row.public_id[:6]  # the game id players see in their email
    assert "ann@example.test" in players and f">{code}</code>" in players
    assert "550 mailbox unavailable" in players  # a bounce, shown by its player
    only_bob = admin_client.get("/admin/players?q=bob").text
    assert "bob@example.test" in only_bob and "ann@example.test" not in only_bob
    failed = admin_client.get("/admin/mail?status=failed").text
    assert failed.count("550 mailbox unavailable") == 1 and "bob@example.test" in failed
    assert "ann@example.test" not in failed
    audit = admin_client.get("/admin/audit").text
    assert "game created" in audit and "game started" in audit
    assert 'href="/dev/mail"' in audit  # the mail catcher, in development


def test_no_mail_catcher_link_in_production(sqlite_database: Database) -> None:
    from pbem import create_app

    secret = "a production secret long enough for the checks"
    app = create_app({"ENV": "production", "SECRET_KEY": secret,
                      "BASE_URL": "https://localhost", "DATABASE": sqlite_database,
                      "DATABASE_URL": sqlite_database.url}, read_env=False)
    client = app.test_client()
    https = "https://localhost"  # production's cookies are Secure: sent back over https only
    with sqlite_database.write() as session:
        create_admin(session, datetime.now(UTC), EMAIL, PASSWORD)
    token = csrf_of(client.get("/admin/login", base_url=https).text)
    client.post("/admin/login", base_url=https,
                data={"csrf_token": token, "email": EMAIL, "password": PASSWORD})
    page = client.get("/admin/audit", base_url=https)
    assert page.status_code == 200 and "/dev/mail" not in page.text


def test_pages_are_phone_friendly_and_labelled(admin_client: FlaskClient) -> None:
    game_type = two_player_game()
    for path in ("/admin/", f"/admin/games/new?game={game_type}", "/admin/players",
                 "/admin/mail", "/admin/audit", "/admin/account"):
        page = admin_client.get(path).text
        assert '<meta name="viewport" content="width=device-width' in page, path
        assert 'href="#content"' in page  # skip link for keyboard users
        ids = set(re.findall(r'<(?:input|select|textarea)[^>]*\sid="([^"]+)"', page))
        labelled = set(re.findall(r'<label[^>]*\sfor="([^"]+)"', page))
        assert ids <= labelled, f"{path}: fields without a label: {ids - labelled}"


def test_dashboard_queries_on_every_backend(database: Database, site: Site) -> None:
    """The list's filters, sorting and counts, the player, mail and audit queries, on SQLite
    and PostgreSQL."""
    from pbem.admin.queries import (
        GameFilter,
        audit_actors,
        audit_page,
        list_games,
        mail_page,
        player_rows,
    )

    game_type = two_player_game()
    now = datetime.now(UTC)
    late = _game(database, now - timedelta(days=30), site, game_type, ["Ann", "Bob"])
    soon = _game(database, now, site, game_type, ["Cid", "Dee"])
    waiting = _game(database, now, site, game_type, ["Eve", "Fay"], start=False)
    with database.write() as session:
        mail = session.exec(select(OutboxEmail).where(OutboxEmail.game_id == soon)).first()
        assert mail is not None
        mail.status = "failed"
        session.add(mail)
    with database.session() as session:
        page = list_games(session, now, GameFilter(), 2)
        assert [r.game.id for r in page.rows] == [late, soon] and page.pages == 2
        assert page.rows[0].overdue and not page.rows[1].overdue
        assert page.rows[1].failed_mail == 1
        assert [r.game.id for r in list_games(session, now, GameFilter(page=2), 2).rows] == [
            waiting]
        assert [r.game.id for r in list_games(
            session, now, GameFilter(player="cid@"), 10).rows] == [soon]
        assert [r.game.id for r in list_games(
            session, now, GameFilter(status="overdue"), 10).rows] == [late]
        players = player_rows(session, "dee", 1, 10)
        assert [r.player.email for r in players.rows] == ["dee@example.test"]
        assert [g.id for g, _ in players.rows[0].games] == [soon]
        assert mail_page(session, 1, 100, status="failed").total == 1
        entries = audit_actors(session, audit_page(session, 1, 100, game_id=late).rows)
        assert {e.action for e, _ in entries} >= {"game created", "game started"}


def test_a_seat_can_be_given_to_the_computer(admin_client: FlaskClient,
                                             sqlite_database: Database) -> None:
    page = admin_client.get("/admin/games/new?game=mosey").text
    assert '<select id="kind-1" name="kind-1"' in page and 'value="bot:strong"' in page
    response = admin_client.post("/admin/games/new", data={
        **_form("mosey", **{"kind-1": "bot:easy", "name-1": "", "email-1": ""}),
        "csrf_token": csrf_of(page)})
    assert response.status_code == 303, response.text
    game_pk = int(response.headers["Location"].rsplit("/", 1)[1])
    from pbem.models import Player, Seat

    with sqlite_database.session() as session:
        seats = session.exec(select(Seat).where(Seat.game_id == game_pk)
                             .order_by(col(Seat.seat))).all()
        players = [session.get(Player, s.player_id) for s in seats]
        mail = session.exec(select(OutboxEmail).where(OutboxEmail.game_id == game_pk)).all()
    assert [p.bot_level if p else "?" for p in players] == [None, "easy"]
    assert [s.status for s in seats] == ["invited", "accepted"]
    assert [m.to_address for m in mail] == ["ann@example.test"]  # no mail to the computer
    refused = admin_client.post("/admin/games/new", data={
        **_form("mosey", **{"kind-1": "bot:genius"}), "csrf_token": csrf_of(page)})
    assert refused.status_code == 422 and 'id="kind-1-error"' in refused.text


def test_the_game_page_says_a_game_is_unlisted_and_an_ended_games_result(
    admin_client: FlaskClient, sqlite_database: Database, site: Site,
) -> None:
    now = datetime.now(UTC)
    listed = start_a_game(sqlite_database, now, site, "mosey", {"order": 4})
    unlisted = start_a_game(sqlite_database, now, site, "mosey", {"order": 4}, listed=False)
    assert 'id="unlisted"' not in admin_client.get(f"/admin/games/{listed}").text
    page = admin_client.get(f"/admin/games/{unlisted}").text
    assert '<span id="unlisted">unlisted (only by this link)</span>' in page
    # Resigned: the rules did not end the position, yet nobody is to move any more.
    assert "<p>Light to move.</p>" in page
    with sqlite_database.write() as session:
        resign(session, now, site, game_id=unlisted, seat=0)
    ended = admin_client.get(f"/admin/games/{unlisted}").text
    # (The board picture's own header still says it: the engine draws that.)
    assert "resigned" in ended and "<p>Light to move.</p>" not in ended
