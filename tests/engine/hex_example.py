"""Hex on a rhombus, as a newcomer writes it with engine.hexboard: a test-only example, no subclass.

Black and white place a stone each in turn (``C3``); black wins by joining the bottom and top
edges, white by joining the left and right ones. White's first move may instead be ``swap`` (the
pie rule): black's stone becomes white's, mirrored across the diagonal through A1 (which turns
black's edges into white's), and black moves again. Hex never ends in a draw.

>>> game = HexExample(5)
>>> state = game.play(game.start(), "b1")
>>> game.stones(state)
{1: 'black'}
>>> swapped = game.play(state, "swap")
>>> [(game.board.labels[cell], kind) for cell, kind in game.stones(swapped).items()]
[('A2', 'white')]
>>> game.to_move(swapped)
0
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.base import IllegalMove
from engine.hexboard import HexMove, cell_label, rhombus, shift_forward
from engine.hexsvg import draw_hex_board
from engine.text import Text

SEATS = ("black", "white")
GOALS = (("bottom", "top"), ("left", "right"))
"""The two edges each seat must join, in seat order."""
EDGE_COLOURS = ("#1d1d1b", "#9a8f7a")
"""Each seat's edges as drawn: the dark stone's colour, and a grey that shows on the paper."""
SWAP = "swap"


@dataclass(frozen=True)
class HexState:
    """The stones of each seat, as bitboards of the board's layout, and the moves played."""

    stones: tuple[int, int] = (0, 0)
    moves: int = 0


class HexExample:
    """Hex on a ``size`` by ``size`` rhombus."""

    def __init__(self, size: int) -> None:
        self.board = rhombus(size)
        self.layout = self.board.layout
        self.goals = tuple(tuple(self.layout.mask(self.board.edge(name).cells) for name in pair)
                           for pair in GOALS)

    def start(self) -> HexState:
        return HexState()

    def to_move(self, state: HexState) -> int | None:
        return None if self.winner(state) is not None else state.moves % 2

    def legal_moves(self, state: HexState) -> list[str]:
        if self.to_move(state) is None:
            return []
        taken = state.stones[0] | state.stones[1]
        empty = [self.board.labels[i] for i in self.layout.cells(self.layout.full & ~taken)]
        return [*empty, SWAP] if state.moves == 1 else empty

    def play(self, state: HexState, text: str) -> HexState:
        seat = self.to_move(state)
        if seat is None:
            raise IllegalMove(Text("The game is over"))
        move = HexMove.parse(text, words=(SWAP,) if state.moves == 1 else ())
        if move.word == SWAP:
            q, r = self.board.coords[self.layout.cells(state.stones[0])[0]]
            mirrored = self.layout.mask([self.board.index(cell_label(r, q))])
            return HexState((0, mirrored), state.moves + 1)
        if move.origin is not None or move.capture or move.target is None:
            raise IllegalMove(Text("Hex only places stones, as in %(example)s", example="C3"))
        bit = self.layout.mask([self.board.index(move.target)])
        if bit & (state.stones[0] | state.stones[1]):
            raise IllegalMove(Text("%(cell)s is taken", cell=move.target))
        stones = list(state.stones)
        stones[seat] |= bit
        return HexState((stones[0], stones[1]), state.moves + 1)

    def winner(self, state: HexState) -> int | None:
        """The seat whose stones join its two edges, if any."""
        for seat, (start, goal) in enumerate(self.goals):
            own = state.stones[seat]
            if self.reach(own & start, own) & goal:
                return seat
        return None

    def reach(self, seed: int, stones: int) -> int:
        """The stones of ``stones`` joined to ``seed`` (a flood fill by the layout's shifts)."""
        reached = seed
        while True:
            grown = reached
            for shift in self.layout.shifts:
                grown |= shift_forward(reached, shift)
            grown &= stones
            if grown == reached:
                return reached
            reached = grown

    def stones(self, state: HexState) -> dict[int, str]:
        return {cell: SEATS[seat]
                for seat in (0, 1) for cell in self.layout.cells(state.stones[seat])}

    def render_svg(self, state: HexState) -> str:
        colours = {edge: EDGE_COLOURS[seat] for seat, pair in enumerate(GOALS) for edge in pair}
        return draw_hex_board(self.board, stones=self.stones(state), edge_colours=colours)
