"""bench/bot_matches.py: a match is logged so that the report can be made from the log alone, and
the Elo-like difference reads the pairwise results as the report says (ties half)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "bot_matches.py"


@pytest.fixture(scope="module")
def matches() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bot_matches", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bot_matches"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_logged_game_reads_back_and_reports_as_played(matches: ModuleType,
                                                        tmp_path: Path) -> None:
    # easy at a tenth of its budget against random moves, seats rotated over two games
    played = [matches.one_game("mosey", "easy-random", n, 2000, None, 0.1) for n in range(2)]
    assert [r.hero for r in played] == [0, 1]
    log = tmp_path / "log.jsonl"
    log.write_text("".join(r.line() + "\n" for r in played))
    found = matches.logged(log)[("easy-random", "mosey")]
    assert [found[n] for n in range(2)] == played
    row = matches.report("easy-random", "mosey", played)
    wins = sum(r.share for r in played)
    assert row.split()[:3] == ["easy-random", "mosey", "2"]
    assert row.split()[3] == f"{wins / 2:.0%}"


def test_pairwise_scores_count_a_tie_as_half(matches: ModuleType) -> None:
    result = matches.Result(pairing="strong-normal", game="rifugio", number=4, hero=1,
                            scores=(10.0, 12.0, 12.0), winners=(1, 2), share=0.5, place=1.0,
                            seconds=1.0, plies=1)
    assert result.pairwise(3) == 0.75  # ahead of seat 0, tied with seat 2
    old = matches.Result.parse('{"pairing": "strong-normal", "game": "rifugio", "number": 4, '
                               '"share": 0.0, "place": 2.0, "seconds": 3.0}')
    assert old.pairwise(3) == 0.5  # a log line from before scores were kept: by place


def test_elo_difference_follows_the_logistic_model(matches: ModuleType) -> None:
    assert matches.elo(0.5) == 0
    assert round(matches.elo(0.75)) == 191 and round(matches.elo(0.25)) == -191
    assert matches.elo(1.0) == math.inf and matches.elo(0.0) == -math.inf
    low, high = matches.wilson(90, 100)
    assert 0.82 < low < 0.9 < high < 0.95


def test_strong_auto_plays_each_games_measured_budget_and_the_log_keeps_it(
        matches: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    budget = matches.strong_budget("mosey", "auto", 0.001)
    assert budget == round(matches.STRONG_PLAYOUTS["mosey"] * 0.001)
    assert matches.strong_budget("mosey", "300", 0.5) == 150
    monkeypatch.delitem(matches.STRONG_PLAYOUTS, "stigmergy")  # as if never measured
    with pytest.raises(SystemExit, match="no measured budget for stigmergy"):
        matches.strong_budget("stigmergy", "auto", 1.0)
    played = matches.one_game("mosey", "strong-normal", 0, budget, None, 0.1)
    assert played.strong == str(round(budget * 0.1))
    log = tmp_path / "log.jsonl"
    log.write_text(played.line() + "\n")
    assert matches.logged(log)[("strong-normal", "mosey")][0].strong == played.strong
