"""A test here that takes ``game_id`` runs once for every game in the catalogue."""

from __future__ import annotations

import pytest

from tests.support import parametrize_game_id


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    parametrize_game_id(metafunc)
