"""Errors a person can cause: each message says why, for them.

They live below every package that raises them (the clock, the services, the mail) so none of those
has to import another to say no.
"""

from __future__ import annotations

import engine
from engine.text import Text, Words
from pbem.models import GameRecord


class ServiceError(ValueError):
    """Something a person asked for that cannot be done; the message says why, for them."""


class GameMovedOn(ServiceError):
    """The game is no longer at the ply the player saw (someone else moved, or a double submit).

    It carries the game's id and ply, not its row: the row belongs to a transaction that is rolled
    back by the time anyone catches this, and using it then fails (DetachedInstanceError).
    """

    def __init__(self, game: GameRecord) -> None:
        super().__init__(Text("the game has moved on since this page was opened"))
        self.game_id = game.id
        self.ply = game.ply


class NotYourTurn(ServiceError):
    pass


class GameNotActive(ServiceError):
    pass


def reason_of(error: Exception) -> Words:
    """Why a move or a service was refused, untranslated: the engine's :class:`Text` for an
    illegal move, the message a service raised (a Text where the service wrote one) otherwise."""
    if isinstance(error, engine.IllegalMove):
        return error.text
    found = getattr(error, "text", None) or (error.args[0] if error.args else "")
    return found if isinstance(found, str) else str(error)
