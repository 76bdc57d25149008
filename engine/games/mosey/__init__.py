"""The Mosey family: Mosey, Don't Mosey, Keep-a-riding, Firestorm, Conflagration and Backfire.

``rules`` holds the games, ``moves`` the movement rules written plainly, ``fast`` the same rules
on bitboards for random playouts, ``state`` the position and the opening setups, ``drawing`` the
pictures and the text board, ``terms`` the family's own words explained.
"""

from engine.games.mosey.rules import GAME_CLASSES

__all__ = ["GAME_CLASSES"]
