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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from itsdangerous import BadSignature, URLSafeSerializer

Purpose = Literal["move", "invite", "resign", "player", "unsubscribe", "seat-view"]
PURPOSES: tuple[Purpose, ...] = ("move", "invite", "resign", "player", "unsubscribe", "seat-view")


class DamagedLink(ValueError):
    """A token whose signature or content does not check out (cut short, edited, or forged)."""

    def __init__(self) -> None:
        super().__init__("this link is damaged")


@dataclass(frozen=True)
class Links:
    """Makes and checks signed tokens, and builds the absolute URLs that go into emails.

    URL paths are defined here (and only here) so services can build links without a request.
    """

    secret_key: str
    base_url: str

    def _serializer(self, purpose: Purpose) -> URLSafeSerializer:
        return URLSafeSerializer(self.secret_key, salt=f"pbem-{purpose}")

    def sign(self, purpose: Purpose, **fields: int) -> str:
        return str(self._serializer(purpose).dumps(fields))

    def load(self, purpose: Purpose, token: str) -> dict[str, Any]:
        """The fields of a valid token; :class:`DamagedLink` for anything else."""
        try:
            fields = self._serializer(purpose).loads(token)
        except BadSignature:
            raise DamagedLink() from None
        if not isinstance(fields, dict) or not all(isinstance(v, int) for v in fields.values()):
            raise DamagedLink()
        return fields

    # -- absolute URLs for emails --------------------------------------------------------------

    def game_url(self, public_id: str) -> str:
        return f"{self.base_url}/g/{public_id}"

    def move_url(self, game: int, seat: int, ply: int) -> str:
        return f"{self.base_url}/play/{self.sign('move', game=game, seat=seat, ply=ply)}"

    def invite_url(self, game: int, seat: int) -> str:
        return f"{self.base_url}/invite/{self.sign('invite', game=game, seat=seat)}"

    def seat_view_url(self, game: int, seat: int) -> str:
        """The game page as this seat sees it (their hidden information included)."""
        return f"{self.base_url}/seat/{self.sign('seat-view', game=game, seat=seat)}"

    def resign_url(self, game: int, seat: int) -> str:
        return f"{self.base_url}/resign/{self.sign('resign', game=game, seat=seat)}"

    def my_games_url(self, player: int) -> str:
        return f"{self.base_url}/me/{self.sign('player', player=player)}"

    def unsubscribe_url(self, player: int) -> str:
        return f"{self.base_url}/unsubscribe/{self.sign('unsubscribe', player=player)}"
