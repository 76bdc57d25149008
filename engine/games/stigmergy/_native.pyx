# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, infer_types=True, auto_pickle=False
"""Stigmergy's random playouts compiled: ``state.playout`` after the komi, line for line, in C.

An optional extension (see :mod:`engine.native`): without it the pure-Python path plays, which
stays the reference. As there, every cell keeps how many Black and White stones it sees and who
controls it, updated along the six rays of each new stone, and the legal board moves of each
colour are a set of ranks in notation order ("D1x" after "D19"), so the k-th move drawn is the
k-th of the list ``Game.legal_moves`` gives, the word (``pass``, ``take-button``,
``play-second``) last. The draw takes the random numbers ``random.Random.randrange(total)``
takes, so a seeded playout, and so a bot's search, is the same either way
(tests/engine/test_native.py).

Beyond the pure path: a cell's two counts and its majority are packed in one number whose
controller a table gives, and the occupied cells of every line are bits, so a ray's first stone
is found without walking to it. The rank sets are words of 64 bits (the largest board has 542
ranks, beyond the shared 192-bit bitboards).
"""

import random as _random

cimport cython
from libc.stdint cimport uint64_t

from engine.games._draw cimport draw_below, twister_usable

cdef extern from *:
    int __builtin_ctz(unsigned int) nogil
    int __builtin_clz(unsigned int) nogil
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil

cdef enum:
    MAXCELLS = 271        # the hexhex board of side 10
    RANKWORDS = 9         # 2 * MAXCELLS ranks (each cell placed or replaced), 64 a word
    MAXRAYCELLS = 12288   # every cell's six rays together (11214 on side 10)
    MAXLINES = 57         # 19 lines in each of the three directions, each of 19 cells or fewer
    EMPTY = 0
    BLACK = 1
    WHITE = 2
    NO_WORD = 0
    PASS = 1
    TAKE_BUTTON = 2
    PLAY_SECOND = 3
    # A cell's sight code: need << 6 | Black stones seen << 3 | White stones seen (each <= 6).
    SEES_BLACK = 8
    SEES_WHITE = 1
    CODES = 512

WORDS = (None, "pass", "take-button", "play-second")
"""The word move of each code above, as the rules write it."""

ctypedef struct Cell:
    int content       # EMPTY, BLACK or WHITE
    int rank[3]       # the rank Black (1) and White (2) may play here, -1: none
    int place_rank    # its ranks in notation order: placing here, replacing here
    int replace_rank
    bint free         # empty and uncontrolled

cdef object _Random = _random.Random
cdef bint _TWISTER = twister_usable(_Random)

cdef char CONTROLLER[CODES]
"""The controller of a sight code: BLACK or WHITE when at least ``need`` of the stones the cell
sees are theirs (``need`` is a majority of its neighbours, so both cannot), else EMPTY."""

cdef int _code
for _code in range(CODES):
    CONTROLLER[_code] = (BLACK if (_code >> 3) & 7 >= _code >> 6
                         else WHITE if _code & 7 >= _code >> 6 else EMPTY)

cdef int SEES[3]
SEES[EMPTY], SEES[BLACK], SEES[WHITE] = 0, SEES_BLACK, SEES_WHITE


@cython.final  # direct calls, which the C compiler inlines
cdef class NativeStigmergy:
    """Random playouts on the hexhex board of one side, from the tables of its ``Sight``."""

    cdef int n
    cdef int ray_start[MAXCELLS][6]
    cdef int ray_len[MAXCELLS][6]
    cdef short ray_cells[MAXRAYCELLS]
    cdef short rank_cell[2 * MAXCELLS]
    cdef bint rank_replace[2 * MAXCELLS]
    cdef int need[MAXCELLS]
    # Each cell's line along E-W, NE-SW and NW-SE, and its place on it counted from the W, SW or
    # SE end: the occupied cells of every line as bits find a ray's first stone at once.
    cdef int line_of[MAXCELLS][3]
    cdef int pos_of[MAXCELLS][3]
    # The position of one playout: the lines' stones, every cell's sight code and controller
    # (kept apart from the rest, as every stone updates dozens of them), the cells, the legal
    # ranks of each colour (indexed by BLACK and WHITE) and how many, and how many cells are
    # free (while one is, nobody may pass).
    cdef unsigned int lines[MAXLINES]
    cdef short sight[MAXCELLS]
    cdef char ctrl[MAXCELLS]
    cdef Cell cells[MAXCELLS]
    cdef uint64_t legal[3][RANKWORDS]
    cdef int nlegal[3]
    cdef int nfree
    cdef char out[MAXCELLS]

    def __init__(self, need, rays, order):
        """From ``Sight``'s ``need`` and ``rays`` per cell and its ``order`` of the moves."""
        cdef int c, d, k, at = 0
        if len(need) > MAXCELLS or len(order) != 2 * len(need):
            raise ValueError("the board is too large for the native core")
        self.n = len(need)
        for c in range(self.n):
            self.need[c] = need[c]
            for d in range(6):
                line = rays[c][d]
                if at + len(line) > MAXRAYCELLS:
                    raise ValueError("the board is too large for the native core")
                self.ray_start[c][d] = at
                self.ray_len[c][d] = len(line)
                for k in line:
                    self.ray_cells[at] = k
                    at += 1
        ends: dict = {}
        for c in range(self.n):
            for d in range(3):
                back = rays[c][d + 3]
                self.line_of[c][d] = ends.setdefault((d, back[len(back) - 1] if back else c),
                                                     len(ends))
                self.pos_of[c][d] = len(back)
                if len(ends) > MAXLINES or len(back) + 1 + len(rays[c][d]) > 32:
                    raise ValueError("the board is too large for the native core")
        for k, (_, c, replace) in enumerate(order):
            self.rank_cell[k] = c
            self.rank_replace[k] = replace
            if replace:
                self.cells[c].replace_rank = k
            else:
                self.cells[c].place_rank = k

    # -- the position ----------------------------------------------------------------------------

    cdef int setup(self, str board) except -1:
        """Contents from ``board`` (``.BW``), then every count, controller and legal set."""
        cdef int c, d, i
        cdef int ahead[2]
        cdef int behind[2]
        cdef Cell* p
        cdef Py_UCS4 ch
        if len(board) != self.n:
            raise ValueError(f"a board of {len(board)} cells, not {self.n}")
        for i in range(MAXLINES):
            self.lines[i] = 0
        c = 0
        for ch in board:
            self.cells[c].content = EMPTY if ch == u"." else BLACK if ch == u"B" else WHITE
            if ch != u".":
                self.occupy(c)
            c += 1
        for c in range(3):
            self.nlegal[c] = 0
            for i in range(RANKWORDS):
                self.legal[c][i] = 0
        self.nfree = 0
        for c in range(self.n):
            self.sight[c] = self.need[c] << 6
            for d in range(3):
                self.line(c, d, ahead, behind)
                self.sight[c] += SEES[ahead[0]] + SEES[behind[0]]
            p = &self.cells[c]
            p.rank[BLACK] = p.rank[WHITE] = -1
            p.free = False
            self.touch(c, CONTROLLER[self.sight[c]])
        return 0

    cdef inline void occupy(self, int c) noexcept:
        cdef int d
        for d in range(3):
            self.lines[self.line_of[c][d]] |= 1u << self.pos_of[c][d]

    cdef inline void line(self, int c, int f, int* ahead, int* behind) noexcept:
        """The first stones from ``c`` both ways along line ``f`` (E-W, NE-SW or NW-SE):
        ``ahead[0]`` and ``behind[0]`` their contents (EMPTY: none), ``ahead[1]`` and
        ``behind[1]`` the cells of the ray up to each, itself included (all when none)."""
        cdef unsigned int stones = self.lines[self.line_of[c][f]]
        cdef int at = self.pos_of[c][f]
        cdef unsigned int beyond = stones >> (at + 1)  # E, NE, NW: the higher places
        if beyond:
            ahead[1] = __builtin_ctz(beyond) + 1
            ahead[0] = self.cells[self.ray_cells[self.ray_start[c][f] + ahead[1] - 1]].content
        else:
            ahead[1] = self.ray_len[c][f]
            ahead[0] = EMPTY
        beyond = stones & ((1u << at) - 1)
        if beyond:
            behind[1] = at - (31 - __builtin_clz(beyond))
            behind[0] = self.cells[self.ray_cells[self.ray_start[c][f + 3] + behind[1] - 1]].content
        else:
            behind[1] = self.ray_len[c][f + 3]
            behind[0] = EMPTY

    cdef inline void mark(self, int colour, Cell* p, int rank) noexcept:
        """The rank ``colour`` may play on ``p`` is now ``rank`` (-1: none)."""
        cdef int old = p.rank[colour]
        if old == rank:
            return
        if old >= 0:
            self.legal[colour][old >> 6] ^= (<uint64_t>1) << (old & 63)
            self.nlegal[colour] -= 1
        if rank >= 0:
            self.legal[colour][rank >> 6] ^= (<uint64_t>1) << (rank & 63)
            self.nlegal[colour] += 1
        p.rank[colour] = rank

    cdef inline void touch(self, int c, int k) noexcept:
        """Cell ``c`` now has controller ``k`` (or new contents): its ranks and freedom."""
        cdef Cell* p = &self.cells[c]
        cdef int black = -1, white = -1
        cdef bint free = False
        self.ctrl[c] = k
        if p.content == EMPTY:
            if k != WHITE:
                black = p.place_rank
            if k != BLACK:
                white = p.place_rank
            free = k == EMPTY
        elif p.content == BLACK:
            if k == WHITE:
                white = p.replace_rank
        elif k == BLACK:
            black = p.replace_rank
        self.mark(BLACK, p, black)
        self.mark(WHITE, p, white)
        if p.free != free:
            p.free = free
            self.nfree += 1 if free else -1

    cdef inline void saw(self, int start, int length, int change) noexcept:
        """The cells ``ray_cells[start:start + length]`` see a stone of another colour: their
        sight codes change by ``change``, and their controllers with them."""
        cdef int i, c, k
        for i in range(start, start + length):
            c = self.ray_cells[i]
            self.sight[c] += change
            k = CONTROLLER[self.sight[c]]
            if k != self.ctrl[c]:
                self.touch(c, k)

    cdef void put(self, int s, int colour, bint replace) noexcept:
        """A stone of ``colour`` on ``s`` (replacing the enemy's): every line of sight through
        ``s`` updated."""
        cdef int other = WHITE if colour == BLACK else BLACK
        cdef int f
        cdef int ahead[2]
        cdef int behind[2]
        for f in range(3):
            self.line(s, f, ahead, behind)
            if replace:
                # Everything that saw the enemy stone on s now sees one of ours there.
                self.saw(self.ray_start[s][f], ahead[1], SEES[colour] - SEES[other])
                self.saw(self.ray_start[s][f + 3], behind[1], SEES[colour] - SEES[other])
                continue
            # The cells up to the first stone on each ray from s saw, through s, the first
            # stone on the opposite ray; now they see the new stone instead.
            if behind[0] != colour:
                self.saw(self.ray_start[s][f], ahead[1], SEES[colour] - SEES[behind[0]])
            if ahead[0] != colour:
                self.saw(self.ray_start[s][f + 3], behind[1], SEES[colour] - SEES[ahead[0]])
        if not replace:
            self.occupy(s)
        self.cells[s].content = colour
        self.touch(s, self.ctrl[s])

    cdef int nth_rank(self, int colour, int pick) noexcept:
        """The ``pick``-th (from 0) legal rank of ``colour``."""
        cdef int i = 0, count, base
        cdef uint64_t w
        while True:
            w = self.legal[colour][i]
            count = __builtin_popcountll(w)
            if pick < count:
                break
            pick -= count
            i += 1
        base = i * 64
        count = __builtin_popcountll(w & 0xFFFFFFFFULL)
        if pick >= count:
            pick -= count
            w >>= 32
            base += 32
        count = __builtin_popcountll(w & 0xFFFFULL)
        if pick >= count:
            pick -= count
            w >>= 16
            base += 16
        for _ in range(pick):
            w &= w - 1
        return base + __builtin_ctzll(w)

    cdef list ranks(self, int colour):
        cdef int i
        return [i for i in range(2 * self.n)
                if (self.legal[colour][i >> 6] >> (i & 63)) & 1]

    # -- what the rules and the playouts ask -----------------------------------------------------

    def moves(self, str board, int colour):
        """(the ranks in ``Sight.order`` that ``colour`` may play on ``board``, whether some
        empty cell is uncontrolled), worked out from the board alone."""
        self.setup(board)
        return self.ranks(colour), self.nfree > 0

    def playout(self, str board, bint with_button, int black_seat, int mover, int button,
                int passes, int ply, int plies, int max_plies, rng, list trace=None):
        """``state.playout``'s loop from its arrays' setup on (a seat of -1 is None): the final
        (board, black_seat, mover, button, passes, ply). ``trace`` gets, for every ply, the
        legal ranks, the word (or None) and the pick."""
        cdef int colour, count, word, total, rank
        cdef long long r
        cdef bint exact = type(rng) is _Random
        cdef bint twister = exact and _TWISTER
        self.setup(board)
        while True:
            if plies >= max_plies:
                raise RuntimeError(f"stigmergy: no end after {max_plies} plies")
            colour = BLACK if black_seat < 0 or mover == black_seat else WHITE
            count = self.nlegal[colour]
            if black_seat < 0:
                word = PLAY_SECOND
            elif with_button and button < 0:
                word = TAKE_BUTTON
            else:
                word = PASS if self.nfree == 0 else NO_WORD
            total = count + (word != NO_WORD)
            r = draw_below(rng, total, exact, twister)
            if trace is not None:
                trace.append((self.ranks(colour), WORDS[word], r))
            plies += 1
            ply += 1
            if r >= count:
                if word == PASS:
                    passes += 1
                    if passes == 2:
                        break
                elif word == TAKE_BUTTON:
                    button = mover
                    passes = 0
                else:
                    black_seat = 1 - mover
                mover = 1 - mover
                continue
            passes = 0
            rank = self.nth_rank(colour, <int>r)
            if black_seat < 0:
                black_seat = mover
            self.put(self.rank_cell[rank], colour, self.rank_replace[rank])
            mover = 1 - mover
        for rank in range(self.n):
            self.out[rank] = b".BW"[self.cells[rank].content]
        return (self.out[:self.n].decode("ascii"), black_seat, 1 - mover, button, passes, ply)
