"""The native playout cores (engine.native) are checked, not trusted: seeded random games compare
the compiled rules with the reference at every ply (Mosey: the rules as written, ``moves``, and
the fast path's order; Refugia: ``legal_moves``, and each random ply; Stigmergy and Rifugio: the
core's own playout replayed by the rules, its moves at every ply being the list the rules give,
in their order), seeded playouts compare them with the pure-Python fast path move for move, and
bots play the same moves with either. Skipped where the cores are not built (``make native``: no
C compiler, no Cython).

The normal run plays a few hundred games in seconds, the slow-marked test more, and
``python bench/native.py --check 1000`` thousands per setting.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import native, new_game
from engine.bots import Bot
from engine.games.mosey.fast import fast_rules, native_rules
from engine.games.mosey.moves import legal_triples
from engine.games.mosey.rules import GAME_CLASSES, MoseyGame
from engine.games.mosey.state import MoseyState
from engine.games.refugia.rules import BOARDS, Refugia, native_core
from engine.games.refugia.state import RefugiaState
from engine.games.rifugio.rules import Rifugio
from engine.games.rifugio.search import determinize
from engine.games.rifugio.state import OVER, State, Table
from engine.games.rifugio.state import native_core as rifugio_core
from engine.games.stigmergy.rules import SIZES, Stigmergy
from engine.games.stigmergy.state import StigmergyState, has_button
from engine.games.stigmergy.state import native_core as stigmergy_core

CORES = ("engine.games.mosey", "engine.games.refugia", "engine.games.stigmergy",
         "engine.games.rifugio")
pytestmark = pytest.mark.skipif(
    any(native.status(p) != "built" for p in CORES),
    reason=f"native playouts not built (make native): {[native.status(p) for p in CORES]}")

MOSEY = [(cls.info.id, order) for cls in GAME_CLASSES for order in (4, 5, 6)]
GAMES_PER_ORDER = {4: 20, 5: 6, 6: 3}
"""Whole random games per setting in the normal run (174 games with every ply checked, and three
times as many playouts compared); the slow run plays five times as many."""


def mosey(gid: str, order: int) -> MoseyGame:
    game = new_game(gid, order=order)
    assert isinstance(game, MoseyGame)
    return game


def check_random_game(game: MoseyGame, seed: int) -> int:
    """Play one seeded random game, comparing the native rules with the reference at every ply;
    the plies played."""
    core = native_rules(game.order, game.movement)
    assert core is not None
    fast = fast_rules(game.order, game.movement)
    rng = random.Random(seed)
    state = game.start()
    while True:
        own, enemy = (state.dark, state.light) if state.mover else (state.light, state.dark)
        reference = sorted(legal_triples(game.board, game.movement, own, enemy))
        moves = core.moves(own, enemy)
        where = f"{game.info.id} order {game.order} seed {seed} ply {state.ply}"
        assert sorted((o, t, bool(enemy >> t & 1)) for o, t in moves) == reference, where
        assert moves == fast.moves(own, enemy), where  # the same order: the same draws
        assert core.has_move(own, enemy) == bool(reference) == (not state.over), where
        if not reference:
            break
        origin, target = moves[rng.randrange(len(moves))]
        state = game.play(state, f"{game.board.labels[origin]}-{game.board.labels[target]}"
                          if not enemy >> target & 1 else
                          f"{game.board.labels[origin]}x{game.board.labels[target]}")
    with native.pure():
        pure_outcome = game.outcome(game.decode(game.encode(state)))
    assert game.outcome(state) == pure_outcome
    return state.ply


def check_playouts(game: MoseyGame, seeds: range) -> None:
    """Seeded playouts from the start and from a mid-game position: the same moves, end and
    plies with the native core as with the pure-Python fast path."""
    core = native_rules(game.order, game.movement)
    assert core is not None
    fast = fast_rules(game.order, game.movement)
    for seed in seeds:
        state = game.start()
        if seed % 2:
            state = _prefix(game, state, seed)
        if state.over:
            continue
        traces: list[list[tuple[int, int]]] = [[], []]
        ends = [rules.playout(state.light, state.dark, state.mover, random.Random(seed), 10_000,
                              trace)
                for rules, trace in zip((core, fast), traces, strict=True)]
        assert ends[0] == ends[1] and traces[0] == traces[1], f"{game.info.id} seed {seed}"


def _prefix(game: MoseyGame, state: MoseyState, seed: int) -> MoseyState:
    rng = random.Random(-seed)
    for _ in range(8):
        moves = game.legal_moves(state)
        if not moves:
            break
        state = game.play(state, moves[rng.randrange(len(moves))])
    return state


@pytest.mark.parametrize(("gid", "order"), MOSEY)
def test_native_rules_match_the_reference_at_every_ply(gid: str, order: int) -> None:
    game = mosey(gid, order)
    for seed in range(GAMES_PER_ORDER[order]):
        check_random_game(game, seed)
    check_playouts(game, range(3 * GAMES_PER_ORDER[order]))


@pytest.mark.slow
@pytest.mark.parametrize(("gid", "order"), MOSEY)
def test_native_rules_match_the_reference_in_many_games(gid: str, order: int) -> None:
    game = mosey(gid, order)
    for seed in range(100, 100 + 5 * GAMES_PER_ORDER[order]):
        check_random_game(game, seed)
    check_playouts(game, range(100, 100 + 50 * GAMES_PER_ORDER[order]))


def test_game_playouts_are_the_same_with_or_without_the_core() -> None:
    for gid, order in MOSEY:
        game = mosey(gid, order)
        start = game.start()
        native_end = game.playout(start, random.Random(order))
        with native.pure():
            assert game.playout(start, random.Random(order)) == native_end, (gid, order)


def check_bots_agree(game: Any, state: Any, rng: random.Random, *, turns: int, seed: int,
                     playouts: int, replies: int = 1) -> None:
    """For ``turns`` turns, an easy bot's move (the same with the core as without), then up to
    ``replies`` random moves while someone is to move."""
    for _ in range(turns):
        seat = game.to_move(state)
        if seat is None:
            break
        bot = Bot.at("easy", seed=seed, playouts=playouts)
        chosen = bot.choose(game, state, seat)
        with native.pure():
            assert bot.choose(game, state, seat) == chosen, (game, state)
        state = game.play(state, chosen[0])
        for _ in range(replies):
            if game.to_move(state) is not None:
                state = game.play(state, game.random_move(state, rng))


@pytest.mark.parametrize("gid", [cls.info.id for cls in GAME_CLASSES])
def test_bots_play_the_same_moves_with_or_without_the_core(gid: str) -> None:
    game = new_game(gid, order=4)
    check_bots_agree(game, game.start(), random.Random(gid), turns=6, seed=5, playouts=60)


def test_a_stale_or_switched_off_core_is_not_used() -> None:
    with native.pure():
        assert native.status("engine.games.mosey") == "off"
        assert native_rules(4, "either") is None
        assert native.load("engine.games.mosey") is None
    assert native_rules(4, "either") is not None


# -- Refugia -----------------------------------------------------------------------------------

REFUGIA_GAMES = {"2-3": 40, "2-4": 30, "3-4": 20, "3-5": 12, "4-5": 8, "4-6": 6, "5-6": 4,
                 "5-7": 3, "6-7": 2, "6-8": 2}
"""Whole random games per board in the normal run, every ply checked."""


def refugia(board: str) -> Refugia:
    game = new_game("refugia", board=board)
    assert isinstance(game, Refugia)
    return game


def check_refugia_game(game: Refugia, seed: int) -> int:
    """One seeded random game a ply at a time: at every ply the native moves are the legal moves
    (pass aside) and the native ply is the pure one for the same random numbers; the plies."""
    g = game.geometry
    core = native_core(game.options["board"])
    assert core is not None
    state, plies = game.start(), 0
    while game.to_move(state) is not None:
        own, opp = state.discs[state.turn], state.discs[1 - state.turn]
        listed = {(-1 if m.origin is None else g.bits[game.board.index(m.origin)],
                   g.bits[game.board.index(m.target)])
                  for m in game.legal_moves(state) if m.target is not None}
        moves = core.moves(own, opp, state.neutral)
        assert sorted(moves) == sorted(listed), f"refugia {game.options} seed {seed} ply {plies}"
        after = game.random_plies(state, random.Random(seed * 1000 + plies), 1)
        with native.pure():
            assert game.random_plies(state, random.Random(seed * 1000 + plies), 1) == after
        state, plies = after, plies + 1
    final = game.playout(game.start(), random.Random(seed))
    with native.pure():
        assert game.playout(game.start(), random.Random(seed)) == final
    return plies


@pytest.mark.parametrize("board", BOARDS)
def test_native_refugia_matches_the_reference_at_every_ply(board: str) -> None:
    game = refugia(board)
    for seed in range(REFUGIA_GAMES[board]):
        check_refugia_game(game, seed)


@pytest.mark.slow
@pytest.mark.parametrize("board", BOARDS)
def test_native_refugia_matches_the_reference_in_many_games(board: str) -> None:
    game = refugia(board)
    for seed in range(1000, 1000 + 4 * REFUGIA_GAMES[board]):
        check_refugia_game(game, seed)


def test_native_refugia_continues_from_any_position() -> None:
    game = refugia("3-4")
    rng = random.Random(9)
    for seed in range(60):
        with native.pure():
            state: RefugiaState = game.random_plies(game.start(), rng, seed % 25)
        end = game.random_plies(state, random.Random(seed), 10_000)
        with native.pure():
            assert game.random_plies(state, random.Random(seed), 10_000) == end


def test_bots_play_the_same_refugia_moves_with_or_without_the_core() -> None:
    game = refugia("2-4")
    check_bots_agree(game, game.start(), random.Random(4), turns=6, seed=2, playouts=60)


# -- Stigmergy ---------------------------------------------------------------------------------

STIGMERGY_GAMES = {5: 16, 6: 10, 7: 6, 8: 4, 9: 3, 10: 2}
"""Whole random games per board side and komi option in the normal run, every ply checked."""


def stigmergy(size: int, komi: str = "negotiate") -> Stigmergy:
    game = new_game("stigmergy", size=size, komi=komi)
    assert isinstance(game, Stigmergy)
    return game


def named_komi(game: Stigmergy, seed: int) -> StigmergyState:
    """The start, with a komi named by seat 0 when the option asks for one (odd for odd seeds:
    then there is a button to take)."""
    state = game.start()
    if state.komi is None:
        state = game.play(state, str(seed % 7 - 3))
    return state


def check_stigmergy_game(game: Stigmergy, seed: int) -> int:
    """One seeded native playout replayed by the rules: at every ply the core's legal moves (its
    word last) are the list ``legal_moves`` gives and its pick is the move played, and the end is
    the rules' end and the pure playout's for the same random numbers; the plies."""
    core = stigmergy_core(game.sight)
    assert core is not None
    start = named_komi(game, seed)
    state, trace = start, []
    board, black_seat, mover, button, passes, ply = core.playout(
        state.board, has_button(state.komi), -1 if state.black_seat is None else state.black_seat,
        state.mover, -1, state.passes, state.ply, 0, 100_000, random.Random(seed), trace)
    for plies, (ranks, word, pick) in enumerate(trace):
        listed = [game.sight.order[rank][0] for rank in ranks] + ([word] if word else [])
        where = f"stigmergy {game.options} seed {seed} ply {plies}"
        assert [str(move) for move in game.legal_moves(state)] == listed, where
        state = game.play(state, listed[pick])
    assert state == StigmergyState(board, start.komi, None if black_seat < 0 else black_seat,
                                   mover, None if button < 0 else button, passes, ply)
    assert game.to_move(state) is None
    with native.pure():
        assert game.playout(start, random.Random(seed)) == state
    return len(trace)


def stigmergy_position(game: Stigmergy, seed: int) -> StigmergyState:
    """The start for even seeds, else a position some random moves after the komi."""
    state = game.start()
    if seed % 2 == 0:
        return state
    state, rng = named_komi(game, seed), random.Random(-seed)
    for _ in range(seed % (4 * game.side)):
        if game.to_move(state) is None:
            break
        state = game.play(state, game.random_move(state, rng))
    return state


def check_stigmergy_playouts(game: Stigmergy, seeds: range) -> None:
    """Seeded playouts from the start (the komi drawn too) and from mid-game positions: the same
    end with the native core as with the pure-Python path."""
    for seed in seeds:
        state = stigmergy_position(game, seed)
        end = game.playout(state, random.Random(seed))
        with native.pure():
            assert game.playout(state, random.Random(seed)) == end, f"stigmergy seed {seed}"


@pytest.mark.parametrize("komi", ["negotiate", "none"])
@pytest.mark.parametrize("size", SIZES)
def test_native_stigmergy_matches_the_reference_at_every_ply(size: int, komi: str) -> None:
    game = stigmergy(size, komi)
    for seed in range(STIGMERGY_GAMES[size]):
        check_stigmergy_game(game, seed)
    check_stigmergy_playouts(game, range(2 * STIGMERGY_GAMES[size]))


@pytest.mark.slow
@pytest.mark.parametrize("komi", ["negotiate", "none"])
@pytest.mark.parametrize("size", SIZES)
def test_native_stigmergy_matches_the_reference_in_many_games(size: int, komi: str) -> None:
    game = stigmergy(size, komi)
    for seed in range(1000, 1000 + 5 * STIGMERGY_GAMES[size]):
        check_stigmergy_game(game, seed)
    check_stigmergy_playouts(game, range(1000, 1000 + 10 * STIGMERGY_GAMES[size]))


def test_bots_play_the_same_stigmergy_moves_with_or_without_the_core() -> None:
    game = stigmergy(5)
    # the komi priced by playouts, sides, then the tree's moves
    check_bots_agree(game, game.start(), random.Random(8), turns=5, seed=3, playouts=60)


# -- Rifugio -----------------------------------------------------------------------------------

RIFUGIO_GAMES = {2: 16, 3: 12, 4: 10, 5: 8}
"""Whole random games per number of players in the normal run, every ply checked."""


def rifugio(players: int) -> Rifugio:
    game = new_game("rifugio", players=players)
    assert isinstance(game, Rifugio)
    return game


def check_rifugio_game(game: Rifugio, state: State, seed: int) -> int:
    """One seeded native playout from ``state`` replayed on the rules' table: at every ply the
    core's moves are the list ``Table.legal()`` gives, in its order, and its pick is the move
    played; the end is the table's and the pure playout's for the same random numbers; the
    plies."""
    core = rifugio_core()
    assert core is not None
    trace: list[tuple[list[tuple[str, int, int, int]], int]] = []
    end = core.playout(state, random.Random(seed), 100_000, game, trace)
    table = Table(state)
    for plies, (moves, pick) in enumerate(trace):
        assert table.legal() == moves, f"rifugio {game.options} seed {seed} ply {plies}"
        table.do(moves[pick])
    assert table.phase == OVER and table.freeze() == end
    with native.pure():
        assert game.playout(state, random.Random(seed)) == end
    return len(trace)


def rifugio_position(game: Rifugio, seed: int) -> State:
    """A start for even seeds; else some random moves into the game, for a third of those as a
    bot imagines it (a determinization: another pile order and seed, guessed cards)."""
    state = game.start(seed=seed)
    if seed % 2 == 0:
        return state
    rng = random.Random(-seed)
    for _ in range(seed % 90):
        if game.to_move(state) is None:
            break
        state = game.play(state, game.random_move(state, rng))
    seat = game.to_move(state)
    return state if seed % 3 or seat is None else determinize(state, seat, rng)


@pytest.mark.parametrize("players", sorted(RIFUGIO_GAMES))
def test_native_rifugio_matches_the_reference_at_every_ply(players: int) -> None:
    game = rifugio(players)
    for seed in range(RIFUGIO_GAMES[players]):
        check_rifugio_game(game, rifugio_position(game, seed), seed)


@pytest.mark.slow
@pytest.mark.parametrize("players", sorted(RIFUGIO_GAMES))
def test_native_rifugio_matches_the_reference_in_many_games(players: int) -> None:
    game = rifugio(players)
    for seed in range(1000, 1000 + 5 * RIFUGIO_GAMES[players]):
        check_rifugio_game(game, rifugio_position(game, seed), seed)


def test_native_rifugio_swaps_reshuffles_and_sets_aside_as_the_rules_do() -> None:
    """The rare turns, from the positions tests/engine/test_rifugio.py builds for them."""
    from tests.engine.test_rifugio import position

    game = rifugio(3)
    swap = position(display=("grass", "top 2", "forest"), pile=("top 1", "rock", "grass"))
    reshuffle = position(display=("top 1", "top 2", "top 3"), pile=("ibex", "grass", "forest"))
    aside = position(display=("top 1",), pile=("top 2",), hand="grass", phase="lay")
    for state in (swap, reshuffle, aside):
        for seed in range(6):
            check_rifugio_game(game, state, seed)
    ends = {name: [game.playout(state, random.Random(seed)) for seed in range(6)]
            for name, state in (("swap", swap), ("reshuffle", reshuffle), ("aside", aside))}
    assert all(end.reshuffles for end in ends["reshuffle"])
    assert all(len(end.set_aside) == 2 for end in ends["aside"])
    core = rifugio_core()
    assert core is not None
    swapped = 0
    for seed in range(6):
        trace: list[Any] = []
        core.playout(swap, random.Random(seed), 100_000, game, trace)
        swapped += any(moves[pick][0] == "swap" for moves, pick in trace)
    assert swapped


def test_bots_play_the_same_rifugio_moves_with_or_without_the_core() -> None:
    game = rifugio(3)
    # the bot's moves (determinized playouts), then two random ones
    check_bots_agree(game, game.start(seed=6), random.Random(6), turns=4, seed=4, playouts=40,
                     replies=2)


class OwnRandom(random.Random):
    """Not ``random.Random`` itself: the cores call its ``randrange`` instead of reading the
    twister, and still play what the pure path plays."""


def test_a_random_subclass_gets_the_same_playouts() -> None:
    for game in (mosey("backfire", 5), refugia("3-4"), stigmergy(6), rifugio(4)):
        end = game.playout(game.start(), OwnRandom(3))
        with native.pure():
            assert game.playout(game.start(), OwnRandom(3)) == end
        assert game.playout(game.start(), random.Random(3)) == end
