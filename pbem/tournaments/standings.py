"""Tournament standings: points, tie-breaks and the crosstable. Pure functions of results.

A game's points go to its players by how many opponents each beat: 1 for a win, 0.5 for a draw,
0 for a loss in a two-player game, and at a multi-player table (Rifugio) the share of the other
players one finished ahead of (ties count half), so tables of 3, 4 and 5 weigh the same.
A bye is worth a win (:data:`BYE_POINTS`) and counts in no tie-break.

Tie-breaks, in order:
- round robin: Sonneborn-Berger (the points of each opponent, weighted by what one scored against
  them), then direct encounter (points in the games among the tied players);
- Swiss: Buchholz (the sum of the opponents' points), then Sonneborn-Berger.

    >>> results = [GameResult((1, 2), (1.0, 0.0)), GameResult((2, 3), (0.5, 0.5)),
    ...            GameResult((3, 1), (1.0, 0.0))]
    >>> [(s.player, s.points, s.sonneborn_berger) for s in standings([1, 2, 3], results)]
    [(3, 1.5, 1.25), (1, 1.0, 0.5), (2, 0.5, 0.75)]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

BYE_POINTS = 1.0
Format = Literal["round-robin", "swiss"]


@dataclass(frozen=True)
class GameResult:
    """A finished game: its players in seat order and the points each took from it."""

    players: tuple[int, ...]
    points: tuple[float, ...]
    game_id: int | None = None

    def against(self, player: int) -> Iterable[tuple[int, float]]:
        """(opponent, what ``player`` scored against them) for each opponent at the table."""
        mine = self.points[self.players.index(player)]
        for other, theirs in zip(self.players, self.points, strict=True):
            if other != player:
                yield other, (1.0 if mine > theirs else 0.5 if mine == theirs else 0.0)


def table_points(ranks: Sequence[float]) -> tuple[float, ...]:
    """Points from final ranks (1 is best; equal ranks tie): the share of opponents beaten.

    >>> table_points([1, 2]), table_points([1, 1]), table_points([2, 1, 3, 2])
    ((1.0, 0.0), (0.5, 0.5), (0.5, 1.0, 0.0, 0.5))
    """
    others = len(ranks) - 1
    if others <= 0:
        return tuple(1.0 for _ in ranks)
    return tuple(
        (sum(1 for r in ranks if r > mine) + 0.5 * (sum(1 for r in ranks if r == mine) - 1))
        / others
        for mine in ranks)


@dataclass(frozen=True)
class Standing:
    rank: int
    player: int
    points: float
    games: int
    byes: int
    sonneborn_berger: float
    buchholz: float
    direct: float


def standings(players: Sequence[int], results: Sequence[GameResult], *,
              byes: Sequence[int] = (), fmt: Format = "round-robin") -> list[Standing]:
    """Everyone's points and tie-breaks, best first; equal players share a rank."""
    points: dict[int, float] = defaultdict(float)
    games: dict[int, int] = defaultdict(int)
    for result in results:
        for player, score in zip(result.players, result.points, strict=True):
            points[player] += score
            games[player] += 1
    for player in byes:
        points[player] += BYE_POINTS
    sb: dict[int, float] = defaultdict(float)
    buchholz: dict[int, float] = defaultdict(float)
    for result in results:
        for player in result.players:
            for opponent, scored in result.against(player):
                sb[player] += scored * points[opponent]
                buchholz[player] += points[opponent]
    direct = _direct_encounter(players, results, points)
    bye_count = {p: list(byes).count(p) for p in players}

    def key(p: int) -> tuple[float, ...]:
        if fmt == "swiss":
            return (-points[p], -buchholz[p], -sb[p])
        return (-points[p], -sb[p], -direct[p])

    ordered = sorted(players, key=lambda p: (*key(p), players.index(p)))
    table: list[Standing] = []
    for place, player in enumerate(ordered, start=1):
        rank = table[-1].rank if table and key(table[-1].player) == key(player) else place
        table.append(Standing(rank, player, points[player], games[player], bye_count[player],
                              sb[player], buchholz[player], direct[player]))
    return table


def _direct_encounter(players: Sequence[int], results: Sequence[GameResult],
                      points: dict[int, float]) -> dict[int, float]:
    """Points each player scored in games among the players tied with them on points."""
    tied: dict[float, set[int]] = defaultdict(set)
    for player in players:
        tied[points[player]].add(player)
    direct: dict[int, float] = defaultdict(float)
    for result in results:
        for player in result.players:
            group = tied[points[player]]
            for opponent, scored in result.against(player):
                if opponent in group:
                    direct[player] += scored
    return direct


def crosstable(players: Sequence[int], results: Sequence[GameResult]
               ) -> dict[int, dict[int, list[tuple[float, int | None]]]]:
    """For each player and each opponent they met, what the player scored in each game between
    them (with the game's id, for a link). Opponents never met are left out: in a Swiss of 200
    players each meets a handful, and a table of every pair (40,000 lists) cost more than the
    whole standings."""
    table: dict[int, dict[int, list[tuple[float, int | None]]]] = {p: {} for p in players}
    for result in results:
        for player in result.players:
            for opponent, scored in result.against(player):
                table[player].setdefault(opponent, []).append((scored, result.game_id))
    return table
