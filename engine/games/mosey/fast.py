"""Fast random playouts for the Mosey family: the rules of ``moves`` on bitboards.

The board is laid out row by row with one spare column, so a step in each direction is a fixed bit
shift (E +1, NE +W+1, NW +W, and their negatives) and a step off the board lands on the spare
column or outside the mask, never on a real cell. Most stones are alone most of the time, and a
lone stone's steps and slides follow from two neighbour-count masks alone; only stones in groups
are checked one by one. Moves are counted by kind and direction, one is drawn uniformly by its
number, and only that one is turned back into cells.

``_native.pyx`` is the same code compiled (Cython), used when built (:mod:`engine.native`):
:func:`playout_rules` answers it, or these rules where it is missing.

>>> import random
>>> fast = FastRules(4, "either")
>>> board = fast.board
>>> own = fast.pad_mask(sum(1 << board.index(c) for c in ("C3", "E3")))
>>> label = lambda padded: board.labels[fast.unpad[padded]]
>>> sorted(f"{label(o)}-{label(t)}" for o, t in fast.all_moves(own, 0))
['C3-D3', 'E3-D3']
"""

from __future__ import annotations

import random
from functools import cache
from typing import Protocol

from engine import native
from engine.games.mosey.moves import Movement
from engine.hexboard import hex_board, shift_back, shift_forward

# What an entry's mask holds: origins of one-cell steps, origins of slide-captures (the target is
# the first stone ahead), or targets of slides (the origin is the first stone behind).
_STEP, _CAPTURE, _SLIDE_TO = 0, 1, 2

Entry = tuple[int, int, int, int]
"""(number of moves, kind, direction, bitmask of the cells that name them)."""


class PlayoutRules(Protocol):
    """What the game asks of its fast rules: :class:`FastRules`, or the native core."""

    def playout(
        self, light: int, dark: int, mover: int, rng: random.Random, max_plies: int,
        trace: list[tuple[int, int]] | None = None,
    ) -> tuple[int, int, int, int]: ...

    def moves(self, own: int, enemy: int) -> list[tuple[int, int]]: ...

    def has_move(self, own: int, enemy: int) -> bool: ...


@cache
def fast_rules(order: int, movement: Movement) -> FastRules:
    """The (shared) fast rules for one board order and movement."""
    return FastRules(order, movement)


def native_rules(order: int, movement: Movement) -> PlayoutRules | None:
    """The compiled copy of :func:`fast_rules`, or None where it is not built or switched off."""
    return _native_rules(order, movement) if native.enabled() else None


def playout_rules(order: int, movement: Movement) -> PlayoutRules:
    """The native rules where built, else :func:`fast_rules`: the same moves either way."""
    return native_rules(order, movement) or fast_rules(order, movement)


@cache
def _native_rules(order: int, movement: Movement) -> PlayoutRules | None:
    module = native.load("engine.games.mosey")
    if module is None:
        return None
    fast = fast_rules(order, movement)
    core: PlayoutRules = module.NativeRules(fast.width, fast.shifts, fast.pad, fast.nbr,
                                            fast.rays, fast.mask, movement)
    return core


class FastRules:
    """Move counting and drawing for one order and one movement rule."""

    def __init__(self, order: int, movement: Movement) -> None:
        board = hex_board(order)
        self.board = board
        self.movement = movement
        layout = board.layout
        self.layout = layout
        self.width, self.mask, self.shifts = layout.width, layout.full, layout.shifts
        self.pad, self.unpad = layout.bits, layout.cell
        cells = len(layout.cell)
        nbr = [0] * cells
        rays: list[tuple[tuple[int, ...], ...]] = [()] * cells
        for i, p in enumerate(self.pad):
            nbr[p] = sum(1 << self.pad[n] for n in board.adjacent[i])
            rays[p] = tuple(tuple(self.pad[c] for c in ray) for ray in board.rays[i])
        self.nbr = tuple(nbr)
        self.rays = tuple(rays)
        # Kogge-Stone stages to smear stones backwards along a line: (shift, cells that may pass).
        self.smear: list[list[tuple[int, int]]] = []
        for s in self.shifts:
            stages, passable, span = [], self.mask, 1
            while span <= 2 * order - 2:
                stages.append((s * span, passable))
                passable &= shift_back(passable, s * span)
                span *= 2
            self.smear.append(stages)

    # -- conversions ---------------------------------------------------------------------------

    def pad_mask(self, mask: int) -> int:
        """A bitmask over cell indices, laid out on the padded board."""
        return self.layout.to_bits(mask)

    def unpad_mask(self, mask: int) -> int:
        """A bitmask over the padded board, back on cell indices."""
        return self.layout.to_cells(mask)

    # -- the playout ---------------------------------------------------------------------------

    def playout(
        self, light: int, dark: int, mover: int, rng: random.Random, max_plies: int,
        trace: list[tuple[int, int]] | None = None,
    ) -> tuple[int, int, int, int]:
        """Random moves until the player to move has none: (light, dark, mover, plies played).

        Masks are over cell indices; ``trace`` collects the moves as (origin, target) indices.
        """
        own, opp = self.pad_mask(dark if mover else light), self.pad_mask(light if mover else dark)
        options = self.options
        randbelow = rng.randrange
        for plies in range(max_plies + 1):
            total, entries, pairs = options(own, opp)
            if not total:
                break
            if plies == max_plies:
                raise RuntimeError(f"no end after {max_plies} plies")
            origin, target = self.pick(entries, pairs, randbelow(total), own | opp)
            if trace is not None:
                trace.append((self.unpad[origin], self.unpad[target]))
            own ^= (1 << origin) | (1 << target)
            opp &= ~(1 << target)
            own, opp = opp, own
            mover ^= 1
        own, opp = self.unpad_mask(own), self.unpad_mask(opp)
        light, dark = (opp, own) if mover else (own, opp)
        return light, dark, mover, plies

    def moves(self, own: int, enemy: int) -> list[tuple[int, int]]:
        """Every legal move as (origin, target) cell indices, in the drawing's order (masks over
        cell indices, ``own`` the player to move)."""
        unpad = self.unpad
        return [(unpad[o], unpad[t])
                for o, t in self.all_moves(self.pad_mask(own), self.pad_mask(enemy))]

    def has_move(self, own: int, enemy: int) -> bool:
        """Whether the player with ``own`` (over cell indices) has a legal move."""
        return self.options(self.pad_mask(own), self.pad_mask(enemy))[0] > 0

    def all_moves(self, own: int, opp: int) -> list[tuple[int, int]]:
        """Every move the drawing can pick, as padded (origin, target): for checking the counts."""
        total, entries, pairs = self.options(own, opp)
        return [self.pick(entries, pairs, k, own | opp) for k in range(total)]

    def pick(
        self, entries: list[Entry], pairs: list[tuple[int, int]], k: int, occupied: int
    ) -> tuple[int, int]:
        """The k-th move counted by ``options``."""
        for count, kind, direction, cells in entries:
            if k >= count:
                k -= count
                continue
            for _ in range(k):
                cells &= cells - 1
            cell = (cells & -cells).bit_length() - 1
            s = self.shifts[direction]
            if kind == _STEP:
                return cell, cell + s
            if kind == _CAPTURE:
                target = cell + s
                while not (occupied >> target) & 1:
                    target += s
                return cell, target
            origin = cell - s
            while not (occupied >> origin) & 1:
                origin -= s
            return origin, cell
        return pairs[k]

    def options(self, own: int, opp: int) -> tuple[int, list[Entry], list[tuple[int, int]]]:
        """(number of legal moves, counted entries, explicit (origin, target) pairs)."""
        w = self.width
        w1 = w + 1
        empty = self.mask & ~(own | opp)
        # ones: cells with at least one own neighbour; twos: with at least two.
        a, b = own << 1, own >> 1
        ones, twos = a | b, a & b
        for x in (own << w, own >> w, own << w1, own >> w1):
            twos |= ones & x
            ones |= x
        lone = own & ~ones
        groups = _groups(own & ones, w)
        if self.movement == "toward-friend":
            return self._toward_friend(own, opp, empty, ones, twos, lone, groups)
        return self._step_and_capture(own, opp, empty, twos, lone, groups)

    def _step_and_capture(
        self, own: int, opp: int, empty: int, twos: int, lone: int, groups: list[tuple[int, int]],
    ) -> tuple[int, list[Entry], list[tuple[int, int]]]:
        entries: list[Entry] = []
        pairs: list[tuple[int, int]] = []
        total = 0
        movement = self.movement
        may_step = own
        if movement == "capture-first":
            total = self._captures(entries, own, empty, opp)
            for entry in entries:
                may_step &= ~entry[3]
        stepped = 0
        landing = empty & twos
        movers = lone & may_step
        if movers and landing:
            w = self.width
            for d, cells in enumerate((landing >> 1, landing >> (w + 1), landing >> w,
                                       landing << 1, landing << (w + 1), landing << w)):
                cells &= movers
                if cells:
                    n = cells.bit_count()
                    entries.append((n, _STEP, d, cells))
                    total += n
                    stepped |= cells
        nbr = self.nbr
        for group, size in groups:
            # Only a cell next to another of our stones can make the group larger.
            reach = empty & _around(own & ~group, self.width)
            stones = group & may_step
            while stones and reach:
                low = stones & -stones
                stones ^= low
                origin = low.bit_length() - 1
                targets = nbr[origin] & reach
                while targets:
                    spot = targets & -targets
                    targets ^= spot
                    target = spot.bit_length() - 1
                    if self._joins_larger(own, low, target, group, size, lone, groups):
                        pairs.append((origin, target))
                        stepped |= low
        total += len(pairs)
        if movement == "step-first":
            total += self._captures(entries, own & ~stepped, empty, opp)
        elif movement == "either":
            total += self._captures(entries, own, empty, opp)
        return total, entries, pairs

    def _toward_friend(
        self, own: int, opp: int, empty: int, ones: int, twos: int, lone: int,
        groups: list[tuple[int, int]],
    ) -> tuple[int, list[Entry], list[tuple[int, int]]]:
        entries: list[Entry] = []
        pairs: list[tuple[int, int]] = []
        total = 0
        beyond = []
        for d, s in enumerate(self.shifts):
            # Cells with one of ours further along direction d: smear our stones backwards.
            reach = own
            for shift, passable in self.smear[d]:
                reach |= passable & shift_back(reach, shift)
            ahead = shift_back(reach, s) & self.mask
            beyond.append(ahead)
            if opp & ahead:
                total += self._captures(entries, own, empty, opp & ahead, only=d)
            if lone:
                ray = shift_forward(lone, s) & empty
                landing = ray & twos  # next to the origin: needs a second friend
                while ray:
                    ray = shift_forward(ray, s) & empty
                    landing |= ray & ones
                landing &= ahead
                if landing:
                    n = landing.bit_count()
                    entries.append((n, _SLIDE_TO, d, landing))
                    total += n
        rays = self.rays
        for group, size in groups:
            stones = group
            while stones:
                low = stones & -stones
                stones ^= low
                origin = low.bit_length() - 1
                for d, line in enumerate(rays[origin]):
                    ahead = beyond[d]
                    for target in line:
                        if not (empty >> target) & 1 or not (ahead >> target) & 1:
                            break
                        if self._joins_larger(own, low, target, group, size, lone, groups):
                            pairs.append((origin, target))
        return total + len(pairs), entries, pairs

    def _captures(
        self, entries: list[Entry], movers: int, empty: int, prey: int, only: int = -1,
    ) -> int:
        """Count the slide-captures of ``movers`` onto ``prey`` (in direction ``only``, or all)."""
        if not movers or not prey:
            return 0
        total = 0
        shifts = self.shifts
        for d in range(6) if only < 0 else (only,):
            # Walk back from the prey over empty cells; the first stone met is the capturer.
            s = shifts[d]
            if s > 0:
                ray = prey >> s
                cells = ray & movers
                ray &= empty
                while ray:
                    ray >>= s
                    cells |= ray & movers
                    ray &= empty
            else:
                s = -s
                ray = prey << s
                cells = ray & movers
                ray &= empty
                while ray:
                    ray <<= s
                    cells |= ray & movers
                    ray &= empty
            if cells:
                n = cells.bit_count()
                entries.append((n, _CAPTURE, d, cells))
                total += n
        return total

    def _joins_larger(
        self, own: int, low: int, target: int, group: int, size: int, lone: int,
        groups: list[tuple[int, int]],
    ) -> bool:
        """D(target) > G for the grouped stone ``low``, without a flood fill where sizes decide.

        D(t) = 1 + (other groups touching t) + (parts of the old group, less the stone, touching
        t), and G = 1 + (all those parts), so D(t) > G exactly when the other groups touching t
        outweigh the parts of the old group left behind.
        """
        friends = self.nbr[target] & own & ~low
        outside = friends & ~group
        if not outside:
            return False
        joined = (outside & lone).bit_count()
        if outside & ~lone:
            for other, other_size in groups:
                if other & outside:
                    joined += other_size
        if joined >= size:
            return True
        touching = friends & group
        if not touching:
            return False
        # The rest of the group stays whole (so all of it touches t) when the stone hangs on by one
        # neighbour, or by two that touch each other; only otherwise count the part that touches.
        ring = self.nbr[low.bit_length() - 1] & group
        first = ring & -ring
        ring ^= first
        if not ring & (ring - 1) and (not ring or self.nbr[first.bit_length() - 1] & ring):
            return True
        kept = _flood(touching, group & ~low, self.width)
        return joined + kept.bit_count() >= size


def _around(x: int, w: int) -> int:
    """Cells next to any of ``x``, with stray bits off the board (mask them before use)."""
    return x << 1 | x >> 1 | x << w | x >> w | x << (w + 1) | x >> (w + 1)


def _flood(seed: int, stones: int, w: int) -> int:
    """The stones connected to ``seed`` (padded layout, so neighbours are fixed shifts)."""
    w1 = w + 1
    found = seed
    while True:
        grown = (found | found << 1 | found >> 1 | found << w | found >> w
                 | found << w1 | found >> w1) & stones
        if grown == found:
            return found
        found = grown


def _groups(grouped: int, w: int) -> list[tuple[int, int]]:
    """The groups of two or more stones among ``grouped``, with their sizes."""
    groups = []
    while grouped:
        group = _flood(grouped & -grouped, grouped, w)
        groups.append((group, group.bit_count()))
        grouped ^= group
    return groups
