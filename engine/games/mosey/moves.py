"""The movement rules of the Mosey family, written plainly: the rules as a player reads them.

Positions are two bitmasks over cell indices (bit i is ``board.labels[i]``), one for the player
to move (``own``) and one for the opponent (``enemy``). A move is a triple ``(origin, target,
capture)`` of cell indices. ``fast`` does the same job much faster for playouts, and
the tests hold the two to the same answers.

>>> from engine.hexboard import hex_board
>>> board = hex_board(4)
>>> bit = lambda *cells: sum(1 << board.index(c) for c in cells)
>>> group_size(board, bit("C3", "D3", "F3"), board.index("C3"))
2
>>> joined_size(board, bit("C3", "D3", "F3"), board.index("C3"), board.index("E3"))
3
>>> c3 = board.index("C3")
>>> [board.labels[t] for t, _ in stone_moves(board, "either", bit("C3", "E3"), bit("C5"), c3)]
['D3', 'C5']
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from engine.hexboard import HexBoard
from engine.text import Text

Movement = Literal["toward-friend", "step-first", "either", "capture-first"]
"""How stones move: Mosey's slides toward a friend, or steps and slide-captures with a priority."""

StoneMove = tuple[int, bool]
"""A move of a known stone: (target cell, whether it captures)."""


@cache
def ray_masks(board: HexBoard) -> tuple[tuple[int, ...], ...]:
    """``ray_masks(board)[i][d]``: every cell beyond i in direction d, as a bitmask."""
    return tuple(tuple(sum(1 << c for c in ray) for ray in rays) for rays in board.rays)


def connected(board: HexBoard, seed: int, stones: int) -> int:
    """The stones of ``stones`` joined to the cells of ``seed`` by neighbours (seed included)."""
    found = frontier = seed
    neighbours = board.neighbour_mask
    while frontier:
        grown = 0
        while frontier:
            low = frontier & -frontier
            grown |= neighbours[low.bit_length() - 1]
            frontier ^= low
        frontier = grown & stones & ~found
        found |= frontier
    return found


def group_size(board: HexBoard, own: int, origin: int) -> int:
    """G: the size of the group of the stone on ``origin``, the stone itself included."""
    return connected(board, 1 << origin, own).bit_count()


def joined_size(board: HexBoard, own: int, origin: int, target: int) -> int:
    """D(t): the stones joined to ``target`` once the stone from ``origin`` stands there.

    The origin is vacated first, so its old group may fall apart and only the parts that touch the
    target count.
    """
    moved = (own & ~(1 << origin)) | (1 << target)
    return connected(board, 1 << target, moved).bit_count()


def friend_beyond(board: HexBoard, own: int, cell: int, direction: int) -> bool:
    """Whether one of ``own`` stands anywhere further along the line from ``cell``."""
    return bool(ray_masks(board)[cell][direction] & own)


def stone_moves(
    board: HexBoard, movement: Movement, own: int, enemy: int, origin: int
) -> list[StoneMove]:
    """Every legal move of the stone on ``origin`` (one of ``own``)."""
    if movement == "toward-friend":
        return _slides_toward_friend(board, own, enemy, origin)
    steps, captures = _steps(board, own, enemy, origin), _slide_captures(board, own, enemy, origin)
    if movement == "step-first":
        return steps or captures
    if movement == "capture-first":
        return captures or steps
    return steps + captures


def legal_triples(
    board: HexBoard, movement: Movement, own: int, enemy: int
) -> list[tuple[int, int, bool]]:
    """Every legal move of the player whose stones are ``own``, unsorted."""
    moves: list[tuple[int, int, bool]] = []
    stones = own
    while stones:
        low = stones & -stones
        origin = low.bit_length() - 1
        stones ^= low
        moves.extend((origin, t, c) for t, c in stone_moves(board, movement, own, enemy, origin))
    return moves


def has_move(board: HexBoard, movement: Movement, own: int, enemy: int) -> bool:
    """Whether the player with ``own`` has any legal move (stops at the first stone that does)."""
    stones = own
    while stones:
        low = stones & -stones
        stones ^= low
        if stone_moves(board, movement, own, enemy, low.bit_length() - 1):
            return True
    return False


def _slides_toward_friend(board: HexBoard, own: int, enemy: int, origin: int) -> list[StoneMove]:
    moves: list[StoneMove] = []
    size = group_size(board, own, origin)
    beyond = ray_masks(board)
    for direction, ray in enumerate(board.rays[origin]):
        for cell in ray:
            if not own & beyond[cell][direction]:
                break  # no friend further on: nothing on this line qualifies any more
            if (enemy >> cell) & 1:
                moves.append((cell, True))
                break
            if (own >> cell) & 1:
                break
            if joined_size(board, own, origin, cell) > size:
                moves.append((cell, False))
    return moves


def _steps(board: HexBoard, own: int, enemy: int, origin: int) -> list[StoneMove]:
    occupied = own | enemy
    size = group_size(board, own, origin)
    return [(t, False) for t in board.adjacent[origin]
            if not (occupied >> t) & 1 and joined_size(board, own, origin, t) > size]


def _slide_captures(board: HexBoard, own: int, enemy: int, origin: int) -> list[StoneMove]:
    moves: list[StoneMove] = []
    for ray in board.rays[origin]:
        for cell in ray:
            if (enemy >> cell) & 1:
                moves.append((cell, True))
            if ((own | enemy) >> cell) & 1:
                break
    return moves


def explain(
    board: HexBoard, movement: Movement, own: int, enemy: int, origin: int, target: int,
    capture: bool, game_name: str,
) -> Text:
    """Why moving the stone on ``origin`` to ``target`` is illegal, in words for the player."""
    label, to = board.labels[origin], board.labels[target]
    move = f"{label}{'x' if capture else '-'}{to}"
    if not (own | enemy) >> origin & 1:
        return Text("%(cell)s is empty", cell=label)
    if not own >> origin & 1:
        return Text("%(cell)s is not your stone", cell=label)
    if origin == target:
        return Text("a stone must move to another cell")
    line = board.direction(origin, target)
    if line is None:
        return Text("%(target)s is not on a straight line from %(origin)s", target=to, origin=label)
    direction, distance = line
    for cell in board.rays[origin][direction][:distance - 1]:
        if ((own | enemy) >> cell) & 1:
            return Text("the way from %(origin)s to %(target)s is blocked at %(cell)s",
                        origin=label, target=to, cell=board.labels[cell])
    if own >> target & 1:
        return Text("%(cell)s holds your own stone", cell=to)
    if enemy >> target & 1 and not capture:
        return Text("%(target)s holds an enemy stone: write %(capture)s to capture it",
                    target=to, capture=f"{label}x{to}")
    if not enemy >> target & 1 and capture:
        return Text("there is no stone to capture on %(cell)s", cell=to)
    if movement == "toward-friend":
        if not friend_beyond(board, own, target, direction):
            return Text("there is no friend beyond %(cell)s on that line", cell=to)
        if not capture and (reason := _not_larger(board, own, origin, target, move)):
            return reason
    elif not capture:
        if distance > 1:
            return Text("%(move)s: a stone steps one cell, or slides only to capture", move=move)
        reason = _not_larger(board, own, origin, target, move)
        if reason:
            return reason
        if movement == "capture-first":
            return Text("%(cell)s can capture, so it may not step "
                        "(in %(game)s a stone steps only when it cannot capture)",
                        cell=label, game=game_name)
    elif movement == "step-first":
        return Text("%(cell)s can step, so it may not capture "
                    "(in %(game)s a stone captures only when it cannot step)",
                    cell=label, game=game_name)
    return Text("%(move)s is not a legal move here", move=move)


def _not_larger(board: HexBoard, own: int, origin: int, target: int, move: str) -> Text | None:
    size, joined = group_size(board, own, origin), joined_size(board, own, origin, target)
    if joined > size:
        return None
    if size == 1:
        return Text("%(move)s does not make a larger group: a lone stone must end next to a "
                    "friend", move=move)
    return Text("%(move)s does not make a larger group "
                "(its group has %(size)d stones, it would join %(joined)d)",
                move=move, size=size, joined=joined)
