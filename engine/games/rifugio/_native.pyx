# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, infer_types=True, auto_pickle=False
"""Rifugio's playouts compiled: ``Rifugio.playout`` on ``state.Table``, rule for rule, in C.

An optional extension (see :mod:`engine.native`): without it the pure-Python path plays, which
stays the reference. Each ply lists the moves ``Table.legal`` lists, in its order, weighs them as
the playout policy ``Table.weights`` does, and draws one with the random numbers
``state.weighted_pick`` takes (``randrange`` of the weights' sum), so a seeded playout, and so a
bot's search, is the same either way (tests/engine/test_native.py).

The order of the lay moves is the one thing that is not plain arithmetic: ``Table`` keeps, per
tile signature, the places it fits as a dict, made the first time it is asked for by walking the
frontier, a Python set, and kept up to date as tiles are laid (new places at the end). So the core
asks exactly when the table would (``Table.legal``, ``_take``, ``_next_tile``), keeps the dicts as
arrays in insertion order, and walks the very same set: it keeps ``Table(state).frontier`` up to
date with the same discards and additions while some signature's places are still to be made.
Where ``_next_tile`` asks "does any remaining tile fit" it goes through a set of signatures, whose
order (CPython's, for those tuples) depends only on the order they first occur in, so it is read
from such a set once per order and kept. A reshuffle calls ``state.draw_order``, as the table does.
"""

import random as _random

cimport cython
from cpython.set cimport PySet_Add, PySet_Discard

from engine.games._draw cimport draw_below, twister_usable

from engine.games.rifugio import state as _state
from engine.games.rifugio import tiles as _tiles

cdef extern from *:
    int __builtin_popcount(unsigned int) nogil
    int __builtin_ctz(unsigned int) nogil

cdef enum:
    GRID = 128            # the landscape on a grid of (q, r), 0,0 in the middle
    OFFSET = 64
    CELLS = GRID * GRID
    MAXTILES = 64         # the tile ids, the start tile included
    MAXSIGS = 8           # tile signatures (7 in the edition)
    MAXPLACES = 1024      # places ever listed for one signature in one playout
    MAXSEATS = 5
    MAXHUTS = 32
    # phases, in the order of state.PHASES
    TAKE = 0
    SWAP = 1
    LAY = 2
    WALK = 3
    OVER = 4
    # what a tile is worth to a hiker
    PLAIN = 0
    BEAR = 1
    FEATURE = 2
    TOP = 3
    START = 4
    # moves
    M_TAKE = 0
    M_SWAP = 1
    M_LAY = 2
    M_STEP = 3
    M_BUILD = 4
    M_END = 5
    MAXMOVES = 16         # every list but the lay moves (counted, never listed)
    MAXLAYS = 6 * MAXPLACES
    BLIND = -1            # state.BLIND: take the top tile of the pile

VERBS = ("take", "swap", "lay", "step", "build", "end")

cdef object _Random = _random.Random
cdef bint _TWISTER = twister_usable(_Random)


cdef inline int cell(int q, int r) noexcept:
    return (q + OFFSET) * GRID + (r + OFFSET)


@cython.final  # direct calls, which the C compiler inlines
cdef class NativeRifugio:
    """Random playouts for any number of players, on the components of ``tiles.EDITION``."""

    # -- the components (tiles.py) -------------------------------------------------------------
    cdef int ntiles
    cdef int nsigs
    cdef int sig_of[MAXTILES]
    cdef int sig_tile[MAXSIGS]
    cdef signed char sides[MAXTILES][6][6]
    cdef int rotations[MAXTILES]      # ROTATIONS as bits
    # suits[sig][d][side + 1]: the rotations (as bits) in which a tile of ``sig`` may show its
    # side ``d`` to a neighbour showing ``side`` (-1: no neighbour, so any rotation)
    cdef int suits[MAXSIGS][6][9]
    cdef int exits[MAXTILES][6]       # OPEN[tile][rot] as bits
    cdef int kind[MAXTILES]           # PLAIN, BEAR, FEATURE, TOP or START
    cdef int points[MAXTILES]
    cdef bint is_pass[MAXTILES]
    # the playout policy's weights (state.py: Table.weights)
    cdef int near, take_weight, wanted_take, wanted_step, free_step, paid_step, hut_step
    cdef int build_weight, end_weight
    cdef int step[6]                  # a step in each direction, on the grid
    cdef int first_top, max_step_cards, free_steps, display_size
    cdef object sig_tuples            # each signature's tuple (its key in the table's dicts)
    cdef dict orders                  # first occurrences -> the signature set's order
    cdef object phases
    cdef object draw_order
    cdef object State

    # -- one playout's table ---------------------------------------------------------------------
    cdef int players, huts_each, per_turn
    cdef object seed
    cdef short tile_at[CELLS]         # -1: no tile
    cdef signed char rot_at[CELLS]
    cdef signed char hut_at[CELLS]    # the owner, -1: no hut
    cdef int pile[2 * MAXTILES]
    cdef int npile
    cdef int display[MAXTILES]
    cdef int ndisplay
    cdef int placed[MAXTILES]         # cells, in the order laid
    cdef int nplaced
    cdef int set_aside[MAXTILES]
    cdef int naside
    cdef int walker[MAXSEATS]
    cdef int huts[MAXHUTS]
    cdef int hut_owner[MAXHUTS]
    cdef int nhuts
    cdef int huts_of[MAXSEATS]
    cdef int step_cards[MAXSEATS]
    cdef int bears[MAXSEATS]
    cdef int hut_cards[MAXSEATS]
    cdef int card_tile[MAXSEATS][MAXTILES]
    cdef int card_points[MAXSEATS][MAXTILES]
    cdef int ncards[MAXSEATS]
    cdef bint has_card[MAXSEATS][MAXTILES]
    cdef bint top_taken[MAXTILES]     # someone holds its card with the first-visitor bonus
    cdef int turns, phase, hand, to_lay, free, reshuffles
    cdef bint bonus, built
    # Per signature, the places it fits (``Table._fits``): entries in insertion order, a place's
    # rotations as bits (0: removed), how many places and lay moves are live; ``slot`` finds a
    # place's entry (valid only where the entry names that place and is live).
    cdef bint made[MAXSIGS]
    cdef int unmade
    cdef int nentries[MAXSIGS]
    cdef int entry_cell[MAXSIGS][MAXPLACES]
    cdef int entry_turns[MAXSIGS][MAXPLACES]
    cdef int nlive[MAXSIGS]
    cdef int nlays[MAXSIGS]
    cdef short slot[MAXSIGS][CELLS]
    cdef object frontier              # the table's set, while some signature is still unmade
    cdef list keys                    # each cell's (q, r), made once: the set's keys
    # the moves of a ply but the lay moves
    cdef int move_verb[MAXMOVES]
    cdef int move_arg[MAXMOVES]
    cdef int nmoves
    cdef int weights[MAXLAYS]         # each move's weight, lay moves included

    def __init__(self):
        cdef int t, rot, d, a, b
        kinds, sides, sigs = _tiles.KINDS, _tiles.SIDES, _tiles.SIGNATURE
        edition = _tiles.EDITION
        if (len(kinds) > MAXTILES or len(_tiles.SIG_TILE) > MAXSIGS or _state.BLIND != BLIND
                or list(_state.PHASES) != ["take", "swap", "lay", "walk", "over"]):
            raise ValueError("this edition or table does not suit the native core")
        self.ntiles = len(kinds)
        order = list(_tiles.SIG_TILE)
        self.nsigs = len(order)
        self.sig_tuples = tuple(order)
        for a, sig in enumerate(order):
            self.sig_tile[a] = _tiles.SIG_TILE[sig]
        for t in range(self.ntiles):
            self.sig_of[t] = order.index(sigs[t])
            self.rotations[t] = sum(1 << rot for rot in _tiles.ROTATIONS[t])
            for rot in range(6):
                self.exits[t][rot] = sum(1 << d for d in range(6) if _tiles.OPEN[t][rot][d])
                for d in range(6):
                    self.sides[t][rot][d] = sides[t][rot][d]
            kind = kinds[t]
            self.kind[t] = (BEAR if kind.group == _tiles.BEAR else TOP if kind.group == _tiles.TOPS
                            else FEATURE if kind.is_feature else START
                            if kind.group == _tiles.START else PLAIN)
            if self.kind[t] == PLAIN and not _tiles.buildable(t):
                raise ValueError("a plain tile that takes no hut: the native core needs a look")
            self.points[t] = kind.points
            self.is_pass[t] = kind.is_pass
        for a in range(self.nsigs):
            t = self.sig_tile[a]
            for d in range(6):
                self.suits[a][d][0] = self.rotations[t]
                for b in range(8):
                    self.suits[a][d][b + 1] = sum(
                        1 << rot for rot in range(6)
                        if (self.rotations[t] >> rot) & 1 and _tiles.COMPAT[sides[t][rot][d]][b])
        for d, (dq, dr) in enumerate(_tiles.STEPS):
            self.step[d] = dq * GRID + dr
        self.first_top = edition.first_top
        self.max_step_cards = edition.max_step_cards
        self.free_steps = edition.free_steps
        self.display_size = edition.display_size
        self.orders = {}
        self.near = _state.NEAR
        self.take_weight, self.wanted_take = _state.TAKE_WEIGHT, _state.WANTED_TAKE
        self.wanted_step, self.free_step = _state.WANTED_STEP, _state.FREE_STEP
        self.paid_step, self.hut_step = _state.PAID_STEP, _state.HUT_STEP
        self.build_weight, self.end_weight = _state.BUILD_WEIGHT, _state.END_WEIGHT
        self.phases = _state.PHASES
        self.draw_order = _state.draw_order
        self.State = _state.State
        for t in range(CELLS):
            self.tile_at[t] = -1
            self.hut_at[t] = -1
        self.keys = [None] * CELLS
        self.nplaced = self.nhuts = 0

    # -- the table -----------------------------------------------------------------------------

    cdef int thaw(self, state) except -1:
        """The table of ``state`` (``Table(state)``), the previous playout's landscape cleared."""
        cdef int i, s, t, q, r, sig
        for i in range(self.nplaced):
            self.tile_at[self.placed[i]] = -1
        for i in range(self.nhuts):
            self.hut_at[self.huts[i]] = -1
        self.nplaced = self.nhuts = 0
        self.players = state.players
        if not 0 < self.players <= MAXSEATS:
            raise ValueError("too many players for the native core")
        self.huts_each = _tiles.huts_each(self.players)
        self.per_turn = _tiles.tiles_per_turn(self.players)
        self.seed = state.seed
        # every tile still to be laid may take the landscape one cell further out
        left = len(state.pile) + len(state.display) + (state.hand is not None) + 2
        if len(state.placed) + left > MAXTILES or any(
                max(abs(q), abs(r)) + left >= OFFSET for q, r, _, _ in state.placed):
            raise ValueError("the landscape is too large for the native core")
        for q, r, t, i in state.placed:
            self.tile_at[cell(q, r)] = t
            self.rot_at[cell(q, r)] = i
            self.placed[self.nplaced] = cell(q, r)
            self.nplaced += 1
        self.npile = len(state.pile)
        for i, t in enumerate(state.pile):
            self.pile[i] = t
        self.ndisplay = len(state.display)
        for i, t in enumerate(state.display):
            self.display[i] = t
        self.naside = len(state.set_aside)
        for i, t in enumerate(state.set_aside):
            self.set_aside[i] = t
        for s, (q, r) in enumerate(state.walkers):
            self.walker[s] = cell(q, r)
        for s in range(self.players):
            self.huts_of[s] = 0
            self.step_cards[s] = state.step_cards[s]
            self.bears[s] = state.bears[s]
            self.hut_cards[s] = state.hut_cards[s]
            self.ncards[s] = 0
            for t in range(self.ntiles):
                self.has_card[s][t] = False
        for t in range(self.ntiles):
            self.top_taken[t] = False
        for q, r, s in state.huts:
            self.huts[self.nhuts] = cell(q, r)
            self.hut_owner[self.nhuts] = s
            self.hut_at[cell(q, r)] = s
            self.huts_of[s] += 1
            self.nhuts += 1
        for s, cards in enumerate(state.features):
            for t, i in cards:
                self.add_card(s, t, i)
        self.turns = state.turns
        self.phase = self.phases.index(state.phase)
        self.hand = -1 if state.hand is None else state.hand
        self.to_lay = state.to_lay
        self.free = state.free
        self.bonus = state.bonus
        self.built = state.built
        self.reshuffles = state.reshuffles
        for sig in range(self.nsigs):
            self.made[sig] = False
            self.nentries[sig] = self.nlive[sig] = self.nlays[sig] = 0
        self.unmade = self.nsigs
        self.frontier = _state.Table(state).frontier
        return 0

    cdef object freeze(self):
        """``Table.freeze()``."""
        cdef int i, s, at
        seats = range(self.players)
        return self.State(
            players=self.players, seed=self.seed,
            pile=tuple([self.pile[i] for i in range(self.npile)]),
            display=tuple([self.display[i] for i in range(self.ndisplay)]),
            placed=tuple([(q_of(at), r_of(at), self.tile_at[at], self.rot_at[at])
                          for at in self.placed[:self.nplaced]]),
            set_aside=tuple([self.set_aside[i] for i in range(self.naside)]),
            walkers=tuple([(q_of(self.walker[s]), r_of(self.walker[s])) for s in seats]),
            huts=tuple([(q_of(self.huts[i]), r_of(self.huts[i]), self.hut_owner[i])
                        for i in range(self.nhuts)]),
            step_cards=tuple([self.step_cards[s] for s in seats]),
            features=tuple([tuple([(self.card_tile[s][i], self.card_points[s][i])
                                   for i in range(self.ncards[s])]) for s in seats]),
            bears=tuple([self.bears[s] for s in seats]),
            hut_cards=tuple([self.hut_cards[s] for s in seats]),
            turns=self.turns, phase=self.phases[self.phase],
            hand=None if self.hand < 0 else self.hand, to_lay=self.to_lay, free=self.free,
            bonus=bool(self.bonus), built=bool(self.built), reshuffles=self.reshuffles)

    cdef inline void add_card(self, int seat, int tile, int points) noexcept:
        cdef int n = self.ncards[seat]
        self.card_tile[seat][n] = tile
        self.card_points[seat][n] = points
        self.ncards[seat] = n + 1
        self.has_card[seat][tile] = True
        if points == self.first_top:
            self.top_taken[tile] = True

    # -- where tiles fit -------------------------------------------------------------------------

    cdef bint facing(self, int at, int* sides) noexcept:
        """What the neighbours of the free cell ``at`` show towards it, plus one (0: no tile),
        as ``Table.facing``; whether it touches a tile at all."""
        cdef int d, neighbour, other
        cdef bint touching = False
        for d in range(6):
            neighbour = at + self.step[d]
            other = self.tile_at[neighbour]
            if other < 0:
                sides[d] = 0
            else:
                sides[d] = self.sides[other][self.rot_at[neighbour]][(d + 3) % 6] + 1
                touching = True
        return touching

    cdef inline int fitting(self, int sig, int* sides) noexcept:
        """``turns_that_fit`` for a tile of ``sig`` where the neighbours show ``sides``."""
        return (self.suits[sig][0][sides[0]] & self.suits[sig][1][sides[1]]
                & self.suits[sig][2][sides[2]] & self.suits[sig][3][sides[3]]
                & self.suits[sig][4][sides[4]] & self.suits[sig][5][sides[5]])

    cdef int turns_at(self, int sig, int at) noexcept:
        """The rotations (as bits) in which a tile of ``sig`` fits on the free cell ``at``."""
        cdef int sides[6]
        return self.fitting(sig, sides) if self.facing(at, sides) else 0

    cdef int live_slot(self, int sig, int at) noexcept:
        cdef int k = self.slot[sig][at]
        if (0 <= k < self.nentries[sig] and self.entry_cell[sig][k] == at
                and self.entry_turns[sig][k]):
            return k
        return -1

    cdef int enter(self, int sig, int at, int turns) except -1:
        """``found[at] = turns`` (0: ``found.pop(at, None)``), as a dict keeps its order."""
        cdef int k = self.live_slot(sig, at)
        if k >= 0:
            self.nlays[sig] -= __builtin_popcount(self.entry_turns[sig][k])
            if not turns:
                self.nlive[sig] -= 1
            self.entry_turns[sig][k] = turns
            self.nlays[sig] += __builtin_popcount(turns)
            return 0
        if not turns:
            return 0
        k = self.nentries[sig]
        if k >= MAXPLACES:
            raise ValueError("too many places for the native core")
        self.nentries[sig] = k + 1
        self.entry_cell[sig][k] = at
        self.entry_turns[sig][k] = turns
        self.slot[sig][at] = k
        self.nlive[sig] += 1
        self.nlays[sig] += __builtin_popcount(turns)
        return 0

    cdef bint fits(self, int tile) except -1:
        """``Table.fits_somewhere(tile)``: its signature's places made first if need be."""
        cdef int sig = self.sig_of[tile]
        cdef int q, r
        if not self.made[sig]:
            for q, r in self.frontier:  # the table's own set, in its order
                self.enter(sig, cell(q, r), self.turns_at(sig, cell(q, r)))
            self.made[sig] = True
            self.unmade -= 1
            if not self.unmade:
                self.frontier = None  # never walked again
        return self.nlive[sig] > 0

    cdef bint any_fits(self) except -1:
        """``Table.any_fits(display + pile)``: the signatures in the order of their set."""
        cdef int i, t, sig, seen = 0, key = 0, shift = 0
        cdef bint unmade = False
        if not self.unmade:  # nothing left to make: no side effects, so any order will do
            for i in range(self.ndisplay + self.npile):
                t = self.display[i] if i < self.ndisplay else self.pile[i - self.ndisplay]
                if self.nlive[self.sig_of[t]]:
                    return True
            return False
        for i in range(self.ndisplay + self.npile):
            t = self.display[i] if i < self.ndisplay else self.pile[i - self.ndisplay]
            sig = self.sig_of[t]
            if not (seen >> sig) & 1:
                seen |= 1 << sig
                key |= (sig + 1) << shift
                shift += 3
                unmade = unmade or not self.made[sig]
        if not unmade:
            for sig in range(self.nsigs):
                if (seen >> sig) & 1 and self.nlive[sig]:
                    return True
            return False
        order = self.orders.get(key)
        if order is None:
            order = self.set_order(key)
        for sig in order:
            if self.fits(self.sig_tile[sig]):
                return True
        return False

    cdef object set_order(self, int key):
        """The order of ``{SIGNATURE[t] for t in tiles}`` for the signatures first met in the
        order ``key`` spells (3 bits each, low first, plus one)."""
        cdef int rest = key
        found = set()
        while rest:
            found.add(self.sig_tuples[(rest & 7) - 1])
            rest >>= 3
        order = tuple(self.sig_tuples.index(sig) for sig in found)
        self.orders[key] = order
        return order

    # -- the moves -------------------------------------------------------------------------------

    cdef int list_moves(self) except -1:
        """``Table.legal()`` but the lay moves (``nlays`` counts them): the rest in
        ``move_verb``/``move_arg``; returns how many moves there are in all."""
        cdef int i, seat, here, rot, tile, d, there
        cdef bint paid
        self.nmoves = 0
        if self.phase == TAKE or self.phase == SWAP:
            for i in range(self.ndisplay):
                if self.fits(self.display[i]):
                    self.add_move(M_TAKE if self.phase == TAKE else M_SWAP, i)
            if self.phase == TAKE and self.npile:
                self.add_move(M_TAKE, BLIND)
            return self.nmoves
        if self.phase == LAY:
            self.fits(self.hand)
            return self.nlays[self.sig_of[self.hand]]
        if self.phase != WALK:
            return 0
        seat = self.turns % self.players
        here = self.walker[seat]
        tile = self.tile_at[here]
        paid = self.free > 0 or self.step_cards[seat] > 0
        if paid or self.bonus:
            rot = self.rot_at[here]
            for d in range(6):
                if (self.exits[tile][rot] >> d) & 1:
                    there = here + self.step[d]
                    if (self.tile_at[there] >= 0 and
                            (self.exits[self.tile_at[there]][self.rot_at[there]] >> ((d + 3) % 6))
                            & 1):
                        self.add_move(M_STEP, d)
        if paid and self.can_build():
            self.add_move(M_BUILD, 0)
        self.add_move(M_END, 0)
        return self.nmoves

    cdef inline void add_move(self, int verb, int arg) noexcept:
        self.move_verb[self.nmoves] = verb
        self.move_arg[self.nmoves] = arg
        self.nmoves += 1

    # -- the playout policy (Table.weights) -----------------------------------------------------

    cdef inline bint wanted(self, int seat, int tile) noexcept:
        return (self.kind[tile] == FEATURE or self.kind[tile] == TOP) and not self.has_card[seat][tile]

    cdef int weigh(self) except -1:
        """``Table.weights(Table.legal())`` into ``weights``; their sum."""
        cdef int seat = self.turns % self.players
        cdef int sig, k, rot, turns, at, tile, owner, w, i, n = 0, total = 0
        if self.phase == LAY:
            sig = self.sig_of[self.hand]
            for k in range(self.nentries[sig]):
                turns = self.entry_turns[sig][k]
                for rot in range(6):
                    if (turns >> rot) & 1:
                        w = self.lay_weight(seat, self.entry_cell[sig][k], rot)
                        self.weights[n] = w
                        n += 1
                        total += w
            return total
        for i in range(self.nmoves):
            if self.move_verb[i] == M_TAKE or self.move_verb[i] == M_SWAP:
                w = (self.take_weight if self.move_arg[i] == BLIND
                     or not self.wanted(seat, self.display[self.move_arg[i]])
                     else self.wanted_take)
            elif self.move_verb[i] == M_STEP:
                at = self.walker[seat] + self.step[self.move_arg[i]]
                tile = self.tile_at[at]
                owner = self.hut_at[at]
                if self.kind[tile] == BEAR:
                    w = 0
                elif self.wanted(seat, tile):
                    w = self.wanted_step
                elif owner >= 0 and owner != seat:
                    w = self.hut_step
                elif self.bonus or self.free > 0:
                    w = self.free_step
                else:
                    w = self.paid_step
            elif self.move_verb[i] == M_BUILD:
                w = self.build_weight
            else:
                w = self.end_weight
            self.weights[i] = w
            total += w
        return total

    cdef int lay_weight(self, int seat, int at, int rot) noexcept:
        """``Table._lay_weight`` of the tile in hand."""
        cdef int tile = self.hand
        cdef int s, d, neighbour, other, weight
        cdef bint near_me = distance(at, self.walker[seat]) <= self.near
        cdef bint near_other = False
        for s in range(self.players):
            if s != seat and distance(at, self.walker[s]) <= self.near:
                near_other = True
                break
        if self.kind[tile] == BEAR:
            weight = 1 if near_me else 8 if near_other else 2
        elif self.wanted(seat, tile):
            weight = (4 if near_other else 8) if near_me else 1 if near_other else 2
        else:
            weight = 2
        if self.is_pass[tile]:
            for d in range(6):
                neighbour = at + self.step[d]
                other = self.tile_at[neighbour]
                if ((self.exits[tile][rot] >> d) & 1 and other >= 0
                        and (self.exits[other][self.rot_at[neighbour]] >> ((d + 3) % 6)) & 1):
                    return 2 * weight
        return weight

    cdef bint can_build(self) noexcept:
        cdef int seat = self.turns % self.players
        cdef int here = self.walker[seat]
        return (not self.built and self.kind[self.tile_at[here]] == PLAIN
                and self.hut_at[here] < 0 and self.huts_of[seat] < self.huts_each)

    cdef int play(self, int pick) except -1:
        """``Table.do`` of the ``pick``-th move of ``Table.legal()``."""
        cdef int sig, k, turns, rot
        if self.phase == LAY:
            sig = self.sig_of[self.hand]
            for k in range(self.nentries[sig]):
                turns = self.entry_turns[sig][k]
                if pick < __builtin_popcount(turns):
                    for _ in range(pick):
                        turns &= turns - 1
                    rot = __builtin_ctz(turns)
                    return self.lay(self.entry_cell[sig][k], rot)
                pick -= __builtin_popcount(turns)
            raise AssertionError("no such lay move")
        verb, arg = self.move_verb[pick], self.move_arg[pick]
        if verb == M_TAKE:
            return self.take(arg)
        if verb == M_SWAP:
            self.display[arg], self.hand = self.hand, self.display[arg]
            self.phase = LAY
        elif verb == M_STEP:
            self.walk(arg)
        elif verb == M_BUILD:
            self.build()
        else:
            self.end_turn()
        return 0

    cdef int take(self, int slot) except -1:
        cdef int i, tile
        if slot != BLIND:
            self.hand = self.display[slot]
            self.ndisplay -= 1
            for i in range(slot, self.ndisplay):
                self.display[i] = self.display[i + 1]
            self.phase = LAY
            return 0
        tile = self.pop_pile()
        if self.fits(tile):
            self.phase = LAY
        elif self.display_fits():
            self.phase = SWAP
        else:
            # Nothing open fits either: back into the pile, shuffle, draw again.
            while not self.fits(tile):
                self.pile[self.npile] = tile
                self.npile += 1
                self.reshuffles += 1
                pile = self.draw_order(self.seed, self.reshuffles,
                                       [self.pile[i] for i in range(self.npile)])
                for i, t in enumerate(pile):
                    self.pile[i] = t
                tile = self.pop_pile()
            self.phase = LAY
        self.hand = tile
        return 0

    cdef bint display_fits(self) except -1:
        """``any(self.fits_somewhere(t) for t in self.display)``: in order, stopping early."""
        cdef int i
        for i in range(self.ndisplay):
            if self.fits(self.display[i]):
                return True
        return False

    cdef inline int pop_pile(self) noexcept:
        cdef int i, top = self.pile[0]
        self.npile -= 1
        for i in range(self.npile):
            self.pile[i] = self.pile[i + 1]
        return top

    cdef int lay(self, int at, int rot) except -1:
        cdef int d, sig, k, p, naround = 0
        cdef int around[6]
        cdef int sides[6]
        self.tile_at[at] = self.hand
        self.rot_at[at] = rot
        self.placed[self.nplaced] = at
        self.nplaced += 1
        for d in range(6):
            p = at + self.step[d]
            if self.tile_at[p] < 0:
                around[naround] = p
                naround += 1
        if self.frontier is not None:  # the table's set, for the signatures still unmade
            PySet_Discard(self.frontier, self.key(at))
            for k in range(naround):
                PySet_Add(self.frontier, self.key(around[k]))
        for sig in range(self.nsigs):
            if self.made[sig]:
                self.enter(sig, at, 0)
        for k in range(naround):
            self.facing(around[k], sides)  # next to the new tile
            for sig in range(self.nsigs):
                if self.made[sig]:
                    self.enter(sig, around[k], self.fitting(sig, sides))
        self.hand = -1
        self.to_lay -= 1
        return self.next_tile()

    cdef inline object key(self, int at):
        """``(q, r)`` of cell ``at``, made once."""
        found = self.keys[at]
        if found is None:
            found = self.keys[at] = (q_of(at), r_of(at))
        return found

    cdef int next_tile(self) except -1:
        """Refill the display and ask for the next tile, or go walking (``Table._next_tile``)."""
        cdef int i
        if self.ndisplay + self.npile and not self.any_fits():
            remaining = sorted([self.display[i] for i in range(self.ndisplay)]
                               + [self.pile[i] for i in range(self.npile)])
            for t in remaining:
                self.set_aside[self.naside] = t
                self.naside += 1
            self.ndisplay = self.npile = 0
        if self.to_lay > 0 and (self.ndisplay or self.npile):
            while self.ndisplay < self.display_size and self.npile:
                self.display[self.ndisplay] = self.pop_pile()
                self.ndisplay += 1
            self.phase = TAKE
        else:
            self.to_lay = 0
            self.phase = WALK
        return 0

    cdef inline void pay(self) noexcept:
        """A step or a build costs the immediate bonus step, else a free step, else a card."""
        if self.bonus:
            self.bonus = False
        elif self.free > 0:
            self.free -= 1
        else:
            self.step_cards[self.turns % self.players] -= 1

    cdef void walk(self, int d) noexcept:
        cdef int seat = self.turns % self.players
        cdef int at, tile, points, owner
        self.pay()
        at = self.walker[seat] + self.step[d]
        self.walker[seat] = at
        tile = self.tile_at[at]
        if self.kind[tile] == BEAR:
            self.bears[seat] += 1
        elif (self.kind[tile] == FEATURE or self.kind[tile] == TOP) and not self.has_card[seat][tile]:
            points = self.points[tile]
            if self.kind[tile] == TOP and not self.top_taken[tile]:
                points = self.first_top
            self.add_card(seat, tile, points)
        owner = self.hut_at[at]
        if owner >= 0 and owner != seat:
            self.hut_cards[owner] += 1
            if self.step_cards[seat] < self.max_step_cards:
                self.step_cards[seat] += 1
            else:
                self.bonus = True

    cdef void build(self) noexcept:
        cdef int seat = self.turns % self.players
        cdef int at = self.walker[seat]
        self.bonus = False  # never pending here: the walker would stand on a hut
        self.pay()
        self.huts[self.nhuts] = at
        self.hut_owner[self.nhuts] = seat
        self.nhuts += 1
        self.hut_at[at] = seat
        self.huts_of[seat] += 1
        self.built = True

    cdef int end_turn(self) except -1:
        self.bonus = False
        self.turns += 1
        self.free = self.free_steps
        self.built = False
        if not self.ndisplay and not self.npile:
            self.phase = OVER
            return 0
        self.to_lay = self.per_turn
        return self.next_tile()

    cdef list listed(self):
        """The moves of this ply as ``Table.legal()`` writes them."""
        cdef int sig, k, rot, turns
        if self.phase == LAY:
            sig = self.sig_of[self.hand]
            out = []
            for k in range(self.nentries[sig]):
                turns = self.entry_turns[sig][k]
                for rot in range(6):
                    if (turns >> rot) & 1:
                        out.append(("lay", q_of(self.entry_cell[sig][k]),
                                    r_of(self.entry_cell[sig][k]), rot))
            return out
        return [(VERBS[self.move_verb[k]], self.move_arg[k], 0, 0) for k in range(self.nmoves)]

    # -- the playout -----------------------------------------------------------------------------

    def playout(self, state, rng, int max_plies, game, list trace=None):
        """``Rifugio.playout(state, rng, max_plies)`` (``game`` names itself in the error);
        ``trace`` gets, for every ply, the moves ``Table.legal()`` lists and the pick."""
        cdef int total, pick
        cdef long long r
        cdef bint exact = type(rng) is _Random
        cdef bint twister = exact and _TWISTER
        self.thaw(state)
        for _ in range(max_plies):
            if self.phase == OVER:
                return self.freeze()
            self.list_moves()
            total = self.weigh()
            if total <= 0:
                rng.randrange(total)  # the ValueError the pure path raises
            r = draw_below(rng, total, exact, twister)
            pick = 0
            while r >= self.weights[pick]:  # state.weighted_pick
                r -= self.weights[pick]
                pick += 1
            if trace is not None:
                trace.append((self.listed(), pick))
            self.play(pick)
        raise RuntimeError(f"{game!r}: no end after {max_plies} plies")


cdef inline int distance(int a, int b) noexcept:
    """``state.distance`` between two cells."""
    cdef int dq = a // GRID - b // GRID
    cdef int dr = a % GRID - b % GRID
    return (abs(dq) + abs(dr) + abs(dq - dr)) // 2


cdef inline int q_of(int at) noexcept:
    return at // GRID - OFFSET


cdef inline int r_of(int at) noexcept:
    return at % GRID - OFFSET
