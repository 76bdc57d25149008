"""The catalogue: every game id, and ``new_game`` to make one.

>>> from engine import GAMES, new_game
>>> GAMES["mosey"].name
'Mosey'
>>> new_game("nine-men")
Traceback (most recent call last):
...
engine.base.UnknownGame: unknown game 'nine-men'; choose one of: ...
"""

from __future__ import annotations

import importlib
from types import MappingProxyType

from engine.base import AnyGame, GameInfo, UnknownGame
from engine.text import Text

# Each package of engine/games lists its games in GAME_CLASSES; the catalogue keeps this order.
_PACKAGES = (
    "engine.games.mosey",
    "engine.games.refugia",
    "engine.games.stigmergy",
    "engine.games.rifugio",
)


def _load() -> dict[str, type[AnyGame]]:
    classes: dict[str, type[AnyGame]] = {}
    for name in _PACKAGES:
        for cls in importlib.import_module(name).GAME_CLASSES:
            classes[cls.info.id] = cls
    return classes


_CLASSES = _load()
_FAMILIES = {cls.info.id: name.rpartition(".")[2]
             for name in _PACKAGES for cls in importlib.import_module(name).GAME_CLASSES}
_ALIASES = {alias: gid for gid, cls in _CLASSES.items() for alias in cls.info.aliases}

GAMES: MappingProxyType[str, GameInfo] = MappingProxyType(
    {gid: cls.info for gid, cls in _CLASSES.items()}
)
"""Game id -> what the catalogue says about it (name, players, options, rules summary)."""


def game_class(game_id: str) -> type[AnyGame]:
    key = game_id.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _CLASSES:
        raise UnknownGame(Text("unknown game %(game)s; choose one of: %(games)s",
                               game=repr(game_id), games=", ".join(_CLASSES)))
    return _CLASSES[key]


def family_of(game_id: str) -> str:
    """The package a game comes from, which it shares with its variants (its rules texts are
    written per family).

    >>> family_of("dont-mosey"), family_of("refugia")
    ('mosey', 'refugia')
    """
    return _FAMILIES[game_class(game_id).info.id]


def new_game(game_id: str, **options: object) -> AnyGame:
    """The game ``game_id`` with ``options`` (defaults for the rest); errors name the choices."""
    return game_class(game_id)(**options)
