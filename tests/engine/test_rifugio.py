"""Rifugio: one test per rule, from constructed positions, plus playouts and hidden information."""

from __future__ import annotations

import hashlib
import json
import random
import xml.etree.ElementTree as ET
from dataclasses import replace
from typing import Any

import pytest

from engine import IllegalMove, new_game
from engine.base import Game
from engine.games.rifugio.rules import Rifugio, RifugioMove
from engine.games.rifugio.state import (
    LAY,
    OVER,
    SWAP,
    TAKE,
    WALK,
    State,
    Table,
    distance,
    draw_order,
    score,
)
from engine.games.rifugio.tiles import EDITION, KINDS, SIDES, START_TILE

GAMES = {n: Rifugio(players=n) for n in (2, 3, 4, 5)}


def tile_id(name: str) -> int:
    """The first tile id of a kind, by name."""
    return [kind.name for kind in KINDS].index(name)


def tile_ids(name: str) -> list[int]:
    """Every tile id of a kind (a kind's tiles have consecutive ids)."""
    first = tile_id(name)
    return list(range(first, first + KINDS[first].count))


def side_letter(tile: int, rot: int, d: int) -> str:
    """The terrain letter that ``tile`` in rotation ``rot`` shows towards ``d`` (a pass side's
    code is its terrain's plus four)."""
    return "GFRS"[SIDES[tile][rot][d] % 4]
Land = tuple[tuple[int, int, str, int], ...]


def position(players: int = 3, land: Land = (), display: tuple[str, ...] = ("grass",) * 3,
             pile: tuple[str, ...] | None = None, hand: str | None = None,
             **fields: Any) -> State:
    """A constructed position: ``land`` lists (q, r, tile name, rotation) around the start tile;
    the pile holds every tile not used elsewhere unless ``pile`` names it (top first)."""
    pool = {kind.name: tile_ids(kind.name) for kind in EDITION.kinds}

    def take(name: str) -> int:
        return pool[name].pop(0)

    placed = ((0, 0, START_TILE, 0), *((q, r, take(n), rot) for q, r, n, rot in land))
    shown = tuple(take(n) for n in display)
    held = None if hand is None else take(hand)
    rest = (tuple(t for ids in pool.values() for t in ids) if pile is None
            else tuple(take(n) for n in pile))
    base = GAMES[players].start(seed="test")
    return replace(base, placed=placed, display=shown, pile=rest, hand=held, **fields)


def walking(players: int = 3, land: Land = (), **fields: Any) -> State:
    fields = {"phase": WALK, "to_lay": 0, **fields}
    return position(players, land, **fields)


def moves(state: State) -> set[str]:
    return {str(m) for m in GAMES[state.players].legal_moves(state)}


def play(state: State, *texts: str) -> State:
    game = GAMES[state.players]
    for text in texts:
        state = game.play(state, text)
    return state


def refusal(state: State, text: str) -> str:
    with pytest.raises(IllegalMove) as error:
        play(state, text)
    return str(error.value)


# -- connecting: rules A-D ------------------------------------------------------------------------

def test_grass_never_touches_rock() -> None:
    state = position(land=((1, 0, "rock", 0),), phase=LAY, hand="grass")
    legal = moves(state)
    assert "lay -1,0" in legal
    assert "lay 1,1" not in legal and "lay 2,0" not in legal  # both touch the rock
    assert "grass and rock never touch" in refusal(state, "lay 2,0")


def test_forest_touches_grass_and_rock() -> None:
    state = position(land=((1, 0, "rock", 0),), phase=LAY, hand="forest")
    assert {"lay 1,1", "lay 2,0", "lay 0,-1"} <= moves(state)


def test_mountain_top_touches_only_rock_and_never_another_top() -> None:
    land = ((1, 0, "rock", 0), (1, -1, "rock", 0), (2, 0, "top 1", 0))
    state = position(land=land, phase=LAY, hand="top 2")
    legal = moves(state)
    assert "lay 1,-2" in legal  # rock only
    assert "lay 1,1" not in legal  # next to the grass start tile
    assert "lay 2,-1" not in legal  # next to top 1
    assert "a mountain top touches only rock" in refusal(state, "lay 2,-1")


def test_pass_neighbours_show_exactly_the_terrain_of_its_sides() -> None:
    # Forest may touch grass (rule A), but not a pass's grass entrance (rule C).
    state = position(land=((-1, 0, "forest", 0),), phase=LAY, hand="pass GF")
    legal = moves(state)
    assert "lay -2,0 r3" in legal  # forest entrance E towards the forest, grass W to nothing
    assert "lay -2,0 r0" not in legal  # its grass entrance would touch the forest
    assert "lay -1,-1 r0" not in legal  # a rock side towards the forest: rule C, not A
    assert "exactly the terrain" in refusal(state, "lay -1,-1 r0")


def test_passes_touch_only_entrance_to_entrance_of_the_same_terrain() -> None:
    state = position(land=((-1, 0, "pass GG", 0),), phase=LAY, hand="pass GF")
    legal = moves(state)
    assert "lay -2,0 r0" in legal  # grass entrance to grass entrance: a double pass
    assert "lay -2,0 r3" not in legal  # forest entrance to grass entrance
    assert not any(m.startswith("lay -1,1 ") for m in legal)  # only rock sides face there
    assert "two passes" in refusal(state, "lay -1,1 r1")


def test_a_new_tile_must_touch_the_landscape() -> None:
    state = position(phase=LAY, hand="grass")
    assert moves(state) == {"lay 1,0", "lay 1,1", "lay 0,1", "lay -1,0", "lay -1,-1", "lay 0,-1"}
    assert "must touch" in refusal(state, "lay 3,3")
    assert "already has a tile" in refusal(state, "lay 0,0")


def test_rotation_turns_a_pass_clockwise() -> None:
    gf = tile_id("pass GF")
    assert [side_letter(gf, 0, d) for d in range(6)] == list("GRRFRR")  # E ... SE
    assert [side_letter(gf, 1, d) for d in range(6)] == list("RRFRRG")  # grass now SE
    # Next to the start tile only the rotation showing grass towards it fits.
    state = position(phase=LAY, hand="pass GF")
    assert moves(state) == {"lay 1,0 r3", "lay 1,1 r2", "lay 0,1 r1", "lay -1,0 r0",
                            "lay -1,-1 r5", "lay 0,-1 r4"}


def test_rotations_that_look_the_same_are_listed_once() -> None:
    state = position(phase=LAY, hand="pass GG")
    legal = moves(state)
    assert len(legal) == 6 and all(m[-2:] in ("r0", "r1", "r2") for m in legal)
    assert "same as r0" in refusal(state, "lay -1,0 r3")
    assert "looks the same" in refusal(position(phase=LAY, hand="grass"), "lay 1,0 r2")


# -- taking tiles ---------------------------------------------------------------------------------

def test_display_is_refilled_to_three_at_the_start_of_a_turn() -> None:
    state = position(display=("grass", "forest", "marmot"), pile=("rock", "ibex", "bear"))
    state = play(state, "take 3", "lay 1,0")
    assert [KINDS[t].name for t in state.display] == ["grass", "forest"]
    state = play(state, "end")
    assert [KINDS[t].name for t in state.display] == ["grass", "forest", "rock"]
    assert GAMES[3].to_move(state) == 1


def test_only_open_tiles_that_fit_may_be_taken() -> None:
    state = position(display=("grass", "top 1", "forest"))
    assert moves(state) == {"take 1", "take 3", "take blind"}
    assert "fits nowhere" in refusal(state, "take 2")


def test_taken_blind_tile_that_fits_nowhere_is_swapped_for_an_open_tile() -> None:
    state = position(display=("grass", "top 2", "forest"), pile=("top 1", "rock", "grass"))
    state = play(state, "take blind")
    assert state.phase == SWAP and KINDS[state.hand or 0].name == "top 1"
    assert moves(state) == {"swap 1", "swap 3"}
    state = play(state, "swap 3")
    assert state.phase == LAY and KINDS[state.hand or 0].name == "forest"
    assert [KINDS[t].name for t in state.display] == ["grass", "top 2", "top 1"]


def test_blind_tile_goes_back_and_another_is_drawn_when_no_open_tile_fits() -> None:
    state = position(display=("top 1", "top 2", "top 3"), pile=("ibex", "grass", "forest"))
    after = play(state, "take blind")
    assert after.phase == LAY and KINDS[after.hand or 0].name in ("grass", "forest")
    assert after.reshuffles >= 1 and tile_id("ibex") in after.pile
    # The new order is the seeded reshuffle anyone can re-derive once the seed is out.
    rest = draw_order("test", after.reshuffles, [*after.pile, after.hand])
    assert tuple(rest[1:]) == after.pile and rest[0] == after.hand


def test_tiles_nobody_can_lay_are_set_aside_and_count_as_laid() -> None:
    state = position(display=("top 1",), pile=("top 2",), hand="grass", phase=LAY)
    state = play(state, "lay 1,0")
    assert state.phase == WALK and not state.pile and not state.display
    assert sorted(KINDS[t].name for t in state.set_aside) == ["top 1", "top 2"]
    state = play(state, "end")
    assert state.phase == OVER and GAMES[3].to_move(state) is None


def test_two_players_lay_two_tiles_with_the_display_refilled_in_between() -> None:
    state = position(2, display=("grass", "forest", "rock"), pile=("marmot", "bear", "ibex"),
                     to_lay=2)
    state = play(state, "take 1", "lay 1,0")
    assert state.phase == TAKE and GAMES[2].to_move(state) == 0
    assert [KINDS[t].name for t in state.display] == ["forest", "rock", "marmot"]
    state = play(state, "take blind", "lay -1,0")
    assert state.phase == WALK and len(state.placed) == 3
    assert GAMES[2].to_move(play(state, "end")) == 1


# -- walking --------------------------------------------------------------------------------------

def test_walkers_start_on_the_start_tile_with_three_step_cards() -> None:
    state = GAMES[4].start(seed=5)
    assert state.walkers == ((0, 0),) * 4 and state.step_cards == (3,) * 4


def test_two_free_steps_then_each_step_uses_an_extra_step_card() -> None:
    state = walking(land=((1, 0, "grass", 0),))
    state = play(state, "step E", "step W")  # there and back again
    assert state.step_cards[0] == 3 and state.walkers[0] == (0, 0)
    state = play(state, "step E")
    assert state.step_cards[0] == 2
    state = play(state, "step W", "step E")
    assert state.step_cards[0] == 0 and moves(state) == {"end"}
    assert "no steps left" in refusal(state, "step W")


def test_walkers_may_share_a_tile() -> None:
    state = walking(land=((1, 0, "grass", 0),), walkers=((0, 0), (1, 0), (1, 0)))
    assert play(state, "step E").walkers == ((1, 0),) * 3


def test_a_pass_is_entered_and_left_only_across_an_entrance() -> None:
    land = ((-1, 0, "pass GG", 0), (-1, 1, "rock", 0), (-2, 0, "grass", 0))
    state = walking(land=land)
    assert "step W" in moves(state)  # from the start tile through the pass's E entrance
    on_pass = play(state, "step W")
    assert moves(on_pass) == {"step E", "step W", "end"}  # NW of the pass is a rock side
    assert "entrances" in refusal(on_pass, "step NW")
    on_rock = walking(land=land, walkers=((-1, 1),) * 3)
    assert "step SE" not in moves(on_rock)


def test_visiting_another_players_hut_pays_its_owner_and_gives_a_step_card() -> None:
    state = walking(land=((1, 0, "grass", 0),), huts=((1, 0, 2),))
    state = play(state, "step E")
    assert state.hut_cards == (0, 0, 1) and state.step_cards[0] == 4
    state = play(state, "step W", "step E")  # every visit counts, even walking on
    assert state.hut_cards == (0, 0, 2) and state.step_cards[0] == 4  # 5 - 1 spent + 1 earned


def test_own_hut_gives_nothing() -> None:
    state = play(walking(land=((1, 0, "grass", 0),), huts=((1, 0, 0),)), "step E")
    assert state.hut_cards == (0, 0, 0) and state.step_cards[0] == 3


def test_with_five_cards_a_hut_visit_gives_a_step_to_take_at_once() -> None:
    land = ((1, 0, "grass", 0), (2, 0, "grass", 0))
    state = walking(land=land, huts=((1, 0, 1),), step_cards=(5, 3, 3), free=1)
    state = play(state, "step E")  # the last free step
    assert state.step_cards[0] == 5 and state.bonus and state.hut_cards[1] == 1
    taken = play(state, "step E")  # the bonus step: no card spent
    assert taken.step_cards[0] == 5 and not taken.bonus
    assert play(taken, "step W").step_cards[0] == 5  # earns a card back at the hut: 4 + 1
    lost = play(state, "end")  # not taken at once: gone
    assert not lost.bonus and lost.free == 2


def test_bonus_step_is_offered_even_without_free_steps_or_cards() -> None:
    state = walking(land=((1, 0, "grass", 0),), huts=((1, 0, 1),), step_cards=(5, 3, 3), free=1)
    state = play(state, "step E")
    state = replace(state, step_cards=(0, 3, 3), free=0)  # the bonus alone pays the next step
    assert moves(state) == {"step W", "end"}


# -- building -------------------------------------------------------------------------------------

def test_building_costs_a_step() -> None:
    state = walking(land=((1, 0, "forest", 0),), walkers=((1, 0),) * 3)
    assert play(state, "build").free == 1
    no_free = replace(state, free=0, step_cards=(1, 3, 3))
    assert play(no_free, "build").step_cards[0] == 0
    assert "build" not in moves(replace(state, free=0, step_cards=(0, 3, 3)))


def test_no_hut_on_the_start_tile_a_feature_or_a_bear() -> None:
    land = ((1, 0, "marmot", 0), (-1, 0, "bear", 0))
    state = walking(land=land)
    assert "build" not in moves(state)
    assert "start tile" in refusal(state, "build")
    for spot in ((1, 0), (-1, 0)):
        assert "build" not in moves(replace(state, walkers=(spot,) * 3))
    assert "plain" in refusal(replace(state, walkers=((1, 0),) * 3), "build")


def test_one_hut_per_tile() -> None:
    state = walking(land=((1, 0, "rock", 0),), walkers=((1, 0),) * 3, huts=((1, 0, 1),))
    assert "already a hut" in refusal(state, "build")


@pytest.mark.parametrize(("players", "huts"), [(2, 4), (3, 3), (4, 3), (5, 2)])
def test_huts_per_player_depend_on_the_number_of_players(players: int, huts: int) -> None:
    spots = [(q, 1) for q in range(1, huts + 1)]
    land = tuple((q, r, "grass", 0) for q, r in [*spots, (0, 1)])
    state = walking(players, land=land, walkers=((0, 1),) * players,
                    huts=tuple((q, r, 0) for q, r in spots[:-1]))
    assert GAMES[players].view(state, 0)["seats"][0]["huts_left"] == 1
    assert "build" in moves(state)
    full = walking(players, land=land, walkers=((0, 1),) * players,
                   huts=tuple((q, r, 0) for q, r in spots))
    assert "huts are built" in refusal(full, "build")


def test_at_most_one_hut_per_turn() -> None:
    state = walking(land=((1, 0, "grass", 0), (2, 0, "grass", 0)), walkers=((1, 0),) * 3)
    state = play(state, "build", "step E")
    assert "already built a hut this turn" in refusal(state, "build")


def test_a_walker_already_on_the_tile_does_not_visit_a_new_hut() -> None:
    state = walking(land=((1, 0, "grass", 0),), walkers=((1, 0), (1, 0), (0, 0)))
    state = play(state, "build", "end")
    assert state.hut_cards == (0, 0, 0) and state.step_cards[1] == 3
    state = play(state, "take 1", "lay -1,0", "step W", "step E")  # seat 1 leaves and returns
    assert state.hut_cards == (1, 0, 0) and state.step_cards[1] == 4


# -- visits and scoring ---------------------------------------------------------------------------

def test_a_feature_card_is_taken_once() -> None:
    state = play(walking(land=((1, 0, "edelweiss", 0),)), "step E", "step W", "step E")
    assert state.features[0] == ((tile_id("edelweiss"), 2),) and score(state, 0) == 2


def test_mountain_top_gives_four_to_its_first_visitor_and_three_later() -> None:
    land = ((1, 0, "forest", 0), (2, 0, "rock", 0), (3, 0, "top 2", 0))
    state = walking(land=land, walkers=((2, 0), (2, 0), (2, 0)))
    state = play(state, "step E", "end", "take 1", "lay -1,0", "step E")
    top = tile_id("top 2")
    assert state.features[0] == ((top, 4),) and state.features[1] == ((top, 3),)


def test_a_bear_costs_three_at_every_visit() -> None:
    state = play(walking(land=((1, 0, "bear", 0),)), "step E", "step W", "step E")
    assert state.bears[0] == 2 and score(state, 0) == -6


def test_a_complete_set_of_three_is_worth_five_more() -> None:
    flowers = tuple((tile_id(n), p) for n, p in (("gentian", 1), ("alpine rose", 1)))
    state = walking(land=((1, 0, "edelweiss", 0),), features=(flowers, (), ()))
    assert score(state, 0) == 2
    assert score(play(state, "step E"), 0) == 1 + 1 + 2 + 5


def test_score_adds_cards_bonuses_and_huts_minus_bears() -> None:
    cards = ((tile_id("ibex"), 2), (tile_id("top 1"), 4))
    state = walking(features=(cards, (), ()), bears=(1, 0, 0), hut_cards=(3, 0, 0))
    assert score(state, 0) == 2 + 4 + 3 * 2 - 3


# -- the end ---------------------------------------------------------------------------------------

def test_game_ends_when_the_last_tile_is_laid_and_that_turn_is_done() -> None:
    state = position(display=("grass",), pile=())
    state = play(state, "take 1", "lay 1,0")
    assert state.phase == WALK and GAMES[3].to_move(state) == 0
    state = play(state, "step E")
    assert GAMES[3].outcome(state) is None
    state = play(state, "end")
    assert GAMES[3].to_move(state) is None and GAMES[3].outcome(state) is not None


def test_most_points_win_ties_go_to_most_hut_points_then_share() -> None:
    over = walking(phase=OVER, display=(), pile=())
    marmot, ibex = (tile_id("marmot"), 2), (tile_id("ibex"), 2)
    clear = replace(over, features=((marmot, ibex), (marmot,), ()))
    assert GAMES[3].outcome(clear).winners == (0,)  # type: ignore[union-attr]
    tied = replace(over, features=((marmot, ibex), (), ()), hut_cards=(0, 2, 0))
    result = GAMES[3].outcome(tied)
    assert result is not None and result.winners == (1,) and result.scores == (4.0, 4.0, 0.0)
    shared = replace(over, features=((marmot,), (ibex,), ()), hut_cards=(1, 1, 0))
    assert GAMES[3].outcome(shared).winners == (0, 1)  # type: ignore[union-attr]


# -- hidden information and the seed --------------------------------------------------------------

def _shuffled_pile(state: State) -> State:
    return replace(state, pile=tuple(reversed(state.pile)))


def test_views_and_pictures_never_show_the_order_of_the_blind_pile() -> None:
    game = GAMES[3]
    state = game.start(seed="fair")
    rng = random.Random(4)
    for _ in range(25):
        state = game.play(state, game.random_move(state, rng))
    other = _shuffled_pile(state)
    assert other != state
    for viewer in (None, 0, 1, 2):
        assert game.view(state, viewer) == game.view(other, viewer)
        assert game.render_svg(state, viewer) == game.render_svg(other, viewer)
        assert game.render_text(state, viewer) == game.render_text(other, viewer)
        assert "pile" not in json.dumps(game.view(state, viewer)).replace("blind", "")


@pytest.mark.parametrize("players", [2, 3])
def test_only_moves_said_to_reveal_hidden_information_depend_on_the_pile_order(
        players: int) -> None:
    """A preview may play a move unless ``reveals_hidden`` says so: for every other move, what
    anyone sees afterwards is the same whatever the order of the blind pile; and the answer
    itself never depends on that order (asking must not leak it either)."""
    game = GAMES[players]
    rng = random.Random(players)
    seen: set[str] = set()
    for seed in range(4):
        state = game.start(seed=f"preview {seed}")
        for _ in range(40):
            other = _shuffled_pile(state)
            for move in game.legal_moves(state):
                assert isinstance(move, RifugioMove)
                reveals = game.reveals_hidden(state, move)
                assert reveals == game.reveals_hidden(other, move)
                if reveals:
                    seen.add(move.verb)
                    assert game.hidden_effect(state, move) == game.hidden_effect(other, move)
                    continue
                after, after_other = game.apply(state, move), game.apply(other, move)
                for viewer in (None, *range(players)):
                    assert game.view(after, viewer) == game.view(after_other, viewer), move
            if game.to_move(state) is None:
                break
            state = game.play(state, game.random_move(state, rng))
    # Two players lay two tiles a turn, with the display refilled in between.
    assert seen == ({"take", "lay", "end"} if players == 2 else {"take", "end"})


def test_taking_blind_reveals_and_taking_an_open_tile_does_not() -> None:
    game = GAMES[3]
    state = game.start(seed="demo")
    assert game.reveals_hidden(state, RifugioMove("take", slot=0))
    assert "top tile of the blind pile" in game.hidden_effect(state, RifugioMove("take"))
    assert not any(game.reveals_hidden(state, RifugioMove("take", slot=n)) for n in (1, 2, 3))


def test_other_players_point_cards_show_only_as_counts_until_the_end() -> None:
    game = GAMES[3]
    mine = ((tile_id("marmot"), 2),)
    a = walking(features=(mine, ((tile_id("ibex"), 2),), ()), bears=(0, 1, 0))
    b = walking(features=(mine, ((tile_id("gentian"), 1),), ()), bears=(0, 1, 0))
    for viewer in (None, 0, 2):
        assert game.view(a, viewer) == game.view(b, viewer)
        assert game.render_svg(a, viewer) == game.render_svg(b, viewer)
        assert game.describe(a, viewer) == game.describe(b, viewer)
    assert game.view(a, 1) != game.view(b, 1)
    seat1 = game.view(a, 0)["seats"][1]
    assert seat1["point_cards"] == 2 and "cards" not in seat1 and "score" not in seat1
    assert "ibex" in game.render_text(a, 1) and "ibex" not in game.render_text(a, 0)
    ended = replace(a, phase=OVER, display=(), pile=())
    assert game.view(ended, 0)["seats"][1]["cards"] == [["ibex", 2]]


def test_the_seed_is_committed_from_the_start_and_revealed_at_the_end() -> None:
    game = GAMES[2]
    state = game.start(seed="alpine 42")
    view = game.view(state, None)
    assert view["seed_sha256"] == hashlib.sha256(b"alpine 42").hexdigest()
    assert "seed" not in view and "alpine 42" not in game.render_svg(state)
    order = draw_order("alpine 42")
    assert list(state.display + state.pile) == order
    final = game.playout(state, random.Random(1))
    assert game.view(final, None)["seed"] == "alpine 42"
    assert game.start(None) == game.start(None) and game.start(7) == game.start("7")


# -- the playout policy ----------------------------------------------------------------------------

def weighed(state: State) -> dict[tuple[str, int, int, int], int]:
    table = Table(state)
    moves = table.legal()
    return dict(zip(moves, table.weights(moves), strict=True))


def test_playouts_walk_onto_features_one_lacks_and_never_onto_a_bear() -> None:
    land = ((1, 0, "bear", 0), (-1, 0, "edelweiss", 0), (0, 1, "grass", 0), (0, -1, "grass", 0))
    weights = weighed(walking(land=land))
    east, west, north = ("step", 0, 0, 0), ("step", 3, 0, 0), ("step", 2, 0, 0)
    assert weights[east] == 0
    assert weights[west] == max(weights.values()) > weights[north]
    held = walking(land=land, features=(((tile_id("edelweiss"), 2),), (), ()))
    assert weighed(held)[("step", 3, 0, 0)] == weighed(held)[north]  # nothing more to gain


def test_playouts_lay_bears_by_other_walkers_and_features_by_ones_own() -> None:
    land = tuple((q, 0, "grass", 0) for q in range(1, 7))
    walkers = ((0, 0), (6, 0), (6, 0))

    def by_place(hand: str) -> dict[tuple[int, int], int]:
        state = position(phase=LAY, hand=hand, land=land, walkers=walkers)
        return {(q, r): w for (_, q, r, _), w in weighed(state).items()}

    def near(place: tuple[int, int], walker: tuple[int, int]) -> bool:
        return distance(place, walker) <= 2

    bear = by_place("bear")
    best = [p for p, w in bear.items() if w == max(bear.values())]
    assert best and all(near(p, (6, 0)) and not near(p, (0, 0)) for p in best)
    assert all(w == min(bear.values()) for p, w in bear.items() if near(p, (0, 0)))
    flower = by_place("edelweiss")
    best = [p for p, w in flower.items() if w == max(flower.values())]
    assert best and all(near(p, (0, 0)) and not near(p, (6, 0)) for p in best)


def test_playouts_turn_a_pass_so_that_an_entrance_opens_on_the_landscape() -> None:
    # East of the rock tile a pass fits in every turn that shows rock to the west: the turns
    # that open an entrance onto a tile are worth twice the others (none opens onto one here).
    land = ((1, 0, "forest", 0), (2, 0, "rock", 0), (-1, 0, "grass", 0))
    state = position(phase=LAY, hand="pass GG", land=land, walkers=((9, 9),) * 3)
    weights = weighed(state)
    lone = {rot: w for (_, q, r, rot), w in weights.items() if (q, r) == (3, 0)}
    assert lone and set(lone.values()) == {2}
    opening = {rot: w for (_, q, r, rot), w in weights.items() if (q, r) == (-2, 0)}
    assert opening and set(opening.values()) == {4}  # its entrance meets the grass tile


def test_playouts_collect_more_cards_than_random_moves_and_no_bears() -> None:
    game = GAMES[3]
    policy = [game.playout(game.start(seed=s), random.Random(s)) for s in range(6)]
    uniform = [Game.playout(game, game.start(seed=s), random.Random(s)) for s in range(6)]

    def cards(ends: list[State]) -> int:
        return sum(len(cards) for end in ends for cards in end.features)

    assert all(end.bears == (0, 0, 0) for end in policy)
    assert cards(policy) > cards(uniform)
    assert (sum(score(e, s) for e in policy for s in range(3))
            > sum(score(e, s) for e in uniform for s in range(3)))


# -- notation, storage, pictures -------------------------------------------------------------------

def test_notation_reads_loosely_and_writes_one_way() -> None:
    for text, canonical in (("TAKE 2", "take 2"), ("take Blind", "take blind"),
                            ("swap  3", "swap 3"), ("lay 2 , -1", "lay 2,-1"),
                            ("Lay -3,0 R5", "lay -3,0 r5"), ("step sw", "step SW"),
                            (" build ", "build"), ("END", "end")):
        assert str(RifugioMove.parse(text)) == canonical
    for bad in ("take 4", "lay 1,1 r6", "step N", "walk", "swap blind"):
        with pytest.raises(IllegalMove):
            RifugioMove.parse(bad)


def test_moves_name_the_tile_a_player_clicks() -> None:
    game = GAMES[3]
    state = walking(land=((1, 0, "grass", 0),))
    step = next(m for m in game.legal_moves(state) if str(m) == "step E")
    assert isinstance(step, RifugioMove)
    assert game.move_cells(step) == ("1,0",)
    assert game.move_cells(RifugioMove.parse("lay -2,1 r3")) == ("-2,1",)
    assert game.move_cells(RifugioMove.parse("end")) == ()


def test_picture_links_tiles_and_the_places_a_tile_may_go() -> None:
    game = GAMES[3]
    state = position(phase=LAY, hand="forest", land=((1, 0, "grass", 0),))
    svg = game.render_svg(state, 0, cell_href=lambda cell: f"/m?at={cell}")
    root = ET.fromstring(svg)
    links = {a.get("href") for a in root.iter() if a.tag.endswith("a")}
    assert {"/m?at=0,0", "/m?at=1,0", "/m?at=2,0", "/m?at=-1,-1"} <= links
    assert len(svg) < 40_000


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_end_with_the_same_number_of_turns_for_everyone(players: int) -> None:
    game = GAMES[players]
    for seed in range(6):
        final = game.playout(game.start(seed=seed), random.Random(seed))
        result = game.outcome(final)
        assert result is not None and result.scores is not None
        assert len(result.scores) == players
        assert len(final.placed) - 1 + len(final.set_aside) == 60
        if not final.set_aside:
            assert final.turns == (30 if players == 2 else 60)
        assert final.turns % players == 0 or final.set_aside


def test_checked_play_and_json_round_trips_along_a_game() -> None:
    game = new_game("rifugio", players=4)
    state, rng = game.start(seed="trip"), random.Random(9)
    while game.to_move(state) is not None:
        data = json.loads(json.dumps(game.encode(state)))
        assert game.decode(data) == state
        json.dumps(game.view(state, rng.randrange(4)))
        state = game.play(state, str(game.random_move(state, rng)), seat=game.to_move(state))
    assert game.decode(json.loads(json.dumps(game.encode(state)))) == state
    assert "won" in game.describe(state) or "share" in game.describe(state)


def test_the_players_table_is_data_with_the_values_the_picture_draws() -> None:
    """Issue 33: a page shows the players' table as text (the picture's is too small to read
    on a phone): each seat's place, huts left, step cards, point cards and score, with the
    other seats' scores hidden while the game runs, and the headings in the reader's words."""
    from engine.text import Catalog

    state = walking(3, land=((1, 0, "grass", 0),), walkers=((0, 0), (1, 0), (0, 0)),
                    step_cards=(3, 1, 0))
    game = GAMES[3]
    table = game.side_table(state, 1)
    assert table is not None
    assert table.columns == ("At", "Huts left", "Step cards", "Point cards", "Score")
    seen = game.view(state, 1)["seats"]
    assert [row[:4] for row in table.rows] == [
        (seat["walker"], str(seat["huts_left"]), str(seat["step_cards"]),
         str(seat["point_cards"])) for seat in seen]
    assert [row[0] for row in table.rows] == ["0,0", "1,0", "0,0"]
    assert [row[2] for row in table.rows] == ["3", "1", "0"]
    assert [row[4] for row in table.rows] == ["?", str(score(state, 1)), "?"]  # only one's own
    german = game.side_table(state, None, translator=Catalog({"huts left": "hütten übrig"}))
    assert german is not None and german.columns[1] == "Hütten übrig"
    assert new_game("mosey").side_table(new_game("mosey").start()) is None  # no table drawn
