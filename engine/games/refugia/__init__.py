"""Refugia: movement and territory on alternating-hexagon boards, with neutral stones.

``rules`` holds the game, ``board`` the position and the bitboard arithmetic of a turn,
``drawing`` its pictures and words.
"""

from engine.games.refugia.rules import GAME_CLASSES

__all__ = ["GAME_CLASSES"]
