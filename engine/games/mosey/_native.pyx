# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, infer_types=True
"""The Mosey family's fast playouts compiled: ``fast.FastRules`` line for line, in C.

An optional extension (``make native``, or the wheel where a C compiler is at hand): when it is
missing, ``engine.games.mosey.fast`` plays the same playouts in pure Python, which stays the
reference. The bitboards are fixed-width, three 64-bit words (192 bits: the padded order-6 board
needs 131), so orders 5 and 6 stay as fast per cell as order 4.

Same moves, same order, same random numbers: the moves are counted and ordered exactly as
``FastRules.options`` and ``FastRules.pick`` do, and the k-th move is drawn with the random
numbers ``random.Random.randrange(total)`` would take (``getrandbits`` of ``total``'s bit length,
drawn again while too large), so a seeded playout, and so a bot's search, is the same either way.
tests/engine/test_native.py holds the two to that.
"""

import random as _random

from engine.games._bitboards cimport (
    BB, MAXBITS, around, bb_and, bb_andnot, bb_any, bb_bit, bb_count, bb_eq, bb_has, bb_low,
    bb_or, bb_shl, bb_shr, bb_xor, bb_zero, flood, from_int, shift_back, shift_forward, to_int,
)

cdef enum:
    RAYLEN = 16       # the longest line of an order-6 board is 10 cells
    MAXPAIRS = 4096
    MAXGROUPS = 96
    MAXENTRIES = 16
    STEP = 0
    CAPTURE = 1
    SLIDE_TO = 2
    TOWARD_FRIEND = 0
    STEP_FIRST = 1
    EITHER = 2
    CAPTURE_FIRST = 3

MOVEMENTS = {"toward-friend": TOWARD_FRIEND, "step-first": STEP_FIRST, "either": EITHER,
             "capture-first": CAPTURE_FIRST}

ctypedef struct Entry:
    int count
    int kind
    int d
    BB cells

from engine.games._draw cimport draw_below, twister_usable

cdef object _Random = _random.Random
cdef bint _TWISTER = twister_usable(_Random)


cdef class NativeRules:
    """Move counting and drawing for one board and one movement rule (see ``FastRules``)."""

    cdef int width
    cdef int movement
    cdef int cells
    cdef int shifts[6]
    cdef BB mask
    cdef BB nbr[MAXBITS]
    cdef short rays[MAXBITS][6][RAYLEN]
    cdef int raylen[MAXBITS][6]
    cdef BB line[MAXBITS][6]        # the cells of rays[p][d], as a bitboard
    cdef int pad[MAXBITS]
    cdef int unpad[MAXBITS]
    # Scratch of one count: the entries, the explicit pairs, the groups, the lines' reach.
    cdef Entry entries[MAXENTRIES]
    cdef int nentries
    cdef int pair_origin[MAXPAIRS]
    cdef int pair_target[MAXPAIRS]
    cdef int npairs
    cdef BB groups[MAXGROUPS]
    cdef int group_size[MAXGROUPS]
    cdef int ngroups
    cdef BB beyond[6]

    def __init__(self, int width, shifts, pad, nbr, rays, mask, str movement):
        """From the tables of a ``FastRules`` (padded bit positions throughout)."""
        cdef int i, d, k
        if mask.bit_length() > MAXBITS:
            raise ValueError(f"a board of {mask.bit_length()} bits is too large")
        self.width = width
        self.movement = MOVEMENTS[movement]
        self.cells = len(pad)
        for d in range(6):
            self.shifts[d] = shifts[d]
            if not 0 < abs(shifts[d]) < 63:
                raise ValueError("shifts must be below 63")
        self.mask = from_int(mask)
        for i in range(MAXBITS):
            self.unpad[i] = -1
            self.nbr[i] = bb_zero()
            for d in range(6):
                self.raylen[i][d] = 0
            self.line[i][d] = bb_zero()
        for i, p in enumerate(pad):
            self.pad[i] = p
            self.unpad[p] = i
        for p in range(len(nbr)):
            self.nbr[p] = from_int(nbr[p])
            for d, line in enumerate(rays[p]):
                if len(line) > RAYLEN:
                    raise ValueError("a line is too long")
                self.raylen[p][d] = len(line)
                for k, cell in enumerate(line):
                    self.rays[p][d][k] = cell
                    self.line[p][d] = bb_or(self.line[p][d], bb_bit(cell))

    # -- conversions ---------------------------------------------------------------------------

    cdef BB padded(self, object cell_mask) except *:
        cdef BB src = from_int(cell_mask)
        cdef BB out = bb_zero()
        cdef int i
        if cell_mask >> self.cells:
            raise ValueError("a stone off the board")
        while bb_any(src):
            i = bb_low(src)
            src = bb_xor(src, bb_bit(i))
            out = bb_or(out, bb_bit(self.pad[i]))
        return out

    cdef object unpadded(self, BB mask):
        cdef BB out = bb_zero()
        cdef int i
        while bb_any(mask):
            i = bb_low(mask)
            mask = bb_xor(mask, bb_bit(i))
            out = bb_or(out, bb_bit(self.unpad[i]))
        return to_int(out)

    # -- the playout ---------------------------------------------------------------------------

    def playout(self, light, dark, int mover, rng, int max_plies, list trace=None):
        """Random moves until the player to move has none: (light, dark, mover, plies played).

        Masks are over cell indices; ``trace`` collects the moves as (origin, target) indices.
        """
        cdef BB own, opp, both, tmp
        cdef int plies = 0
        cdef int total, origin, target
        cdef long long r
        cdef bint exact = type(rng) is _Random
        cdef bint twister = exact and _TWISTER
        own = self.padded(dark if mover else light)
        opp = self.padded(light if mover else dark)
        while True:
            total = self.options(own, opp)
            if total == 0:
                break
            if plies == max_plies:
                raise RuntimeError(f"no end after {max_plies} plies")
            r = draw_below(rng, total, exact, twister)
            both = bb_or(own, opp)
            self.pick(<int>r, both, &origin, &target)
            if trace is not None:
                trace.append((self.unpad[origin], self.unpad[target]))
            own = bb_xor(own, bb_or(bb_bit(origin), bb_bit(target)))
            opp = bb_andnot(opp, bb_bit(target))
            tmp = own
            own = opp
            opp = tmp
            mover ^= 1
            plies += 1
        if mover:
            return self.unpadded(opp), self.unpadded(own), mover, plies
        return self.unpadded(own), self.unpadded(opp), mover, plies

    def moves(self, own, enemy):
        """Every legal move, as (origin, target) cell indices, of the player whose stones are
        ``own`` (masks over cell indices)."""
        cdef BB o = self.padded(own)
        cdef BB e = self.padded(enemy)
        cdef int total = self.options(o, e)
        cdef int k, origin, target
        cdef BB both = bb_or(o, e)
        out = []
        for k in range(total):
            self.pick(k, both, &origin, &target)
            out.append((self.unpad[origin], self.unpad[target]))
        return out

    def has_move(self, own, enemy):
        """Whether the player whose stones are ``own`` (over cell indices) has a legal move."""
        return self.options(self.padded(own), self.padded(enemy)) > 0

    # -- counting ------------------------------------------------------------------------------

    cdef void pick(self, int k, BB occupied, int* origin, int* target) noexcept:
        """The k-th move counted by ``options``."""
        cdef int e, j, cell, s, t
        cdef BB cells
        cdef Entry* entry
        for e in range(self.nentries):
            entry = &self.entries[e]
            if k >= entry.count:
                k -= entry.count
                continue
            cells = entry.cells
            for j in range(k):
                cells = bb_xor(cells, bb_bit(bb_low(cells)))
            cell = bb_low(cells)
            s = self.shifts[entry.d]
            if entry.kind == STEP:
                origin[0] = cell
                target[0] = cell + s
            elif entry.kind == CAPTURE:
                t = cell + s
                while not bb_has(occupied, t):
                    t += s
                origin[0] = cell
                target[0] = t
            else:
                t = cell - s
                while not bb_has(occupied, t):
                    t -= s
                origin[0] = t
                target[0] = cell
            return
        origin[0] = self.pair_origin[k]
        target[0] = self.pair_target[k]

    cdef int options(self, BB own, BB opp) noexcept:
        """The number of legal moves; fills the entries and pairs that ``pick`` reads."""
        cdef int w = self.width
        cdef int w1 = w + 1
        cdef BB empty = bb_andnot(self.mask, bb_or(own, opp))
        cdef BB a = bb_shl(own, 1)
        cdef BB b = bb_shr(own, 1)
        cdef BB ones = bb_or(a, b)
        cdef BB twos = bb_and(a, b)
        cdef BB x
        x = bb_shl(own, w)
        twos = bb_or(twos, bb_and(ones, x))
        ones = bb_or(ones, x)
        x = bb_shr(own, w)
        twos = bb_or(twos, bb_and(ones, x))
        ones = bb_or(ones, x)
        x = bb_shl(own, w1)
        twos = bb_or(twos, bb_and(ones, x))
        ones = bb_or(ones, x)
        x = bb_shr(own, w1)
        twos = bb_or(twos, bb_and(ones, x))
        ones = bb_or(ones, x)
        cdef BB lone = bb_andnot(own, ones)
        self.nentries = 0
        self.npairs = 0
        self.find_groups(bb_and(own, ones))
        if self.movement == TOWARD_FRIEND:
            return self.toward_friend(own, opp, empty, ones, twos, lone)
        return self.step_and_capture(own, opp, empty, twos, lone)

    cdef void find_groups(self, BB grouped) noexcept:
        cdef BB group
        self.ngroups = 0
        while bb_any(grouped):
            group = flood(bb_bit(bb_low(grouped)), grouped, self.width)
            self.groups[self.ngroups] = group
            self.group_size[self.ngroups] = bb_count(group)
            self.ngroups += 1
            grouped = bb_xor(grouped, group)

    cdef inline void add_entry(self, int count, int kind, int d, BB cells) noexcept:
        cdef Entry* entry = &self.entries[self.nentries]
        entry.count = count
        entry.kind = kind
        entry.d = d
        entry.cells = cells
        self.nentries += 1

    cdef inline void add_pair(self, int origin, int target) noexcept:
        self.pair_origin[self.npairs] = origin
        self.pair_target[self.npairs] = target
        self.npairs += 1

    cdef int step_and_capture(self, BB own, BB opp, BB empty, BB twos, BB lone) noexcept:
        cdef int total = 0
        cdef int movement = self.movement
        cdef int w = self.width
        cdef int d, e, n, g, size, origin, target
        cdef BB may_step = own
        cdef BB stepped = bb_zero()
        cdef BB landing, movers, cells, group, reach, stones, low, targets
        if movement == CAPTURE_FIRST:
            total = self.captures(own, empty, opp, -1)
            for e in range(self.nentries):
                may_step = bb_andnot(may_step, self.entries[e].cells)
        landing = bb_and(empty, twos)
        movers = bb_and(lone, may_step)
        if bb_any(movers) and bb_any(landing):
            for d in range(6):
                cells = bb_and(shift_back(landing, self.shifts[d]), movers)
                if bb_any(cells):
                    n = bb_count(cells)
                    self.add_entry(n, STEP, d, cells)
                    total += n
                    stepped = bb_or(stepped, cells)
        for g in range(self.ngroups):
            group = self.groups[g]
            size = self.group_size[g]
            # Only a cell next to another of our stones can make the group larger.
            reach = bb_and(empty, around(bb_andnot(own, group), w))
            stones = bb_and(group, may_step)
            while bb_any(stones) and bb_any(reach):
                origin = bb_low(stones)
                low = bb_bit(origin)
                stones = bb_xor(stones, low)
                targets = bb_and(self.nbr[origin], reach)
                while bb_any(targets):
                    target = bb_low(targets)
                    targets = bb_xor(targets, bb_bit(target))
                    if self.joins_larger(own, low, origin, target, group, size, lone):
                        self.add_pair(origin, target)
                        stepped = bb_or(stepped, low)
        total += self.npairs
        if movement == STEP_FIRST:
            total += self.captures(bb_andnot(own, stepped), empty, opp, -1)
        elif movement == EITHER:
            total += self.captures(own, empty, opp, -1)
        return total

    cdef int toward_friend(self, BB own, BB opp, BB empty, BB ones, BB twos, BB lone) noexcept:
        cdef int total = 0
        cdef int d, s, n, g, k, size, origin, target, stone
        cdef BB x, ahead, ray, landing, group, stones, low
        for d in range(6):
            self.beyond[d] = bb_zero()
        stones = own
        while bb_any(stones):
            # Cells with one of ours further along direction d: behind each stone, looking back.
            stone = bb_low(stones)
            stones = bb_xor(stones, bb_bit(stone))
            for d in range(6):
                self.beyond[d] = bb_or(self.beyond[d], self.line[stone][(d + 3) % 6])
        for d in range(6):
            s = self.shifts[d]
            ahead = self.beyond[d]
            x = bb_and(opp, ahead)
            if bb_any(x):
                total += self.captures(own, empty, x, d)
            if bb_any(lone):
                ray = bb_and(shift_forward(lone, s), empty)
                landing = bb_and(ray, twos)  # next to the origin: needs a second friend
                while bb_any(ray):
                    ray = bb_and(shift_forward(ray, s), empty)
                    landing = bb_or(landing, bb_and(ray, ones))
                landing = bb_and(landing, ahead)
                if bb_any(landing):
                    n = bb_count(landing)
                    self.add_entry(n, SLIDE_TO, d, landing)
                    total += n
        for g in range(self.ngroups):
            group = self.groups[g]
            size = self.group_size[g]
            stones = group
            while bb_any(stones):
                origin = bb_low(stones)
                low = bb_bit(origin)
                stones = bb_xor(stones, low)
                for d in range(6):
                    for k in range(self.raylen[origin][d]):
                        target = self.rays[origin][d][k]
                        if not bb_has(empty, target) or not bb_has(self.beyond[d], target):
                            break
                        if self.joins_larger(own, low, origin, target, group, size, lone):
                            self.add_pair(origin, target)
        return total + self.npairs

    cdef int captures(self, BB movers, BB empty, BB prey, int only) noexcept:
        """Count the slide-captures of ``movers`` onto ``prey`` (in direction ``only``, or all)."""
        cdef int total = 0
        cdef int d, s, n, first, last
        cdef BB ray, cells
        if not bb_any(movers) or not bb_any(prey):
            return 0
        if only < 0:
            first, last = 0, 6
        else:
            first, last = only, only + 1
        for d in range(first, last):
            # Walk back from the prey over empty cells; the first stone met is the capturer.
            s = self.shifts[d]
            ray = shift_back(prey, s)
            cells = bb_and(ray, movers)
            ray = bb_and(ray, empty)
            while bb_any(ray):
                ray = shift_back(ray, s)
                cells = bb_or(cells, bb_and(ray, movers))
                ray = bb_and(ray, empty)
            if bb_any(cells):
                n = bb_count(cells)
                self.add_entry(n, CAPTURE, d, cells)
                total += n
        return total

    cdef bint joins_larger(self, BB own, BB low, int origin, int target, BB group, int size,
                           BB lone) noexcept:
        """D(target) > G for the grouped stone ``low`` (see ``FastRules._joins_larger``)."""
        cdef BB friends = bb_andnot(bb_and(self.nbr[target], own), low)
        cdef BB outside = bb_andnot(friends, group)
        cdef BB touching, ring, first, kept
        cdef int joined, g
        if not bb_any(outside):
            return False
        joined = bb_count(bb_and(outside, lone))
        if bb_any(bb_andnot(outside, lone)):
            for g in range(self.ngroups):
                if bb_any(bb_and(self.groups[g], outside)):
                    joined += self.group_size[g]
        if joined >= size:
            return True
        touching = bb_and(friends, group)
        if not bb_any(touching):
            return False
        # The rest of the group stays whole when the stone hangs on by one neighbour, or by two
        # that touch each other; only otherwise count the part that touches.
        ring = bb_and(self.nbr[origin], group)
        first = bb_bit(bb_low(ring))
        ring = bb_xor(ring, first)
        if bb_count(ring) <= 1 and (not bb_any(ring)
                                    or bb_any(bb_and(self.nbr[bb_low(first)], ring))):
            return True
        kept = flood(touching, bb_andnot(group, low), self.width)
        return joined + bb_count(kept) >= size
