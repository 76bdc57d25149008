"""Refugia: movement and territory on alternating-hexagon boards, with neutral stones."""

from engine.games.refugia.rules import GAME_CLASSES

__all__ = ["GAME_CLASSES"]
