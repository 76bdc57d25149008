"""Everything about a game lives in its folder, engine/games/<game>/.

No game id (from ``engine.GAMES``) and no ``engine.games`` import appears in pbem/, in
engine/bots/ or in the engine's other modules outside engine/games/ (tests aside; the registry
alone names the game packages); the checker is shown to fail on a planted sample. And what pbem
says about each game (glossaries, seat colours, button words, families), now read from the game,
is word for word what it was; ``python -m tests.test_game_knowledge`` rewrites that record after
a deliberate change.
"""

from __future__ import annotations

import ast
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import engine
from pbem.game_options import seat_colours
from pbem.i18n import Reader
from pbem.web.terms import move_label, seat_names, terms_for

ROOT = Path(__file__).resolve().parents[1]
WORDS = Path(__file__).parent / "data" / "game_words.json"
CHECKED = ("pbem", "engine")
EXEMPT = ("engine/games/", "engine/registry.py")
"""The game packages themselves, and the registry: its one line per game package."""


def _game_ids() -> set[str]:
    return {*engine.GAMES, *(alias for info in engine.GAMES.values() for alias in info.aliases)}


def game_knowledge(source: str, game_ids: set[str]) -> Iterator[tuple[int, str]]:
    """(line, what) for each game id in a string literal (docstrings and their examples aside)
    and each import of engine.games."""
    tree = ast.parse(source)
    docstrings = {id(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "engine.games" or alias.name.startswith("engine.games."):
                    yield node.lineno, f"imports {alias.name}"
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module == "engine.games" or module.startswith("engine.games."):
                yield node.lineno, f"imports {module}"
            elif module == "engine" and any(a.name == "games" for a in node.names):
                yield node.lineno, "imports engine.games"
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and id(node) not in docstrings):
            if node.value.strip().lower() in game_ids:
                yield node.lineno, f"names the game {node.value.strip()!r}"
            elif node.value.startswith("engine.games"):
                yield node.lineno, f"names {node.value}"


def _checked_files() -> Iterator[Path]:
    for top in CHECKED:
        for path in sorted((ROOT / top).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if not relative.startswith(EXEMPT):
                yield path


def test_no_game_knowledge_outside_the_games_folders() -> None:
    ids = _game_ids()
    found = [f"{path.relative_to(ROOT)}:{line}: {what}"
             for path in _checked_files()
             for line, what in game_knowledge(path.read_text(), ids)]
    assert not found, "game knowledge outside engine/games/:\n" + "\n".join(found)


PLANTED = '''
from engine.games.rifugio.tiles import EDITION
import engine.games.stigmergy.rules
from engine import games

MARGIN_GAMES = {"stigmergy"}

def sampler(game):
    if game.info.id == "rifugio":
        return None
    return __import__("engine.games.mosey.drawing")
'''


def test_the_checker_finds_planted_game_knowledge() -> None:
    found = sorted(what for _, what in game_knowledge(PLANTED, _game_ids()))
    assert found == ["imports engine.games", "imports engine.games.rifugio.tiles",
                     "imports engine.games.stigmergy.rules", "names engine.games.mosey.drawing",
                     "names the game 'rifugio'", "names the game 'stigmergy'"]


def test_the_checker_passes_clean_code() -> None:
    clean = 'import engine\n\ndef name(game):\n    return engine.GAMES[game].name + " game"\n'
    assert list(game_knowledge(clean, _game_ids())) == []


def words_now() -> dict[str, Any]:
    """What pbem says about each game, in English and Dutch."""
    found: dict[str, Any] = {}
    for gid, info in engine.GAMES.items():
        names = [o.name for o in info.options]
        settings = [dict(zip(names, values, strict=True))
                    for values in itertools.product(*(o.choices for o in info.options))]
        for language in ("en", "nl"):
            reader = Reader(language)
            found[f"{gid}/{language}/terms/{{}}"] = terms_for(gid, {}, reader=reader)
            for options in settings:
                key = ",".join(f"{k}={v}" for k, v in options.items())
                found[f"{gid}/{language}/terms/{key}"] = terms_for(gid, options, reader=reader)
            found[f"{gid}/{language}/seats"] = seat_names(
                gid, [f"Player {n + 1}" for n in range(info.max_players)], reader=reader)
        found[f"{gid}/colours"] = list(seat_colours(gid))
        found[f"{gid}/family"] = engine.family_of(gid)
    for language in ("en", "nl"):
        for word in ("pass", "play-second", "take-button", "take blind", "end", "build",
                     "C2-E2", "komi"):
            found[f"move_label/{language}/{word}"] = move_label(word, reader=Reader(language))
    return found


def test_what_pbem_says_about_each_game_is_unchanged() -> None:
    stored = json.loads(WORDS.read_text())
    now = json.loads(json.dumps(words_now()))
    recorded = {key.partition("/")[0] for key in stored}  # a game added since is not yet
    changed = sorted(key for key in stored.keys() | now.keys()
                     if key.partition("/")[0] in recorded and stored.get(key) != now.get(key))
    assert not changed, "changed: " + ", ".join(changed)


if __name__ == "__main__":
    WORDS.parent.mkdir(parents=True, exist_ok=True)
    WORDS.write_text(json.dumps(words_now(), indent=1, ensure_ascii=False, sort_keys=True)
                     + "\n")
    sys.stdout.write(f"wrote {WORDS}\n")
