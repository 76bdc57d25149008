# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, infer_types=True
"""Refugia's random plies compiled: ``Refugia.random_plies`` and ``state.move_groups`` line for
line, in C, on the fixed-width bitboards of ``engine/games/_bitboards.pxd`` (a 6-8 board needs
181 bits).

An optional extension (see :mod:`engine.native`): without it the pure-Python path plays, which
stays the reference. The moves are counted and ordered as ``move_groups`` does and the k-th is
drawn with the random numbers ``random.Random.randrange(total)`` takes, so a seeded playout, and
so a bot's search, is the same either way (tests/engine/test_native.py).

Boards whose cells all lie below bit 64 (2-3 to 3-5) play on one machine word instead of three:
the same arithmetic, in a third of the operations. A bit shifted out at the top is never a cell
(every result is masked by the board), so nothing is lost. On small boards a playout is a few
dozen plies, so the Python around it counts too: the core reads the state and makes the next one
itself, without ``RefugiaState``'s checked constructor (a frozen dataclass sets every field
through ``object.__setattr__``).
"""

import random as _random

from engine.games.refugia.state import RefugiaState

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

ctypedef unsigned long long W  # a board on one word

ctypedef struct Group64:
    int count
    int land
    int jump
    W origins

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil

from cpython.long cimport PyLong_AsUnsignedLongLongMask, PyLong_FromUnsignedLongLong

from engine.games._draw cimport draw_below, twister_usable

cdef object _Random = _random.Random
cdef bint _TWISTER = twister_usable(_Random)
cdef object _State = RefugiaState
cdef object _new = object.__new__


cdef object new_state(object discs, object neutral, int turn, int passes):
    """``RefugiaState(discs, neutral, turn, passes)``, its fields written straight in."""
    state = _new(_State)
    fields = state.__dict__
    fields["discs"] = discs
    fields["neutral"] = neutral
    fields["turn"] = turn
    fields["passes"] = passes
    return state


cdef class NativeRefugia:
    """Random plies on one board: its padded ``width`` and ``full`` mask (``BitLayout``)."""

    cdef int width
    cdef BB full
    cdef BB place
    cdef int nplace
    cdef Group groups[MAXGROUPS]
    cdef int ngroups
    cdef bint narrow   # every cell below bit 64: the one-word path
    cdef W full64
    cdef W place64
    cdef Group64 groups64[MAXGROUPS]

    def __init__(self, int width, full):
        if full.bit_length() > 192 or not 0 < 2 * (width + 1) < 64:
            raise ValueError("the board is too large for the native core")
        self.width = width
        self.full = from_int(full)
        self.narrow = full.bit_length() <= 64
        self.full64 = self.full.w[0]

    def random_plies(self, state, rng, int plies):
        """The ``RefugiaState`` after ``plies`` random moves from ``state``, or at the end."""
        cdef bint exact = type(rng) is _Random
        cdef bint twister = exact and _TWISTER
        discs = state.discs
        if self.narrow:
            return self.plies64(discs[0], discs[1], state.neutral, state.turn, state.passes, rng,
                                plies, exact, twister)
        return self.plies192(discs[0], discs[1], state.neutral, state.turn, state.passes, rng,
                             plies, exact, twister)

    cdef object plies64(self, white, black, neutral, int turn, int passes, rng, int plies,
                        bint exact, bint twister):
        """``plies192`` on one word."""
        cdef W discs[2]
        cdef W neut = PyLong_AsUnsignedLongLongMask(neutral)
        cdef W own, opp, over, origins
        cdef int total, pick, g, o
        cdef long long r
        discs[0] = PyLong_AsUnsignedLongLongMask(white)
        discs[1] = PyLong_AsUnsignedLongLongMask(black)
        for _ in range(plies):
            if passes >= 2:
                break
            own = discs[turn]
            opp = discs[1 - turn]
            total = self.count64(own, opp, neut) + 1
            r = draw_below(rng, total, exact, twister)
            pick = <int>r - 1
            if pick < 0:
                passes += 1
                turn = 1 - turn
                continue
            passes = 0
            if pick < self.nplace:
                discs[turn] = own | nth_bit64(self.place64, pick)
                turn = 1 - turn
                continue
            pick -= self.nplace
            g = 0
            while pick >= self.groups64[g].count:
                pick -= self.groups64[g].count
                g += 1
            o = __builtin_ctzll(nth_bit64(self.groups64[g].origins, pick))
            own ^= (<W>1 << o) | (<W>1 << (o + self.groups64[g].land))
            if self.groups64[g].jump:
                over = <W>1 << (o + self.groups64[g].jump)
                if opp & over:
                    opp ^= over
                    neut |= over
                else:
                    own |= over
                    neut ^= over
            discs[turn] = own
            discs[1 - turn] = opp
            turn = 1 - turn
        return new_state((PyLong_FromUnsignedLongLong(discs[0]),
                          PyLong_FromUnsignedLongLong(discs[1])),
                         PyLong_FromUnsignedLongLong(neut), turn, passes)

    cdef object plies192(self, white, black, neutral, int turn, int passes, rng, int plies,
                         bint exact, bint twister):
        """The state after ``plies`` random moves from these fields, or at the end."""
        cdef BB discs[2]
        cdef BB neut = from_int(neutral)
        cdef BB own, opp, origin, over
        cdef int total, pick, g, j, o
        cdef long long r
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
        return new_state((to_int(discs[0]), to_int(discs[1])), to_int(neut), turn, passes)

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

    cdef inline void add64(self, W m, int land, int jump) noexcept:
        cdef Group64* group = &self.groups64[self.ngroups]
        group.count = __builtin_popcountll(m)
        group.origins = m
        group.land = land
        group.jump = jump
        self.ngroups += 1

    cdef int count64(self, W own, W opp, W neutral) noexcept:
        """``count`` on one word: fills ``place64``, ``nplace`` and ``groups64``."""
        cdef int width = self.width
        cdef int ne = width + 1
        cdef int k, i, s, total
        cdef W full = self.full64
        cdef W enemy = opp | neutral
        cdef W empty = full & ~(own | enemy)
        cdef W e_e = enemy >> 1
        cdef W e_ne = enemy >> ne
        cdef W e_nw = enemy >> width
        cdef W e_w = enemy << 1
        cdef W e_sw = enemy << ne
        cdef W e_se = enemy << width
        cdef W x, s1, k1, s2, k2, c0, k3, c1, c2, mobile, level, t, m, e_d
        cdef W at_least[8]
        cdef int right[3]
        x = e_e ^ e_ne
        s1 = x ^ e_nw
        k1 = (e_e & e_ne) | (x & e_nw)
        x = e_w ^ e_sw
        s2 = x ^ e_se
        k2 = (e_w & e_sw) | (x & e_se)
        c0 = s1 ^ s2
        k3 = s1 & s2
        x = k1 ^ k2
        c1 = x ^ k3
        c2 = (k1 & k2) | (x & k3)
        self.place64 = empty & ~((own >> 1) | (own << 1) | (own >> ne) | (own << ne)
                                 | (own >> width) | (own << width))
        self.nplace = __builtin_popcountll(self.place64)
        self.ngroups = 0
        at_least[0] = full
        at_least[1] = c0 | c1 | c2
        at_least[2] = c1 | c2
        at_least[3] = c2 | (c1 & c0)
        at_least[4] = c2
        at_least[5] = c2 & (c1 | c0)
        at_least[6] = c2 & c1
        at_least[7] = 0
        right[0] = 1
        right[1] = ne
        right[2] = width
        mobile = own & at_least[1]
        k = 0
        while mobile:
            k += 1
            level = mobile & ~at_least[k + 1]
            if not level:
                continue
            mobile ^= level
            t = empty & ~at_least[k]
            if not t:
                continue
            for i in range(3):
                s = right[i]
                e_d = e_e if i == 0 else (e_ne if i == 1 else e_nw)
                m = level & (t >> s)
                if m:
                    self.add64(m, s, 0)
                m = level & e_d & (t >> (2 * s))
                if m:
                    self.add64(m, 2 * s, s)
            for i in range(3):
                s = right[i]
                e_d = e_w if i == 0 else (e_sw if i == 1 else e_se)
                m = level & (t << s)
                if m:
                    self.add64(m, -s, 0)
                m = level & e_d & (t << (2 * s))
                if m:
                    self.add64(m, -2 * s, -s)
        total = self.nplace
        for i in range(self.ngroups):
            total += self.groups64[i].count
        return total

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


cdef inline W nth_bit64(W mask, int n) noexcept:
    """``nth_bit`` on one word."""
    for _ in range(n):
        mask &= mask - 1
    return mask & (~mask + 1)


cdef inline BB nth_bit(BB mask, int n) noexcept:
    """The n-th lowest set bit of ``mask`` (from 0), as a one-bit mask."""
    for _ in range(n):
        mask = bb_xor(mask, bb_bit(bb_low(mask)))
    return bb_bit(bb_low(mask))
