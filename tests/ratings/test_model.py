"""Rating updates: the library's own numbers for known cases, places from outcomes, and that a
replay of the same results gives the same ratings."""

from __future__ import annotations

import random

import pytest
from openskill.models import PlackettLuce

from pbem.ratings.model import Rating, rate
from pbem.services.results import ranks_from


def test_a_win_between_new_players_moves_both_by_the_models_amount() -> None:
    winner, loser = rate([Rating(), Rating()], [1, 2])
    # OpenSkill 6's Plackett-Luce with default parameters, from two new players:
    assert winner.mu == pytest.approx(27.635389493140497)
    assert loser.mu == pytest.approx(22.364610506859503)
    assert winner.sigma == loser.sigma == pytest.approx(8.06590141354368)
    assert (winner.games, loser.games) == (1, 1)


def test_a_draw_between_equals_only_narrows_the_uncertainty() -> None:
    first, second = rate([Rating(), Rating()], [1, 1])
    assert first.mu == second.mu == pytest.approx(25.0)
    assert first.sigma < Rating().sigma


def test_three_players_with_a_shared_second_place_match_the_library() -> None:
    model = PlackettLuce()
    start = [Rating(30, 6, 4), Rating(22, 7, 2), Rating(25, 8.333, 0)]
    expected = model.rate([[model.rating(mu=r.mu, sigma=r.sigma)] for r in start],
                          ranks=[1, 2, 2])
    ours = rate(start, [1, 2, 2])
    for mine, theirs in zip(ours, expected, strict=True):
        assert (mine.mu, mine.sigma) == pytest.approx((theirs[0].mu, theirs[0].sigma))
    assert [r.games for r in ours] == [5, 3, 1]
    assert ours[0].mu > start[0].mu and ours[1].mu < start[1].mu


def test_an_upset_moves_ratings_more_than_an_expected_result() -> None:
    strong, weak = Rating(32, 3, 20), Rating(20, 3, 20)
    expected = rate([strong, weak], [1, 2])
    upset = rate([strong, weak], [2, 1])
    assert abs(upset[0].mu - strong.mu) > 3 * abs(expected[0].mu - strong.mu)


def test_provisional_until_five_games_and_shown_from_1500() -> None:
    assert Rating().shown == 1500 and Rating().provisional
    assert not Rating(games=5).provisional


def test_replaying_the_same_results_gives_the_same_ratings() -> None:
    rng = random.Random(3)
    games = [(rng.sample(range(6), k=rng.randint(2, 4)), rng.random()) for _ in range(40)]

    def replay() -> dict[int, Rating]:
        table: dict[int, Rating] = {}
        for players, draw in games:
            places = range(1, len(players) + 1)
            ranks = [1.0] * len(players) if draw < 0.1 else [float(p) for p in places]
            new = rate([table.get(p, Rating()) for p in players], ranks)
            table.update(zip(players, new, strict=True))
        return table

    assert replay() == replay()


@pytest.mark.parametrize(("winners", "scores", "seats", "places"), [
    ([0], None, 2, [1, 2]),
    ([1], None, 2, [2, 1]),
    ([], None, 2, [1, 1]),
    ([0, 1], None, 3, [1, 1, 2]),
    ([2], [10, 20, 30, 20], 4, [3, 2, 1, 2]),
    ([0], [30, 30, 20], 3, [1, 2, 3]),
])
def test_places_from_an_outcome(winners: list[int], scores: list[float] | None, seats: int,
                                places: list[float]) -> None:
    assert ranks_from(winners, scores, seats) == places


def test_a_rated_game_needs_two_players() -> None:
    with pytest.raises(ValueError, match="two or more"):
        rate([Rating()], [1])
