"""Ratings by OpenSkill's Plackett-Luce model: one model for two to five players and for ties.

Why this model (docs/ratings.md): Rifugio seats two to five and can end in shared places; Glicko-2
and Elo rate pairs only and would have to split a table into pairwise games. Plackett-Luce rates a
whole table at once from its order, with ties, and reduces to a Glicko-like two-player update.

Parameters are OpenSkill's defaults: a new player has μ = 25 and σ = 25/3; β = 25/6 (the skill
gap that wins about 76% of two-player games) and τ = 25/300 (the uncertainty added each game, so
ratings keep moving). Shown to people: ``1500 + 60 × (μ − 3σ)``, a conservative value that a new
player starts at (μ − 3σ = 0) and that rises as their results make us surer. A rating is
*provisional* until :data:`PROVISIONAL_GAMES` rated games.

    >>> ann, bob = Rating(), Rating()
    >>> ann, bob = rate([ann, bob], [1, 2])
    >>> ann.shown > 1500 > bob.shown, ann.games, ann.provisional
    (True, 1, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
PROVISIONAL_GAMES = 5
SHOWN_BASE = 1500
SHOWN_SCALE = 60


@dataclass(frozen=True)
class Rating:
    """One player's skill estimate in one game id: mean, uncertainty and rated games so far."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0

    @property
    def conservative(self) -> float:
        """μ − 3σ: the skill we are fairly sure the player has at least (leaderboards sort by
        it)."""
        return self.mu - 3 * self.sigma

    @property
    def shown(self) -> int:
        return round(SHOWN_BASE + SHOWN_SCALE * self.conservative)

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


def rate(ratings: Sequence[Rating], ranks: Sequence[float]) -> list[Rating]:
    """New ratings after one game: ``ranks`` per seat, 1 for first; equal ranks tie."""
    if len(ratings) != len(ranks) or len(ratings) < 2:
        raise ValueError("a rated game needs two or more players, each with a rank")
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    updated = MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    return [Rating(team[0].mu, team[0].sigma, old.games + 1)
            for team, old in zip(updated, ratings, strict=True)]
