"""pbem's game engines: pure rules and SVG drawing, no I/O.

>>> from engine import new_game
>>> game = new_game("mosey")
>>> state = game.play(game.start(), "G5xF4")
>>> game.outcome(state) is None
True
"""

from engine.base import (
    Game,
    GameInfo,
    IllegalMove,
    NumberChoice,
    Option,
    Outcome,
    UnknownGame,
)
from engine.registry import GAMES, game_class, new_game

__all__ = [
    "GAMES",
    "Game",
    "GameInfo",
    "IllegalMove",
    "NumberChoice",
    "Option",
    "Outcome",
    "UnknownGame",
    "game_class",
    "new_game",
]
