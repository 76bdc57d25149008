"""Every route of the app, probed for what it is (issue 31: "a new route without a probe fails a
test").

``ROUTES`` classifies each endpoint of ``app.url_map`` in one line: a public page, a page opened
by a link's token (by the token's kind), a signed-in player's page, a form's POST action, an
organiser's dashboard page, a development-only page, or an operator's endpoint. A rule the table
does not classify, or a line for an endpoint the app no longer has, fails
:func:`test_the_table_classifies_every_route_and_nothing_else` with the line to add or remove.

What must hold, by class, with real requests through the test client against one site with
real games (tests/web/route_world.py):

- every response: no server error, ``Referrer-Policy: no-referrer``, ``nosniff``, no framing
  (``X-Frame-Options: DENY`` and CSP ``frame-ancestors 'none'``); ``Cache-Control: no-store``
  where the path carries a token;
- token routes: a changed character, a cut, a padded token, another kind's valid token, and
  where the kind has them a stale ply, another seat and a replaced holder get a 4xx page that
  echoes no token and shows no address, and change nothing;
- every POST without this browser's CSRF token is refused (400) and changes nothing;
- GET and HEAD change nothing anywhere;
- signed-in player pages and the dashboard show nothing without their session;
- development pages are not in a production app;
- hostile path segments and query strings (very long, NUL and control characters, CR/LF,
  unicode and invalid UTF-8, ``..``, markup, huge numbers) never make a server error, and
  markup is never reflected as markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.routing import Rule
from werkzeug.test import TestResponse

from pbem import create_app
from tests.support import BASE_URL
from tests.web.route_world import World, build_world, csrf_for

PUBLIC, TOKEN, PLAYER, ACTION, ORGANISER, DEV, OPERATOR = (
    "public page", "token page", "signed-in player page", "POST action", "organiser page",
    "development only", "operator endpoint")


@dataclass(frozen=True)
class Route:
    """How one endpoint is reached and what must hold there.

    ``args`` name the world's value for a URL argument when it is not the argument's own name
    (``public_id="finished"``: a finished game's public id); ``query`` names a query string a
    link adds; ``csrf=False`` is a POST that acts on the link alone (RFC 8058's one-click
    unsubscribe); ``signed_in``: an action for a signed-in player only.
    """

    what: str
    kind: str = ""
    args: tuple[tuple[str, str], ...] = ()
    query: str = ""
    csrf: bool = True
    signed_in: bool = False
    answers: int = 200  # what a public page answers anyone (a redirect, for some)


def public(answers: int = 200, **args: str) -> Route:
    return Route(PUBLIC, args=tuple(args.items()), answers=answers)


def token(kind: str, *, query: str = "", csrf: bool = True) -> Route:
    return Route(TOKEN, kind, query=query, csrf=csrf)


def player(**args: str) -> Route:
    return Route(PLAYER, args=tuple(args.items()))


def action(*, signed_in: bool = False, **args: str) -> Route:
    return Route(ACTION, args=tuple(args.items()), signed_in=signed_in)


def organiser(**args: str) -> Route:
    return Route(ORGANISER, args=tuple(args.items()))


def dev(**args: str) -> Route:
    return Route(DEV, args=tuple(args.items()))


def operator() -> Route:
    return Route(OPERATOR)


# Every endpoint of the app, one line each. Token kinds are those of tests/web/route_world.py
# (move, resign, seat-view, invite, player, unsubscribe, sign-in, sign-up, challenge, rematch,
# calendar).
ROUTES: dict[str, Route] = {
    # Public pages: anyone may open them.
    "games.index": public(),
    "games.public_page": public(),
    "archive.archive": public(),
    "catalogue.picture": public(),  # a game's picture on its card
    "challenges.challenge_page": public(public_id="challenge"),
    "language.choose": public(answers=302),  # back to the page it was chosen on
    "profiles.profile": public(),
    "ratings.ratings_index": public(),
    "ratings.leaderboard_page": public(),
    "replay.replay": public(public_id="finished"),
    "replay.record_json": public(public_id="finished"),
    "replay.record_txt": public(public_id="finished"),
    "replay.record_sgf_download": public(public_id="finished"),
    "rules.rules_index": public(),
    "rules.rules_page": public(),
    "seeks.seeks": public(),
    "signin.sign_in_page": public(),
    "tournaments.tournaments_index": public(),
    "tournaments.tournament_page": public(),
    "admin_auth.login": public(),
    "analysis.from_game": public(),  # the analysis board of the game page and the replay
    "static": public(),  # static/board.js, the one script
    # Pages opened by a link's token, by the token's kind.
    "play.move_page": token("move"),
    "play.confirm_page": token("move", query="move"),
    "turns.turn_page": token("move"),
    "analysis.from_move": token("move"),  # the analysis board of a turn
    "analysis.from_seat": token("seat-view"),  # the analysis board of a seat's game page
    "play.resign_page": token("resign"),
    "games.seat_page": token("seat-view"),
    "conditional.keep": token("seat-view"),  # the seat page's forms (POST only)
    "conditional.cancel": token("seat-view"),
    "chat.post_from_seat": token("seat-view"),  # a message from the seat page
    "chat.mute": token("seat-view"),  # the seat page's switch for the chat emails
    "chat.post_from_move_page": token("move"),
    "notifications.mute_seat": token("seat-view"),  # the seat page's mute button (POST)
    "invites.invitation": token("invite"),
    "players.my_games": token("player"),
    "computer.old_link": token("player"),  # /me/<token>/computer: on to /account/computer
    "players.unsubscribe": token("unsubscribe", csrf=False),  # RFC 8058: the link alone acts
    "signin.confirm_page": token("sign-in"),
    "signin.complete": token("sign-in"),
    "signup.sign_up": token("sign-up"),
    "challenges.invitation": token("challenge"),
    "challenges.rematch": token("rematch"),
    "calendar.calendar_feed": token("calendar"),  # what a calendar app subscribes to
    # Pages of a signed-in player.
    "signin.account": player(),
    "computer.play_the_computer": player(),
    "signin.sign_out_page": player(),
    "challenges.my_challenges": player(),
    "challenges.new_challenge": player(),
    "channels.settings": player(),
    # Forms' POST actions (no page of their own).
    "players.email_links": action(),
    "signin.request_link": action(),
    "signin.sign_out": action(signed_in=True),
    "signin.sign_out_everywhere": action(signed_in=True),
    "challenges.challenge_action": action(signed_in=True, public_id="challenge"),
    "seeks.join": action(signed_in=True, public_id="seek"),
    "players.replace_my_links": action(signed_in=True),
    "players.account_language": action(signed_in=True),  # the account's language buttons
    "channels.add": action(signed_in=True),
    "channels.change": action(signed_in=True, channel_id="channel"),
    "notifications.choose_notifications": action(signed_in=True),  # the account's mail setting
    "admin_second_step.login_code": action(),  # an organiser's second step of logging in
    # The organisers' dashboard.
    "admin.games_list": organiser(),
    "admin.new_game": organiser(),
    "admin_game.game_detail": organiser(game_id="game"),
    "admin_action.game_action": organiser(game_id="game"),
    "admin_chat.write": organiser(game_id="game"),  # to the game's players
    "admin_chat.hide": organiser(game_id="game"),  # a message, from the players
    "admin_account.account": organiser(),
    "admin_account.new_password": organiser(),
    "admin_account.sign_out_everywhere": organiser(),
    "admin_account.two_factor_set_up": organiser(),
    "admin_account.two_factor_confirm": organiser(),
    "admin_account.two_factor_off": organiser(),
    "admin_auth.logout": organiser(),
    "admin_challenges.challenges": organiser(),
    "admin_challenges.cancel": organiser(),
    "admin_logs.audit_log": organiser(),
    "admin_logs.mail_log": organiser(),
    "admin_logs.mail_show": organiser(mail_id="outbox mail"),
    "admin_logs.players": organiser(),
    "admin_tournaments.tournaments_list": organiser(),
    "admin_tournaments.tournament_detail": organiser(tournament_id="tournament"),
    "admin_tournaments.new_tournament": organiser(),
    "admin_tournaments.start": organiser(),
    "admin_tournaments.close": organiser(),
    "admin_tournaments.cancel": organiser(),
    "admin_tournaments.withdraw": organiser(),
    # Development only (the caught mail).
    "dev.mail_list": dev(),
    "dev.mail_show": dev(mail_id="caught mail"),
    "dev.mail_part": dev(mail_id="caught mail"),
    # For operators' monitoring.
    "monitoring.healthz": operator(),
}

TABLE = "ROUTES in tests/web/test_route_probe.py"
EXAMPLE = {PUBLIC: "public()", TOKEN: 'token("move")', PLAYER: "player()", ACTION: "action()",
           ORGANISER: "organiser()", DEV: "dev()", OPERATOR: "operator()"}
CSRF_REFUSED = "did not come from this site"
REDIRECTS = (301, 302, 303, 307, 308)
LONG_SECRET = "a production secret that is long enough to sign links"

# Path segments as a hostile client sends them (already percent-encoded where they need it).
HOSTILE: dict[str, str] = {
    "very long": "x" * 8000,
    "NUL": "%00",
    "NUL inside": "ab%00cd",
    "control characters": "%01%02%08%0B%1B%7F",
    "CR LF": "a%0D%0ASet-Cookie:%20x=1",
    "tab and slashes": "%09%2F%2Fevil.test",
    "dot dot": "..",
    "encoded dot dot": "%2E%2E",
    "traversal": "..%2F..%2Fetc%2Fpasswd",
    "unicode": "%C3%A9t%C3%A9%E2%80%AE%F0%9F%98%80",
    "invalid UTF-8": "%FF%FE%C0%AE",
    "percent": "%25%",
    "markup": "%3Cscript%3Ex%3C%2Fscript%3E%22%27",
    "zero": "0",
    "quotes": "1%27%20OR%20%271%27=%271",
}
# Query strings: every parameter a page reads today, and a few it might read tomorrow.
QUERY_NAMES = ("next", "move", "cells", "zoom", "steps", "add", "game", "q", "page", "seat",
               "ply", "answer", "action", "why", "kind", "level", "starter", "saved", "from",
               "to", "player", "status", "format", "lang", "language", "before", "after")
HUGE = "9" * 40  # an int converter takes it; no database column holds it
# Query values: a sample of the above, and places to be sent to after a form or a link.
HOSTILE_QUERIES: dict[str, str] = {
    **{name: HOSTILE[name] for name in ("very long", "NUL", "control characters", "CR LF",
                                        "unicode", "invalid UTF-8", "percent", "markup")},
    "huge number": HUGE,
    "another site": "//evil.test/",
    "a tab between the slashes": "%2F%09%2Fevil.test",
    "a backslash": "%2F%5Cevil.test",
    "two backslashes": "%5C%5Cevil.test",
    "a scheme without slashes": "https:evil.test",
    "three slashes": "%2F%2F%2Fevil.test",
    "script": "javascript:alert(1)",
}
MARKUP = "<script>x</script>"
LINK = re.compile(r'(?:href|action|src)="([^"]*)"')


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from build_world(tmp_path_factory.mktemp("route-probe"))


def rules_by_endpoint(app: Flask) -> dict[str, list[Rule]]:
    found: dict[str, list[Rule]] = {}
    for rule in app.url_map.iter_rules():
        found.setdefault(rule.endpoint, []).append(rule)
    return found


def endpoints(*what: str) -> list[str]:
    return [name for name, route in ROUTES.items() if route.what in what]


def rules_of(world: World, endpoint: str, method: str | None = None) -> list[Rule]:
    rules = rules_by_endpoint(world.app).get(endpoint)
    if rules is None:
        pytest.skip(f"{endpoint} is not in the app (the table test says so)")
    return [r for r in rules if method is None or method in (r.methods or ())]


# -- building requests --------------------------------------------------------------------------

_ARGUMENT = re.compile(r"<(?:[^<>:]+:)?([^<>:]+)>")


def path_of(world: World, rule: Rule, *, raw: dict[str, str] | None = None) -> str:
    """``rule`` filled in with the world's values (``raw``: these arguments as sent, unquoted)."""
    route = ROUTES[rule.endpoint]
    names = dict(route.args)

    def value(match: re.Match[str]) -> str:
        argument = match[1]
        if raw and argument in raw:
            return raw[argument]
        if argument == "token" and route.kind:
            return world.tokens[route.kind]
        name = names.get(argument, argument)
        assert name in world.values, (
            f"{rule.endpoint} ({rule.rule}): no value for <{argument}>; name one in its line of "
            f"{TABLE} ({argument}=\"...\") from tests/web/route_world.py's values "
            f"{sorted(world.values)}, or add one there")
        return quote(str(world.values[name]), safe="")

    return _ARGUMENT.sub(value, rule.rule)


def query_of(world: World, rule: Rule) -> dict[str, str]:
    route = ROUTES[rule.endpoint]
    return world.queries[route.query] if route.query else {}


def who_opens(route: Route) -> str:
    """The browser that gets furthest into a route: its own session, or none."""
    if route.what == ORGANISER:
        return "organiser"
    if route.what == PLAYER or route.signed_in:
        return "player"
    return "anyone"


def carries_token(rule: Rule) -> bool:
    return "token" in rule.arguments or rule.endpoint.startswith("dev.")


def send(browser: FlaskClient, method: str, rule: Rule, path: str, *, check_store: bool = True,
         **request: Any) -> TestResponse:
    """One request, and what every response must have whatever it is (``check_store``: the
    path is the rule's, so a token route's answer must not be stored)."""
    answer = browser.open(path, method=method, **request)
    where = f"{method} {path[:120]} ({rule.endpoint})"
    unhealthy = answer.status_code == 503 and ROUTES[rule.endpoint].what == OPERATOR
    assert answer.status_code < 500 or unhealthy, f"{where}: {answer.status_code}"
    headers = answer.headers
    assert headers.get("Referrer-Policy") == "no-referrer", where
    assert headers.get("X-Content-Type-Options") == "nosniff", where
    assert headers.get("X-Frame-Options") == "DENY", where
    policy = headers.get("Content-Security-Policy", "")
    assert "frame-ancestors 'none'" in policy or ("sandbox" in policy
                                                   and "default-src 'none'" in policy), where
    if carries_token(rule) and check_store:
        assert headers.get("Cache-Control") == "no-store", where
    if "Location" in headers:
        assert stays_on_this_site(headers["Location"]), f"{where}: to {headers['Location']!r}"
    return answer


_C0_AND_SPACE = "".join(chr(c) for c in range(0x21))


def stays_on_this_site(target: str) -> bool:
    r"""Whether a browser following ``target`` stays here, read as the URL standard reads it:
    C0 controls and spaces around it dropped, tabs and newlines anywhere dropped, a backslash
    taken for a slash.

    >>> [stays_on_this_site(t) for t in ("/account", "/\t/evil.test", "https:evil.test")]
    [True, False, False]
    """
    cleaned = re.sub("[\t\n\r]", "", target.strip(_C0_AND_SPACE)).replace("\\", "/")
    parts = urlsplit(cleaned)
    if parts.scheme or parts.netloc or cleaned.startswith("//"):
        return parts.scheme in ("http", "https") and parts.netloc == urlsplit(BASE_URL).netloc
    return True


def shows_nothing_private(world: World, answer: TestResponse, where: str, *, sent: str = ""
                          ) -> None:
    """No player's address, and no link token but what the request itself ``sent``."""
    body = answer.get_data(as_text=True)
    for word in world.private:
        assert word not in body, f"{where}: shows {word}"
    for secret in world.every_token():
        if secret not in sent:
            assert secret not in body and secret not in answer.headers.get("Location", ""), (
                f"{where}: shows a link token it was not given")


def location(answer: TestResponse) -> str:
    return urlsplit(answer.headers.get("Location", "")).path


# -- the table ----------------------------------------------------------------------------------


def test_the_table_classifies_every_route_and_nothing_else(world: World) -> None:
    rules = rules_by_endpoint(world.app)
    missing = [f'  "{name}": {EXAMPLE[PUBLIC]},  # {", ".join(r.rule for r in rules[name])}'
               for name in sorted(rules.keys() - ROUTES.keys())]
    gone = sorted(ROUTES.keys() - rules.keys())
    assert not missing, (
        f"routes without a probe: add a line for each to {TABLE}, saying what it is "
        f"({', '.join(EXAMPLE.values())}):\n" + "\n".join(missing))
    assert not gone, f"{TABLE} names endpoints the app no longer has: remove {gone}"
    for name, route in ROUTES.items():
        if route.what == TOKEN:
            assert route.kind in world.tokens, f"{name}: no token of kind {route.kind!r}"
        for rule in rules[name]:
            path_of(world, rule)  # every argument has a value


def test_development_pages_are_not_in_a_production_app(world: World) -> None:
    production = create_app({"ENV": "production", "SECRET_KEY": LONG_SECRET,
                             "BASE_URL": "https://pbem.example", "DATABASE": world.database},
                            read_env=False)
    there = set(rules_by_endpoint(production))
    assert not there & set(endpoints(DEV)), "development pages in production"
    assert there == set(rules_by_endpoint(world.app)) - set(endpoints(DEV)), (
        "production has other routes than development: classify them in " + TABLE)
    client = production.test_client()
    for endpoint in endpoints(DEV):
        for rule in rules_by_endpoint(world.app).get(endpoint, []):
            assert client.get(path_of(world, rule)).status_code == 404, rule.rule


# -- by class -----------------------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", endpoints(PUBLIC, DEV))
def test_a_public_page_opens_for_anyone_and_shows_no_address(world: World, endpoint: str
                                                             ) -> None:
    for rule in rules_of(world, endpoint, "GET"):
        path, browser = path_of(world, rule), world.browser("anyone")
        for method in ("GET", "HEAD"):
            answer = send(browser, method, rule, path, query_string=query_of(world, rule))
            expected = 308 if rule.alias else ROUTES[endpoint].answers  # an alias redirects
            assert answer.status_code == expected, f"{method} {path}: {answer.status_code}"
            if endpoint not in endpoints(DEV):  # the caught mail is every player's mail
                shows_nothing_private(world, answer, path)


def damaged(token: str) -> dict[str, str]:
    """``token`` changed every way a mail program or a person might change it.

    Characters are changed at the start and in the middle of each dot-separated part, never a
    part's last character: its spare bits can leave a base64 value as it was. Nor is "=" added:
    itsdangerous reads base64 with extra padding as the same value, the very same token."""
    changed = {}
    start = 0
    for part in token.split("."):
        for at in {start, start + len(part) // 2}:
            if part and at < start + len(part) - 1:
                swap = "A" if token[at] != "A" else "B"
                changed[f"character {at} changed"] = token[:at] + swap + token[at + 1:]
        start += len(part) + 1
    changed.update({
        "cut by one": token[:-1], "cut in half": token[: len(token) // 2],
        "first part only": token.split(".")[0] or token[:8],
        "padded": token + "A", "padded with a dot": token + ".",
        "prefixed": "A" + token, "doubled": token + token, "with a space": token + "%20",
        "upper case": token.upper(), "lower case": token.lower(),
    })
    return {name: bad for name, bad in changed.items() if bad != token}


@pytest.mark.parametrize("endpoint", endpoints(TOKEN))
def test_a_damaged_or_foreign_token_gets_a_clear_refusal_and_changes_nothing(
    world: World, endpoint: str,
) -> None:
    route = ROUTES[endpoint]
    variants = variants_of(world, route)
    browser = world.browser("anyone")
    csrf = csrf_for(browser)
    before = world.snapshot()
    for rule in rules_of(world, endpoint):
        query = query_of(world, rule)
        if "GET" in (rule.methods or ()):  # the control: the real link opens its page
            opened = send(browser, "GET", rule, path_of(world, rule), query_string=query)
            assert opened.status_code < 400, f"{rule.rule} with a valid token"
        for name, bad in variants.items():
            path = path_of(world, rule, raw={"token": bad})
            forms: list[dict[str, str] | None] = [{"csrf_token": csrf}]
            if not route.csrf:
                forms.append({})
            answers = [("POST", form) for form in forms if "POST" in (rule.methods or ())]
            answers += [(m, None) for m in ("GET", "HEAD") if m in (rule.methods or ())]
            for method, form in answers:
                answer = send(browser, method, rule, path, query_string=query, data=form)
                where = f"{method} {rule.rule} with {name}"
                assert 400 <= answer.status_code < 500, f"{where}: {answer.status_code}"
                assert "csrf_token" not in answer.text, f"{where}: shows a form"
                shows_nothing_private(world, answer, where, sent=bad)
    assert world.snapshot() == before, f"{endpoint}: a damaged or foreign token changed data"


def variants_of(world: World, route: Route) -> dict[str, str]:
    """Tokens a token route must refuse: damaged, another kind's, and the kind's spent ones."""
    return {**damaged(world.tokens[route.kind]),
            **{f"a {kind} token": other for kind, other in world.tokens.items()
               if kind != route.kind},
            **world.spent.get(route.kind, {})}


def test_a_token_page_does_not_echo_the_token_it_was_given(world: World) -> None:
    echoed = []
    rules = rules_by_endpoint(world.app)
    for endpoint in endpoints(TOKEN):
        for rule in [r for r in rules.get(endpoint, []) if "GET" in (r.methods or ())]:
            query = query_of(world, rule)
            valid = world.tokens[ROUTES[endpoint].kind]
            for name, token in {"the valid token": valid,
                                **variants_of(world, ROUTES[endpoint])}.items():
                answer = world.browser("anyone").get(path_of(world, rule, raw={"token": token}),
                                                     query_string=query)
                # Its own page may link to itself (forms, cells), but only ever in a path.
                shown = answer.text if token != valid else " ".join(
                    link.partition("?")[2] for link in LINK.findall(answer.text))
                if len(token) >= 8 and token in shown:
                    echoed.append(f"GET {rule.rule} with {name} ({answer.status_code})")
    assert not echoed, "these pages show the token of their own URL:\n" + "\n".join(echoed)


@pytest.mark.parametrize("endpoint", endpoints(PLAYER))
def test_a_signed_in_players_page_shows_nothing_without_the_session(world: World,
                                                                    endpoint: str) -> None:
    for rule in rules_of(world, endpoint, "GET"):
        path = path_of(world, rule)
        for who in ("anyone", "organiser"):  # an organiser is not a signed-in player
            for method in ("GET", "HEAD"):
                answer = send(world.browser(who), method, rule, path)
                where = f"{method} {path} as {who}"
                assert answer.status_code in (*REDIRECTS, 401, 403), where
                if answer.status_code in REDIRECTS:
                    assert location(answer).startswith("/sign-in"), where
                assert "Pia Zero" not in answer.get_data(as_text=True), where
                shows_nothing_private(world, answer, where)
        answer = send(world.browser("player"), "GET", rule, path)  # the control
        assert answer.status_code < 400 and (
            answer.status_code in REDIRECTS or "Pia Zero" in answer.text), path


@pytest.mark.parametrize("endpoint", endpoints(ORGANISER))
def test_a_dashboard_page_sends_anyone_else_to_the_login(world: World, endpoint: str) -> None:
    before = world.snapshot()
    for rule in rules_of(world, endpoint):
        path = path_of(world, rule)
        for who in ("anyone", "player"):  # a signed-in player is no organiser
            browser = world.browser(who)
            methods = [m for m in ("GET", "HEAD", "POST") if m in (rule.methods or ())]
            for method in methods:
                form = {"csrf_token": csrf_for(browser)} if method == "POST" else None
                answer = send(browser, method, rule, path, data=form)
                where = f"{method} {path} as {who}"
                assert answer.status_code in (*REDIRECTS, 401, 403), (where, answer.status_code)
                if answer.status_code in REDIRECTS:
                    assert location(answer) == "/admin/login", where
                shows_nothing_private(world, answer, where)
        if "GET" in (rule.methods or ()):  # the control: the organiser sees the page
            assert send(world.browser("organiser"), "GET", rule, path).status_code == 200, path
    assert world.snapshot() == before, endpoint


@pytest.mark.parametrize("endpoint", endpoints(ACTION))
def test_an_action_with_an_empty_form_or_without_its_session_does_nothing(
    world: World, endpoint: str,
) -> None:
    """A form's POST with its CSRF token but nothing filled in changes nothing; a signed-in
    player's action from a browser that is not signed in sends it to sign in."""
    browser = world.browser("anyone")
    before = world.snapshot()
    for rule in rules_of(world, endpoint, "POST"):
        answer = send(browser, "POST", rule, path_of(world, rule),
                      data={"csrf_token": csrf_for(browser)})
        if ROUTES[endpoint].signed_in:
            assert answer.status_code in (*REDIRECTS, 401, 403), (rule.rule, answer.status_code)
            if answer.status_code in REDIRECTS:
                assert location(answer).startswith("/sign-in"), rule.rule
    assert world.snapshot() == before, endpoint


@pytest.mark.parametrize("endpoint", endpoints(OPERATOR))
def test_an_operator_endpoint_answers_without_a_session_and_tells_no_secret(
    world: World, endpoint: str,
) -> None:
    for rule in rules_of(world, endpoint, "GET"):
        answer = send(world.browser("anyone"), "GET", rule, path_of(world, rule))
        assert answer.status_code in (200, 503) and answer.is_json, rule.rule
        assert "Set-Cookie" not in answer.headers, rule.rule
        shows_nothing_private(world, answer, rule.rule)
        assert world.app.config["SECRET_KEY"] not in answer.text


# -- every route --------------------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", list(ROUTES))
def test_get_and_head_and_a_post_without_this_browsers_csrf_token_change_nothing(
    world: World, endpoint: str,
) -> None:
    """In the browser that gets furthest (the route's own session): GET and HEAD with a valid
    URL only show; a POST without this browser's CSRF token (none, another browser's, a forged
    one) is refused with the form-refused page before anything is looked at."""
    route = ROUTES[endpoint]
    browser = world.browser(who_opens(route))
    others = csrf_for(world.app.test_client())  # a valid token, of another browser
    mine = csrf_for(browser)
    forged = mine[:-6] + ("A" if mine[-6] != "A" else "B") + mine[-5:]
    before = world.snapshot()
    for rule in rules_of(world, endpoint):
        path, query = path_of(world, rule), query_of(world, rule)
        for method in [m for m in ("HEAD", "GET") if m in (rule.methods or ())]:
            send(browser, method, rule, path, query_string=query)
        assert world.snapshot() == before, f"{endpoint}: GET or HEAD changed something"
        if "POST" not in (rule.methods or ()) or not route.csrf:
            continue  # (a link that acts alone: its damaged tokens are probed above)
        for name, form in (("no token", {}), ("another browser's token", {"csrf_token": others}),
                           ("a forged token", {"csrf_token": forged})):
            answer = send(browser, "POST", rule, path, data=form, query_string=query)
            where = f"POST {rule.rule} with {name}"
            assert answer.status_code == 400 and CSRF_REFUSED in answer.text, (
                where, answer.status_code)
        assert world.snapshot() == before, f"{endpoint}: a POST without its CSRF token acted"


# -- hostile input (last: these may reach deep into views) --------------------------------------


@pytest.mark.parametrize("endpoint", list(ROUTES))
def test_hostile_paths_and_queries_never_make_a_server_error(world: World, endpoint: str
                                                             ) -> None:
    """Each hostile value in each URL argument (GET, and POST with this browser's CSRF token,
    so that the view itself reads it), and in every query parameter of a GET. Routes that
    take neither (a POST-only form without arguments) have nothing to probe here."""
    browser = world.browser(who_opens(ROUTES[endpoint]))
    csrf = csrf_for(browser)
    for rule in rules_of(world, endpoint):
        methods = [m for m in ("GET", "POST") if m in (rule.methods or ())]
        for argument in sorted(rule.arguments):
            for name, hostile in HOSTILE.items():
                path = path_of(world, rule, raw={argument: hostile})
                for method in methods:
                    form = {"csrf_token": csrf} if method == "POST" else None
                    answer = send(browser, method, rule, path, data=form, check_store=False)
                    assert MARKUP not in answer.get_data(as_text=True), (
                        f"{method} {rule.rule} with {name} in <{argument}> shows markup")
        if "GET" not in methods:
            continue
        for name, hostile in HOSTILE_QUERIES.items():
            query = "&".join(f"{key}={hostile}" for key in QUERY_NAMES)
            answer = send(browser, "GET", rule, path_of(world, rule), query_string=query)
            assert MARKUP not in answer.get_data(as_text=True), (
                f"GET {rule.rule} with {name} in the query shows markup")


def test_a_huge_number_in_a_path_is_not_a_server_error(world: World) -> None:
    failed = []
    for endpoint, rules in sorted(rules_by_endpoint(world.app).items()):
        if endpoint not in ROUTES:
            continue  # unclassified: the table test says so
        browser = world.browser(who_opens(ROUTES[endpoint]))
        for rule in rules:
            for argument in sorted(rule.arguments):
                if not re.search(rf"<int(\([^)]*\))?:{argument}>", rule.rule):
                    continue
                path = path_of(world, rule, raw={argument: HUGE})
                for method in [m for m in ("GET", "POST") if m in (rule.methods or ())]:
                    form = {"csrf_token": csrf_for(browser)} if method == "POST" else None
                    answer = browser.open(path, method=method, data=form)
                    if answer.status_code >= 500:
                        failed.append(f"{method} {path} ({endpoint}): {answer.status_code}")
    assert not failed, "server errors:\n" + "\n".join(failed)
