"""How a Stigmergy position is drawn and told: the SVG board, the text board, the score lines
(:class:`StigmergyPresentation`, which the game makes of itself). It asks the rules for
``board``, ``side``, ``analyse``, ``colour_scores`` and their words about the position.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.base import CellHref, Ending, Presentation
from engine.games.stigmergy.moves import StigmergyMove
from engine.games.stigmergy.state import BLACK, WHITE, StigmergyState
from engine.hexsvg import counted, draw_hex_board, selection, stone_list
from engine.text import ENGLISH, Text, Translator

if TYPE_CHECKING:  # the rules make their presentation from this module
    from engine.games.stigmergy.rules import Stigmergy  # noqa: F401 (named in a string below)

COLOUR_NAMES = {BLACK: Text("Black"), WHITE: Text("White")}
STONE_NAMES = {"black": Text("Black stone"), "white": Text("White stone")}
STONE_LISTS = {"black": counted("Black stone: %(cells)s.", "Black stones: %(cells)s."),
               "white": counted("White stone: %(cells)s.", "White stones: %(cells)s.")}
DOT_NAMES = {"black": Text("controlled by Black"), "white": Text("controlled by White")}
SEATS_BEFORE_SIDES = (Text("First"), Text("Second"))


def points(value: float) -> str:
    """A score as the players read it: ``7``, ``7.5``."""
    return f"{value:g}"


class StigmergyPresentation(Presentation["Stigmergy", StigmergyState, StigmergyMove]):
    """Score lines and drawings of Stigmergy positions."""

    def _header(self, state: StigmergyState) -> list[str]:
        if state.komi is None:
            return [Text("Komi not named yet"), self.game.describe(state)]
        black, white = self.game.colour_scores(state)
        names = self.game.seat_names(state)
        lines: list[str] = [Text("%(terms)s · Black %(black)s · White %(white)s",
                                 terms=self.game.komi_words(state, capital=True),
                                 black=points(black), white=points(white))]
        if state.passes >= 2:
            lines.append(self._result_line(state))
        elif state.black_seat is None:
            lines.append(Text("%(seat)s to choose sides", seat=names[1]))
        else:
            lines.append(Text("%(seat)s to move", seat=names[state.mover]))
        return lines

    def _result_line(self, state: StigmergyState) -> Text:
        """The first sentence of the description of a finished game: who won."""
        described = self.game.describe(state)
        first = described.parts[0] if isinstance(described, Text) and described.parts else described
        return first if isinstance(first, Text) else Text.verbatim(first.split(". ")[0] + ".")

    def _stones(self, state: StigmergyState) -> dict[int, str]:
        return {c: "black" if ch == "B" else "white" for c, ch in enumerate(state.board)
                if ch != "."}

    def piece_list(self, state: StigmergyState, viewer: int | None = None) -> Text:
        return stone_list(self.game.board, self._stones(state), STONE_NAMES, STONE_LISTS)

    def render_svg(
        self,
        state: StigmergyState,
        viewer: int | None = None,
        last_move: StigmergyMove | str | None = None,
        cell_href: CellHref | None = None,
        *,
        chosen: Sequence[str] | None = None,
        translator: Translator = ENGLISH,
        ending: Ending | None = None,
    ) -> str:
        _, _, black_ctrl, white_ctrl = self.game.analyse(state)
        stones = self._stones(state)
        dots = {c: "black" if black_ctrl >> c & 1 else "white" for c in range(self.game.board.size)
                if c not in stones and (black_ctrl | white_ctrl) >> c & 1}
        last = self.game.last_move_of(last_move)
        marks = [self.game.board.index(cell) for cell in self.game.move_cells(last)
                 if cell in self.game.board] if last is not None else []
        own = None
        if viewer is not None and state.black_seat is not None:
            own = "black" if viewer == state.black_seat else "white"
        picked, targets = selection(self.game, state, self.game.board, chosen)
        header, described = self._header(state), self.game.describe(state, viewer)
        if self.game.ended_off_board(state, ending):  # the scores, no turn
            header = [*header[:-1], Text("Game over")]
            described = (Text.joined([self.game.score_line(state), Text("Game over.")])
                         if state.black_seat is not None else Text("Game over."))
        return draw_hex_board(self.game.board, stones=stones, dots=dots, marks=marks,
                              cell_href=cell_href, header=header,
                              title=Text("Stigmergy"), names=STONE_NAMES, own=own,
                              dot_names=DOT_NAMES, chosen=picked, targets=targets,
                              alt=Text.joined([Text("Stigmergy."), described,
                                               self.piece_list(state, viewer)]),
                              translator=translator)

    def render_text(self, state: StigmergyState, viewer: int | None = None) -> str:
        """Rows from the top: B/W stones, b/w empty cells Black/White controls, . the rest."""
        _, _, black_ctrl, white_ctrl = self.game.analyse(state)
        rows = []
        for number, (start, end) in reversed(list(enumerate(self.game.board.row_ranges(), 1))):
            marks = []
            for c in range(start, end):
                ch = state.board[c]
                if ch == ".":
                    ch = "b" if black_ctrl >> c & 1 else "w" if white_ctrl >> c & 1 else "."
                marks.append(ch)
            indent = " " * abs(number - self.game.side)
            rows.append(f"{number:>2} {indent}{' '.join(marks)}")
        return Text.joined([*self._header(state), *rows], "\n")

