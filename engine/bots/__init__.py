"""Computer players: Monte Carlo tree search for every game (docs/bots.md).

>>> from engine import new_game
>>> from engine.bots import Bot
>>> game = new_game("refugia", board="2-3")
>>> move, confidence = Bot.at("easy", seed=1).choose(game, game.start(), 0)
>>> move in game.legal_moves(game.start())
True
"""

from engine.bots.bot import DEFAULT_LEVEL, EXPLORATION, LEVELS, Bot, choose_stored
from engine.bots.mcts import Tree, number_candidates, rewards

__all__ = ["DEFAULT_LEVEL", "EXPLORATION", "LEVELS", "Bot", "Tree", "choose_stored",
           "number_candidates", "rewards"]
