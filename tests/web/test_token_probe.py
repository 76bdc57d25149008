"""Every link of the player pages, damaged every way we can think of: never a server error.

Tokens are cut short, have characters changed, come from another purpose, or are validly signed
(with the server's own secret, as an old or buggy version might have) around payloads of the wrong
shape: not JSON, wrong types, missing fields, negative or huge seats. Each gets the page that says
the link is damaged, and nothing in the database changes.
"""

from __future__ import annotations

import html
from datetime import datetime
from typing import Any

import pytest
from flask.testing import FlaskClient
from itsdangerous import URLSafeSerializer
from sqlmodel import select

from pbem.db import Database
from pbem.links import DamagedLink, Purpose
from pbem.models import AuditEntry, GameRecord, Move, OutboxEmail, Player, Seat
from pbem.services import PlayerSpec, Site, create_game
from tests.support import SECRET, csrf_of, start_a_game

DAMAGED = "This link is damaged"
HUGE = 10**30

# path template, the purpose its token is signed for, and the form a POST sends.
ROUTES: list[tuple[str, Purpose, dict[str, str] | None]] = [
    ("/play/{}", "move", None),
    ("/play/{}/confirm?move=pass", "move", {"move": "pass"}),
    ("/resign/{}", "resign", {}),
    ("/invite/{}", "invite", {"answer": "accept"}),
    ("/seat/{}", "seat-view", None),
    ("/me/{}", "player", {"name": "Mallory", "time_zone": "UTC"}),
    ("/unsubscribe/{}", "unsubscribe", {}),
]


def _signed(purpose: Purpose, payload: Any) -> str:
    """A token with a valid signature around any JSON payload."""
    return str(URLSafeSerializer(SECRET, salt=f"pbem-{purpose}").dumps(payload))


def _signed_bytes(purpose: Purpose, raw: bytes) -> str:
    """A valid signature around bytes that are not a payload at all (itsdangerous BadPayload)."""
    serializer = URLSafeSerializer(SECRET, salt=f"pbem-{purpose}")
    return serializer.make_signer(f"pbem-{purpose}").sign(raw).decode()


def _payloads(purpose: Purpose, game: int) -> list[Any]:
    if purpose in ("player", "unsubscribe"):
        good: dict[str, Any] = {"player": 1}
        key = "player"
    else:
        good = {"game": game, "seat": 0, "ply": 0} if purpose == "move" else {"game": game,
                                                                               "seat": 0}
        key = "seat"
    shapes: list[Any] = [None, [], "text", 7, 1.5, {}, {"unknown": 1}]
    shapes += [{**good, key: value} for value in (-1, -2, 2, 99, HUGE, -HUGE, "0", True, None,
                                                   0.0, [0], {"a": 1})]
    shapes += [{k: v for k, v in good.items() if k != missing} for missing in good]
    shapes += [{**good, "game": value} for value in (-1, HUGE, "1")] if "game" in good else []
    shapes += [{**good, "ply": value} for value in (-1, HUGE)] if "ply" in good else []
    shapes += [{**good, "p": value} for value in (-1, HUGE, "1")]
    if purpose == "player":  # the links version of a games-page link
        shapes += [{**good, "v": value} for value in (-1, HUGE, "1", True, None, 1.0)]
    return shapes


def _mutations(site: Site, purpose: Purpose, game: int) -> list[str]:
    good = site.links.sign(purpose, **({"player": 1} if purpose in ("player", "unsubscribe")
                                        else {"game": game, "seat": 0, "ply": 0}
                                        if purpose == "move" else {"game": game, "seat": 0}))
    tokens = [good[:-1], good[: len(good) // 2], good.split(".")[0], "." + good, good + "x",
              "garbage", "a.b", "..", "%00", "x" * 3000]
    for position in range(0, len(good), 7):  # one changed character at a time
        changed = "A" if good[position] != "A" else "B"
        tokens.append(good[:position] + changed + good[position + 1:])
    tokens += [site.links.sign(other, game=game, seat=0, ply=0, player=1)
               for other in ("move", "invite", "resign", "player", "unsubscribe", "seat-view")
               if other != purpose]
    tokens += [_signed(purpose, payload) for payload in _payloads(purpose, game)]
    tokens += [_signed_bytes(purpose, raw) for raw in (b"%%%", b".eJw", b"bm90IGpzb24", b"")]
    return tokens


def _snapshot(database: Database) -> tuple[Any, ...]:
    with database.session() as session:
        return tuple(
            sorted(repr(row.model_dump()) for row in session.exec(select(table)))
            for table in (GameRecord, Move, Seat, Player, OutboxEmail, AuditEntry))


@pytest.mark.parametrize(("path", "purpose", "form"), ROUTES)
def test_damaged_tokens_get_the_damaged_link_page_and_change_nothing(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
    path: str, purpose: Purpose, form: dict[str, str] | None,
) -> None:
    game_pk = start_a_game(sqlite_database, now, site, any_game)
    with sqlite_database.write() as session:  # an invited game too, for invitation tokens
        invited = create_game(session, now, site, game_type=any_game,
                              players=[PlayerSpec("P0", "p0@example.test"),
                                       PlayerSpec("P1", "p1@example.test")])
        invited_pk = invited.id
    assert invited_pk is not None
    game = invited_pk if purpose == "invite" else game_pk
    csrf = csrf_of(client.get(site.links.my_games_url(1)).text)
    before = _snapshot(sqlite_database)
    for token in _mutations(site, purpose, game):
        try:
            site.links.load(purpose, token)
            continue  # a change that happened to leave the token valid (base64's spare bits)
        except DamagedLink:
            pass
        url = path.format(token)
        answers = [client.get(url), client.head(url)]
        if form is not None:
            answers.append(client.post(url, data={**form, "csrf_token": csrf}))
        for answer in answers:
            assert answer.status_code < 500, (url, answer.status_code)
            assert answer.status_code == 400, (url, answer.status_code)
            if answer.request.method != "HEAD":
                assert DAMAGED in html.unescape(answer.text), url
                assert "(you)" not in answer.text
    assert _snapshot(sqlite_database) == before


def test_a_seat_the_game_does_not_have_is_a_damaged_link(
    client: FlaskClient, sqlite_database: Database, now: datetime, site: Site, any_game: str,
) -> None:
    """Seat -1 once showed the last seat as "(you)"; seat 2 of a two-player game failed."""
    with sqlite_database.write() as session:
        row = create_game(session, now, site, game_type=any_game,
                          players=[PlayerSpec("P0", "p0@example.test"),
                                   PlayerSpec("P1", "p1@example.test")])
        game_pk = row.id
    assert game_pk is not None
    for seat in (-1, 2, HUGE):
        for purpose, path in (("invite", "/invite/{}"), ("seat-view", "/seat/{}"),
                              ("resign", "/resign/{}")):
            page = client.get(path.format(_signed(purpose, {"game": game_pk, "seat": seat})))
            assert page.status_code == 400 and DAMAGED in html.unescape(page.text)
    assert "(you)" in client.get(site.links.invite_url(game_pk, 1)).text
