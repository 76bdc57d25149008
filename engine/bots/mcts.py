"""Information-set Monte Carlo tree search (UCT) over any :class:`engine.base.Game`.

One tree, its nodes reached by the moves' notation (``str(move)``). Each iteration:

1. *Determinize*: a full state consistent with what the searching seat sees (for games without
   hidden information, the state itself; else the game's ``search().determinize``).
2. *Select / expand*: from the root, while the game runs: count every legal edge as available,
   expand one untried move (picked with the seeded rng) or else follow the edge with the best
   UCB1 score ``mean + c * sqrt(ln(available) / visits)`` (the "subset-armed" form, because which
   moves are legal can differ between determinizations; moves without cells, such as a pass,
   are expanded first). A move that reveals a chance outcome
   (a tile drawn) leads to a child per *observation*, so the draws are chance nodes.
3. *Rollout*: ``game.playout(state, rng)``, each game's fast path, to the end.
4. *Back up*: each edge adds the reward of the seat that made that move (:func:`rewards`).

The move chosen is the most visited root edge (ties: better mean, then notation order); its mean
reward for the searching seat is the confidence.

>>> from engine import new_game
>>> import random
>>> game = new_game("mosey", order=4)
>>> tree = Tree(game, 0, random.Random(1), exploration=0.7)
>>> tree.run(lambda rng: game.start(), playouts=20)
>>> move, confidence = tree.best()
>>> move in game.legal_moves(game.start()) and 0.0 <= confidence <= 1.0
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from engine.base import AnyGame, NumberRange, Outcome

Sampler = Callable[[random.Random], Any]
"""Makes a determinization: a full state consistent with the searching seat's view."""

Observer = Callable[[Any], Hashable]
"""The public result of chance after a move (e.g. Rifugio's hand and display); None: no chance."""

KOMI_STEPS = (0, 1, -1, 2, -2, 3, -3, 5, -5, 7, -7, 10, -10)
"""Candidate values for a :class:`NumberRange` (see :func:`number_candidates`)."""


def number_candidates(choice: NumberRange) -> list[int]:
    """The handful of values the search tries for a numeric choice: 0 and small numbers either
    side, clipped to the legal range (the range's ends stand in when 0 is outside it).

    Stigmergy's komi under random playouts is balanced near 0, and the opponent chooses sides
    afterwards, so the search looks for the komi that leaves the side-chooser the least edge.

    >>> number_candidates(NumberRange("komi", -62, 62))
    [-10, -7, -5, -3, -2, -1, 0, 1, 2, 3, 5, 7, 10]
    >>> number_candidates(NumberRange("n", 4, 6))
    [4, 5, 6]
    """
    values = {min(max(v, choice.low), choice.high) for v in KOMI_STEPS}
    return sorted(values)


def expand_moves(game: AnyGame, state: Any) -> list[tuple[str, Any]]:
    """(notation, move) for every move the search considers: of a range of number moves only
    the :func:`number_candidates` (first, as ``random_move`` counts the range), then the rest."""
    moves, numbers = game.move_choices(state)
    found: list[tuple[str, Any]] = []
    if numbers is not None:
        for value in number_candidates(numbers):
            move = game.parse_move(str(value))
            found.append((str(move), move))
    found.extend((str(move), move) for move in moves)
    return found


def margin_rewards(outcome: Outcome, players: int) -> list[float]:
    """Half the win share of :func:`rewards`, half the score margin: for games decided by points
    (``Search.margin``), where a small budget learns more from "won by 40" than from "won".

    >>> [round(r, 3) for r in margin_rewards(Outcome((0,), (60.0, 40.0)), 2)]
    [0.883, 0.117]
    """
    base = rewards(outcome, players)
    if players != 2 or outcome.scores is None:
        return base
    a, b = outcome.scores
    lead = math.tanh(3 * (a - b) / (abs(a) + abs(b) + 1))
    return [(base[0] + (1 + lead) / 2) / 2, (base[1] + (1 - lead) / 2) / 2]


def rewards(outcome: Outcome, players: int) -> list[float]:
    """What a finished game is worth to each seat, in 0..1.

    Two seats: 1 a win, 0 a loss, 0.5 a draw or a shared win (the win share). More seats: the
    mean of the win share and the rank share (opponents scored below, ties counting half), so a
    second place is worth more than a last place.

    >>> rewards(Outcome(winners=(1,)), 2), rewards(Outcome(winners=()), 2)
    ([0.0, 1.0], [0.5, 0.5])
    >>> rewards(Outcome(winners=(0,), scores=(9.0, 5.0, 1.0)), 3)
    [1.0, 0.25, 0.0]
    """
    if outcome.winners:
        share = [1.0 / len(outcome.winners) if s in outcome.winners else 0.0
                 for s in range(players)]
    else:
        share = [1.0 / players] * players
    if players <= 2 or outcome.scores is None:
        return share
    scores = outcome.scores
    rank = [sum(1.0 if scores[s] > scores[o] else 0.5 if scores[s] == scores[o] else 0.0
                for o in range(players) if o != s) / (players - 1) for s in range(players)]
    return [(w + r) / 2 for w, r in zip(share, rank, strict=True)]


@dataclass
class Edge:
    """A move from a node: its statistics and the child nodes, one per chance observation."""

    move: Any
    visits: int = 0
    total: float = 0.0
    available: int = 0
    children: dict[Hashable, Node] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        return self.total / self.visits if self.visits else 0.0


@dataclass
class Node:
    """An information set: the edges tried from it, keyed by the moves' notation, and (when
    every determinization is the same state) its moves, listed on the first visit."""

    edges: dict[str, Edge] = field(default_factory=dict)
    moves: list[tuple[str, Any]] | None = None


class Tree:
    """One search tree for ``seat`` (the seat to move at the root)."""

    def __init__(self, game: AnyGame, seat: int, rng: random.Random, *,
                 exploration: float, observe: Observer | None = None,
                 margin: bool = False, fixed: bool = False) -> None:
        self.game, self.seat, self.rng = game, seat, rng
        # One state per node (no hidden information): its legal moves never change, and
        # listing them again on every visit was most of the tree's cost in short games.
        self.fixed = fixed
        self.score = margin_rewards if margin else rewards
        self.exploration = exploration
        self.observe = observe
        self.root = Node()

    def run(self, sample: Sampler, *, playouts: int | None = None,
            seconds: float | None = None, clock: Callable[[], float] | None = None) -> None:
        """Iterate ``playouts`` times, or until ``seconds`` have passed on ``clock``, whichever
        comes first when both are given (at least once either way)."""
        if seconds is None:
            for _ in range(max(1, playouts or 1)):
                self.iterate(sample(self.rng))
            return
        assert clock is not None
        deadline = clock() + seconds
        left = playouts if playouts is not None else -1
        self.iterate(sample(self.rng))
        left -= 1
        while left != 0 and clock() < deadline:
            self.iterate(sample(self.rng))
            left -= 1

    def iterate(self, state: Any) -> None:
        game, rng = self.game, self.rng
        node = self.root
        path: list[tuple[Edge, int]] = []
        while (mover := game.to_move(state)) is not None:
            moves = node.moves
            if moves is None:
                moves = expand_moves(game, state)
                if self.fixed:
                    node.moves = moves
            edges = node.edges
            untried: list[tuple[str, Any]] = []
            best: Edge | None = None
            best_score = -math.inf
            for key, move in moves:
                edge = edges.get(key)
                if edge is None:
                    untried.append((key, move))
                    continue
                edge.available += 1
            if untried:
                # Moves without cells (pass, play-second, take-button, a komi, take blind, end)
                # are few and unlike the rest: try them first, then the others at random, so a
                # budget smaller than the number of moves still weighs them.
                words = [item for item in untried if not game.move_cells(item[1])]
                pool = words or untried
                key, move = pool[rng.randrange(len(pool))]
                edge = edges[key] = Edge(move, available=1)
                state = game.apply(state, move)
                path.append((edge, mover))
                node = self._child(edge, state)
                break
            for key, _ in moves:
                edge = edges[key]
                score = edge.mean + self.exploration * math.sqrt(
                    math.log(edge.available) / edge.visits)
                if score > best_score:
                    best, best_score = edge, score
            assert best is not None
            # The stored move may come from another determinization; its notation is the same
            # move here (legal now, since its key is among this state's legal moves).
            state = game.apply(state, best.move)
            path.append((best, mover))
            node = self._child(best, state)
        final = game.playout(state, rng)
        outcome = game.outcome(final)
        assert outcome is not None
        value = self.score(outcome, game.num_players)
        for edge, mover in path:
            edge.visits += 1
            edge.total += value[mover]

    def _child(self, edge: Edge, state: Any) -> Node:
        key = None if self.observe is None else self.observe(state)
        child = edge.children.get(key)
        if child is None:
            child = edge.children[key] = Node()
        return child

    def best(self, *, prior: int = 0) -> tuple[Any, float]:
        """The most visited root move (ties: the better mean, then the first in notation order)
        and its mean reward for the searching seat, drawn by ``prior`` imaginary playouts
        towards an even 0.5, or towards the mean of all root moves (itself drawn towards 0.5)
        when that lies between the two: a few lucky playouts of a small budget are not
        confidence, but when every move wins, the best one does too.

        >>> from engine import new_game
        >>> tree = Tree(new_game("mosey", order=4), 0, random.Random(2), exploration=0.7)
        >>> tree.run(lambda rng: tree.game.start(), playouts=30)
        >>> _, mean = tree.best()
        >>> _, drawn = tree.best(prior=6)
        >>> abs(drawn - 0.5) <= abs(mean - 0.5)
        True
        """
        if not self.root.edges:
            raise ValueError("the search has not run")
        ranked = sorted(self.root.edges.items(),
                        key=lambda item: (-item[1].visits, -item[1].mean, item[0]))
        edge = ranked[0][1]
        if not prior:
            return edge.move, edge.mean
        edges = self.root.edges.values()
        overall = ((sum(e.total for e in edges) + 0.5 * prior)
                   / (sum(e.visits for e in edges) + prior))  # itself drawn towards even
        anchor = sorted((0.5, overall, edge.mean))[1]
        return edge.move, (edge.total + anchor * prior) / (edge.visits + prior)

    def statistics(self) -> list[tuple[str, int, float]]:
        """(notation, visits, mean) per root move, most visited first: for a bench or a test."""
        return sorted(((k, e.visits, e.mean) for k, e in self.root.edges.items()),
                      key=lambda row: (-row[1], row[0]))
