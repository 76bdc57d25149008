"""A site with something behind every route, for tests/web/test_route_probe.py: one app (made as
tests/conftest.py's ``app`` fixture makes it), a real game, and a valid token of every kind.

Built once per test module: the probes only read, or send requests that must be refused, so
they can share it. What it holds:

- game A, started, one move played (so its ply-0 move link is stale);
- game B, invited: seat 0's invitation is valid, seat 1's holder was replaced (a dead link);
- game C, started: seat 1's holder was replaced after their links were sent;
- game E, finished by a resignation (replays, records, rematch links);
- a challenge (with an invitee's link), an open seek, a tournament, a caught mail;
- a channel of P0's (pbem.channels) and P0's calendar link;
- a sign-in link, a sign-up link (sign-up is open), a player's browser signed in as P0 and an
  organiser's browser logged in to the dashboard.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller
from flask import Flask
from flask.testing import FlaskClient
from itsdangerous import URLSafeTimedSerializer
from sqlalchemy import inspect, text
from sqlmodel import select

import engine
from pbem import create_app
from pbem.db import Database
from pbem.models import CaughtMail, GameRecord, OutboxEmail, Player, Seat
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, create_game, resign, submit_move
from tests.support import (
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    BASE_URL,
    MAIL_FROM,
    SECRET,
    SmtpHandler,
    SmtpServer,
    csrf_of,
    free_port,
    make_database,
    start_a_game,
    two_player_game,
)
from tests.web.sessions import signed_in

P0 = PlayerSpec("Pia Zero", "p0@example.test")
P1 = PlayerSpec("Piet One", "p1@example.test")

# Tables a request may touch without changing anything a person would notice: counters of the
# rate limiter, and rendered board pictures (a cache).
UNWATCHED = frozenset({"rate_limits", "board_images"})
# Columns that reading a page writes by design: when a seat's player last looked at its game
# (while they do, a game against the computer holds back their turn email).
UNWATCHED_COLUMNS = {"seats": frozenset({"page_viewed_at"})}


def app_for(database: Database, smtp: SmtpServer) -> Flask:
    """The app as tests/conftest.py's ``app`` fixture makes it (keep the two alike)."""
    return create_app({
        "ENV": "development", "TESTING": True, "SECRET_KEY": SECRET, "BASE_URL": BASE_URL,
        "DATABASE": database, "DATABASE_URL": database.url,
        "SMTP_HOST": smtp.host, "SMTP_PORT": smtp.port, "MAIL_FROM": MAIL_FROM,
    }, read_env=False)


@dataclass
class World:
    """The app, its database, and what the probes fill URLs with."""

    app: Flask
    database: Database
    site: Site
    # A valid token of each kind, by kind ("move", "player", "sign-in", ...).
    tokens: dict[str, str] = field(default_factory=dict)
    # Tokens that were valid once, or are valid for something else, by kind: each must get a
    # 4xx page on its kind's routes (a stale ply, another seat, a replaced holder).
    spent: dict[str, dict[str, str]] = field(default_factory=dict)
    # Values for URL arguments and query strings, by the names the route table uses.
    values: dict[str, Any] = field(default_factory=dict)
    queries: dict[str, dict[str, str]] = field(default_factory=dict)
    # Words that only a page for the right person shows (their address).
    private: tuple[str, ...] = ()
    player: FlaskClient | None = None
    organiser: FlaskClient | None = None

    def browser(self, who: str) -> FlaskClient:
        """``player`` and ``organiser`` are signed in (shared: probes never sign them out);
        anyone else gets a new browser with no cookies."""
        if who == "player" and self.player is not None:
            return self.player
        if who == "organiser" and self.organiser is not None:
            return self.organiser
        return self.app.test_client()

    def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table of the database (but :data:`UNWATCHED` and
        :data:`UNWATCHED_COLUMNS`), to compare."""
        found = inspect(self.database.engine)
        names = sorted(set(found.get_table_names()) - UNWATCHED)
        columns = {name: ", ".join(f'"{c["name"]}"' for c in found.get_columns(name)
                                   if c["name"] not in UNWATCHED_COLUMNS.get(name, ()))
                   for name in names}
        with self.database.session() as session:
            return {name: sorted((tuple(row) for row in session.execute(
                text(f'SELECT {columns[name]} FROM "{name}"'))), key=repr) for name in names}

    def every_token(self) -> list[str]:
        return [*self.tokens.values(), *(t for kind in self.spent.values() for t in kind.values())]


def csrf_for(browser: FlaskClient) -> str:
    """This browser's CSRF token, read from a page with a form."""
    for path in ("/sign-in", "/", "/admin/login"):
        page = browser.get(path)
        if 'name="csrf_token"' in page.text:
            return csrf_of(page.text)
    raise AssertionError("no page with a form to read a CSRF token from")


def build_world(folder: Path) -> Iterator[World]:
    """The world in ``folder``; torn down when the generator is closed."""
    database, remove = make_database("sqlite", folder)
    smtp = SmtpServer("127.0.0.1", free_port())
    controller = Controller(SmtpHandler(smtp), hostname=smtp.host, port=smtp.port)
    controller.start()
    try:
        app = app_for(database, smtp)
        app.config["SIGNUP"] = "open"  # so that a sign-up link has a page to open
        # A bug is a 500 page, as in production, so that a probe can say which request made it.
        app.config["PROPAGATE_EXCEPTIONS"] = False
        yield _populate(World(app, database, app.extensions["pbem.site"]))
    finally:
        controller.stop()
        remove()


def _populate(world: World) -> World:
    from pbem.admin.accounts import create_admin
    from pbem.admin.actions import replace_player
    from pbem.challenges.rules import challenge_url, make_rematch_url, rules_from_config
    from pbem.challenges.service import create_challenge
    from pbem.channels.service import add_channel
    from pbem.channels.urls import check_channel_url
    from pbem.tournaments.service import create_tournament
    from pbem.web.player_sessions import issue_link

    database, site, links = world.database, world.site, world.site.links
    now = datetime.now(UTC)  # challenges and sign-in links expire: made now, open while probed
    game_type = two_player_game()
    options: dict[str, object] = {o.name: o.choices[0] for o in engine.GAMES[game_type].options}
    strip = len(links.base_url) + 1

    def token_of(url: str) -> str:
        return url[strip:].split("/", 1)[1]

    # Game A: one move played, so its first move link is stale.
    a = start_a_game(database, now, site, game_type, options, players=[P0, P1])
    first = _row(database, a)
    assert first.to_move is not None
    stale = token_of(links.move_url(a, first.to_move, first.ply))
    game, state = current_state(first)
    with database.write() as session:
        submit_move(session, now, site, game_id=a, seat=first.to_move, ply=first.ply,
                    text=str(game.legal_moves(state)[0]))
    row = _row(database, a)
    assert row.to_move is not None
    waiting = 1 - row.to_move
    game, state = current_state(row)
    world.tokens.update({
        "move": token_of(links.move_url(a, row.to_move, row.ply)),
        "resign": token_of(links.resign_url(a, row.to_move)),
        "seat-view": token_of(links.seat_view_url(a, row.to_move)),
    })
    world.queries["move"] = {"move": str(game.legal_moves(state)[0])}
    world.spent["move"] = {"stale ply": stale,
                           "another seat": token_of(links.move_url(a, waiting, row.ply))}

    # Game B, invited: seat 0 may answer; seat 1's holder has been replaced.
    with database.write() as session:
        b = create_game(session, now, site, game_type=game_type, options=options,
                        players=[P0, P1]).id
    assert b is not None
    world.tokens["invite"] = token_of(links.invite_url(b, 0))
    dead_invite = token_of(links.invite_url(b, 1))
    # Game C, started: seat 1's holder is replaced after their links went out.
    c = start_a_game(database, now, site, game_type, options, players=[P0, P1])
    dead = {"move": token_of(links.move_url(c, 1, 0)),
            "resign": token_of(links.resign_url(c, 1)),
            "seat-view": token_of(links.seat_view_url(c, 1))}
    with database.write() as session:
        for game_pk, name in ((b, "Rex Invited"), (c, "Rex Seated")):
            replace_player(session, now, site, game_id=game_pk, seat=1, actor="test",
                           new_player=PlayerSpec(name, f"{name.split()[1].lower()}@example.test"))
    world.spent["invite"] = {"replaced holder": dead_invite}
    for kind, token in dead.items():
        world.spent.setdefault(kind, {})["replaced holder"] = token

    # Game E, over: Piet resigned.
    e = start_a_game(database, now, site, game_type, options, players=[P0, P1])
    with database.write() as session:
        resign(session, now, site, game_id=e, seat=1)

    with database.session() as session:
        pia = session.exec(select(Player).where(Player.email == P0.email)).one()
        holder_e = session.exec(select(Seat.player_id).where(Seat.game_id == e,
                                                             Seat.seat == 0)).one()
        outbox_id = session.exec(select(OutboxEmail.id)).first()
    assert pia.id is not None
    world.tokens["player"] = token_of(links.my_games_url(pia.id))
    # A games-page link of another links version: one the player has replaced.
    world.spent["player"] = {"replaced links": links.sign("player", player=pia.id, v=7)}
    world.tokens["unsubscribe"] = token_of(links.unsubscribe_url(pia.id))
    world.tokens["calendar"] = token_of(links.calendar_url(pia.id))
    world.spent["calendar"] = {"replaced links": links.sign("calendar", player=pia.id, v=7)}
    world.tokens["rematch"] = token_of(make_rematch_url(site, e, 0, holder_e))

    with database.write() as session:
        me = session.get(Player, pia.id)
        assert me is not None
        rules = rules_from_config(world.app.config)
        made = {kind: create_challenge(
            session, now, site, rules, creator=me, game_type=game_type, options=options,
            time_control=rules.time_controls[0], timeout_policy=rules.policies[0],
            invitees=[] if kind == "seek" else [PlayerSpec("Ivy", "ivy@example.test")],
            seek=kind == "seek") for kind in ("challenge", "seek")}
        ivy = session.exec(select(Player.id).where(Player.email == "ivy@example.test")).one()
        assert ivy is not None
        world.tokens["challenge"] = token_of(challenge_url(site, made["challenge"].id or 0, ivy))
        cup = create_tournament(session, now, site, name="Probe cup", game_type=game_type,
                                players=[PlayerSpec(f"T{n}", f"t{n}@example.test")
                                         for n in range(4)], fmt="round-robin",
                                options=options, created_by=ADMIN_EMAIL)
        world.tokens["sign-in"] = issue_link(session, now, pia.id)
        channel = add_channel(session, now, site, player_id=pia.id,
                              checked=check_channel_url("ntfys://ntfy.example.org/pia-probe"))
        create_admin(session, now, ADMIN_EMAIL, ADMIN_PASSWORD)
        caught = CaughtMail(received_at=now, mail_from="a@example.test",
                            recipients=P0.email, raw=_caught_mail())
        session.add(caught)
        session.flush()
        values = {"challenge": made["challenge"].public_id, "seek": made["seek"].public_id,
                  "tournament": cup.id, "slug": cup.slug, "caught mail": caught.id,
                  "channel": channel.id}
    world.tokens["sign-up"] = URLSafeTimedSerializer(links.secret_key, salt="pbem-signup").dumps(
        {"e": "newcomer@example.test"})

    world.values.update(values)
    world.values.update({
        "public_id": row.public_id, "finished": _row(database, e).public_id,
        "game": a, "game_id": game_type, "code": "nl", "player_id": pia.id,
        "name": "extend", "outbox mail": outbox_id, "cid": "board",
        "filename": "board.js",
    })
    world.private = (P0.email, P1.email)
    world.player = signed_in(world.app, database, pia.id)
    world.organiser = world.app.test_client()
    login = world.organiser.get("/admin/login")
    assert world.organiser.post("/admin/login", data={
        "csrf_token": csrf_of(login.text), "email": ADMIN_EMAIL, "password": ADMIN_PASSWORD,
    }).status_code == 302
    return world


def _row(database: Database, game_pk: int) -> GameRecord:
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None
    return row


def _caught_mail() -> bytes:
    """A caught message with an inline part, as the development mail catcher keeps them."""
    message = EmailMessage()
    message["Subject"] = "Your turn"
    message["To"] = P0.email
    message.set_content("plain")
    message.add_alternative('<html><body><img src="cid:board"></body></html>', subtype="html")
    message.get_payload()[1].add_related(  # type: ignore[index, union-attr]
        b"<svg xmlns='http://www.w3.org/2000/svg'/>", "image", "svg+xml", cid="<board>")
    return message.as_bytes()
