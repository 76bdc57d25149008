"""Who plays whom: round robins, Swiss rounds and multi-player tables. Pure functions of ids.

Players are ids (ints). A round is a tuple of tables; a table lists its players in seat order
(first seat first). ``None`` never appears in a table: a player without a game gets the round's
``bye``.

    >>> [r.tables for r in round_robin([1, 2, 3, 4])]
    [((4, 1), (3, 2)), ((1, 3), (2, 4)), ((2, 1), (4, 3))]
    >>> swiss_round([1, 2, 3], scores={1: 1, 2: 1, 3: 0}, played={frozenset({1, 3})}).tables
    ((1, 2),)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field


class PairingImpossible(ValueError):
    """No pairing of this round avoids a repeat game (too few players for so many rounds)."""


@dataclass(frozen=True)
class Round:
    """One round: its tables (players in seat order) and the player with a bye, if any."""

    tables: tuple[tuple[int, ...], ...]
    bye: int | None = None

    @property
    def players(self) -> tuple[int, ...]:
        return tuple(p for table in self.tables for p in table)


@dataclass
class SeatBalance:
    """How often each player had the first seat minus how often the second (two-seat games)."""

    first: Counter[int] = field(default_factory=Counter)
    last_first: dict[int, bool] = field(default_factory=dict)

    def order(self, a: int, b: int) -> tuple[int, int]:
        """Give the first seat to whoever had it less; then to whoever had the second seat
        last time; then to ``a`` (the higher ranked)."""
        if self.first[a] != self.first[b]:
            return (a, b) if self.first[a] < self.first[b] else (b, a)
        if self.last_first.get(a) != self.last_first.get(b):
            return (b, a) if self.last_first.get(a) else (a, b)
        return a, b

    def record(self, table: Sequence[int]) -> None:
        if len(table) != 2:
            return
        self.first[table[0]] += 1
        self.first[table[1]] -= 1
        self.last_first[table[0]], self.last_first[table[1]] = True, False


def round_robin(players: Sequence[int], *, double: bool = False) -> list[Round]:
    """Every player meets every other once (twice with ``double``, seats swapped the second
    time). Circle method; with an odd count each player sits out (a bye) once per cycle. In a
    single round robin each player has the first seat in half their games, give or take one.
    """
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    if len(players) < 2:
        return []
    circle: list[int | None] = [*players, None] if len(players) % 2 else list(players)
    size = len(circle)
    rounds = []
    for _ in range(size - 1):
        tables, bye = [], None
        for i in range(size // 2):
            a, b = circle[i], circle[size - 1 - i]
            if a is None or b is None:
                bye = b if a is None else a
            else:
                tables.append((a, b))
        rounds.append(Round(tuple(tables), bye))
        circle = [circle[0], circle[-1], *circle[1:-1]]
    first_seats = balanced_orientation([(a, b) for r in rounds for a, b in r.tables])
    rounds = [Round(tuple(t if t in first_seats else t[::-1] for t in r.tables), r.bye)
              for r in rounds]
    if double:
        rounds += [Round(tuple(t[::-1] for t in r.tables), r.bye) for r in rounds]
    return rounds


def balanced_orientation(games: Sequence[tuple[int, int]]) -> set[tuple[int, int]]:
    """Who sits first in each game so that every player's first and second seats differ by at
    most one: orient the games along Euler circuits (Hierholzer), after joining the players with
    an odd number of games to one extra vertex so that every degree is even.

    >>> sorted(balanced_orientation([(1, 2), (2, 3), (3, 1)]))
    [(1, 3), (2, 1), (3, 2)]
    """
    edges: list[tuple[int | None, int | None]] = list(games)
    degree = Counter(p for game in games for p in game)
    edges += [(p, None) for p in sorted(degree) if degree[p] % 2]
    around: dict[int | None, list[int]] = {}
    for number, (a, b) in enumerate(edges):
        around.setdefault(a, []).append(number)
        around.setdefault(b, []).append(number)
    used = [False] * len(edges)
    oriented: set[tuple[int, int]] = set()
    for start in list(around):
        stack: list[tuple[int | None, int | None]] = [(start, None)]  # (vertex, edge that led here)
        while stack:
            vertex, _ = stack[-1]
            pending = around[vertex]
            while pending and used[pending[-1]]:
                pending.pop()
            if not pending:
                stack.pop()
                continue
            number = pending.pop()
            used[number] = True
            a, b = edges[number]
            nxt = b if a == vertex else a
            if vertex is not None and nxt is not None:
                oriented.add((vertex, nxt))
            stack.append((nxt, number))
    return oriented


def swiss_round(
    ranking: Sequence[int],
    *,
    scores: Mapping[int, float],
    played: Collection[frozenset[int]] = (),
    byes: Collection[int] = (),
    balance: SeatBalance | None = None,
) -> Round:
    """The next Swiss round: players of equal score meet where they can, nobody meets anyone
    twice, and with an odd count the lowest-ranked player who has had no bye gets one.

    ``ranking`` is the current order (best first); ``played`` holds the pairs that already met.
    Raises :class:`PairingImpossible` when every pairing repeats a game.
    """
    balance = balance or SeatBalance()
    position = {p: i for i, p in enumerate(ranking)}
    met = {pair for pair in played if len(pair) == 2}
    candidates: list[int | None] = [None]
    if len(ranking) % 2:
        # Lowest first, and those who already had one only after everyone else.
        candidates = sorted(reversed(ranking), key=lambda p: p in byes)
    for bye in candidates:
        players = [p for p in ranking if p != bye]
        pairs = _pair(players, scores, position, met)
        if pairs is not None:
            tables = []
            for a, b in pairs:
                table = balance.order(a, b)
                balance.record(table)
                tables.append(table)
            return Round(tuple(tables), bye)
    raise PairingImpossible("every pairing of this round repeats a game")


def _pair(players: list[int], scores: Mapping[int, float], position: Mapping[int, int],
          met: Collection[frozenset[int]]) -> list[tuple[int, int]] | None:
    """Depth-first: the best-ranked unpaired player takes the nearest opponent by score (then
    by rank) that they have not met, backtracking when the rest cannot be paired."""
    if not players:
        return []
    first, rest = players[0], players[1:]
    options = sorted((p for p in rest if frozenset((first, p)) not in met),
                     key=lambda p: (abs(scores.get(first, 0) - scores.get(p, 0)), position[p]))
    for opponent in options:
        others = [p for p in rest if p != opponent]
        paired = _pair(others, scores, position, met)
        if paired is not None:
            return [(first, opponent), *paired]
    return None


def table_sizes(count: int, smallest: int = 3, largest: int = 5) -> list[int]:
    """Tables for ``count`` players, as even as possible, each of ``smallest``..``largest``.

    >>> table_sizes(7), table_sizes(10), table_sizes(13)
    ([4, 3], [5, 5], [5, 4, 4])
    """
    for tables in range(max(1, -(-count // largest)), count // smallest + 1):
        base, extra = divmod(count, tables)
        if smallest <= base and base + (extra > 0) <= largest:
            return [base + 1] * extra + [base] * (tables - extra)
    raise PairingImpossible(f"{count} players cannot sit at tables of {smallest} to {largest}")


def table_round(
    ranking: Sequence[int],
    *,
    met: Mapping[frozenset[int], int] | None = None,
    smallest: int = 3,
    largest: int = 5,
    round_number: int = 0,
) -> Round:
    """Multi-player tables (Rifugio): players of similar rank sit together, and each table is
    filled with whoever has met its players least. Seats rotate with ``round_number`` so that
    nobody always moves first.
    """
    met = met or {}
    waiting = list(ranking)
    tables = []
    for size in table_sizes(len(waiting), smallest, largest):
        table = [waiting.pop(0)]
        while len(table) < size:
            best = min(waiting, key=lambda p: (
                sum(met.get(frozenset((p, q)), 0) for q in table), waiting.index(p)))
            waiting.remove(best)
            table.append(best)
        shift = round_number % size
        tables.append(tuple(table[shift:] + table[:shift]))
    return Round(tuple(tables))
