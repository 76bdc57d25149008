"""Standings and tie-breaks against tables computed by hand."""

from __future__ import annotations

from pbem.tournaments.standings import GameResult, crosstable, standings, table_points

A, B, C, D, E = 1, 2, 3, 4, 5


def test_round_robin_standings_and_sonneborn_berger() -> None:
    # A beats B, draws C, loses to D; B beats C and D; C beats D.
    results = [GameResult((A, B), (1, 0)), GameResult((A, C), (0.5, 0.5)),
               GameResult((D, A), (1, 0)), GameResult((B, C), (1, 0)),
               GameResult((D, B), (0, 1)), GameResult((C, D), (1, 0))]
    table = standings([A, B, C, D], results)
    # Points: B 2, A 1.5, C 1.5, D 1. SB: A = 1*2 + 0.5*1.5 = 2.75, C = 0.5*1.5 + 1*1 = 1.75.
    assert [(s.rank, s.player, s.points) for s in table] == [(1, B, 2), (2, A, 1.5), (3, C, 1.5),
                                                             (4, D, 1)]
    by_player = {s.player: s for s in table}
    assert by_player[A].sonneborn_berger == 2.75
    assert by_player[C].sonneborn_berger == 1.75
    assert by_player[B].sonneborn_berger == 2.5
    assert by_player[D].sonneborn_berger == 1.5
    assert by_player[A].direct == 0.5 and by_player[C].direct == 0.5  # their draw


def test_direct_encounter_breaks_a_tie_sonneborn_berger_leaves() -> None:
    # A and B both beat C and D... and A beat B, but B beat E whom A only drew:
    # A: beat B, beat C, draw E = 2.5; B: lost A, beat C, beat E, = 2 ... make them level:
    results = [GameResult((A, B), (1, 0)), GameResult((B, C), (1, 0)), GameResult((A, C), (0, 1)),
               GameResult((C, D), (0, 1)), GameResult((A, D), (1, 0)), GameResult((B, D), (1, 0))]
    table = standings([A, B, C, D], results)
    # Points: A 2 (B, D), B 2 (C, D), C 1 (A), D 1 (C). SB: A = 2 + 1 = 3, B = 1 + 1 = 2.
    assert [s.player for s in table][:2] == [A, B]
    levels = [GameResult((A, B), (0, 1)), GameResult((A, C), (1, 0)), GameResult((B, C), (0, 1))]
    cycle = standings([A, B, C], levels)  # everyone 1 point, SB 1 each: a three-way tie
    assert {s.rank for s in cycle} == {1}


def test_swiss_buchholz_with_byes() -> None:
    # Round 1: A beats B, C draws D, E has the bye. Round 2: E beats A, B beats C, D has the bye.
    results = [GameResult((A, B), (1, 0)), GameResult((C, D), (0.5, 0.5)),
               GameResult((E, A), (1, 0)), GameResult((B, C), (1, 0))]
    table = standings([A, B, C, D, E], results, byes=[E, D], fmt="swiss")
    # Points: E 2, D 1.5, A 1, B 1, C 0.5. Buchholz: A = B 1 + E 2 = 3; B = A 1 + C 0.5 = 1.5.
    assert [(s.player, s.points) for s in table] == [(E, 2), (D, 1.5), (A, 1), (B, 1), (C, 0.5)]
    by_player = {s.player: s for s in table}
    assert (by_player[A].buchholz, by_player[B].buchholz) == (3, 1.5)
    assert by_player[C].buchholz == 2.5 and by_player[D].buchholz == 0.5
    assert by_player[E].byes == 1 and by_player[E].games == 1


def test_multi_player_tables_score_the_share_of_opponents_beaten() -> None:
    assert table_points([1, 2, 3]) == (1.0, 0.5, 0.0)
    assert table_points([1, 1, 3, 4]) == (5 / 6, 5 / 6, 1 / 3, 0.0)
    table = standings([A, B, C], [GameResult((A, B, C), table_points([2, 1, 3]))])
    assert [s.player for s in table] == [B, A, C]


def test_crosstable_links_every_game() -> None:
    results = [GameResult((A, B), (1, 0), game_id=7), GameResult((B, A), (0.5, 0.5), game_id=9)]
    cross = crosstable([A, B, C], results)
    assert cross[A][B] == [(1.0, 7), (0.5, 9)]
    assert cross[B][A] == [(0.0, 7), (0.5, 9)]
    assert C not in cross[A] and cross[C] == {}  # never met: no cell
