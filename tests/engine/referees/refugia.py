"""A slow, plain referee for Refugia, from /work/shared/rules/refugia.md alone.

>>> referee = RefugiaReferee("3-4")
>>> pos = referee.start()
>>> len(referee.legal(pos)), referee.legal(pos)[-1]
(28, 'pass')
"""

from __future__ import annotations

from dataclasses import dataclass

from . import DIRECTIONS, Board

NEUTRAL = "N"  # a "mutual enemy" stone; discs are the seats 0 and 1


@dataclass
class RefugiaPosition:
    """Pieces (cell -> 0, 1 or NEUTRAL; empty cells absent), the seat to move, passes in a row,
    and once over, the seat that made the final pass."""

    pieces: dict[str, int | str]
    mover: int
    passes: int = 0
    final_passer: int | None = None


class RefugiaReferee:
    def __init__(self, board: str) -> None:
        a, b = board.split("-")
        # "(hex {a b a b a})": rows from the bottom have b, b+1, ..., cells (3-4: 4, 5, 6, 5, 4, 3).
        self.board = Board(int(a), int(b))

    def start(self) -> RefugiaPosition:
        return RefugiaPosition({}, 0)

    def enemies(self, pieces: dict[str, int | str], cell: str, me: int) -> int:
        """Neighbours of ``cell`` holding an opponent disc or a neutral stone (before the move)."""
        count = 0
        for other in self.board.neighbours(cell):
            if other in pieces and pieces[other] != me:
                count += 1
        return count

    def legal(self, pos: RefugiaPosition) -> list[str]:
        if pos.final_passer is not None:
            return []
        me = pos.mover
        pieces = pos.pieces
        moves = ["pass"]  # always legal
        # Place: on an empty cell with no adjacent disc of your own.
        for cell in self.board.labels:
            if cell in pieces:
                continue
            own_neighbour = False
            for other in self.board.neighbours(cell):
                if pieces.get(other) == me:
                    own_neighbour = True
            if not own_neighbour:
                moves.append(cell)
        # Move: to a cell with fewer enemies around it than around the start cell.
        for origin in self.board.labels:
            if pieces.get(origin) != me:
                continue
            start_enemies = self.enemies(pieces, origin, me)
            for direction in DIRECTIONS:
                first = self.board.step(origin, direction)
                if first is None:
                    continue
                if first not in pieces:
                    # a step to an adjacent empty cell
                    if self.enemies(pieces, first, me) < start_enemies:
                        moves.append(f"{origin}-{first}")
                    continue
                if pieces[first] == me:
                    continue  # own discs are never hopped
                # a hop over an opponent disc or a neutral stone, to the empty cell beyond
                beyond = self.board.step(first, direction)
                if beyond is None or beyond in pieces:
                    continue
                if self.enemies(pieces, beyond, me) < start_enemies:
                    moves.append(f"{origin}-{beyond}")
        return sorted(set(moves))

    def play(self, pos: RefugiaPosition, text: str) -> RefugiaPosition:
        if text not in self.legal(pos):
            raise ValueError(f"the referee does not allow {text}")
        me = pos.mover
        following = 1 - me
        if text == "pass":
            passes = pos.passes + 1
            # Both players pass in succession: over, and this seat made the final pass.
            return RefugiaPosition(dict(pos.pieces), following, passes,
                                   me if passes >= 2 else None)
        pieces = dict(pos.pieces)
        if "-" not in text:
            pieces[text] = me
            return RefugiaPosition(pieces, following)
        origin, target = text.split("-")
        del pieces[origin]
        pieces[target] = me
        if target not in self.board.neighbours(origin):
            # a hop: find the jumped cell on the line between origin and target
            for direction in DIRECTIONS:
                middle = self.board.step(origin, direction)
                if middle is not None and self.board.step(middle, direction) == target:
                    if pieces[middle] == NEUTRAL:
                        pieces[middle] = me  # a hopped neutral becomes your disc
                    else:
                        pieces[middle] = NEUTRAL  # a hopped opponent disc becomes neutral
        return RefugiaPosition(pieces, following)

    def to_move(self, pos: RefugiaPosition) -> int | None:
        return None if pos.final_passer is not None else pos.mover

    def score(self, pos: RefugiaPosition, seat: int) -> int:
        """Adjacent pairs of the seat's own discs, each pair once."""
        pairs = set()
        for cell in self.board.labels:
            if pos.pieces.get(cell) != seat:
                continue
            for other in self.board.neighbours(cell):
                if pos.pieces.get(other) == seat:
                    pairs.add(frozenset((cell, other)))
        return len(pairs)

    def discs(self, pos: RefugiaPosition, seat: int) -> int:
        return sum(1 for piece in pos.pieces.values() if piece == seat)

    def winners(self, pos: RefugiaPosition) -> tuple[int, ...] | None:
        if pos.final_passer is None:
            return None
        scores = (self.score(pos, 0), self.score(pos, 1))
        if scores[0] != scores[1]:
            return (0,) if scores[0] > scores[1] else (1,)
        discs = (self.discs(pos, 0), self.discs(pos, 1))
        if discs[0] != discs[1]:
            return (0,) if discs[0] > discs[1] else (1,)
        return (1 - pos.final_passer,)  # the player who made the final pass loses
