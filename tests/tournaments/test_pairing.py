"""Pairings: round robins meet everyone once with balanced seats, Swiss never repeats a game and
rotates the bye, multi-player tables seat everyone once."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from pbem.tournaments.pairing import (
    PairingImpossible,
    SeatBalance,
    round_robin,
    swiss_round,
    table_round,
    table_sizes,
)


@pytest.mark.parametrize("count", range(2, 17))
def test_round_robin_pairs_everyone_once(count: int) -> None:
    players = list(range(100, 100 + count))
    rounds = round_robin(players)
    games = [frozenset(t) for r in rounds for t in r.tables]
    assert Counter(games) == Counter(frozenset(p) for p in combinations(players, 2))
    for r in rounds:  # nobody plays twice in a round, and the bye is the one left out
        assert len(set(r.players)) == len(r.players)
        assert set(r.players) | ({r.bye} if r.bye is not None else set()) == set(players)


@pytest.mark.parametrize("count", range(2, 17))
def test_round_robin_balances_first_seats(count: int) -> None:
    rounds = round_robin(list(range(count)))
    first = Counter(t[0] for r in rounds for t in r.tables)
    for player in range(count):
        games = count - 1
        assert abs(2 * first[player] - games) <= 1, (player, first[player], games)


@pytest.mark.parametrize("count", [3, 5, 7])
def test_odd_round_robin_gives_everyone_one_bye(count: int) -> None:
    assert sorted(r.bye for r in round_robin(list(range(count)))) == list(range(count))


def test_double_round_robin_swaps_seats_in_the_second_cycle() -> None:
    rounds = round_robin([1, 2, 3, 4, 5, 6], double=True)
    games = Counter(t for r in rounds for t in r.tables)
    assert all(games[(a, b)] == 1 and games[(b, a)] == 1 for a, b in combinations(range(1, 7), 2))


Pairings = list[tuple[list[tuple[int, ...]], int | None]]


def play_swiss(count: int, rounds: int, seed: int) -> Pairings:
    rng = random.Random(seed)
    players = list(range(count))
    scores: dict[int, float] = dict.fromkeys(players, 0.0)
    played: set[frozenset[int]] = set()
    byes: list[int] = []
    balance = SeatBalance()
    history = []
    for _ in range(rounds):
        ranking = sorted(players, key=lambda p: (-scores[p], p))
        pairing = swiss_round(ranking, scores=scores, played=played, byes=byes, balance=balance)
        history.append((list(pairing.tables), pairing.bye))
        for a, b in pairing.tables:
            played.add(frozenset((a, b)))
            outcome = rng.choice([1.0, 0.5, 0.0])
            scores[a] += outcome
            scores[b] += 1 - outcome
        if pairing.bye is not None:
            byes.append(pairing.bye)
            scores[pairing.bye] += 1
    return history


@pytest.mark.parametrize(("count", "rounds"), [(6, 3), (7, 4), (10, 5), (21, 7), (64, 6)])
def test_swiss_never_repeats_a_pairing_and_rotates_the_bye(count: int, rounds: int) -> None:
    for seed in range(5):
        history = play_swiss(count, rounds, seed)
        games = [frozenset(t) for tables, _ in history for t in tables]
        assert len(games) == len(set(games))
        byes = [bye for _, bye in history if bye is not None]
        assert len(byes) == (rounds if count % 2 else 0)
        assert len(byes) == len(set(byes))  # nobody gets a second bye while others had none


def test_swiss_pairs_equal_scores_first() -> None:
    scores = {1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0, 5: 0.0, 6: 0.0, 7: 0.0, 8: 0.0}
    played = {frozenset(p) for p in [(1, 5), (2, 6), (3, 7), (4, 8)]}
    tables = swiss_round(list(scores), scores=scores, played=played).tables
    assert {frozenset(t) for t in tables} == {frozenset(p) for p in [(1, 2), (3, 4), (5, 6),
                                                                     (7, 8)]}


def test_swiss_bye_goes_to_the_lowest_ranked_without_one() -> None:
    ranking = [1, 2, 3, 4, 5]
    scores = dict.fromkeys(ranking, 0.0)
    assert swiss_round(ranking, scores=scores).bye == 5
    assert swiss_round(ranking, scores=scores, byes=[5]).bye == 4


def test_swiss_gives_first_seats_to_whoever_had_fewer() -> None:
    balance = SeatBalance()
    balance.record((1, 2))
    tables = swiss_round([1, 3], scores={1: 1, 3: 1}, balance=balance).tables
    assert tables == ((3, 1),)


def test_swiss_refuses_when_every_pairing_repeats() -> None:
    played = {frozenset(p) for p in combinations([1, 2, 3, 4], 2)}
    with pytest.raises(PairingImpossible):
        swiss_round([1, 2, 3, 4], scores=dict.fromkeys([1, 2, 3, 4], 1.0), played=played)


@pytest.mark.parametrize("count", range(3, 31))
def test_tables_seat_everyone_at_three_to_five(count: int) -> None:
    sizes = table_sizes(count)
    assert sum(sizes) == count and all(3 <= s <= 5 for s in sizes)
    assert max(sizes) - min(sizes) <= 1
    seated = table_round(list(range(count))).players
    assert sorted(seated) == list(range(count))


def test_tables_avoid_players_who_met_before() -> None:
    players = list(range(9))  # three tables of three: a second round can avoid every pair
    first = table_round(players, largest=3)
    met = Counter(frozenset(p) for t in first.tables for p in combinations(t, 2))
    second = table_round(players, met=met, round_number=1, largest=3)
    repeats = [p for t in second.tables for p in combinations(t, 2) if frozenset(p) in met]
    assert repeats == []


def test_table_seats_rotate_between_rounds() -> None:
    assert table_round([1, 2, 3, 4]).tables == ((1, 2, 3, 4),)
    assert table_round([1, 2, 3, 4], round_number=1).tables == ((2, 3, 4, 1),)


def test_too_few_players_for_a_table() -> None:
    with pytest.raises(PairingImpossible):
        table_sizes(2)
