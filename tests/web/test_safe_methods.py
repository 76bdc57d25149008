"""Links never act: HEAD and GET change nothing, and neither does a POST without both the link's
valid token and this browser's CSRF token (the one-click unsubscribe of RFC 8058 needs only the
link). Every player route that accepts POST is found in the app's URL map, so a new one is probed
(or this test asks for it) without anyone remembering to add it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from pbem.channels.service import add_channel
from pbem.channels.tables import PlayerChannel
from pbem.channels.urls import check_channel_url
from pbem.chat.tables import ChatMessage, ChatMute
from pbem.conditional.service import save
from pbem.conditional.tables import ConditionalMoves
from pbem.db import Database
from pbem.models import (
    AuditEntry,
    GameRecord,
    Move,
    OutboxEmail,
    Player,
    PlayerAbsence,
    Seat,
)
from pbem.notifications.tables import GameMute, NotificationSetting
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, create_game
from pbem.web.player_sessions import issue_link
from tests.support import csrf_of, start_a_game

TABLES = (GameRecord, Move, Seat, Player, OutboxEmail, PlayerAbsence, AuditEntry, PlayerChannel,
          ConditionalMoves, ChatMessage, ChatMute, NotificationSetting, GameMute)


@dataclass
class Probe:
    """How to reach one route: its URL with a valid token, the query a link might add, the form
    a real POST sends, and the URL with a damaged token."""

    url: str
    query: dict[str, str]
    form: dict[str, str]
    needs_csrf: bool = True
    # What the browser does first (signing in, for the routes of a signed-in player).
    setup: Callable[[FlaskClient], None] | None = None

    @property
    def damaged(self) -> str:
        suffix = next((s for s in ("/confirm", "/turn", "/computer", "/conditional/cancel",
                                   "/conditional", "/chat/mute", "/chat", "/mute")
                       if self.url.endswith(s)), "")
        head, _, token = self.url.removesuffix(suffix).rpartition("/")
        return f"{head}/{token[:-4]}{suffix}"


def _forged(token: str) -> str:
    """``token`` with one character of its signature changed. Not the last character: base64's
    last one carries unused bits, so some changes there leave the signature as it was."""
    i = len(token) - 6
    return token[:i] + ("A" if token[i] != "A" else "B") + token[i + 1:]


def _snapshot(database: Database) -> tuple[Any, ...]:
    with database.session() as session:
        return tuple(sorted(repr(row.model_dump()) for row in session.exec(select(table)))
                     for table in TABLES)


def _probes(database: Database, now: datetime, site: Site, game_id: str,
            ) -> dict[str, Callable[[], Probe]]:
    game_pk = start_a_game(database, now, site, game_id)
    turn_pk = start_a_game(database, now, site, game_id)  # its own game: confirm's POST acts
    with database.write() as session:
        invited = create_game(session, now, site, game_type=game_id, players=[
            PlayerSpec("P0", "p0@example.test"), PlayerSpec("P1", "p1@example.test")])
        invited_pk = invited.id
    with database.session() as session:
        row = session.get(GameRecord, game_pk)
    assert row is not None and row.to_move is not None and invited_pk is not None
    game, state = current_state(row)
    move = str(game.legal_moves(state)[0])
    path = len(site.links.base_url)
    with database.session() as session:
        player_pk = session.exec(select(Player.id).where(
            Player.email == "p0@example.test")).first()
    assert player_pk is not None

    def signed_in(browser: FlaskClient) -> None:
        link = f"/sign-in/{_sign_in_token(database, player_pk)}"
        page = browser.get(link)
        assert browser.post(link, data={"csrf_token": csrf_of(page.text)}).status_code == 303

    # Conditional moves (pbem.web.conditional): the seat not to move keeps a line; cancelling
    # needs one kept first.
    waiting = 1 - row.to_move
    seat_page = site.links.seat_view_url(game_pk, waiting)[path:]
    after = game.play(state, move)
    line = f"if {move} then {game.legal_moves(after)[0]}"

    def kept(browser: FlaskClient) -> None:
        with database.write() as session:
            save(session, now, game_id=game_pk, seat=waiting, text=line)

    with database.write() as session:
        channel_pk = add_channel(session, now, site, player_id=player_pk,
                                 checked=check_channel_url("ntfy://probe-topic")).id

    return {
        "play.confirm_page": lambda: Probe(
            f"{site.links.move_url(game_pk, row.to_move or 0, row.ply)[path:]}/confirm",
            {"move": move}, {"move": move}),
        # The whole-turn builder: its GET only shows (and adds steps to the URL).
        "turns.turn_page": lambda: Probe(
            f"{site.links.move_url(turn_pk, row.to_move or 0, row.ply)[path:]}/turn",
            {"steps": move, "add": move}, {"steps": move}),
        "play.resign_page": lambda: Probe(site.links.resign_url(game_pk, 0)[path:], {}, {}),
        "conditional.keep": lambda: Probe(f"{seat_page}/conditional", {}, {"text": line}),
        "conditional.cancel": lambda: Probe(f"{seat_page}/conditional/cancel", {}, {},
                                            setup=kept),
        # The game's conversation (pbem.web.chat): a message from the seat page or the move
        # page, and the seat page's switch for its emails.
        "chat.post_from_seat": lambda: Probe(
            f"{site.links.seat_view_url(game_pk, 0)[path:]}/chat", {}, {"message": "hello"}),
        "chat.post_from_move_page": lambda: Probe(
            f"{site.links.move_url(game_pk, row.to_move or 0, row.ply)[path:]}/chat", {},
            {"message": "hello"}),
        "chat.mute": lambda: Probe(f"{site.links.seat_view_url(game_pk, 0)[path:]}/chat/mute",
                                   {}, {"muted": "1"}),
        "invites.invitation": lambda: Probe(site.links.invite_url(invited_pk, 0)[path:],
                                            {"answer": "accept"}, {"answer": "accept"}),
        # The games-page link of mails: its GET shows a button, whose POST signs the browser
        # in; the games page and its settings are /account, for a signed-in player only.
        "players.my_games": lambda: Probe(
            site.links.my_games_url(1)[path:], {"name": "Mallory", "time_zone": "UTC"}, {}),
        "signin.account": lambda: Probe(
            "/account", {"name": "Mallory", "time_zone": "UTC"},
            {"name": "Mallory", "time_zone": "Europe/Paris", "notify_updates": ""},
            setup=signed_in),
        "players.replace_my_links": lambda: Probe("/account/links", {}, {}, setup=signed_in),
        # A signed-in player's language buttons: the real POST changes the account's language.
        "players.account_language": lambda: Probe(
            "/account/language", {"language": "de"}, {"language": "de", "next": "/account"},
            setup=signed_in),
        # Other channels (pbem.web.channels): adding one, and one's buttons (remove here).
        "channels.add": lambda: Probe("/account/channels/new", {}, {
            "url": "ntfy://probe-added", "news-turn": "on"}, setup=signed_in),
        "channels.change": lambda: Probe(f"/account/channels/{channel_pk}", {},
                                         {"action": "remove"}, setup=signed_in),
        # Mail settings (pbem.web.notifications): the account's choice, a game page's mute.
        "notifications.choose_notifications": lambda: Probe(
            "/account/notifications", {"mode": "off"}, {"mode": "digest", "digest_hour": "7"},
            setup=signed_in),
        "notifications.mute_seat": lambda: Probe(
            f"{site.links.seat_view_url(game_pk, 0)[path:]}/mute", {"muted": "1"},
            {"muted": "1"}),
        # Play the computer (a signed-in player's): its GET shows the form; the real POST
        # starts a game.
        "computer.play_the_computer": lambda: Probe(
            "/account/computer", {"game": game_id, "level": "easy", "starter": "me"},
            {"game": game_id, "level": "easy", "starter": "me"}, setup=signed_in),
        "players.unsubscribe": lambda: Probe(site.links.unsubscribe_url(1)[path:], {}, {},
                                             needs_csrf=False),
        # The home page's "email me my links": its real POST queues an email.
        "players.email_links": lambda: Probe("/links", {}, {"email": "p0@example.test"}),
        # Signing in by email: asking for a link queues an email; the link's GET only shows
        # its button, whose POST signs in; signing out, here or everywhere, needs a session.
        "signin.request_link": lambda: Probe("/sign-in", {}, {"email": "p0@example.test"}),
        "signin.complete": lambda: Probe(f"/sign-in/{_sign_in_token(database, player_pk)}",
                                         {}, {}),
        "signin.sign_out": lambda: Probe("/sign-out", {}, {}, setup=signed_in),
        "signin.sign_out_everywhere": lambda: Probe("/sign-out-everywhere", {}, {},
                                                    setup=signed_in),
        # Challenges, seeks, rematches and open sign-up (pbem.web.challenges, seeks, signin).
        **_challenge_probes(database, now, site, game_id, player_pk, signed_in),
    }


def _challenge_probes(database: Database, now: datetime, site: Site, game_id: str,
                      player_pk: int, signed_in: Callable[[FlaskClient], None],
                      ) -> dict[str, Callable[[], Probe]]:
    from pbem.challenges.rules import ChallengeRules, challenge_url, make_rematch_url
    from pbem.challenges.service import create_challenge
    from pbem.services.resignation import resign

    now = datetime.now(UTC)  # challenges expire: made now, they are open while probed
    rules = ChallengeRules(time_controls=("3d per move",))
    with database.write() as session:
        me = session.get(Player, player_pk)
        assert me is not None
        options = {o.name: o.choices[0] for o in engine.GAMES[game_id].options}
        invite = create_challenge(session, now, site, rules, creator=me, game_type=game_id,
                                  options=options, time_control="3d per move",
                                  timeout_policy="default", invitees=[PlayerSpec(
                                      "Ivy", "ivy@example.test")])
        answered = create_challenge(session, now, site, rules, creator=me, game_type=game_id,
                                    options=options, time_control="3d per move",
                                    timeout_policy="default", invitees=[PlayerSpec(
                                        "Ivy", "ivy@example.test")])
        seek = create_challenge(session, now, site, rules, creator=me, game_type=game_id,
                                options=options, time_control="3d per move",
                                timeout_policy="default", seek=True)
        ivy = session.exec(select(Player.id).where(Player.email == "ivy@example.test")).one()
        invite_url = challenge_url(site, answered.id or 0, ivy)
        invite_public, seek_public = invite.public_id, seek.public_id
    over = start_a_game(database, now, site, game_id)
    with database.write() as session:
        resign(session, now, site, game_id=over, seat=1)
    path = len(site.links.base_url)

    def joiner(browser: FlaskClient) -> None:  # someone else joins the seek
        with database.write() as session:
            other = Player(name="Joe", email="joe@example.test", created_at=now)
            session.add(other)
            session.flush()
            token = issue_link(session, datetime.now(UTC), other.id or 0)
        page = browser.get(f"/sign-in/{token}")
        browser.post(f"/sign-in/{token}", data={"csrf_token": csrf_of(page.text)})

    def open_sign_up(browser: FlaskClient) -> None:
        browser.application.config["SIGNUP"] = "open"

    from itsdangerous import URLSafeTimedSerializer

    sign_up = URLSafeTimedSerializer(site.links.secret_key, salt="pbem-signup").dumps(
        {"e": "newcomer@example.test"})
    options_form = {f"option-{k}": str(v) for k, v in options.items()}
    return {
        "challenges.new_challenge": lambda: Probe(
            "/challenges/new", {"game": game_id}, {
                "game": game_id, "kind": "seek", "time_control": "3d per move",
                "policy": "default", "seat_order": "first", **options_form},
            setup=signed_in),
        "challenges.challenge_action": lambda: Probe(
            f"/challenges/{invite_public}", {}, {"action": "cancel"}, setup=signed_in),
        "challenges.invitation": lambda: Probe(invite_url[path:], {"action": "accept"},
                                               {"action": "decline"}),
        "seeks.join": lambda: Probe(f"/seeks/{seek_public}/join", {}, {}, setup=joiner),
        "challenges.rematch": lambda: Probe(
            make_rematch_url(site, over, 0, _holder(database, over))[path:],
            {"action": "accept"}, {"action": "accept"}),
        "signup.sign_up": lambda: Probe(f"/sign-up/{sign_up}", {}, {"name": "Newcomer"},
                                        setup=open_sign_up),
    }


def _holder(database: Database, game_pk: int) -> int:
    with database.session() as session:
        return session.exec(select(Seat.player_id).where(Seat.game_id == game_pk,
                                                         Seat.seat == 0)).one()


def _sign_in_token(database: Database, player_id: int) -> str:
    with database.write() as session:
        return issue_link(session, datetime.now(UTC), player_id)


def _player_post_endpoints(app: Flask) -> set[str]:
    return {rule.endpoint for rule in app.url_map.iter_rules()
            if "POST" in (rule.methods or set())
            and not rule.rule.startswith(("/admin", "/dev"))}


def test_links_and_forged_posts_change_nothing_on_any_player_route(
    app: Flask, sqlite_database: Database, now: datetime, site: Site, any_game: str,
) -> None:
    probes = _probes(sqlite_database, now, site, any_game)
    endpoints = _player_post_endpoints(app)
    assert endpoints, "no player route accepts POST?"
    assert endpoints <= probes.keys(), f"new POST routes to probe: {endpoints - probes.keys()}"
    for endpoint in sorted(endpoints):
        probe = probes[endpoint]()
        browser = app.test_client()
        if probe.setup is not None:
            probe.setup(browser)
        before = _snapshot(sqlite_database)
        for answer in (browser.head(probe.url, query_string=probe.query),
                       browser.get(probe.url, query_string=probe.query)):
            assert answer.status_code < 500, (endpoint, answer.status_code)
        assert _snapshot(sqlite_database) == before, f"{endpoint}: GET or HEAD changed something"
        csrf = csrf_of(browser.get("/sign-in").text)  # this browser's CSRF token
        forged = [(browser, probe.damaged, {**probe.form, "csrf_token": csrf}),
                  (app.test_client(), probe.damaged, probe.form)]
        if probe.needs_csrf:
            forged += [(app.test_client(), probe.url, probe.form),  # no session, no CSRF
                       (browser, probe.url, probe.form),
                       (browser, probe.url, {**probe.form, "csrf_token": _forged(csrf)})]
        for client, url, form in forged:
            answer = client.post(url, data=form)
            assert 400 <= answer.status_code < 500, (endpoint, url, answer.status_code)
            assert _snapshot(sqlite_database) == before, f"{endpoint}: forged POST to {url}"
        _the_real_post_acts(browser, probe, csrf, sqlite_database, before, endpoint)


def _the_real_post_acts(browser: FlaskClient, probe: Probe, csrf: str, database: Database,
                        before: tuple[Any, ...], endpoint: str) -> None:
    """The control: the same POST with both tokens does change something, so the probe above
    would have seen a change had a forged request made one."""
    answer = browser.post(probe.url, data={**probe.form, "csrf_token": csrf})
    assert answer.status_code < 400, (endpoint, answer.status_code)
    assert _snapshot(database) != before, f"{endpoint}: the real POST changed nothing"
