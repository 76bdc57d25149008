"""A slow, plain referee for the six Mosey-family games, from /work/shared/rules/squish.md alone.

>>> referee = MoseyReferee("mosey", 4)
>>> pos = referee.start()
>>> referee.to_move(pos), len(pos.stones)
(0, 24)
>>> "G5xF4" in referee.legal(pos)
True
"""

from __future__ import annotations

from dataclasses import dataclass

from . import DIRECTIONS, Board

LIGHT, DARK = 0, 1

# game id -> (movement kind, does the last player to move win?)
GAMES: dict[str, tuple[str, bool]] = {
    "mosey": ("slide-toward-friend", True),
    "dont-mosey": ("slide-toward-friend", False),
    "keep-a-riding": ("step-else-capture", True),
    "firestorm": ("step-else-capture", False),
    "conflagration": ("step-or-capture", False),
    "backfire": ("capture-else-step", False),
}

# squish.md "Setup": every third cell, in a 3-colouring.
SETUP: dict[int, tuple[str, str]] = {
    4: ("B1 A2 D2 C3 F3 B4 E4 D5 G5 C6 F6 E7",
        "C1 B2 E2 A3 D3 C4 F4 B5 E5 D6 G6 F7"),
    5: ("A1 D1 C2 F2 B3 E3 A4 D4 G4 C5 F5 I5 B6 E6 H6 D7 G7 F8 I8 E9 H9",
        "B1 E1 A2 D2 C3 F3 B4 E4 H4 A5 D5 G5 C6 F6 I6 E7 H7 D8 G8 F9 I9"),
    6: ("A1 D1 C2 F2 B3 E3 H3 A4 D4 G4 C5 F5 I5 B6 E6 H6 K6 D7 G7 J7 C8 F8 I8 E9 H9 K9 G10 J10 "
        "F11 I11",
        "C1 F1 B2 E2 A3 D3 G3 C4 F4 I4 B5 E5 H5 A6 D6 G6 J6 C7 F7 I7 E8 H8 K8 D9 G9 J9 F10 I10 "
        "H11 K11"),
}


@dataclass
class MoseyPosition:
    """Stones (cell -> seat; empty cells are absent), the seat to move, and how it ended."""

    stones: dict[str, int]
    mover: int
    finished: bool = False
    last_mover: int | None = None


class MoseyReferee:
    def __init__(self, game_id: str, order: int) -> None:
        self.kind, self.last_mover_wins = GAMES[game_id]
        self.order = order
        self.board = Board(order, order)  # a hexhex board of side `order`

    def start(self) -> MoseyPosition:
        light, dark = SETUP[self.order]
        stones: dict[str, int] = {}
        for cell in light.split():
            stones[cell] = LIGHT
        for cell in dark.split():
            stones[cell] = DARK
        # Player 1 is Light and moves first.
        return MoseyPosition(stones, LIGHT)

    # -- words ------------------------------------------------------------------------------

    def group_size(self, stones: dict[str, int], cell: str) -> int:
        """The size of the group of the stone on ``cell`` (flood fill over its owner's stones)."""
        owner = stones[cell]
        seen = {cell}
        todo = [cell]
        while todo:
            here = todo.pop()
            for other in self.board.neighbours(here):
                if other not in seen and stones.get(other) == owner:
                    seen.add(other)
                    todo.append(other)
        return len(seen)

    def d_value(self, stones: dict[str, int], origin: str, target: str) -> int:
        """D(t): the mover's stones connected to ``target`` once the stone from ``origin`` stands
        there, the stone included; the cell it left is empty, so nothing reaches through it."""
        after = dict(stones)
        seat = after.pop(origin)
        after[target] = seat
        return self.group_size(after, target)

    # -- moves ------------------------------------------------------------------------------

    def slides_toward_friend(self, stones: dict[str, int], origin: str) -> list[str]:
        """Mosey / Don't Mosey: slide over empty cells, stop on (a) an empty cell with D > G or
        (b) the first enemy stone met (captured); either way a friend lies further along."""
        me = stones[origin]
        g = self.group_size(stones, origin)
        moves = []
        for direction in DIRECTIONS:
            line = self.board.ray(origin, direction)
            for i, cell in enumerate(line):
                beyond = line[i + 1:]
                friend_beyond = False
                for far in beyond:
                    if stones.get(far) == me:
                        friend_beyond = True
                if cell not in stones:
                    if friend_beyond and self.d_value(stones, origin, cell) > g:
                        moves.append(f"{origin}-{cell}")
                    continue  # the slide may go on over this empty cell
                if stones[cell] != me and friend_beyond:
                    moves.append(f"{origin}x{cell}")
                break  # a stone stops the slide either way
        return moves

    def steps(self, stones: dict[str, int], origin: str) -> list[str]:
        """One cell to an adjacent empty cell t with D(t) > G."""
        g = self.group_size(stones, origin)
        moves = []
        for cell in self.board.neighbours(origin):
            if cell not in stones and self.d_value(stones, origin, cell) > g:
                moves.append(f"{origin}-{cell}")
        return moves

    def slide_captures(self, stones: dict[str, int], origin: str) -> list[str]:
        """Slide over empty cells to the first stone met; capture it if it is an enemy."""
        me = stones[origin]
        moves = []
        for direction in DIRECTIONS:
            for cell in self.board.ray(origin, direction):
                if cell not in stones:
                    continue
                if stones[cell] != me:
                    moves.append(f"{origin}x{cell}")
                break
        return moves

    def moves_of(self, stones: dict[str, int], seat: int) -> list[str]:
        moves: list[str] = []
        for origin in sorted(stones):
            if stones[origin] != seat:
                continue
            if self.kind == "slide-toward-friend":
                moves += self.slides_toward_friend(stones, origin)
                continue
            steps = self.steps(stones, origin)
            captures = self.slide_captures(stones, origin)
            # Decided stone by stone, not for the player as a whole.
            if self.kind == "step-else-capture":
                moves += steps if steps else captures
            elif self.kind == "step-or-capture":
                moves += steps + captures
            elif self.kind == "capture-else-step":
                moves += captures if captures else steps
        return sorted(set(moves))

    # -- the referee interface --------------------------------------------------------------

    def legal(self, pos: MoseyPosition) -> list[str]:
        if pos.finished:
            return []
        return self.moves_of(pos.stones, pos.mover)

    def play(self, pos: MoseyPosition, text: str) -> MoseyPosition:
        if text not in self.legal(pos):
            raise ValueError(f"the referee does not allow {text}")
        separator = "x" if "x" in text else "-"
        origin, target = text.split(separator)
        stones = dict(pos.stones)
        seat = stones.pop(origin)
        stones[target] = seat  # a capture replaces the enemy stone
        following = 1 - pos.mover
        # The game ends when the next player has no legal move.
        finished = not self.moves_of(stones, following)
        return MoseyPosition(stones, following, finished, pos.mover)

    def to_move(self, pos: MoseyPosition) -> int | None:
        return None if pos.finished else pos.mover

    def winners(self, pos: MoseyPosition) -> tuple[int, ...] | None:
        if not pos.finished or pos.last_mover is None:
            return None
        if self.last_mover_wins:
            return (pos.last_mover,)
        return (1 - pos.last_mover,)
