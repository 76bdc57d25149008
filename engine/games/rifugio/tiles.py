"""Rifugio's components as ONE table, and the geometry of its tiles: sides, rotation, fitting.

Tiles are pointy-topped hexagons on an unbounded axial grid (q, r) with the start tile at 0,0;
directions and axial steps are those of :mod:`engine.hexboard` (E, NE, NW, W, SW, SE,
counter-clockwise from east; north is up). A tile's ``sides`` name the terrain on each side in
rotation 0, east first; rotation k turns the tile k times 60 degrees clockwise.

>>> names = [kind.name for kind in KINDS]   # a tile's id is its place in this table
>>> KINDS[names.index("ibex")].sides, KINDS[names.index("ibex")].points
('RRRRRR', 2)
>>> rock_west = SIDES[names.index("rock")][0][3]   # what a rock tile shows to its west
>>> fits(names.index("grass"), 0, [rock_west, -1, -1, -1, -1, -1])   # grass west of rock
False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.hexboard import DIRECTIONS, STEPS  # E, NE, NW, W, SW, SE and their axial steps
from engine.text import Text

SETS = ("flowers", "animals", "waterfalls", "passes", "mountain tops")
BEAR = "bear"
START = "start"
PASSES = "passes"
TOPS = "mountain tops"


@dataclass(frozen=True)
class Kind:
    """One row of the component table: ``count`` identical tiles.

    ``sides`` has six letters, G (grass), F (forest), R (rock) or S (summit), east first then
    counter-clockwise; a pass has its two entrances on sides 0 (E) and 3 (W) in rotation 0 and rock
    on the other four. ``group`` is a set name, BEAR, START or "" (a plain tile); ``points`` is
    what its card is worth; ``code`` is the short label drawn on the map.
    """

    name: str
    count: int
    sides: str
    group: str = ""
    points: int = 0
    code: str = ""

    @property
    def is_pass(self) -> bool:
        return self.group == PASSES

    @property
    def is_feature(self) -> bool:
        return self.group in SETS


@dataclass(frozen=True)
class Edition:
    """Everything our edition fixes: the tiles and the numbers the rules refer to."""

    kinds: tuple[Kind, ...]
    start: Kind
    huts: tuple[tuple[int, int], ...]  # (players, huts each)
    tiles_per_turn: tuple[tuple[int, int], ...]  # (players, tiles laid per turn); default 1
    start_step_cards: int = 3
    max_step_cards: int = 5
    free_steps: int = 2
    set_bonus: int = 5
    hut_card: int = 2
    first_top: int = 4
    display_size: int = 3


EDITION = Edition(
    kinds=(
        Kind("grass", 15, "GGGGGG"),
        Kind("forest", 15, "FFFFFF"),
        Kind("rock", 12, "RRRRRR"),
        Kind("gentian", 1, "GGGGGG", "flowers", 1, "Ge"),
        Kind("alpine rose", 1, "GGGGGG", "flowers", 1, "AR"),
        Kind("edelweiss", 1, "GGGGGG", "flowers", 2, "Ed"),
        Kind("butterfly", 1, "GGGGGG", "animals", 1, "Bu"),
        Kind("marmot", 1, "GGGGGG", "animals", 2, "Ma"),
        Kind("ibex", 1, "RRRRRR", "animals", 2, "Ib"),
        Kind("waterfall 1", 1, "FFFFFF", "waterfalls", 2, "W1"),
        Kind("waterfall 2", 1, "FFFFFF", "waterfalls", 2, "W2"),
        Kind("waterfall 3", 1, "RRRRRR", "waterfalls", 2, "W3"),
        Kind("bear", 3, "FFFFFF", BEAR, -3, "Br"),
        Kind("top 1", 1, "SSSSSS", TOPS, 3, "T1"),
        Kind("top 2", 1, "SSSSSS", TOPS, 3, "T2"),
        Kind("top 3", 1, "SSSSSS", TOPS, 3, "T3"),
        Kind("pass FF", 1, "FRRFRR", PASSES, 2, "P1"),
        Kind("pass GF", 1, "GRRFRR", PASSES, 2, "P2"),
        Kind("pass GG", 1, "GRRGRR", PASSES, 2, "P3"),
    ),
    start=Kind("start", 1, "GGGGGG", START, 0, "S"),
    huts=((2, 4), (3, 3), (4, 3), (5, 2)),
    tiles_per_turn=((2, 2),),
)

# -- derived tables, one entry per tile id: 0..59 the terrain tiles, then the start tile ---------

KINDS: tuple[Kind, ...] = (
    *(kind for kind in EDITION.kinds for _ in range(kind.count)), EDITION.start)
NUM_TILES = len(KINDS) - 1
START_TILE = NUM_TILES
SET_SIZES = {s: sum(k.count for k in EDITION.kinds if k.group == s) for s in SETS}
KIND_BY_NAME = {kind.name: kind for kind in KINDS}

# What players read for each kind and terrain: the rulebook's terms (translators: use the terms of
# the rulebook in your language). The names above stay the identifiers of views and records.
TILE_NAMES: dict[str, Text] = {
    "grass": Text("grass"),
    "forest": Text("forest"),
    "rock": Text("rock"),
    "gentian": Text("gentian"),
    "alpine rose": Text("alpine rose"),
    "edelweiss": Text("edelweiss"),
    "butterfly": Text("butterfly"),
    "marmot": Text("marmot"),
    "ibex": Text("ibex"),
    "waterfall 1": Text("waterfall 1"),
    "waterfall 2": Text("waterfall 2"),
    "waterfall 3": Text("waterfall 3"),
    "bear": Text("bear"),
    "top 1": Text("top 1"),
    "top 2": Text("top 2"),
    "top 3": Text("top 3"),
    "pass FF": Text("pass FF"),
    "pass GF": Text("pass GF"),
    "pass GG": Text("pass GG"),
    "start": Text("start"),
}
TERRAIN_NAMES: dict[str, Text] = {
    "G": TILE_NAMES["grass"], "F": TILE_NAMES["forest"], "R": TILE_NAMES["rock"],
    "S": Text("summit"),
}


def tile_name(name: str) -> Text:
    """A kind's name for players (``tile_name("ibex")``), translatable."""
    return TILE_NAMES.get(name) or Text.verbatim(name)

_LETTERS = "GFRS"
_PASS = 4  # pass sides get their own codes: a pass side fits only its exact twin (rules C and D)


def _codes(kind: Kind, rot: int) -> tuple[int, ...]:
    extra = _PASS if kind.is_pass else 0
    return tuple(_LETTERS.index(kind.sides[(d + rot) % 6]) + extra for d in range(6))


# SIDES[tile][rot][d]: the side code tile shows towards direction d when laid in rotation rot.
SIDES: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(_codes(kind, rot) for rot in range(6)) for kind in KINDS)

# The rotations that give different tiles: (0,) for a uniform tile, 0-2 or 0-5 for a pass.
ROTATIONS: tuple[tuple[int, ...], ...] = tuple(
    tuple(rot for rot in range(6) if sides[rot] not in sides[:rot]) for sides in SIDES)

# Tiles with the same signature fit in exactly the same places.
SIGNATURE: tuple[tuple[int, ...], ...] = tuple(sides[0] for sides in SIDES)
SIG_TILE = {sig: SIGNATURE.index(sig) for sig in SIGNATURE}  # one tile for each signature


def _compatible(a: int, b: int) -> bool:
    if a >= _PASS or b >= _PASS:
        if a >= _PASS and b >= _PASS:  # D: two passes meet only entrance to entrance, same terrain
            return a == b and a != _PASS + 2
        # C: a pass's neighbour shows exactly the terrain of the pass side it touches
        return a % _PASS == b % _PASS
    if a == 3 or b == 3:  # B: a summit touches only rock
        return {a, b} == {2, 3}
    return {a, b} != {0, 2}  # A: grass and rock never touch


COMPAT: tuple[tuple[bool, ...], ...] = tuple(
    tuple(_compatible(a, b) for b in range(8)) for a in range(8))


def fits(tile: int, rot: int, facing: Sequence[int]) -> bool:
    """Whether ``tile`` in ``rot`` fits neighbours that show ``facing[d]`` (-1: no tile) to it.

    It must touch at least one tile and fit every one (rules A-D).
    """
    mine = SIDES[tile][rot]
    touching = False
    for d in range(6):
        other = facing[d]
        if other >= 0:
            if not COMPAT[mine[d]][other]:
                return False
            touching = True
    return touching


@lru_cache(maxsize=1 << 16)
def turns_that_fit(tile: int, facing: tuple[int, ...]) -> tuple[int, ...]:
    """The rotations of ``tile`` (distinct ones only) that fit ``facing``: asked for every tile
    kind at every free place after each lay, from a few thousand distinct neighbourhoods."""
    return tuple(rot for rot in ROTATIONS[tile] if fits(tile, rot, facing))


@lru_cache(maxsize=1 << 14)
def fits_by_signature(facing: tuple[int, ...]) -> dict[tuple[int, ...], tuple[int, ...]]:
    """:func:`turns_that_fit` for one tile of every signature at once: a lay updates where each
    kind fits around it, and hashing the neighbourhood once per place is what keeps that cheap.
    The dict is shared: read it, never change it."""
    return {sig: turns_that_fit(tile, facing) for sig, tile in SIG_TILE.items()}


def misfit(tile: int, rot: int, facing: Sequence[int]) -> Text:
    """Why ``tile`` does not fit there, in words ("" when it does)."""
    mine = SIDES[tile][rot]
    if all(f < 0 for f in facing):
        return Text("a new tile must touch the landscape")
    for d in range(6):
        other = facing[d]
        if other < 0 or COMPAT[mine[d]][other]:
            continue
        a, b = _LETTERS[mine[d] % _PASS], _LETTERS[other % _PASS]
        if mine[d] >= _PASS and other >= _PASS:
            why = Text("two passes touch only entrance to entrance of the same terrain")
        elif mine[d] >= _PASS or other >= _PASS:
            why = Text("a pass needs exactly the terrain of its side next to it")
        elif "S" in (a, b):
            why = Text("a mountain top touches only rock")
        else:
            why = Text("grass and rock never touch")
        return Text("its %(side)s side would touch %(other)s to the %(direction)s: %(why)s",
                    side=TERRAIN_NAMES[a], other=TERRAIN_NAMES[b], direction=DIRECTIONS[d],
                    why=why)
    return Text.verbatim("")


def passable(tile: int, rot: int, d: int) -> bool:
    """Whether a walker may cross the side of ``tile`` towards ``d`` (a pass: only an entrance)."""
    code = SIDES[tile][rot][d]
    return code < _PASS or code != _PASS + 2


# OPEN[tile][rot][d]: passable(tile, rot, d), looked up on every step of every playout.
OPEN: tuple[tuple[tuple[bool, ...], ...], ...] = tuple(
    tuple(tuple(passable(tile, rot, d) for d in range(6)) for rot in range(6))
    for tile in range(len(SIDES)))


def buildable(tile: int) -> bool:
    """A hut may stand only on a plain tile: not the start, a feature or a bear."""
    return KINDS[tile].group == ""


def huts_each(players: int) -> int:
    return dict(EDITION.huts)[players]


def tiles_per_turn(players: int) -> int:
    return dict(EDITION.tiles_per_turn).get(players, 1)


def neighbour(pos: tuple[int, int], d: int) -> tuple[int, int]:
    dq, dr = STEPS[d]
    return pos[0] + dq, pos[1] + dr


def label(pos: tuple[int, int]) -> str:
    """The notation of a position: ``label((2, -1))`` is '2,-1'."""
    return f"{pos[0]},{pos[1]}"


def position(text: str) -> tuple[int, int]:
    """The position a label names: ``position("2,-1")`` is (2, -1)."""
    q, r = text.split(",")
    return int(q), int(r)

