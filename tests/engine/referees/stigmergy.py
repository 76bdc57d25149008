"""A slow, plain referee for Stigmergy, from /work/shared/rules/stigmergy.md alone.

>>> referee = StigmergyReferee(5, "negotiate")
>>> pos = referee.start()
>>> referee.legal(pos)
['<komi>']
>>> pos = referee.play(pos, "-4")
>>> referee.to_move(pos), len(referee.legal(pos)), referee.legal(pos)[-1]
(1, 62, 'play-second')
"""

from __future__ import annotations

from dataclasses import dataclass

from . import DIRECTIONS, Board

BLACK, WHITE = "B", "W"


@dataclass
class StigmergyPosition:
    """Stones (cell -> BLACK or WHITE; empty cells absent) and the state of the turn order.

    ``phase`` is "komi" (seat 0 names it), "sides" (seat 1 chooses), "play" or "over".
    ``black`` is the seat playing Black once sides are known; ``button`` is "absent" (even komi),
    "free", or the seat holding it.
    """

    stones: dict[str, str]
    mover: int
    phase: str
    komi: int = 0
    black: int = 0
    button: str | int = "absent"
    passes: int = 0


class StigmergyReferee:
    def __init__(self, size: int, komi: str) -> None:
        self.board = Board(size, size)
        self.negotiate = komi == "negotiate"

    def start(self) -> StigmergyPosition:
        if self.negotiate:
            return StigmergyPosition({}, 0, "komi")
        # komi "none": komi 0 (even, so no button), the first seat is Black.
        return StigmergyPosition({}, 0, "play", komi=0, black=0, button="absent")

    def colour_of(self, pos: StigmergyPosition, seat: int) -> str:
        return BLACK if seat == pos.black else WHITE

    # -- seeing and control -----------------------------------------------------------------

    def sees(self, stones: dict[str, str], cell: str, colour: str) -> int:
        """Stones of ``colour`` that ``cell`` sees: the first stone along each of 6 directions."""
        count = 0
        for direction in DIRECTIONS:
            for other in self.board.ray(cell, direction):
                if other in stones:
                    if stones[other] == colour:
                        count += 1
                    break
        return count

    def controller(self, stones: dict[str, str], cell: str) -> str | None:
        """BLACK or WHITE when that colour sees more than half of n(cell) (the adjacent cells)."""
        n = len(self.board.neighbours(cell))
        for colour in (BLACK, WHITE):
            if self.sees(stones, cell, colour) * 2 > n:
                return colour
        return None

    def control_map(self, stones: dict[str, str]) -> dict[str, str | None]:
        return {cell: self.controller(stones, cell) for cell in self.board.labels}

    # -- moves ------------------------------------------------------------------------------

    def legal(self, pos: StigmergyPosition) -> list[str]:
        if pos.phase == "over":
            return []
        if pos.phase == "komi":
            return ["<komi>"]  # one marker for every whole number in the range
        if pos.phase == "sides":
            # Either play Black (place the first stone now, anywhere: the board is empty) or White.
            return sorted([*self.board.labels, "play-second"])
        me = self.colour_of(pos, pos.mover)
        control = self.control_map(pos.stones)
        moves = []
        any_uncontrolled_empty = False
        for cell in self.board.labels:
            owner = control[cell]
            if cell not in pos.stones:
                if owner is None:
                    any_uncontrolled_empty = True
                # Place on an empty cell the opponent does not control.
                if owner is None or owner == me:
                    moves.append(cell)
            elif pos.stones[cell] != me and owner == me:
                # Replace an enemy stone on a cell you control.
                moves.append(f"{cell}x")
        if pos.button == "free":
            moves.append("take-button")  # and no pass while the button is free
        elif not any_uncontrolled_empty:
            moves.append("pass")
        return sorted(moves)

    def play(self, pos: StigmergyPosition, text: str) -> StigmergyPosition:
        if pos.phase == "komi":
            komi = int(text)
            cells = len(self.board.labels)
            if not -(cells + 1) <= komi <= cells + 1:
                raise ValueError(f"the referee does not allow komi {komi}")
            # The button exists only when komi is odd (negative or positive: -3 is odd too).
            odd = komi % 2 != 0
            return StigmergyPosition({}, 1, "sides", komi=komi, button="free" if odd else "absent")
        if text not in self.legal(pos):
            raise ValueError(f"the referee does not allow {text}")
        if pos.phase == "sides":
            if text == "play-second":
                # The first seat becomes Black and places first.
                return StigmergyPosition({}, 0, "play", pos.komi, 0, pos.button)
            black_now = StigmergyPosition({}, 1, "play", pos.komi, 1, pos.button)
            return self.play(black_now, text)
        stones = dict(pos.stones)
        button: str | int = pos.button
        passes = 0
        phase = "play"
        if text == "pass":
            passes = pos.passes + 1
            if passes >= 2:
                phase = "over"  # both players passed in succession
        elif text == "take-button":
            button = pos.mover
        else:
            # A placement or a replacement: either way the cell now holds the mover's stone.
            stones[text.rstrip("x")] = self.colour_of(pos, pos.mover)
        return StigmergyPosition(stones, 1 - pos.mover, phase, pos.komi, pos.black, button,
                                 passes)

    def to_move(self, pos: StigmergyPosition) -> int | None:
        return None if pos.phase == "over" else pos.mover

    def scores(self, pos: StigmergyPosition) -> tuple[float, float]:
        """Per seat: stones + controlled empty cells (+ komi for White) (+ 1/2 for the button)."""
        control = self.control_map(pos.stones)
        result = []
        for seat in (0, 1):
            colour = self.colour_of(pos, seat)
            score: float = 0
            for cell in self.board.labels:
                if pos.stones.get(cell) == colour:
                    score += 1  # a stone of this colour
                elif cell not in pos.stones and control[cell] == colour:
                    score += 1  # an empty cell this colour controls
            if colour == WHITE:
                score += pos.komi
            if pos.button == seat:
                score += 0.5
            result.append(score)
        return result[0], result[1]

    def winners(self, pos: StigmergyPosition) -> tuple[int, ...] | None:
        if pos.phase != "over":
            return None
        first, second = self.scores(pos)
        if first == second:
            return ()  # a draw: only possible without the button
        return (0,) if first > second else (1,)
