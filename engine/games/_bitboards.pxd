# cython: language_level=3
"""Fixed-width bitboards for the native playout cores: three 64-bit words (192 bits), enough for
every board the games offer (Mosey order 6 needs 131 padded bits, Refugia 6-8 181). Inline C
functions, compiled into each core that cimports them; bits shifted past the top fall off, and
none of them is a cell."""

from cpython.long cimport PyLong_AsUnsignedLongLongMask, PyLong_FromUnsignedLongLong
from libc.stdint cimport uint64_t

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil

cdef enum:
    NW = 3            # words per bitboard
    MAXBITS = 192     # NW * 64

ctypedef struct BB:
    uint64_t w[NW]

cdef inline BB bb_zero() noexcept nogil:
    cdef BB r
    r.w[0] = 0
    r.w[1] = 0
    r.w[2] = 0
    return r

cdef inline BB bb_and(BB a, BB b) noexcept nogil:
    a.w[0] &= b.w[0]
    a.w[1] &= b.w[1]
    a.w[2] &= b.w[2]
    return a

cdef inline BB bb_or(BB a, BB b) noexcept nogil:
    a.w[0] |= b.w[0]
    a.w[1] |= b.w[1]
    a.w[2] |= b.w[2]
    return a

cdef inline BB bb_xor(BB a, BB b) noexcept nogil:
    a.w[0] ^= b.w[0]
    a.w[1] ^= b.w[1]
    a.w[2] ^= b.w[2]
    return a

cdef inline BB bb_andnot(BB a, BB b) noexcept nogil:
    """a & ~b"""
    a.w[0] &= ~b.w[0]
    a.w[1] &= ~b.w[1]
    a.w[2] &= ~b.w[2]
    return a

cdef inline bint bb_any(BB a) noexcept nogil:
    return (a.w[0] | a.w[1] | a.w[2]) != 0

cdef inline bint bb_eq(BB a, BB b) noexcept nogil:
    return a.w[0] == b.w[0] and a.w[1] == b.w[1] and a.w[2] == b.w[2]

cdef inline int bb_count(BB a) noexcept nogil:
    return (__builtin_popcountll(a.w[0]) + __builtin_popcountll(a.w[1])
            + __builtin_popcountll(a.w[2]))

cdef inline int bb_low(BB a) noexcept nogil:
    """The lowest set bit (the bitboard is not empty)."""
    if a.w[0]:
        return __builtin_ctzll(a.w[0])
    if a.w[1]:
        return 64 + __builtin_ctzll(a.w[1])
    return 128 + __builtin_ctzll(a.w[2])

cdef inline BB bb_bit(int i) noexcept nogil:
    cdef BB r = bb_zero()
    r.w[i >> 6] = (<uint64_t>1) << (i & 63)
    return r

cdef inline bint bb_has(BB a, int i) noexcept nogil:
    return (a.w[i >> 6] >> (i & 63)) & 1

cdef inline BB bb_shl(BB a, int s) noexcept nogil:
    """a << s for 0 < s < 64 (bits past the top fall off: none is a cell)."""
    cdef BB r
    r.w[2] = (a.w[2] << s) | (a.w[1] >> (64 - s))
    r.w[1] = (a.w[1] << s) | (a.w[0] >> (64 - s))
    r.w[0] = a.w[0] << s
    return r

cdef inline BB bb_shr(BB a, int s) noexcept nogil:
    """a >> s for 0 < s < 64."""
    cdef BB r
    r.w[0] = (a.w[0] >> s) | (a.w[1] << (64 - s))
    r.w[1] = (a.w[1] >> s) | (a.w[2] << (64 - s))
    r.w[2] = a.w[2] >> s
    return r

cdef inline BB shift_back(BB a, int s) noexcept nogil:
    """Cells whose neighbour one step of ``s`` along is in ``a``."""
    return bb_shr(a, s) if s > 0 else bb_shl(a, -s)

cdef inline BB shift_forward(BB a, int s) noexcept nogil:
    return bb_shl(a, s) if s > 0 else bb_shr(a, -s)

cdef inline BB around(BB x, int w) noexcept nogil:
    """Cells next to any of ``x``, with stray bits off the board (mask them before use)."""
    return bb_or(bb_or(bb_or(bb_shl(x, 1), bb_shr(x, 1)), bb_or(bb_shl(x, w), bb_shr(x, w))),
                 bb_or(bb_shl(x, w + 1), bb_shr(x, w + 1)))

cdef inline BB flood(BB seed, BB stones, int w) noexcept nogil:
    """The stones connected to ``seed``."""
    cdef BB found = seed
    cdef BB grown
    while True:
        grown = bb_and(bb_or(found, around(found, w)), stones)
        if bb_eq(grown, found):
            return found
        found = grown

cdef inline BB from_int(object x):
    """A Python int (non-negative, below 2**192) as a bitboard."""
    cdef BB r
    r.w[0] = PyLong_AsUnsignedLongLongMask(x)
    if x <= 0xFFFFFFFFFFFFFFFF:  # most boards fit one word: no big-int arithmetic
        r.w[1] = 0
        r.w[2] = 0
    else:
        r.w[1] = PyLong_AsUnsignedLongLongMask(x >> 64)
        r.w[2] = PyLong_AsUnsignedLongLongMask(x >> 128)
    return r

cdef inline object to_int(BB a):
    if a.w[1] == 0 and a.w[2] == 0:
        return PyLong_FromUnsignedLongLong(a.w[0])
    return ((PyLong_FromUnsignedLongLong(a.w[2]) << 128)
            | (PyLong_FromUnsignedLongLong(a.w[1]) << 64) | PyLong_FromUnsignedLongLong(a.w[0]))
