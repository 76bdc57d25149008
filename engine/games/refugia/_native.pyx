# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, infer_types=True
"""Refugia's random plies compiled: ``Refugia.random_plies`` and ``state.move_groups`` line for
line, in C, on the fixed-width bitboards of ``engine/games/_bitboards.pxd`` (a 6-8 board needs
181 bits).

An optional extension (see :mod:`engine.native`): without it the pure-Python path plays, which
stays the reference. The moves are counted and ordered as ``move_groups`` does and the k-th is
drawn with the random numbers ``random.Random.randrange(total)`` takes, so a seeded playout, and
so a bot's search, is the same either way (tests/engine/test_native.py).
"""

import random as _random

from engine.games._bitboards cimport (
    BB, bb_and, bb_andnot, bb_any, bb_bit, bb_count, bb_low, bb_or, bb_shl, bb_shr, bb_xor,
    bb_zero, from_int, to_int,
)

cdef enum:
    MAXGROUPS = 96

ctypedef struct Group:
    int count
    int land      # shift to the landing cell
    int jump      # shift to the jumped cell, 0 for a step
    BB origins

from engine.games._draw cimport draw_below, twister_usable

cdef object _Random = _random.Random
cdef bint _TWISTER = twister_usable(_Random)


cdef class NativeRefugia:
    """Random plies on one board: its padded ``width`` and ``full`` mask (``BitLayout``)."""

    cdef int width
    cdef BB full
    cdef BB place
    cdef int nplace
    cdef Group groups[MAXGROUPS]
    cdef int ngroups

    def __init__(self, int width, full):
        if full.bit_length() > 192 or not 0 < 2 * (width + 1) < 64:
            raise ValueError("the board is too large for the native core")
        self.width = width
        self.full = from_int(full)

    def random_plies(self, white, black, neutral, int turn, int passes, rng, int plies):
        """(white, black, neutral, turn, passes) after ``plies`` random moves or at the end."""
        cdef BB discs[2]
        cdef BB neut = from_int(neutral)
        cdef BB own, opp, origin, over
        cdef int total, pick, g, j, o
        cdef long long r
        cdef bint exact = type(rng) is _Random
        cdef bint twister = exact and _TWISTER
        discs[0] = from_int(white)
        discs[1] = from_int(black)
        for _ in range(plies):
            if passes >= 2:
                break
            own = discs[turn]
            opp = discs[1 - turn]
            total = self.count(own, opp, neut) + 1
            r = draw_below(rng, total, exact, twister)
            pick = <int>r - 1
            if pick < 0:
                passes += 1
                turn = 1 - turn
                continue
            passes = 0
            if pick < self.nplace:
                discs[turn] = bb_or(own, nth_bit(self.place, pick))
                turn = 1 - turn
                continue
            pick -= self.nplace
            g = 0
            while pick >= self.groups[g].count:
                pick -= self.groups[g].count
                g += 1
            o = bb_low(nth_bit(self.groups[g].origins, pick))
            own = bb_xor(own, bb_or(bb_bit(o), bb_bit(o + self.groups[g].land)))
            if self.groups[g].jump:
                over = bb_bit(o + self.groups[g].jump)
                if bb_any(bb_and(opp, over)):
                    opp = bb_xor(opp, over)
                    neut = bb_or(neut, over)
                else:
                    own = bb_or(own, over)
                    neut = bb_xor(neut, over)
            discs[turn] = own
            discs[1 - turn] = opp
            turn = 1 - turn
        return to_int(discs[0]), to_int(discs[1]), to_int(neut), turn, passes

    def moves(self, own, opp, neutral):
        """The moves but the pass, in the drawing's order: (origin bit or -1, target bit)."""
        cdef int g, j, o
        cdef BB cells
        self.count(from_int(own), from_int(opp), from_int(neutral))
        out = []
        cells = self.place
        while bb_any(cells):
            o = bb_low(cells)
            cells = bb_xor(cells, bb_bit(o))
            out.append((-1, o))
        for g in range(self.ngroups):
            cells = self.groups[g].origins
            while bb_any(cells):
                o = bb_low(cells)
                cells = bb_xor(cells, bb_bit(o))
                out.append((o, o + self.groups[g].land))
        return out

    cdef inline void add(self, BB m, int land, int jump) noexcept:
        cdef Group* group = &self.groups[self.ngroups]
        group.count = bb_count(m)
        group.origins = m
        group.land = land
        group.jump = jump
        self.ngroups += 1

    cdef int count(self, BB own, BB opp, BB neutral) noexcept:
        """The moves but the pass (``move_groups``): fills ``place`` and the groups."""
        cdef int width = self.width
        cdef int ne = width + 1
        cdef int k, i, s, total
        cdef BB enemy = bb_or(opp, neutral)
        cdef BB empty = bb_andnot(self.full, bb_or(own, enemy))
        # bit b of e_d: b's neighbour in direction d holds an enemy
        cdef BB e_e = bb_shr(enemy, 1)
        cdef BB e_ne = bb_shr(enemy, ne)
        cdef BB e_nw = bb_shr(enemy, width)
        cdef BB e_w = bb_shl(enemy, 1)
        cdef BB e_sw = bb_shl(enemy, ne)
        cdef BB e_se = bb_shl(enemy, width)
        cdef BB x, s1, k1, s2, k2, c0, k3, c1, c2, mobile, level, t, m, e_d
        cdef BB at_least[8]
        cdef int right[3]
        x = bb_xor(e_e, e_ne)
        s1 = bb_xor(x, e_nw)
        k1 = bb_or(bb_and(e_e, e_ne), bb_and(x, e_nw))
        x = bb_xor(e_w, e_sw)
        s2 = bb_xor(x, e_se)
        k2 = bb_or(bb_and(e_w, e_sw), bb_and(x, e_se))
        c0 = bb_xor(s1, s2)
        k3 = bb_and(s1, s2)
        x = bb_xor(k1, k2)
        c1 = bb_xor(x, k3)
        c2 = bb_or(bb_and(k1, k2), bb_and(x, k3))
        self.place = bb_andnot(empty, bb_or(
            bb_or(bb_or(bb_shr(own, 1), bb_shl(own, 1)), bb_or(bb_shr(own, ne), bb_shl(own, ne))),
            bb_or(bb_shr(own, width), bb_shl(own, width))))
        self.nplace = bb_count(self.place)
        self.ngroups = 0
        at_least[0] = self.full
        at_least[1] = bb_or(bb_or(c0, c1), c2)
        at_least[2] = bb_or(c1, c2)
        at_least[3] = bb_or(c2, bb_and(c1, c0))
        at_least[4] = c2
        at_least[5] = bb_and(c2, bb_or(c1, c0))
        at_least[6] = bb_and(c2, c1)
        at_least[7] = bb_zero()
        right[0] = 1
        right[1] = ne
        right[2] = width
        mobile = bb_and(own, at_least[1])
        k = 0
        while bb_any(mobile):
            k += 1
            level = bb_andnot(mobile, at_least[k + 1])
            if not bb_any(level):
                continue
            mobile = bb_xor(mobile, level)
            t = bb_andnot(empty, at_least[k])
            if not bb_any(t):
                continue
            # E, NE, NW look at higher bits (shift right); W, SW, SE at lower bits (shift left)
            for i in range(3):
                s = right[i]
                e_d = e_e if i == 0 else (e_ne if i == 1 else e_nw)
                m = bb_and(level, bb_shr(t, s))
                if bb_any(m):
                    self.add(m, s, 0)
                m = bb_and(bb_and(level, e_d), bb_shr(t, 2 * s))
                if bb_any(m):
                    self.add(m, 2 * s, s)
            for i in range(3):
                s = right[i]
                e_d = e_w if i == 0 else (e_sw if i == 1 else e_se)
                m = bb_and(level, bb_shl(t, s))
                if bb_any(m):
                    self.add(m, -s, 0)
                m = bb_and(bb_and(level, e_d), bb_shl(t, 2 * s))
                if bb_any(m):
                    self.add(m, -2 * s, -s)
        total = self.nplace
        for i in range(self.ngroups):
            total += self.groups[i].count
        return total


cdef inline BB nth_bit(BB mask, int n) noexcept:
    """The n-th lowest set bit of ``mask`` (from 0), as a one-bit mask."""
    for _ in range(n):
        mask = bb_xor(mask, bb_bit(bb_low(mask)))
    return bb_bit(bb_low(mask))
