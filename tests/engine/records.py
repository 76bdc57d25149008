"""The reference implementations' games: a copy in tests/engine/data, plus ../shared if present."""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest

from engine import AnyGame

REFERENCE_FOLDERS = [Path(__file__).parent / "data" / "reference-games",
                     Path(__file__).parents[3] / "shared" / "reference-games"]


def reference_records(games: Collection[str] | None = None) -> list[Any]:
    """Every reference game once (a copy in tests/data, plus ../shared when it is there), as
    pytest params named after their file; only those of ``games`` when given."""
    seen: set[str] = set()
    records = []
    for folder in REFERENCE_FOLDERS:
        for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else []:
            for number, line in enumerate(path.read_text().splitlines()):
                if not line.strip() or line in seen:
                    continue
                seen.add(line)
                record = json.loads(line)
                if games is None or record["game"] in games:
                    records.append(pytest.param(record, id=f"{path.stem}#{number}"))
    return records


def listed_notations(game: AnyGame, state: Any) -> list[str]:
    """The legal moves as the reference records list them: sorted notations, a range of number
    moves (Stigmergy's komi) as one marker, ``<komi>``, which every record of that turn holds."""
    moves, numbers = game.move_choices(state)
    marker = [] if numbers is None else [f"<{numbers.name}>"]
    return sorted([*marker, *(str(m) for m in moves)])
