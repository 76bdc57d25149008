"""How a Refugia position is drawn and told: the SVG board, the text board, the status lines
(:class:`RefugiaPresentation`, which the game makes of itself). It asks the rules for
``board``, ``scores``, ``occupant``, ``outcome`` and ``describe``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.base import CellHref, Ending, Presentation
from engine.games.refugia.state import CELL_CHARS, RefugiaState
from engine.hexboard import HexMove
from engine.hexsvg import counted, draw_hex_board, selection, stone_list
from engine.text import ENGLISH, Text, Translator

if TYPE_CHECKING:  # the rules make their presentation from this module
    from engine.games.refugia.rules import Refugia  # noqa: F401 (named in a string below)

SEATS = (Text("White"), Text("Black"))
STONES = ("white", "black")  # engine.hexsvg stone kinds of the two seats
STONE_NAMES = {"white": Text("White disc"), "black": Text("Black disc"),
               "neutral": Text("neutral disc")}
STONE_LISTS = {"white": counted("White disc: %(cells)s.", "White discs: %(cells)s."),
               "black": counted("Black disc: %(cells)s.", "Black discs: %(cells)s."),
               "neutral": counted("neutral disc: %(cells)s.", "neutral discs: %(cells)s.")}


class RefugiaPresentation(Presentation["Refugia", RefugiaState, HexMove]):
    """Status lines and drawings of Refugia positions."""

    def _status(self, state: RefugiaState, short: bool = False) -> list[str]:
        """A line per seat with its score and discs, then whose turn it is or who won."""
        scores = self.game.scores(state)
        lines: list[str] = [
            Text("%(seat)s: %(pairs)s, %(discs)s", seat=SEATS[s],
                 pairs=Text.counted("%(count)d pair", "%(count)d pairs", scores[s]),
                 discs=Text.counted("%(count)d disc", "%(count)d discs",
                                    state.discs[s].bit_count()))
            for s in (0, 1)]
        result = self.game.outcome(state)
        if short and result is not None:  # the reason is too long for the narrow boards' SVG
            return [*lines, Text("Game over: %(winners)s won.", winners=SEATS[result.winners[0]])]
        return [*lines, self.game.describe(state)]

    def _stones(self, state: RefugiaState) -> dict[int, str]:
        kinds = ("", *STONES, "neutral")
        occupant = self.game.occupant
        return {i: kinds[k] for i in range(self.game.board.size) if (k := occupant(state, i))}

    def piece_list(self, state: RefugiaState, viewer: int | None = None) -> Text:
        return stone_list(self.game.board, self._stones(state), STONE_NAMES, STONE_LISTS)

    def render_svg(self, state: RefugiaState, viewer: int | None = None,
                   last_move: HexMove | str | None = None,
                   cell_href: CellHref | None = None, *,
                   chosen: Sequence[str] | None = None,
                   translator: Translator = ENGLISH, ending: Ending | None = None) -> str:
        board = self.game.board
        stones = self._stones(state)
        marks = []
        move = self.game.last_move_of(last_move)
        if move is not None:
            marks = [board.index(c) for c in move.cells if c in board]
            if len(marks) == 2 and (hopped := board.between(*marks)) is not None:
                marks.append(hopped)  # the hopped stone changed
        picked, targets = selection(self.game, state, board, chosen)
        title = Text("Refugia %(board)s", board=str(self.game.options["board"]))
        header, status = self._status(state, short=True), self._status(state)
        if self.game.ended_off_board(state, ending):  # the scores, no turn
            header, status = [*header[:-1], Text("Game over")], [*status[:-1], Text("Game over.")]
        return draw_hex_board(board, stones=stones, marks=marks, cell_href=cell_href,
                              header=header, title=title,
                              names=STONE_NAMES, own=STONES[viewer] if viewer in (0, 1) else None,
                              chosen=picked, targets=targets,
                              alt=Text.joined([
                                  Text("Refugia %(board)s.", board=str(self.game.options["board"])),
                                  *status, self.piece_list(state, viewer)]),
                              translator=translator)

    def render_text(self, state: RefugiaState, viewer: int | None = None) -> str:
        """Rows from the top, each cell two characters wide and indented as on the hex board."""
        board = self.game.board
        ranges = list(reversed(board.row_ranges()))
        # a cell's column on screen is 2q - r (half-cell units): NE of a cell sits one to its right
        left = min(2 * board.coords[start][0] - board.coords[start][1] for start, _ in ranges)
        right = max(2 * board.coords[end - 1][0] - board.coords[end - 1][1] for _, end in ranges)
        rows = []
        for start, end in ranges:
            q, r = board.coords[start]
            cells = " ".join(CELL_CHARS[self.game.occupant(state, i)] for i in range(start, end))
            line = (" " * (2 * q - r - left) + cells).ljust(right - left + 1)
            rows.append(f"{r + 1:>2}  {line}  {board.labels[start]}-{board.labels[end - 1]}")
        # The letters are the same in every language, so the key says them in the reader's
        # words (an Italian reads B as Bianco, not as Black).
        key = Text("Key: %(white)s White disc, %(black)s Black disc, %(neutral)s neutral disc, "
                   "%(empty)s empty cell.", white=CELL_CHARS[1], black=CELL_CHARS[2],
                   neutral=CELL_CHARS[3], empty=CELL_CHARS[0])
        return Text.joined([*self._status(state), *rows, key], "\n")

