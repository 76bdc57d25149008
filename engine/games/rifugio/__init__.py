"""Rifugio: 2-5 players, a growing hex-tile landscape, a secret draw pile, hidden scores.

``rules`` gives the notation, the game and its views; ``state`` every rule; ``tiles`` the edition's
components; ``text`` and ``draw`` what players read and see.
"""

from engine.games.rifugio.rules import GAME_CLASSES, Rifugio, RifugioMove, State, draw_order

__all__ = ["GAME_CLASSES", "Rifugio", "RifugioMove", "State", "draw_order"]
