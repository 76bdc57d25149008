# cython: language_level=3
"""``random.Random.randrange(n)`` for the native cores, number for number, without a Python call.

``randrange(n)`` draws ``getrandbits(k)`` (k the bit length of n) until it is below n, and for
k <= 32 ``getrandbits`` is the Mersenne Twister's next 32-bit word shifted right by 32 - k.
:func:`twister_usable` checks, once, that this interpreter's ``random.Random`` holds the
twister's state where CPython's ``_randommodule.c`` puts it (reading it against ``getstate()``,
then drawing side by side); where it does not, or for another generator, the cores call
``getrandbits`` (or ``randrange``) as before.
"""

from libc.stdint cimport uint32_t

cdef extern from *:
    """
    #include <stdint.h>
    typedef struct {
        PyObject_HEAD
        int index;
        uint32_t state[624];
    } PbemTwister;

    /* genrand_uint32 of CPython's Modules/_randommodule.c */
    static inline uint32_t pbem_twister_next(PyObject *object) {
        PbemTwister *self = (PbemTwister *)object;
        static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
        uint32_t y, *mt = self->state;
        if (self->index >= 624) {
            int kk;
            for (kk = 0; kk < 624 - 397; kk++) {
                y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
                mt[kk] = mt[kk + 397] ^ (y >> 1) ^ mag01[y & 0x1U];
            }
            for (; kk < 623; kk++) {
                y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
                mt[kk] = mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 0x1U];
            }
            y = (mt[623] & 0x80000000U) | (mt[0] & 0x7fffffffU);
            mt[623] = mt[396] ^ (y >> 1) ^ mag01[y & 0x1U];
            self->index = 0;
        }
        y = mt[self->index++];
        y ^= (y >> 11);
        y ^= (y << 7) & 0x9d2c5680U;
        y ^= (y << 15) & 0xefc60000U;
        y ^= (y >> 18);
        return y;
    }
    static inline int pbem_twister_index(PyObject *object) {
        return ((PbemTwister *)object)->index;
    }
    static inline uint32_t pbem_twister_word(PyObject *object, int i) {
        return ((PbemTwister *)object)->state[i];
    }
    static inline Py_ssize_t pbem_twister_size(void) { return sizeof(PbemTwister); }
    """
    uint32_t pbem_twister_next(object)
    int pbem_twister_index(object)
    uint32_t pbem_twister_word(object, int)
    Py_ssize_t pbem_twister_size()

cdef extern from *:
    int __builtin_clzll(unsigned long long) nogil


cdef inline long long twister_below(object rng, long long n) noexcept:
    """``rng.randrange(n)`` for 1 <= n < 2**32, on a ``random.Random`` checked usable."""
    cdef int shift = __builtin_clzll(<unsigned long long>n) - 32  # 32 - bit length
    cdef long long r = pbem_twister_next(rng) >> shift
    while r >= n:
        r = pbem_twister_next(rng) >> shift
    return r


cdef inline long long draw_below(object rng, long long total, bint exact,
                                 bint twister) except? -1:
    """``rng.randrange(total)``, number for number, for a core's random pick among ``total``
    moves: read off the twister where ``twister`` (``exact`` and :func:`twister_usable`), by
    ``getrandbits`` as ``random.Random`` does where ``exact`` (the generator is exactly
    ``random.Random``), else by the generator's own ``randrange``."""
    cdef int nbits
    cdef long long r
    if twister:
        return twister_below(rng, total)
    if exact:  # random.Random._randbelow_with_getrandbits
        nbits = 64 - __builtin_clzll(<unsigned long long>total)
        r = rng.getrandbits(nbits)
        while r >= total:
            r = rng.getrandbits(nbits)
        return r
    return rng.randrange(total)


cdef inline bint twister_usable(object random_class):
    """Whether this interpreter's ``random.Random`` keeps the twister where we read it."""
    import sys

    if sys.implementation.name != "cpython" or random_class.__basicsize__ < pbem_twister_size():
        return False
    probe, twin = random_class(20261127), random_class(20261127)
    for turn in range(3):
        state = probe.getstate()[1]  # the 624 words, then the index
        if pbem_twister_index(probe) != state[624]:
            return False
        for i in range(624):
            if pbem_twister_word(probe, i) != state[i]:
                return False
        for i in range(700):  # past a regeneration of the state
            n = 1 + (i * 7919 + turn) % 100_000
            if twister_below(probe, n) != twin.randrange(n):
                return False
    return True
