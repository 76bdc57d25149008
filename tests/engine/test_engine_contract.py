"""The engine contract, checked for every game in the catalogue on every option setting.

Seeded random games are played through the checked path (``play`` with the seat), and along the way:
every listed move is accepted, moves seen elsewhere but not listed here are refused, states survive
a trip through JSON, the state played from is unchanged, and the board renders as SVG.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from engine import GAMES, AnyGame, Ending, IllegalMove, UnknownGame, new_game

MAX_PLIES = 5_000


def _settings() -> list[Any]:
    params = []
    for gid, info in GAMES.items():
        names = [o.name for o in info.options]
        for values in itertools.product(*(o.choices for o in info.options)):
            options = dict(zip(names, values, strict=True))
            label = ",".join(f"{k}={v}" for k, v in options.items())
            params.append(pytest.param(gid, options, id=f"{gid}[{label}]"))
    return params


SETTINGS = _settings()


def _check_numbers(game: AnyGame, state: Any, legal: list[Any]) -> None:
    """The number moves are exactly the numbers of the range, each a move of its own in
    ascending order; play accepts the ends and the middle and refuses the numbers outside."""
    moves, numbers = game.move_choices(state)
    listed = [str(m) for m in legal if str(m).lstrip("-").isdigit()]
    if numbers is None:
        assert not listed, "a move is a number, but number_range gives no range"
        assert moves == legal
        return
    assert listed == [str(n) for n in range(numbers.low, numbers.high + 1)]
    assert [m for m in legal if not numbers.covers(m)] == moves
    for value in (numbers.low, numbers.high, (numbers.low + numbers.high) // 2):
        game.play(state, str(value))
    for value in (numbers.low - 1, numbers.high + 1):
        with pytest.raises(IllegalMove):
            game.play(state, str(value))


def _roundtrip(game: AnyGame, state: Any) -> None:
    data = json.loads(json.dumps(game.encode(state)))
    assert game.decode(data) == state


@pytest.mark.parametrize(("gid", "options"), SETTINGS)
def test_random_games_keep_the_contract(gid: str, options: dict[str, Any]) -> None:
    game = new_game(gid, **options)
    assert game.info.min_players <= game.num_players <= game.info.max_players
    seen: set[str] = {"pass"}
    for seed in range(2):
        rng = random.Random(f"{gid}{options}{seed}")
        state = game.start(seed=seed)
        _roundtrip(game, state)
        fixed = game.fixed_seat_names()  # lists of games name seats without the position
        for ply in range(MAX_PLIES):
            assert fixed is None or game.seat_names(state) == fixed
            seat = game.to_move(state)
            legal = game.legal_moves(state)
            if seat is None:
                assert game.outcome(state) is not None and legal == []
                break
            assert game.outcome(state) is None
            assert legal, f"ply {ply}: seat {seat} to move but no legal move"
            texts = {str(m) for m in legal}
            assert len(texts) == len(legal), "a move is listed twice"
            seen |= texts
            _check_numbers(game, state, legal)
            before = game.encode(state)
            # Listed moves are accepted (a sample, to keep the test quick on big boards).
            for move in rng.sample(legal, min(len(legal), 4)):
                assert game.why_illegal(state, move) is None
                game.play(state, str(move), seat=seat)
            # Moves legal elsewhere but not listed here are refused with a reason.
            outsiders = sorted(seen - texts)
            for text in rng.sample(outsiders, min(len(outsiders), 4)):
                with pytest.raises(IllegalMove) as refused:
                    game.play(state, text, seat=seat)
                assert str(refused.value)
                try:
                    parsed = game.parse_move(text)
                except IllegalMove:
                    continue  # not a move of this game at all: the parser refused it
                assert game.why_illegal(state, parsed)
            if game.num_players > 1:
                with pytest.raises(IllegalMove, match="not your turn"):
                    game.play(state, str(legal[0]), seat=(seat + 1) % game.num_players)
            move = game.random_move(state, rng)
            after = game.play(state, move, seat=seat)
            assert game.encode(state) == before, "play changed the old state"
            state = after
            if seed == 0:
                _roundtrip(game, state)
        else:
            pytest.fail(f"no end after {MAX_PLIES} plies")
        _roundtrip(game, state)
        with pytest.raises(IllegalMove, match="over"):
            game.play(state, "pass")


@pytest.mark.parametrize(("gid", "options"), SETTINGS)
def test_fast_playouts_end_in_legal_results(gid: str, options: dict[str, Any]) -> None:
    game = new_game(gid, **options)
    for seed in range(3):
        final = game.playout(game.start(seed=seed), random.Random(seed))
        result = game.outcome(final)
        assert result is not None and game.to_move(final) is None
        assert all(0 <= s < game.num_players for s in result.winners)
        if result.scores is not None:
            assert len(result.scores) == game.num_players
        _roundtrip(game, final)


@pytest.mark.parametrize("gid", list(GAMES))
def test_board_renders_as_svg_for_every_viewer_with_links(gid: str) -> None:
    game = new_game(gid)
    rng = random.Random(7)
    state, last = game.start(seed=1), None
    for _ in range(6):
        if game.to_move(state) is None:
            break
        last = game.random_move(state, rng)
        state = game.play(state, last)
    for viewer in (None, *range(game.num_players)):
        svg = game.render_svg(state, viewer=viewer, last_move=last,
                              cell_href=lambda cell: f"/pick?cell={cell}&x=<1>")
        root = ET.fromstring(svg)
        assert root.tag.endswith("svg")
        links = [e for e in root.iter() if e.tag.endswith("a")]
        assert links, "cell_href should turn cells into links"
        assert all(e.get("href", "").startswith("/pick?cell=") for e in links)
        assert "<1>" not in svg, "text must be escaped"
    plain = ET.fromstring(game.render_svg(state))
    assert not [e for e in plain.iter() if e.tag.endswith("a")]


TO_MOVE = re.compile(r"\bto (move|take|walk|lay|swap|choose|name)\b")


@pytest.mark.parametrize("gid", list(GAMES))
def test_a_game_ended_off_the_board_is_drawn_as_over(gid: str) -> None:
    """An ending other than the rules' (a resignation, a timeout, an adjudication, an abort)
    says "game over" where the board would say who is to move, in the heading and the text
    alternative; the rest stays, and a position the rules ended is drawn the same either way."""
    game = new_game(gid)
    rng = random.Random(3)
    state = game.start(seed=2)
    for plies in (0, 3, 5):
        for _ in range(plies):
            state = game.play(state, game.random_move(state, rng))
        assert game.to_move(state) is not None
        for viewer in (None, *range(game.num_players)):
            running = game.render_svg(state, viewer)
            assert game.render_svg(state, viewer, ending=Ending.RULES) == running
            ended = game.render_svg(state, viewer, ending=Ending.RESIGNATION)
            for ending in (Ending.TIME, Ending.ADJUDICATION, Ending.ABORT):
                assert game.render_svg(state, viewer, ending=ending) == ended
            assert TO_MOVE.search(running), running
            assert not TO_MOVE.search(ended), ended
            assert "game over" in ended.lower() and "game over" not in running.lower()
            label = ET.fromstring(ended).get("aria-label") or ""
            assert "Game over." in label and label.endswith(game.piece_list(state, viewer))
    final = game.playout(state, rng)
    assert game.to_move(final) is None
    for viewer in (None, *range(game.num_players)):
        assert game.render_svg(final, viewer, ending=Ending.TIME) == game.render_svg(final, viewer)


def test_catalogue_describes_every_game() -> None:
    assert GAMES, "the catalogue is empty"
    for gid, info in GAMES.items():
        assert info.id == gid and info.name and len(info.summary) > 80
        assert 1 <= info.min_players <= info.max_players
        for option in info.options:
            assert option.default in option.choices and option.label
        game = new_game(gid)
        assert game.options == {o.name: o.default for o in info.options}


def test_unknown_game_and_option_values_name_the_choices() -> None:
    with pytest.raises(ValueError, match="choose one of: .*" + next(iter(GAMES))):
        new_game("no-such-game")
    gid, info = next((g, i) for g, i in GAMES.items() if i.options)
    option = info.options[0]
    with pytest.raises(UnknownGame) as error:
        new_game(gid, **{option.name: "nonsense"})
    assert all(str(choice) in str(error.value) for choice in option.choices)
    with pytest.raises(ValueError, match="has no option"):
        new_game(gid, colour="purple")


@pytest.mark.parametrize(("gid", "options"), SETTINGS)
def test_a_parse_error_suggests_moves_of_the_game_only(gid: str, options: dict[str, Any]) -> None:
    """Text that is no move at all is answered with examples of this game's notation, each of
    which it reads (no placement game is offered a Mosey slide such as C2xE4)."""
    game = new_game(gid, **options)
    with pytest.raises(IllegalMove) as caught:
        game.parse_move("garbage!")
    examples = str(caught.value.text.values.get("examples", ""))
    for example in filter(None, examples.split(", ")):
        game.parse_move(example)
