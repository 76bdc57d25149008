"""Refugia: movement and territory on alternating-hexagon boards, with neutral stones.

``rules`` holds the game, ``state`` the position and the bitboard arithmetic of a turn,
``drawing`` the pictures and the text board, ``terms`` the game's own words explained.
"""

from engine.games.refugia.rules import GAME_CLASSES

__all__ = ["GAME_CLASSES"]
