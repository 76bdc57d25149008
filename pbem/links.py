"""Signed links: what a player clicks in an email.

Each purpose has its own salt, so a token made for one thing (accepting an invitation) can never be
used for another (moving). Move tokens name the game, the seat and the ply, so a link stops working
once that turn is over: the page then shows the current game and says it has moved on.

>>> links = Links("secret", "https://pbem.example")
>>> token = links.sign("move", game=3, seat=1, ply=7)
>>> links.load("move", token)
{'game': 3, 'seat': 1, 'ply': 7}
>>> links.load("invite", token)
Traceback (most recent call last):
...
pbem.links.DamagedLink: this link is damaged

Links for a seat (moving, accepting, resigning, viewing) are bound to the player who holds the
seat: tokens carry that player's id (``p``), and once an organiser puts someone else on the seat the
old player's tokens raise :class:`ReplacedSeatLink`. Callers that know the holder pass it
(``holder=``); otherwise ``seat_holder`` (:func:`seat_holder_for` reads the seats table) is asked.

>>> token = links.sign("move", game=3, seat=1, ply=7, p=12)
>>> links.load("move", token)["p"]
12

A player's games-page link (``player``) carries the player's links version (``v``, left out while
it is 0, as in the links mailed before versions existed). "Replace my email links" adds one to
``Player.links_version``: older links then raise :class:`ReplacedPlayerLink`. Callers that know the
version pass it (``version=``); otherwise ``links_version`` (:func:`links_version_for` reads the
players table) is asked.

>>> links.load("player", links.my_games_url(5, version=2).rpartition("/")[2])
{'player': 5, 'v': 2}

A player's calendar feed (``calendar``, :mod:`pbem.calendar`) carries the links version too, so
replacing the email links also replaces the calendar's address.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from itsdangerous import BadData, URLSafeSerializer
from itsdangerous.encoding import base64_encode
from sqlmodel import select

from engine.text import Text
from pbem.db import Database
from pbem.models import Player, Seat, SeatReplacement

Purpose = Literal["move", "invite", "resign", "player", "unsubscribe", "seat-view", "calendar"]
SEAT_PURPOSES: frozenset[Purpose] = frozenset({"move", "invite", "resign", "seat-view"})
# A player's own links, which "Replace my email links" replaces (the token's ``v``).
VERSIONED: frozenset[Purpose] = frozenset({"player", "calendar"})

# The fields each purpose's token carries; seat tokens may also name the seat's holder (``p``),
# and a games-page or calendar token its player's links version (``v``).
FIELDS: dict[Purpose, frozenset[str]] = {
    "move": frozenset({"game", "seat", "ply"}),
    "invite": frozenset({"game", "seat"}),
    "resign": frozenset({"game", "seat"}),
    "seat-view": frozenset({"game", "seat"}),
    "player": frozenset({"player"}),
    "unsubscribe": frozenset({"player"}),
    "calendar": frozenset({"player"}),
}
# Ids, seats and plies are database integers: a value past PostgreSQL's INTEGER would make the
# lookup itself fail, so such a token is damaged, like a negative seat.
MAX_FIELD = 2**31 - 1

SeatHolder = Callable[[int, int], "int | None"]
"""(game id, seat) -> the id of the player on that seat now, or None if there is no such seat."""

LinksVersion = Callable[[int], "int | None"]
"""player id -> that player's links version now (``Player.links_version``), or None if there is
no such player."""


class DamagedLink(ValueError):
    """A token whose signature or content does not check out (cut short, edited, or forged)."""

    def __init__(self) -> None:
        super().__init__(Text("this link is damaged"))


class ReplacedSeatLink(DamagedLink):
    """A seat's link sent to a player the organiser has since replaced on that seat."""

    def __init__(self, game: int, seat: int) -> None:
        ValueError.__init__(self, Text("this link was for a player who has been replaced in this "
                                       "game"))
        self.game = game
        self.seat = seat


class ReplacedPlayerLink(DamagedLink):
    """A games-page link from before the player replaced their email links."""

    def __init__(self, player: int) -> None:
        super().__init__()  # the page says so (pbem.web.players); nothing else shows it
        self.player = player


@dataclass(frozen=True)
class Links:
    """Makes and checks signed tokens, and builds the absolute URLs that go into emails.

    URL paths are defined here (and only here) so services can build links without a request.
    """

    secret_key: str
    base_url: str
    # Who holds a seat now (the app reads the seats table); None: tokens are not bound.
    seat_holder: SeatHolder | None = field(default=None, compare=False)
    # Each player's links version now (the app reads the players table); None: every version 0.
    links_version: LinksVersion | None = field(default=None, compare=False)

    def _serializer(self, purpose: Purpose) -> URLSafeSerializer:
        return self._minters[purpose].serializer

    @cached_property
    def _minters(self) -> dict[Purpose, _Minter]:
        return {purpose: _Minter(self.secret_key, f"pbem-{purpose}") for purpose in FIELDS}

    def holder(self, game: int, seat: int) -> int | None:
        return self.seat_holder(game, seat) if self.seat_holder else None

    def sign(self, purpose: Purpose, **fields: int) -> str:
        if purpose in SEAT_PURPOSES and "p" not in fields and {"game", "seat"} <= fields.keys():
            player = self.holder(fields["game"], fields["seat"])
            if player is not None:
                fields = {**fields, "p": player}
        return self._minters[purpose].token(fields)

    def load(self, purpose: Purpose, token: str) -> dict[str, Any]:
        """The fields of a valid token; :class:`DamagedLink` for anything else."""
        try:
            fields: dict[str, Any] = self._serializer(purpose).loads(token)
        except BadData:  # a bad signature, and also a signed payload that is not our JSON
            raise DamagedLink() from None
        if not well_formed(purpose, fields):
            raise DamagedLink()
        if purpose in SEAT_PURPOSES and "p" in fields and self.seat_holder is not None:
            holder = self.holder(fields.get("game", -1), fields.get("seat", -1))
            if holder is not None and holder != fields["p"]:
                raise ReplacedSeatLink(fields["game"], fields["seat"])
        if purpose in VERSIONED and self.links_version is not None:
            current = self.links_version(fields["player"])
            if current is not None and fields.get("v", 0) != current:
                raise ReplacedPlayerLink(fields["player"])
        return fields

    # -- absolute URLs for emails --------------------------------------------------------------

    def game_url(self, public_id: str) -> str:
        return f"{self.base_url}/g/{public_id}"

    def _seat_url(self, path: str, purpose: Purpose, game: int, seat: int, holder: int | None,
                  **fields: int) -> str:
        if holder is not None:
            fields["p"] = holder
        return f"{self.base_url}/{path}/{self.sign(purpose, game=game, seat=seat, **fields)}"

    def move_url(self, game: int, seat: int, ply: int, *, holder: int | None = None) -> str:
        return self._seat_url("play", "move", game, seat, holder, ply=ply)

    def invite_url(self, game: int, seat: int, *, holder: int | None = None) -> str:
        return self._seat_url("invite", "invite", game, seat, holder)

    def seat_view_url(self, game: int, seat: int, *, holder: int | None = None) -> str:
        """The game page as this seat sees it (their hidden information included)."""
        return self._seat_url("seat", "seat-view", game, seat, holder)

    def resign_url(self, game: int, seat: int, *, holder: int | None = None) -> str:
        return self._seat_url("resign", "resign", game, seat, holder)

    def my_games_url(self, player: int, *, version: int | None = None) -> str:
        """The games-page link of mails: it opens the player's games once this browser is
        signed in as them, or with one press of a button (pbem.web.players)."""
        return f"{self.base_url}/me/{self.player_token(player, version=version)}"

    def player_token(self, player: int, *, version: int | None = None,
                     purpose: Purpose = "player") -> str:
        """A ``player`` (or ``calendar``) token of the player's links version now (or
        ``version``)."""
        if version is None:
            version = (self.links_version(player) if self.links_version else None) or 0
        fields = {"player": player, "v": version} if version else {"player": player}
        return self.sign(purpose, **fields)

    def calendar_url(self, player: int, *, version: int | None = None) -> str:
        """The player's calendar of deadlines (:mod:`pbem.calendar`), for a calendar app to
        subscribe to: it shows their turns, so it is as secret as their games-page link."""
        token = self.player_token(player, version=version, purpose="calendar")
        return f"{self.base_url}/calendar/{token}"

    def unsubscribe_url(self, player: int) -> str:
        return f"{self.base_url}/unsubscribe/{self.sign('unsubscribe', player=player)}"


class _Minter:
    """Makes one purpose's tokens, byte for byte what its itsdangerous serializer makes, with
    the key derived once: a page of 200 games signs about 300 links, and itsdangerous derives
    the key and builds a signer for each one (issue 36). Tokens are checked by the serializer
    itself (:meth:`Links.load`)."""

    def __init__(self, secret_key: str, salt: str) -> None:
        self.serializer = URLSafeSerializer(secret_key, salt=salt)
        signer = self.serializer.make_signer()
        self._separator = signer.sep
        # HMAC keyed once; each token signs with a copy of it.
        self._keyed = hmac.new(signer.derive_key(), digestmod=signer.digest_method)

    def token(self, fields: dict[str, int]) -> str:
        payload = self.serializer.dump_payload(fields)
        mac = self._keyed.copy()
        mac.update(payload)
        return (payload + self._separator + base64_encode(mac.digest())).decode("ascii")


def well_formed(purpose: Purpose, fields: object) -> bool:
    """Exactly the fields ``purpose`` needs (and ``p`` for a seat), each a whole number in range.

    Only we can sign tokens, but a token signed by an older or buggy version must still get the
    damaged-link page rather than fail later (``True`` is an int to Python, so it is refused too).

    >>> well_formed("move", {"game": 1, "seat": 0, "ply": 2}), well_formed("move", {"game": 1})
    (True, False)
    >>> well_formed("invite", {"game": 1, "seat": -1}), well_formed("player", {"player": True})
    (False, False)
    """
    if not isinstance(fields, dict):
        return False
    needed = FIELDS[purpose]
    allowed = (needed | {"p"} if purpose in SEAT_PURPOSES
               else needed | {"v"} if purpose in VERSIONED else needed)
    return (needed <= fields.keys() <= allowed
            and all(type(v) is int and 0 <= v <= MAX_FIELD for v in fields.values()))


# -- seats and their holders, as the database has them ----------------------------------------


def seat_holder_for(database: Database) -> SeatHolder:
    """A :data:`SeatHolder` that reads the seats table (committed data)."""
    def holder(game: int, seat: int) -> int | None:
        with database.session() as session:
            return session.exec(select(Seat.player_id).where(
                Seat.game_id == game, Seat.seat == seat)).first()
    return holder


def links_version_for(database: Database) -> LinksVersion:
    """A :data:`LinksVersion` that reads the players table (committed data)."""
    def version(player: int) -> int | None:
        with database.session() as session:
            return session.exec(select(Player.links_version).where(Player.id == player)).first()
    return version


def refused_seat_token(links: Links, database: Database, purpose: Purpose, token: str) -> bool:
    """True when ``token`` is for a seat its player no longer holds.

    Tokens signed before seats had holders (invitations are signed while the game's seats are still
    being written) carry no ``p``: those are refused once the seat has a recorded replacement.
    A damaged token is not refused here: the page itself says it is damaged.
    """
    try:
        fields = links.load(purpose, token)
    except ReplacedSeatLink:
        return True
    except DamagedLink:
        return False
    if "p" in fields or "game" not in fields or "seat" not in fields:
        return False
    with database.session() as session:
        return session.exec(select(SeatReplacement.id).where(
            SeatReplacement.game_id == fields["game"], SeatReplacement.seat == fields["seat"],
        )).first() is not None
