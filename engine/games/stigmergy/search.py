"""Stigmergy for the computer player: rewards count the margin, and the komi is chosen by an
evaluation instead of the tree (:class:`StigmergySearch`, the game's :class:`engine.base.Search`).

The seat that names the komi is then at the mercy of the other, who takes the better side. So
the namer wants the komi that makes the game even: the median of Black's margin (Black's points
minus White's, komi 0) over random playouts from the empty board. Every playout plays the same
game whatever the komi is (komi 0 has no button), so one batch of playouts prices every komi at
once, and the median is the komi where Black and White win equally often. Under random playouts
Black's first move is worth about 1 point on size 5 and 2-3 on size 8.

>>> import random
>>> from engine import new_game
>>> game = new_game("stigmergy", size=5)
>>> komi, confidence = fair_komi(game, game.start(), random.Random(1), playouts=40)
>>> -3 <= komi <= 5 and 0.3 <= confidence <= 0.5
True
"""

from __future__ import annotations

import random
import statistics
from typing import TYPE_CHECKING

from engine.base import Search
from engine.games.stigmergy.moves import KomiMove, StigmergyMove
from engine.games.stigmergy.state import StigmergyState

if TYPE_CHECKING:  # the rules module makes its Search from this one
    from engine.games.stigmergy.rules import Stigmergy


def fair_komi(game: Stigmergy, state: StigmergyState, rng: random.Random,
              playouts: int) -> tuple[int, float]:
    """(the komi to name, the namer's chance when the other seat takes the better side)."""
    assert game.number_range(state) is not None
    even = game.play(game.play(state, KomiMove(0)), "play-second")  # seat 0 plays Black
    margins = []
    for _ in range(max(1, playouts)):
        black, white = game.colour_scores(game.playout(even, rng))
        margins.append(black - white)
    komi = round(statistics.median(margins))
    komi = min(max(komi, -game.komi_limit), game.komi_limit)
    # With an odd komi the button breaks a tie; count a tie as half a win either way.
    black_wins = sum(1.0 if m > komi else 0.5 if m == komi else 0.0 for m in margins)
    share = black_wins / len(margins)
    return komi, min(share, 1.0 - share)


class StigmergySearch(Search["Stigmergy", StigmergyState, StigmergyMove]):
    """Stigmergy is decided by points, and the seat naming the komi prices it by playouts."""

    margin = True
    def special_move(self, state: StigmergyState, rng: random.Random,
                     playouts: int) -> tuple[StigmergyMove, float] | None:
        if state.komi is not None:
            return None
        komi, confidence = fair_komi(self.game, state, rng, playouts)
        return KomiMove(komi), confidence
