"""Stigmergy: line-of-sight territory with komi negotiation and a button.

``rules`` holds the game, ``moves`` its notation, ``drawing`` its pictures and words, ``board``
sight, control and the fast playout.
"""

from engine.games.stigmergy.rules import GAME_CLASSES

__all__ = ["GAME_CLASSES"]
