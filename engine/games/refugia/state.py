"""A Refugia position and the bitboard arithmetic of a turn, shared by listing and playouts.

Kept apart from :mod:`engine.games.refugia.rules` (the game) and
:mod:`engine.games.refugia.drawing` (its pictures and words), which both read positions.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.hexboard import shift_back

CELL_CHARS = ".WBN"  # empty, White, Black, neutral: encode and render_text use these


@dataclass(frozen=True)
class RefugiaState:
    """A position. ``discs`` holds each seat's discs and ``neutral`` the neutral stones, as
    bitboards (see :class:`engine.hexboard.BitLayout`); ``passes`` counts the passes just made in
    a row (two end the game) and ``turn`` is the seat to move (after the end, the seat that did
    not make the final pass)."""

    discs: tuple[int, int]
    neutral: int
    turn: int = 0
    passes: int = 0


Groups = list[tuple[int, int, int, int]]
"""Moves of one kind in one direction: (how many, origin mask, shift to the landing cell, shift to
the jumped cell or 0 for a step)."""


def move_groups(width: int, full: int, own: int, opp: int, neutral: int) -> tuple[int, Groups]:
    """The mover's placement cells and move groups; the rules of a turn live here alone.

    Enemy counts are taken for every cell at once as 3-bit numbers in bit planes (c2 c1 c0), on
    the board before the move: the jumped stone still counts around the landing cell. This is the
    inner loop of every playout, hence the bit tricks.
    """
    ne = width + 1
    enemy = opp | neutral
    empty = full & ~(own | enemy)
    # bit b of e_d: b's neighbour in direction d holds an enemy
    e_e, e_ne, e_nw = enemy >> 1, enemy >> ne, enemy >> width
    e_w, e_sw, e_se = enemy << 1, enemy << ne, enemy << width
    x = e_e ^ e_ne
    s1, k1 = x ^ e_nw, (e_e & e_ne) | (x & e_nw)
    x = e_w ^ e_sw
    s2, k2 = x ^ e_se, (e_w & e_sw) | (x & e_se)
    c0, k3 = s1 ^ s2, s1 & s2
    x = k1 ^ k2
    c1, c2 = x ^ k3, (k1 & k2) | (x & k3)
    place = empty & ~((own >> 1) | (own << 1) | (own >> ne) | (own << ne)
                      | (own >> width) | (own << width))
    groups: Groups = []
    add = groups.append
    # E, NE, NW look at higher bits (shift right); W, SW, SE at lower bits (shift left)
    right = ((1, e_e), (ne, e_ne), (width, e_nw))
    left = ((1, e_w), (ne, e_sw), (width, e_se))
    # at_least[k]: cells with k or more enemies. A disc with k enemies may go where there are < k.
    at_least = (full, c0 | c1 | c2, c1 | c2, c2 | (c1 & c0), c2, c2 & (c1 | c0), c2 & c1, 0)
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
        for s, e_d in right:
            if m := level & (t >> s):
                add((m.bit_count(), m, s, 0))
            if m := level & e_d & (t >> 2 * s):
                add((m.bit_count(), m, 2 * s, s))
        for s, e_d in left:
            if m := level & (t << s):
                add((m.bit_count(), m, -s, 0))
            if m := level & e_d & (t << 2 * s):
                add((m.bit_count(), m, -2 * s, -s))
    return place, groups


def adjacent_pairs(shifts: tuple[int, ...], discs: int) -> int:
    """Pairs of neighbouring discs, each counted once (looking E, NE and NW only)."""
    return sum((discs & shift_back(discs, s)).bit_count() for s in shifts[:3])
