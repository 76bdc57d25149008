"""Rifugio: 2-5 players, a growing hex-tile landscape, a secret draw pile, hidden scores.

``rules`` gives the notation, the game and its views; ``state`` every rule; ``tiles`` the edition's
components; ``text`` what players read and ``drawing`` what they see; ``terms`` the game's own
words explained and the seats' colours; ``search`` what the computer player guesses of what a
seat cannot see.
"""

from engine.games.rifugio.rules import GAME_CLASSES

__all__ = ["GAME_CLASSES"]
