"""Stigmergy: line-of-sight territory with komi negotiation and a button.

``rules`` holds the game, ``moves`` its notation, ``state`` the position with sight, control and
the fast playout, ``drawing`` the pictures and the text board, ``terms`` the game's own words
explained, ``search`` the computer player's margin rewards and komi pricing.
"""

from engine.games.stigmergy.rules import GAME_CLASSES

__all__ = ["GAME_CLASSES"]
