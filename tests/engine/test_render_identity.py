"""A behaviour lock: every engine output over a large seeded sample is byte for byte what it was.

For every game on every option setting, a few seeded random games are played to the end; at a
spread of plies (the start, the end and about ten between) every output that pbem shows is
hashed (SHA-256, its first 20 hex digits), for every viewer (the public and each seat):

- ``render_svg`` as mail draws it (with the last move), as a finished-off-the-board game
  (``ending=Ending.RESIGNATION``), as the move page draws it (cell links, ``chosen`` before and
  after the first click), and through a translator that marks every message (so every word
  still goes through the catalog);
- the text board (``render_text``), ``describe``, ``piece_list``, ``view``, ``seat_names``;
- ``encode``, the legal moves, the click targets, which moves reveal hidden information and
  what a preview of them says, and the refusals (``play``'s reason) of moves seen earlier in the
  game that are not legal here;

and a seeded bot game per game (its moves and confidences, move for move).

The hashes are stored in ``tests/engine/data/render_identity.json``. A deliberate change of
output regenerates them with::

    .venv/bin/python -m tests.engine.test_render_identity

and the diff of that file shows which games and plies changed. A game just added is skipped
until it is recorded the same way (its settings are new keys; no other key may change).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engine import GAMES, Ending, IllegalMove, Outcome, new_game
from engine.base import Game
from engine.bots import Bot

FIXTURE = Path(__file__).parent / "data" / "render_identity.json"
SEEDS = (0, 1)
PLIES_PER_GAME = 10
DIGITS = 20
"""Hex digits kept of each SHA-256 (80 bits: no accidental match, a fixture a third the size)."""
BOT_PLIES = 8
BOT_GAMES: tuple[tuple[str, dict[str, object]], ...] = (
    *((gid, {}) for gid in GAMES),
    ("refugia", {"board": "3-4"}),
    ("stigmergy", {"size": 5, "komi": "none"}),
    ("rifugio", {"players": 3}),
    ("rifugio", {"players": 5}),
)


class Marking:
    """A translator that wraps every message in brackets (placeholders stay intact)."""

    def gettext(self, message: str) -> str:
        return f"\u27e8{message}\u27e9"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"\u27e8{singular if n == 1 else plural}\u27e9"


def _digest(value: object) -> str:
    if not isinstance(value, str):
        value = json.dumps(value, sort_keys=True, default=str)
    return hashlib.sha256(value.encode()).hexdigest()[:DIGITS]


def _href(cell: str) -> str | None:
    return f"/move?cell={cell}"


def settings() -> list[tuple[str, dict[str, object]]]:
    found = []
    for gid, info in GAMES.items():
        names = [o.name for o in info.options]
        for values in itertools.product(*(o.choices for o in info.options)):
            found.append((gid, dict(zip(names, values, strict=True))))
    return found


def setting_key(gid: str, options: dict[str, object]) -> str:
    return gid + "[" + ",".join(f"{k}={v}" for k, v in options.items()) + "]"


def _played(game: Game[Any, Any], seed: int, key: str) -> tuple[list[Any], list[str]]:
    """Every state of a seeded random game, and the notation of each move played."""
    rng = random.Random(f"identity/{key}/{seed}")
    state = game.start(seed=seed)
    states, moves = [state], []
    while game.to_move(state) is not None:
        move = game.random_move(state, rng)
        moves.append(str(move))
        state = game.play(state, move)
        states.append(state)
    return states, moves


def _plies(length: int) -> list[int]:
    step = max(1, length // PLIES_PER_GAME)
    return sorted({*range(0, length + 1, step), length})


def _first_cells(game: Game[Any, Any], legal: list[Any]) -> tuple[str, ...]:
    for move in legal:
        if game.move_cells(move):
            return game.move_cells(move)[:1]
    return ()


def _listed(game: Game[Any, Any], state: Any) -> list[str]:
    """The legal moves as recorded: a range of number moves (Stigmergy's komi, alone in its
    turn) as one marker ``<komi>`` first, as when the range stood in the list for its numbers."""
    moves, numbers = game.move_choices(state)
    return ([] if numbers is None else [f"<{numbers.name}>"]) + [str(m) for m in moves]


def _outcome(outcome: Outcome | None) -> str:
    """The outcome as recorded, from before it said how the game ended (every game's own
    outcome ends by its rules)."""
    if outcome is None:
        return repr(None)
    assert outcome.ending is Ending.RULES
    return (f"Outcome(winners={outcome.winners!r}, scores={outcome.scores!r}, "
            f"reason={outcome.reason!r})")


def outputs(game: Game[Any, Any], state: Any, last: str | None, earlier: list[str],
            every_viewer: bool) -> Iterator[tuple[str, object]]:
    """(name, output) for one state: what the module's docstring lists. Seats see what the
    public sees in games without hidden information, so their own views are only drawn where
    ``every_viewer`` says (the start and the end), besides the move page of the seat to move."""
    mover = game.to_move(state)
    legal = game.legal_moves(state)
    yield "encode", game.encode(state)
    yield "seat_names", list(game.seat_names(state))
    listed = _listed(game, state)
    yield "legal", listed
    yield "outcome", _outcome(game.outcome(state))
    first = _first_cells(game, legal)
    yield "targets", [game.click_targets(state, ()), game.click_targets(state, first)]
    reveals = [str(m) for m in legal if game.reveals_hidden(state, m)]
    yield "reveals", reveals
    if reveals:
        effect = game.hidden_effect(state, game.parse_move(reveals[0]))
        yield "hidden_effect", [effect, getattr(effect, "msgid", None)]
    texts = {*listed, *(str(m) for m in legal)}
    refusals = []
    for text in sorted(set(earlier) - texts)[:3]:
        try:
            game.play(state, text, seat=mover)
        except IllegalMove as error:
            refusals.append([text, str(error), error.text.msgid])
        else:
            refusals.append([text, "accepted"])
    yield "refusals", refusals
    yield "svg_marked", game.render_svg(state, None, last, translator=Marking())
    seats = range(game.num_players)
    if not (every_viewer or game.info.hidden_information):
        seats = range(0) if mover is None else range(mover, mover + 1)
    for viewer in (None, *seats):
        at = "public" if viewer is None else f"seat{viewer}"
        yield f"svg/{at}", game.render_svg(state, viewer, last)
        if mover is not None and (viewer is None or game.info.hidden_information):
            yield f"svg_over/{at}", game.render_svg(state, viewer, last,
                                                    ending=Ending.RESIGNATION)
        if viewer is not None and viewer == mover:
            yield f"svg_page/{at}", game.render_svg(state, viewer, last, _href, chosen=())
            yield f"svg_chosen/{at}", game.render_svg(state, viewer, last, _href, chosen=first)
        yield f"text/{at}", game.render_text(state, viewer)
        yield f"describe/{at}", game.describe(state, viewer)
        yield f"pieces/{at}", game.piece_list(state, viewer)
        yield f"view/{at}", game.view(state, viewer)


def compute_setting(gid: str, options: dict[str, object]) -> dict[str, dict[str, str]]:
    """{"seed/ply": {output name: SHA-256}} for one option setting."""
    key = setting_key(gid, options)
    game = new_game(gid, **options)
    found: dict[str, dict[str, str]] = {}
    for seed in SEEDS:
        states, moves = _played(game, seed, key)
        found[f"{seed}/moves"] = {"moves": _digest(moves)}
        for ply in _plies(len(moves)):
            last = moves[ply - 1] if ply else None
            ends = ply in (0, len(moves))
            found[f"{seed}/{ply}"] = {name: _digest(value) for name, value in
                                      outputs(game, states[ply], last, moves[:ply], ends)}
    return found


def bot_game(gid: str, options: dict[str, object]) -> list[str]:
    """The moves and confidences of a seeded bot game's first plies."""
    game = new_game(gid, **options)
    state = game.start(seed=3)
    played = []
    for ply in range(BOT_PLIES):
        seat = game.to_move(state)
        if seat is None:
            break
        move, confidence = Bot.at("easy", seed=ply, playouts=24).choose(game, state, seat)
        played.append(f"{move} {confidence!r}")
        state = game.play(state, move)
    return played


def compute() -> dict[str, Any]:
    return {
        "settings": {setting_key(gid, options): compute_setting(gid, options)
                     for gid, options in settings()},
        "bots": {setting_key(gid, options): bot_game(gid, options)
                 for gid, options in BOT_GAMES},
    }


@cache
def _stored() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    return data


def _recorded(part: str, key: str) -> Any:
    """The stored hashes of ``key``; a setting not recorded yet (a game just added) is skipped
    with the command that records it."""
    stored = _stored()[part]
    if key not in stored:
        pytest.skip(f"{key} is not recorded yet: python -m tests.engine.test_render_identity")
    return stored[key]


@pytest.mark.parametrize(("gid", "options"), settings(),
                         ids=[setting_key(g, o) for g, o in settings()])
def test_every_engine_output_is_as_stored(gid: str, options: dict[str, object]) -> None:
    stored = _recorded("settings", setting_key(gid, options))
    now = compute_setting(gid, options)
    differences = []
    for point in sorted(stored.keys() | now.keys()):
        old, new = stored.get(point, {}), now.get(point, {})
        changed = sorted(name for name in old.keys() | new.keys()
                         if old.get(name) != new.get(name))
        if changed:
            differences.append(f"{setting_key(gid, options)} seed/ply {point}: "
                               + ", ".join(changed))
    assert not differences, "outputs differ:\n" + "\n".join(differences[:20])


@pytest.mark.parametrize(("gid", "options"), BOT_GAMES,
                         ids=[setting_key(g, o) for g, o in BOT_GAMES])
def test_bots_play_the_same_moves(gid: str, options: dict[str, object]) -> None:
    stored = _recorded("bots", setting_key(gid, options))
    now = bot_game(gid, options)
    for ply, (old, new) in enumerate(zip(stored, now, strict=False)):
        assert old == new, f"{setting_key(gid, options)} ply {ply}: was {old}, now {new}"
    assert len(stored) == len(now)


def test_a_changed_output_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    gid, options = "mosey", {"order": 4}
    game_class = type(new_game(gid, **options))
    original = game_class.render_text

    def changed(self: Game[Any, Any], state: Any, viewer: int | None = None) -> str:
        return original(self, state, viewer) + " "

    monkeypatch.setattr(game_class, "render_text", changed)
    with pytest.raises(AssertionError, match=r"seed/ply 0/0: text/public, text/seat0"):
        test_every_engine_output_is_as_stored(gid, options)


if __name__ == "__main__":
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(json.dumps(compute(), indent=0, sort_keys=True) + "\n")
    sys.stdout.write(f"wrote {FIXTURE}\n")
