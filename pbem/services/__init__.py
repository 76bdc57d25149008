"""What the service does, as plain functions of a session and ``now`` (no Flask, no clock).

Each function runs inside the caller's transaction: the caller commits, so a move and the emails it
causes are written together or not at all (the transactional outbox).
"""

from pbem.services.common import (
    GameMovedOn,
    GameNotActive,
    NotYourTurn,
    ServiceError,
    Site,
)
from pbem.services.games import abort_game, create_game, respond_to_invitation, start_game
from pbem.services.players import PlayerSpec, parse_player
from pbem.services.resignation import resign
from pbem.services.turns import submit_move

__all__ = [
    "GameMovedOn",
    "GameNotActive",
    "NotYourTurn",
    "PlayerSpec",
    "ServiceError",
    "Site",
    "abort_game",
    "create_game",
    "parse_player",
    "resign",
    "respond_to_invitation",
    "start_game",
    "submit_move",
]
