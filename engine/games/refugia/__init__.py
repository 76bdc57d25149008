"""Refugia: movement and territory on alternating-hexagon boards, with neutral stones."""

from engine.games.refugia.rules import BOARDS, GAME_CLASSES, Refugia, RefugiaState

__all__ = ["BOARDS", "GAME_CLASSES", "Refugia", "RefugiaState"]
