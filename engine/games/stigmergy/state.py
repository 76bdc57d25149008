"""Stigmergy's position, lines of sight and control, and its fast random playout.

A cell sees, along each of the six directions, the first stone on that line; a player controls a
cell when more than half of the cell's neighbour count of those stones are theirs. Everything here
works on bitboards (Python ints, one bit per cell index) with masks precomputed per board:

>>> from engine.hexboard import hex_board
>>> sight = Sight.of(5)
>>> board = hex_board(5)
>>> black = sum(1 << board.index(c) for c in ("A1", "E1", "G5"))  # C1 sees all three
>>> sight.sees(board.index("C1"), black, 0)
(3, 0)
>>> control, _ = sight.control(black, 0)
>>> bool(control >> board.index("C1") & 1)          # an edge cell: 3 of its 4 neighbours
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine import native
from engine.hexboard import hex_board

EMPTY, BLACK, WHITE = 0, 1, 2
CHARS = ".BW"
"""How ``StigmergyState.board`` writes empty, Black and White."""

WORD_ORDER = ("pass", "play-second", "take-button")
"""The single-word moves in notation order (they sort after every cell: lower case)."""


def has_button(komi: int | None) -> bool:
    """Whether a game with this komi has the button: every odd komi, negative ones too.

    The cell count is odd, so an odd komi makes the final points total even and a tie possible;
    the button's half point breaks it. (Abstract Play tests ``komi % 2 === 1`` in JavaScript, where
    -3 % 2 is -1, and so leaves negative odd komi without one; the rules do not.)

    >>> has_button(3), has_button(-3), has_button(-1), has_button(4), has_button(0)
    (True, True, True, False, False)
    >>> has_button(None)
    False
    """
    return komi is not None and komi % 2 == 1


@dataclass(frozen=True)
class StigmergyState:
    """A position. Seats and colours differ: ``black_seat`` says which seat plays Black.

    ``board`` has one character per cell index (``.``, ``B``, ``W``); ``komi`` is None until it is
    named, ``black_seat`` None until sides are chosen; ``mover`` is the seat whose turn it is;
    ``button`` the seat holding the button; ``passes`` counts successive passes (two end the game).
    """

    board: str
    komi: int | None
    black_seat: int | None
    mover: int = 0
    button: int | None = None
    passes: int = 0
    ply: int = 0

    @property
    def colour_to_move(self) -> int:
        """BLACK or WHITE; while sides are being chosen, a stone placed is Black's first."""
        if self.black_seat is None or self.mover == self.black_seat:
            return BLACK
        return WHITE

    def masks(self) -> tuple[int, int]:
        """(Black stones, White stones) as bitboards."""
        flipped = self.board[::-1]
        return (int(flipped.translate(_BLACK_BITS), 2), int(flipped.translate(_WHITE_BITS), 2))


_BLACK_BITS = str.maketrans(".BW", "010")
_WHITE_BITS = str.maketrans(".BW", "001")


class Sight:
    """Lines of sight on the hexhex board of one side, precomputed once per size."""

    def __init__(self, side: int) -> None:
        board = hex_board(side)
        self.board = board
        self.size = board.size
        # A majority of the on-board neighbours: 4 of 6, 3 of 4, 2 of 3.
        self.need = tuple(len(ns) // 2 + 1 for ns in board.adjacent)
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = board.rays
        # Indices grow along E, NE and NW, so the nearest stone on those rays is the lowest set
        # bit; along W, SW and SE it is the highest.
        low, high = [], []
        for c in range(self.size):
            rays = board.rays[c]
            assert all(j > c for d in (0, 1, 2) for j in rays[d])
            low.append(tuple(sum(1 << j for j in rays[d]) for d in (0, 1, 2) if rays[d]))
            high.append(tuple(sum(1 << j for j in rays[d]) for d in (3, 4, 5) if rays[d]))
        self._cells = tuple(zip(range(self.size), low, high, self.need, strict=True))
        # Legal moves are listed sorted by notation, and "D1x" sorts after "D19": every
        # (cell, replace?) pair gets its place in that order once, as a bit of a rank mask.
        texts = sorted([(label, c, False) for c, label in enumerate(board.labels)]
                       + [(f"{label}x", c, True) for c, label in enumerate(board.labels)])
        self.order: tuple[tuple[str, int, bool], ...] = tuple(texts)
        self.place_bit = [0] * self.size
        self.replace_bit = [0] * self.size
        for rank, (_, c, replace) in enumerate(texts):
            (self.replace_bit if replace else self.place_bit)[c] = 1 << rank
        self.below = tuple((1 << k) - 1 for k in range(len(texts) + 1))

    @staticmethod
    @cache
    def of(side: int) -> Sight:
        """The shared tables for the board of side ``side``."""
        return Sight(side)

    def seen(self, c: int, occupied: int) -> int:
        """The stones cell ``c`` sees (the nearest on each of its rays), as a bitboard."""
        _, low, high, _ = self._cells[c]
        seen = 0
        for mask in low:
            if blockers := occupied & mask:
                seen |= blockers & -blockers
        for mask in high:
            if blockers := occupied & mask:
                seen |= 1 << (blockers.bit_length() - 1)
        return seen

    def sees(self, c: int, black: int, white: int) -> tuple[int, int]:
        """How many Black and White stones cell ``c`` sees."""
        seen = self.seen(c, black | white)
        return (seen & black).bit_count(), (seen & white).bit_count()

    def controller(self, c: int, black: int, white: int) -> int:
        """Who controls cell ``c``: BLACK, WHITE or EMPTY (nobody), as :meth:`control` says,
        from ``c``'s own rays alone (checking one move need not map the whole board)."""
        seen_black, seen_white = self.sees(c, black, white)
        need = self.need[c]
        return BLACK if seen_black >= need else WHITE if seen_white >= need else EMPTY

    def control(self, black: int, white: int) -> tuple[int, int]:
        """The cells (empty or not) Black controls and those White controls, as bitboards."""
        occupied = black | white
        black_ctrl = white_ctrl = 0
        for c, low, high, need in self._cells:
            seen = 0
            for mask in low:
                if blockers := occupied & mask:
                    seen |= blockers & -blockers
            for mask in high:
                if blockers := occupied & mask:
                    seen |= 1 << (blockers.bit_length() - 1)
            if seen:
                if (seen & black).bit_count() >= need:
                    black_ctrl |= 1 << c
                elif (seen & white).bit_count() >= need:
                    white_ctrl |= 1 << c
        return black_ctrl, white_ctrl

    def nth_set_bit(self, mask: int, n: int) -> int:
        """The index of the n-th (from 0) set bit of ``mask``, by bisection on popcounts."""
        below = self.below
        lo, hi = 0, len(below) - 1
        while hi - lo > 1:
            mid = (lo + hi) >> 1
            if (mask & below[mid]).bit_count() > n:
                hi = mid
            else:
                lo = mid
        return lo


def playout(sight: Sight, state: StigmergyState, rng: random.Random, max_plies: int,
            komi_range: tuple[int, int]) -> StigmergyState:
    """Uniformly random legal moves until two passes, on mutable arrays updated incrementally.

    Draws exactly as ``Game.random_move`` does on the sorted legal-move list (one ``randrange``
    per ply, the komi's range counted as one choice and its number drawn with ``randint``), so a
    seed gives the same game as the generic path.
    """
    if state.passes >= 2:
        return state
    komi, black_seat, mover, button = state.komi, state.black_seat, state.mover, state.button
    passes, ply, plies = state.passes, state.ply, 0
    if komi is None:
        rng.randrange(1)  # random_move first picks the komi's range, the one choice offered
        komi = rng.randint(*komi_range)
        mover, ply, plies = 1, ply + 1, 1
    with_button = has_button(komi)
    core = native_core(sight) if native.enabled() else None
    if core is not None:  # the same moves for the same random numbers (engine.native)
        board, seat, mover, holder, passes, ply = core.playout(
            state.board, with_button, -1 if black_seat is None else black_seat, mover,
            -1 if button is None else button, passes, ply, plies, max_plies, rng)
        return StigmergyState(board, komi, None if seat < 0 else seat, mover,
                              None if holder < 0 else holder, passes, ply)

    n, need, rays = sight.size, sight.need, sight.rays
    place_bit, replace_bit = sight.place_bit, sight.replace_bit
    cell = [CHARS.index(ch) for ch in state.board]
    black, white = state.masks()
    see_b, see_w = [0] * n, [0] * n
    for c in range(n):
        see_b[c], see_w[c] = sight.sees(c, black, white)
    ctrl = [0] * n
    mem_b, mem_w, free = [0] * n, [0] * n, [False] * n
    legal = [0, 0, 0]  # rank masks of the legal board moves, per colour
    nfree = [0]

    def touch(c: int, k: int) -> None:
        """Cell c now has controller k (or new contents): update the legal masks."""
        ctrl[c] = k
        content = cell[c]
        if content == EMPTY:
            mb = mw = place_bit[c]
            if k == WHITE:
                mb = 0
            elif k == BLACK:
                mw = 0
            f = k == 0
        elif content == BLACK:
            mb, mw, f = 0, replace_bit[c] if k == WHITE else 0, False
        else:
            mb, mw, f = replace_bit[c] if k == BLACK else 0, 0, False
        if mem_b[c] != mb:
            legal[BLACK] ^= mem_b[c] ^ mb
            mem_b[c] = mb
        if mem_w[c] != mw:
            legal[WHITE] ^= mem_w[c] ^ mw
            mem_w[c] = mw
        if free[c] != f:
            free[c] = f
            nfree[0] += 1 if f else -1

    for c in range(n):
        nd = need[c]
        touch(c, BLACK if see_b[c] >= nd else WHITE if see_w[c] >= nd else 0)

    while True:
        if plies >= max_plies:
            raise RuntimeError(f"stigmergy: no end after {max_plies} plies")
        colour = BLACK if black_seat is None or mover == black_seat else WHITE
        moves = legal[colour]
        count = moves.bit_count()
        if black_seat is None:
            word = "play-second"
        elif with_button and button is None:
            word = "take-button"
        else:
            word = "pass" if nfree[0] == 0 else ""
        pick = rng.randrange(count + (1 if word else 0))
        plies += 1
        ply += 1
        if pick >= count:
            if word == "pass":
                passes += 1
                if passes == 2:
                    break
            elif word == "take-button":
                button, passes = mover, 0
            else:
                black_seat = 1 - mover
            mover = 1 - mover
            continue
        passes = 0
        _, s, replace = sight.order[sight.nth_set_bit(moves, pick)]
        if black_seat is None:
            black_seat = mover
        mine, theirs = (see_b, see_w) if colour == BLACK else (see_w, see_b)
        if replace:
            # Everything that saw the enemy stone on s now sees one of ours there.
            for ray in rays[s]:
                for c in ray:
                    mine[c] += 1
                    theirs[c] -= 1
                    nd = need[c]
                    k = BLACK if see_b[c] >= nd else WHITE if see_w[c] >= nd else 0
                    if k != ctrl[c]:
                        touch(c, k)
                    if cell[c]:
                        break
        else:
            # The cells up to the first stone on each ray from s saw, through s, the first
            # stone on the opposite ray; now they see the new stone instead.
            segments: list[list[int]] = []
            firsts: list[int] = []
            for ray in rays[s]:
                segment, first = [], EMPTY
                for c in ray:
                    segment.append(c)
                    if cell[c]:
                        first = cell[c]
                        break
                segments.append(segment)
                firsts.append(first)
            for d in range(6):
                hidden = firsts[(d + 3) % 6]
                if hidden == colour:
                    continue
                for c in segments[d]:
                    mine[c] += 1
                    if hidden:
                        theirs[c] -= 1
                    nd = need[c]
                    k = BLACK if see_b[c] >= nd else WHITE if see_w[c] >= nd else 0
                    if k != ctrl[c]:
                        touch(c, k)
        cell[s] = colour
        touch(s, ctrl[s])
        mover = 1 - mover

    return StigmergyState(board="".join(CHARS[v] for v in cell), komi=komi,
                          black_seat=black_seat, mover=1 - mover, button=button,
                          passes=passes, ply=ply)


@cache
def native_core(sight: Sight) -> Any | None:
    """The compiled playout for a board (``_native.pyx``), or None: not built."""
    module = native.load("engine.games.stigmergy")
    return None if module is None else module.NativeStigmergy(sight.need, sight.rays, sight.order)
