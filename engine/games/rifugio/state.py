"""Rifugio's state (an immutable value) and the table it is played on (mutable, the rules).

The rules live in one place, :class:`Table`: ``Rifugio.apply`` thaws a state into a table, does
one move and freezes it again; a fast playout keeps one table for the whole game. Moves are
4-tuples here (``("take", slot, 0, 0)`` with slot -1 for the blind pile, ``("swap", slot, 0, 0)``,
``("lay", q, r, rot)``, ``("step", d, 0, 0)``, ``("build", 0, 0, 0)``, ``("end", 0, 0, 0)``);
engine.games.rifugio.rules gives them their notation.

>>> table = Table(new_state(3, "demo"))
>>> table.phase, len(table.display), len(table.pile), table.walkers[0]
('take', 3, 57, (0, 0))
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine import native
from engine.games.rifugio.tiles import (
    BEAR,
    EDITION,
    KINDS,
    NUM_TILES,
    OPEN,
    SET_SIZES,
    SETS,
    SIDES,
    SIG_TILE,
    SIGNATURE,
    START_TILE,
    TOPS,
    buildable,
    fits_by_signature,
    huts_each,
    neighbour,
    tiles_per_turn,
    turns_that_fit,
)
from engine.hexboard import STEPS

TAKE, SWAP, LAY, WALK, OVER = "take", "swap", "lay", "walk", "over"
PHASES = (TAKE, SWAP, LAY, WALK, OVER)
BEAR_POINTS = next(k.points for k in EDITION.kinds if k.group == BEAR)
BLIND = -1
DEFAULT_SEED = "rifugio"

Pos = tuple[int, int]
TableMove = tuple[str, int, int, int]
# The playout policy's weights (Table.weights), the same in _native.pyx.
NEAR = 2  # a walker's two free steps reach this far
TAKE_WEIGHT, WANTED_TAKE = 2, 4
WANTED_STEP, FREE_STEP, PAID_STEP, HUT_STEP = 12, 3, 1, 1
BUILD_WEIGHT, END_WEIGHT = 6, 2
STEP_MOVES: tuple[TableMove, ...] = tuple(("step", d, 0, 0) for d in range(6))


def seed_text(seed: int | str | None) -> str:
    """The seed as the text everything is derived from (None gives a fixed default)."""
    return DEFAULT_SEED if seed is None else str(seed)


def seed_sha256(seed: int | str | None) -> str:
    """The commitment published from the start: SHA-256 (hex) of the seed text in UTF-8."""
    return hashlib.sha256(seed_text(seed).encode()).hexdigest()


def draw_order(seed: int | str | None, shuffle: int = 0,
               tiles: Iterable[int] | None = None) -> list[int]:
    """The blind pile, top first, after shuffle number ``shuffle`` of ``tiles`` (default all 60).

    Shuffle 0 makes the pile at the start; each time a blind tile goes back into the pile, the
    pile (in any order) is shuffled again with the next number. Tile ids index ``KINDS``.

    >>> [KINDS[t].name for t in draw_order("demo")][:3] == [
    ...     KINDS[t].name for t in draw_order("demo", 0, reversed(range(60)))][:3]
    True
    """
    order = sorted(range(NUM_TILES) if tiles is None else tiles)
    random.Random(f"rifugio/{seed_text(seed)}/{shuffle}").shuffle(order)
    return order


@dataclass(frozen=True)
class State:
    """The whole truth about a game (the server's copy; players see ``Rifugio.view``).

    ``placed`` lists (q, r, tile, rotation) in the order laid, the start tile first; ``huts`` lists
    (q, r, owner) in the order built; ``features`` holds per seat the (tile, points) feature cards.
    ``turns`` counts completed turns, so the seat to move is ``turns % players``. ``free`` is what
    is left of the two free steps, ``bonus`` an extra step to take at once instead of a sixth card.
    """

    players: int
    seed: str
    pile: tuple[int, ...]
    display: tuple[int, ...]
    placed: tuple[tuple[int, int, int, int], ...]
    set_aside: tuple[int, ...]
    walkers: tuple[Pos, ...]
    huts: tuple[tuple[int, int, int], ...]
    step_cards: tuple[int, ...]
    features: tuple[tuple[tuple[int, int], ...], ...]
    bears: tuple[int, ...]
    hut_cards: tuple[int, ...]
    turns: int = 0
    phase: str = TAKE
    hand: int | None = None
    to_lay: int = 1
    free: int = EDITION.free_steps
    bonus: bool = False
    built: bool = False
    reshuffles: int = 0

    @property
    def seat(self) -> int | None:
        return None if self.phase == OVER else self.turns % self.players


def new_state(players: int, seed: int | str | None) -> State:
    n = players
    pile = draw_order(seed)
    size = EDITION.display_size
    return State(
        players=n, seed=seed_text(seed), pile=tuple(pile[size:]), display=tuple(pile[:size]),
        placed=((0, 0, START_TILE, 0),), set_aside=(), walkers=((0, 0),) * n, huts=(),
        step_cards=(EDITION.start_step_cards,) * n, features=((),) * n, bears=(0,) * n,
        hut_cards=(0,) * n, to_lay=tiles_per_turn(n))


def score(state: State, seat: int) -> int:
    """Point cards + set bonuses + hut cards - bears (a set counts as soon as it is complete)."""
    cards = state.features[seat]
    total = sum(points for _, points in cards)
    for group in SETS:
        if sum(1 for t, _ in cards if KINDS[t].group == group) == SET_SIZES[group]:
            total += EDITION.set_bonus
    return total + hut_points(state, seat) + BEAR_POINTS * state.bears[seat]


def hut_points(state: State, seat: int) -> int:
    return EDITION.hut_card * state.hut_cards[seat]


class Table:
    """A game in play, mutable, with the rules: ``Table(state)`` thaws, ``freeze()`` freezes."""

    def __init__(self, state: State) -> None:
        self.n = state.players
        self.seed = state.seed
        self.pile = list(state.pile)
        self.display = list(state.display)
        self.placed = list(state.placed)
        self.tiles: dict[Pos, tuple[int, int]] = {(q, r): (t, rot) for q, r, t, rot in self.placed}
        # a thaw per move in the bot's tree: the steps inline (neighbour's order, so the same set)
        self.frontier: set[Pos] = {(q + dq, r + dr) for q, r in self.tiles for dq, dr in STEPS}
        self.frontier -= self.tiles.keys()
        self.set_aside = list(state.set_aside)
        self.walkers = list(state.walkers)
        self.huts = list(state.huts)
        self.hut_at = {(q, r): owner for q, r, owner in self.huts}
        self.step_cards = list(state.step_cards)
        self.features = [list(cards) for cards in state.features]
        self.bears = list(state.bears)
        self.hut_cards = list(state.hut_cards)
        self.turns = state.turns
        self.phase = state.phase
        self.hand = state.hand
        self.to_lay = state.to_lay
        self.free = state.free
        self.bonus = state.bonus
        self.built = state.built
        self.reshuffles = state.reshuffles
        self._facing: dict[Pos, tuple[int, ...]] = {}
        self._fits: dict[tuple[int, ...], dict[Pos, tuple[int, ...]]] = {}

    def freeze(self) -> State:
        return State(
            players=self.n, seed=self.seed, pile=tuple(self.pile), display=tuple(self.display),
            placed=tuple(self.placed), set_aside=tuple(self.set_aside),
            walkers=tuple(self.walkers), huts=tuple(self.huts),
            step_cards=tuple(self.step_cards),
            features=tuple(tuple(cards) for cards in self.features), bears=tuple(self.bears),
            hut_cards=tuple(self.hut_cards), turns=self.turns, phase=self.phase, hand=self.hand,
            to_lay=self.to_lay, free=self.free, bonus=self.bonus, built=self.built,
            reshuffles=self.reshuffles)

    @property
    def seat(self) -> int:
        return self.turns % self.n

    # -- tiles ---------------------------------------------------------------------------------

    def facing(self, pos: Pos) -> tuple[int, ...]:
        """The side code each neighbour of ``pos`` shows towards it (-1 where there is no tile)."""
        found = self._facing.get(pos)
        if found is None:
            q, r = pos
            tiles = self.tiles
            sides = []
            for d, (dq, dr) in enumerate(STEPS):
                other = tiles.get((q + dq, r + dr))
                sides.append(-1 if other is None else SIDES[other[0]][other[1]][(d + 3) % 6])
            found = self._facing[pos] = tuple(sides)
        return found

    def _turns(self, tile: int, pos: Pos) -> tuple[int, ...]:
        return turns_that_fit(tile, self.facing(pos))

    def _fit_map(self, tile: int) -> dict[Pos, tuple[int, ...]]:
        """Where ``tile`` fits and in which rotations; kept up to date as tiles are laid."""
        sig = SIGNATURE[tile]
        found = self._fits.get(sig)
        if found is None:
            found = {}
            for pos in self.frontier:
                turns = self._turns(tile, pos)
                if turns:
                    found[pos] = turns
            self._fits[sig] = found
        return found

    def placements(self, tile: int) -> list[tuple[int, int, int]]:
        """Every (q, r, rotation) where ``tile`` may be laid now (distinct rotations only)."""
        return [(q, r, rot) for (q, r), turns in self._fit_map(tile).items() for rot in turns]

    def fits_somewhere(self, tile: int) -> bool:
        return bool(self._fit_map(tile))

    def any_fits(self, tiles: Iterable[int]) -> bool:
        return any(self.fits_somewhere(SIG_TILE[sig]) for sig in {SIGNATURE[t] for t in tiles})

    # -- moves ---------------------------------------------------------------------------------

    def legal(self) -> list[TableMove]:
        if self.phase == TAKE:
            moves: list[TableMove] = [("take", i, 0, 0) for i, t in enumerate(self.display)
                                      if self.fits_somewhere(t)]
            if self.pile:
                moves.append(("take", BLIND, 0, 0))
            return moves
        if self.phase == SWAP:
            return [("swap", i, 0, 0) for i, t in enumerate(self.display)
                    if self.fits_somewhere(t)]
        if self.phase == LAY:
            assert self.hand is not None
            return [("lay", q, r, rot) for q, r, rot in self.placements(self.hand)]
        if self.phase == WALK:
            return self.walk_moves()
        return []

    def walk_moves(self) -> list[TableMove]:
        seat = self.seat
        moves: list[TableMove] = []
        pos = self.walkers[seat]
        here, rot = self.tiles[pos]
        paid = self.free > 0 or self.step_cards[seat] > 0
        if paid or self.bonus:
            q, r = pos
            tiles, exits = self.tiles, OPEN[here][rot]
            for d, (dq, dr) in enumerate(STEPS):
                if exits[d]:
                    there = tiles.get((q + dq, r + dr))
                    if there is not None and OPEN[there[0]][there[1]][(d + 3) % 6]:
                        moves.append(STEP_MOVES[d])
        if paid and self.can_build():
            moves.append(("build", 0, 0, 0))
        moves.append(("end", 0, 0, 0))
        return moves

    # -- the playout policy --------------------------------------------------------------------

    def wanted(self, seat: int, tile: int) -> bool:
        """Whether visiting ``tile`` would give ``seat`` a card: a feature it holds none of."""
        return KINDS[tile].is_feature and all(t != tile for t, _ in self.features[seat])

    def weights(self, moves: list[TableMove]) -> list[int]:
        """What the playout policy makes of each of ``moves`` (``legal()``), as whole numbers: a
        playout draws a move with chance weight / sum (:func:`weighted_pick`).

        The weights are a cheap reading of what the rules reward, so that a playout looks more
        like a game between players who want points than a random walk does: take and lay a
        feature you lack (:data:`WANTED_TAKE`) within :data:`NEAR` steps of your walker and not
        of another's; lay a bear near another walker and away from yours; turn a pass so that
        an entrance opens on the landscape; walk onto features you lack, never onto a bear,
        rarely onto another's hut (a card for its owner); build; keep paid steps for later.
        The native core weighs the same moves with the same numbers (tests/engine/test_native.py).
        """
        seat = self.seat
        if self.phase == LAY:
            assert self.hand is not None
            return [self._lay_weight(seat, self.hand, (q, r), rot) for _, q, r, rot in moves]
        if self.phase in (TAKE, SWAP):
            return [TAKE_WEIGHT if a == BLIND or not self.wanted(seat, self.display[a])
                    else WANTED_TAKE for _, a, _, _ in moves]
        out = []
        for verb, a, _, _ in moves:
            if verb == "step":
                pos = neighbour(self.walkers[seat], a)
                tile = self.tiles[pos][0]
                owner = self.hut_at.get(pos)
                out.append(0 if KINDS[tile].group == BEAR
                           else WANTED_STEP if self.wanted(seat, tile)
                           else HUT_STEP if owner is not None and owner != seat
                           else FREE_STEP if self.bonus or self.free > 0 else PAID_STEP)
            else:
                out.append(BUILD_WEIGHT if verb == "build" else END_WEIGHT)
        return out

    def _lay_weight(self, seat: int, tile: int, pos: Pos, rot: int) -> int:
        kind = KINDS[tile]
        near_me = distance(pos, self.walkers[seat]) <= NEAR
        near_other = any(distance(pos, w) <= NEAR
                         for s, w in enumerate(self.walkers) if s != seat)
        if kind.group == BEAR:
            weight = 1 if near_me else 8 if near_other else 2
        elif self.wanted(seat, tile):
            weight = ((4 if near_other else 8) if near_me else 1 if near_other else 2)
        else:
            weight = 2
        if kind.is_pass:
            q, r = pos
            for d, (dq, dr) in enumerate(STEPS):
                other = self.tiles.get((q + dq, r + dr))
                if (OPEN[tile][rot][d] and other is not None
                        and OPEN[other[0]][other[1]][(d + 3) % 6]):
                    return 2 * weight
        return weight

    def can_build(self) -> bool:
        seat = self.seat
        pos = self.walkers[seat]
        return (not self.built and buildable(self.tiles[pos][0]) and pos not in self.hut_at
                and sum(1 for h in self.huts if h[2] == seat) < huts_each(self.n))

    def do(self, move: TableMove) -> None:
        verb, a, b, c = move
        if verb == "take":
            self._take(a)
        elif verb == "swap":
            assert self.hand is not None
            self.display[a], self.hand = self.hand, self.display[a]
            self.phase = LAY
        elif verb == "lay":
            self._lay(a, b, c)
        elif verb == "step":
            self._step(a)
        elif verb == "build":
            self.bonus = False  # never pending here: the walker would stand on a hut
            self._pay()
            seat = self.seat
            pos = self.walkers[seat]
            self.huts.append((pos[0], pos[1], seat))
            self.hut_at[pos] = seat
            self.built = True
        elif verb == "end":
            self._end_turn()
        else:
            raise ValueError(f"unknown move {move!r}")

    def _take(self, slot: int) -> None:
        if slot != BLIND:
            self.hand = self.display.pop(slot)
            self.phase = LAY
            return
        tile = self.pile.pop(0)
        if self.fits_somewhere(tile):
            self.phase = LAY
        elif any(self.fits_somewhere(t) for t in self.display):
            self.phase = SWAP
        else:
            # Nothing open fits either: back into the pile, shuffle, draw again. Some blind tile
            # fits (else every tile would have been set aside), so this ends.
            while not self.fits_somewhere(tile):
                self.pile.append(tile)
                self.reshuffles += 1
                self.pile = draw_order(self.seed, self.reshuffles, self.pile)
                tile = self.pile.pop(0)
            self.phase = LAY
        self.hand = tile

    def _lay(self, q: int, r: int, rot: int) -> None:
        assert self.hand is not None
        pos = (q, r)
        self.tiles[pos] = (self.hand, rot)
        self.placed.append((q, r, self.hand, rot))
        self.frontier.discard(pos)
        tiles = self.tiles
        around = [p for p in ((q + dq, r + dr) for dq, dr in STEPS) if p not in tiles]
        self.frontier.update(around)
        for p in around:
            self._facing.pop(p, None)
        fits = self._fits
        for found in fits.values():
            found.pop(pos, None)
        for p in around:  # in this order, as each map's order is the order of the legal moves
            by_signature = fits_by_signature(self.facing(p))
            for sig, found in fits.items():
                turns = by_signature[sig]
                if turns:
                    found[p] = turns
                else:
                    found.pop(p, None)
        self.hand = None
        self.to_lay -= 1
        self._next_tile()

    def _next_tile(self) -> None:
        """Refill the display and ask for the next tile, or go walking.

        When no remaining tile fits anywhere, nobody can ever lay one again (the landscape only
        grows by laying): they are all set aside and count as laid, so this turn is the last.
        """
        remaining = self.display + self.pile
        if remaining and not self.any_fits(remaining):
            self.set_aside.extend(sorted(remaining))
            self.display, self.pile = [], []
        if self.to_lay > 0 and (self.display or self.pile):
            size = EDITION.display_size
            while len(self.display) < size and self.pile:
                self.display.append(self.pile.pop(0))
            self.phase = TAKE
        else:
            self.to_lay = 0
            self.phase = WALK

    def _pay(self) -> None:
        """A step or a build costs the immediate bonus step, else a free step, else a card."""
        if self.bonus:
            self.bonus = False
        elif self.free > 0:
            self.free -= 1
        else:
            self.step_cards[self.seat] -= 1

    def _step(self, d: int) -> None:
        seat = self.seat
        self._pay()
        pos = neighbour(self.walkers[seat], d)
        self.walkers[seat] = pos
        tile = self.tiles[pos][0]
        kind = KINDS[tile]
        if kind.group == BEAR:
            self.bears[seat] += 1
        elif kind.is_feature and all(t != tile for t, _ in self.features[seat]):
            points = kind.points
            if kind.group == TOPS and not any((tile, EDITION.first_top) in cards
                                              for cards in self.features):
                points = EDITION.first_top
            self.features[seat].append((tile, points))
        owner = self.hut_at.get(pos)
        if owner is not None and owner != seat:
            self.hut_cards[owner] += 1
            if self.step_cards[seat] < EDITION.max_step_cards:
                self.step_cards[seat] += 1
            else:
                self.bonus = True

    def _end_turn(self) -> None:
        self.bonus = False
        self.turns += 1
        self.free = EDITION.free_steps
        self.built = False
        if not self.display and not self.pile:
            self.phase = OVER
            return
        self.to_lay = tiles_per_turn(self.n)
        self._next_tile()


def distance(a: Pos, b: Pos) -> int:
    """Steps between two places on the hex grid (axial, with the steps of engine.hexboard)."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq - dr)) // 2


def weighted_pick(rng: random.Random, weights: list[int]) -> int:
    """The index drawn with chance ``weights[i] / sum(weights)`` by one ``rng.randrange``."""
    left = rng.randrange(sum(weights))
    for i, weight in enumerate(weights):
        if left < weight:
            return i
        left -= weight
    raise AssertionError("unreachable: left < sum(weights)")


@cache
def native_core() -> Any | None:
    """The compiled playouts (``_native.pyx``: this table's rules in C), or None: not built."""
    module = native.load("engine.games.rifugio")
    return None if module is None else module.NativeRifugio()
