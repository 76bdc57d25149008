"""The computer player: :class:`Bot` chooses a move by Monte Carlo tree search.

>>> from engine import new_game
>>> game = new_game("mosey", order=4)
>>> bot = Bot.at("easy", seed=7)
>>> move, confidence = bot.choose(game, game.start(), 0)
>>> move in game.legal_moves(game.start()), 0.0 <= confidence <= 1.0
(True, True)
>>> bot.choose(game, game.start(), 0) == (move, confidence)   # same seed and budget
True
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.base import JSON, AnyGame, Search
from engine.bots.mcts import Observer, Sampler, Tree
from engine.registry import new_game

NORMAL_PLAYOUTS = 400
LEVELS: dict[str, tuple[int | None, float | None]] = {
    "easy": (50, None),
    "normal": (NORMAL_PLAYOUTS, None),
    "strong": (None, 5.0),
}
"""Level -> (playouts, seconds): easy and normal count playouts, strong thinks for 5 s a move."""

DEFAULT_LEVEL = "normal"
EXPLORATION = 0.7
"""UCB1's exploration constant for rewards in 0..1 (sqrt(2)/2: a common choice)."""
CONFIDENCE_PRIOR = 6
"""Imaginary even playouts in the confidence: a small budget's few lucky playouts must not
make the bot say it expects to win (an easy bot said so in most games it then lost)."""


@dataclass(frozen=True)
class Bot:
    """A computer player: a level and its budget, an exploration constant and a seed.

    The budget is ``playouts`` (iterations of the search: deterministic for a seed) or, when
    ``seconds`` is set, a time per move read from ``clock`` (not deterministic: how many
    iterations fit depends on the machine). ``cutoff`` bounds a playout budget in seconds: a
    search still running then stops and plays its best move so far (a server's bots never
    block, whatever the machine's load). ``clock`` is only read for a time budget or a cutoff.
    """

    level: str = DEFAULT_LEVEL
    playouts: int | None = 400
    seconds: float | None = None
    exploration: float = EXPLORATION
    seed: int = 0
    cutoff: float | None = None
    clock: Callable[[], float] = field(default=time.perf_counter, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.playouts is None and self.seconds is None:
            raise ValueError("a bot needs a budget: playouts or seconds")
        if self.playouts is not None and self.playouts < 1:
            raise ValueError("playouts must be at least 1")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError("seconds must be positive")
        if self.cutoff is not None and self.cutoff <= 0:
            raise ValueError("the cutoff must be positive")

    @classmethod
    def at(cls, level: str = DEFAULT_LEVEL, *, seed: int = 0, playouts: int | None = None,
           seconds: float | None = None, exploration: float = EXPLORATION,
           cutoff: float | None = None) -> Bot:
        """The bot of a level (easy, normal, strong); ``playouts`` or ``seconds`` override its
        budget (a playout budget makes even ``strong`` deterministic).

        >>> Bot.at("strong", seconds=2).seconds, Bot.at("strong", playouts=800).seconds
        (2.0, None)
        """
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; choose one of: {', '.join(LEVELS)}")
        default_playouts, default_seconds = LEVELS[level]
        if playouts is not None:
            default_playouts, default_seconds = playouts, None
        elif seconds is not None:
            default_playouts, default_seconds = None, float(seconds)
        return cls(level, default_playouts, default_seconds, exploration, seed, cutoff)

    def choose(self, game: AnyGame, state: Any, seat: int) -> tuple[Any, float]:
        """(the move for ``seat`` to play in ``state``, the bot's confidence in 0..1).

        The confidence is the chosen move's mean reward in the search: near 1 the bot expects
        to win, near 0 to lose. A game's special choice (:meth:`engine.base.Search.special_move`,
        such as Stigmergy's komi) is made by the game's own calculation instead of the tree
        (with the playout budget, or 400 playouts under a time budget). Games decided by points
        (``Search.margin``) count the margin in the rewards.

        For games with hidden information the bot uses ``state`` only through what the game's
        ``search().determinize`` keeps of it, ``game.view(state, seat)``: every iteration
        searches a fresh state consistent with that view.
        """
        if game.to_move(state) != seat:
            raise ValueError(f"it is not seat {seat}'s turn")
        legal = game.legal_moves(state)
        rng = random.Random(f"bot/{self.seed}")
        search = game.search()
        sample, observe = _sampler(search, state, seat)
        tree = Tree(game, seat, rng, exploration=self.exploration, observe=observe,
                    margin=search.margin, fixed=observe is None)
        playouts, seconds = self.playouts, self.seconds
        special = search.special_move(state, rng, self.playouts or NORMAL_PLAYOUTS)
        if special is not None:
            return special
        if len(legal) == 1:
            # One move: search only enough to say how things look.
            playouts, seconds = max(1, (self.playouts or NORMAL_PLAYOUTS) // 8), None
        if seconds is None and self.cutoff is not None:
            seconds = self.cutoff  # the playouts, unless they take longer than this
        tree.run(sample, playouts=playouts, seconds=seconds, clock=self.clock)
        return tree.best(prior=CONFIDENCE_PRIOR)


def choose_stored(bot: Bot, game_id: str, options: Mapping[str, Any], stored: JSON | None,
                  seat: int) -> tuple[str, float]:
    """:meth:`Bot.choose` for a game as a server stores it (its id, options and encoded state;
    None: the start), answering the move's notation: plain values in and out, so that it runs
    as well in a worker process that imports nothing but the engine.

    >>> from engine import new_game
    >>> game, bot = new_game("mosey", order=4), Bot.at("easy", seed=3)
    >>> move, confidence = choose_stored(bot, "mosey", {"order": 4}, None, 0)
    >>> direct = bot.choose(game, game.start(), 0)
    >>> (move, confidence) == (str(direct[0]), direct[1])
    True
    """
    game = new_game(game_id, **options)
    state = game.start() if stored is None else game.decode(stored)
    move, confidence = bot.choose(game, state, seat)
    return str(move), confidence


def _sampler(search: Search[Any, Any, Any], state: Any,
             seat: int) -> tuple[Sampler, Observer | None]:
    """How to make determinizations for ``seat``, and how to observe chance (None: there is
    none, and every determinization is ``state`` itself)."""
    if search.hidden:
        def sample(rng: random.Random) -> Any:
            return search.determinize(state, seat, rng)

        return sample, search.observe
    info = search.game.info
    if info.hidden_information or info.chance:
        raise NotImplementedError(f"the bot cannot sample {info.name}'s hidden information")
    return (lambda rng: state), None
