"""pbem's game engines: pure rules and SVG drawing, no I/O.

>>> from engine import new_game
>>> game = new_game("mosey")
>>> state = game.play(game.start(), "G5xF4")
>>> game.outcome(state) is None
True
"""

from engine.base import (
    AnyGame,
    Ending,
    Game,
    GameInfo,
    IllegalMove,
    NumberRange,
    Option,
    Outcome,
    SideTable,
    Term,
    UnknownGame,
)
from engine.registry import GAMES, family_of, game_class, new_game

__all__ = [
    "GAMES",
    "AnyGame",
    "Ending",
    "Game",
    "GameInfo",
    "IllegalMove",
    "NumberRange",
    "Option",
    "Outcome",
    "SideTable",
    "Term",
    "UnknownGame",
    "family_of",
    "game_class",
    "new_game",
]
