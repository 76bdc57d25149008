"""How a Stigmergy position is drawn and told: the SVG board, the text board, scores in words.

The presentation is a mixin that :class:`~engine.games.stigmergy.rules.Stigmergy` inherits, rather
than functions its methods call: most of it overrides :class:`~engine.base.Game` hooks with long
signatures (``render_svg``), which a mixin states once where delegating functions would repeat them.
The mixin asks the rules only for ``board``, ``side``, ``_analyse`` and ``colour_scores``.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence

from engine.base import CellHref, Game
from engine.games.stigmergy.board import BLACK, WHITE, StigmergyState, has_button
from engine.games.stigmergy.moves import StigmergyMove
from engine.hexboard import HexBoard, HexMove
from engine.hexsvg import counted, draw_hex_board, selection, stone_list
from engine.text import ENGLISH, Text, Translator

COLOUR_NAMES = {BLACK: Text("Black"), WHITE: Text("White")}
STONE_NAMES = {"black": Text("Black stone"), "white": Text("White stone")}
STONE_LISTS = {"black": counted("Black stone: %(cells)s.", "Black stones: %(cells)s."),
               "white": counted("White stone: %(cells)s.", "White stones: %(cells)s.")}
DOT_NAMES = {"black": Text("controlled by Black"), "white": Text("controlled by White")}
SEATS_BEFORE_SIDES = (Text("First"), Text("Second"))


def points(value: float) -> str:
    """A score as the players read it: ``7``, ``7.5``."""
    return f"{value:g}"


class StigmergyDrawing(Game[StigmergyState, StigmergyMove]):
    """Seat names, descriptions and drawings of Stigmergy positions."""

    board: HexBoard
    side: int

    @abstractmethod
    def _analyse(self, state: StigmergyState) -> tuple[int, int, int, int]:
        """(Black stones, White stones, cells Black controls, cells White controls)."""

    @abstractmethod
    def colour_scores(self, state: StigmergyState) -> tuple[float, float]:
        """(Black, White) scores."""

    # -- words -------------------------------------------------------------------------------

    def _terms(self, state: StigmergyState, capital: bool = False) -> Text:
        """The komi and button, in words (``capital``: as the start of a line)."""
        if state.komi is None:
            return Text("komi still to be named by %(seat)s", seat=self.seat_names(state)[0])
        if not has_button(state.komi):
            return (Text("Komi %(komi)d", komi=state.komi) if capital
                    else Text("komi %(komi)d", komi=state.komi))
        if state.button is None:
            return (Text("Komi %(komi)d, button available", komi=state.komi) if capital
                    else Text("komi %(komi)d, button available", komi=state.komi))
        holder = self.seat_names(state)[state.button]
        return (Text("Komi %(komi)d, button held by %(seat)s", komi=state.komi, seat=holder)
                if capital else
                Text("komi %(komi)d, button held by %(seat)s", komi=state.komi, seat=holder))

    def seat_names(self, state: StigmergyState) -> tuple[str, ...]:
        if state.black_seat is None:
            return SEATS_BEFORE_SIDES
        black, white = COLOUR_NAMES[BLACK], COLOUR_NAMES[WHITE]
        return (black, white) if state.black_seat == 0 else (white, black)

    def describe(self, state: StigmergyState, viewer: int | None = None) -> str:
        if state.passes >= 2:
            return super().describe(state, viewer)
        names = self.seat_names(state)
        if state.komi is None:
            return Text("%(seat)s to name the komi.", seat=names[0])
        if state.black_seat is None:
            return Text("Komi %(komi)d. %(seat)s to choose sides: place Black's first stone, "
                        "or play-second.", komi=state.komi, seat=names[1])
        return Text.joined([self._score_line(state),
                            Text("%(seat)s to move.", seat=names[state.mover])])

    def _score_line(self, state: StigmergyState) -> Text:
        black, white = self.colour_scores(state)
        return Text("Black %(black)s, White %(white)s (%(terms)s).", black=points(black),
                    white=points(white), terms=self._terms(state))

    # -- drawing -----------------------------------------------------------------------------

    def move_cells(self, move: StigmergyMove) -> tuple[str, ...]:
        return move.cells if isinstance(move, HexMove) else ()

    def _header(self, state: StigmergyState) -> list[str]:
        if state.komi is None:
            return [Text("Komi not named yet"), self.describe(state)]
        black, white = self.colour_scores(state)
        names = self.seat_names(state)
        lines: list[str] = [Text("%(terms)s · Black %(black)s · White %(white)s",
                                 terms=self._terms(state, capital=True), black=points(black),
                                 white=points(white))]
        if state.passes >= 2:
            lines.append(self._result_line(state))
        elif state.black_seat is None:
            lines.append(Text("%(seat)s to choose sides", seat=names[1]))
        else:
            lines.append(Text("%(seat)s to move", seat=names[state.mover]))
        return lines

    def _result_line(self, state: StigmergyState) -> Text:
        """The first sentence of the description of a finished game: who won."""
        described = self.describe(state)
        first = described.parts[0] if isinstance(described, Text) and described.parts else described
        return first if isinstance(first, Text) else Text.verbatim(first.split(". ")[0] + ".")

    def _stones(self, state: StigmergyState) -> dict[int, str]:
        return {c: "black" if ch == "B" else "white" for c, ch in enumerate(state.board)
                if ch != "."}

    def piece_list(self, state: StigmergyState, viewer: int | None = None) -> str:
        return stone_list(self.board, self._stones(state), STONE_NAMES, STONE_LISTS)

    def render_svg(
        self,
        state: StigmergyState,
        viewer: int | None = None,
        last_move: StigmergyMove | str | None = None,
        cell_href: CellHref | None = None,
        *,
        chosen: Sequence[str] | None = None,
        translator: Translator = ENGLISH,
        over: bool = False,
    ) -> str:
        _, _, black_ctrl, white_ctrl = self._analyse(state)
        stones = self._stones(state)
        dots = {c: "black" if black_ctrl >> c & 1 else "white" for c in range(self.board.size)
                if c not in stones and (black_ctrl | white_ctrl) >> c & 1}
        last = self.last_move_of(last_move)
        marks = [self.board.index(cell) for cell in self.move_cells(last)
                 if cell in self.board] if last is not None else []
        own = None
        if viewer is not None and state.black_seat is not None:
            own = "black" if viewer == state.black_seat else "white"
        picked, targets = selection(self, state, self.board, chosen)
        header, described = self._header(state), self.describe(state, viewer)
        if over and self.outcome(state) is None:  # ended off the board: the scores, no turn
            header = [*header[:-1], Text("Game over")]
            described = (Text.joined([self._score_line(state), Text("Game over.")])
                         if state.black_seat is not None else Text("Game over."))
        return draw_hex_board(self.board, stones=stones, dots=dots, marks=marks,
                              cell_href=cell_href, header=header,
                              title=Text("Stigmergy"), names=STONE_NAMES, own=own,
                              dot_names=DOT_NAMES, chosen=picked, targets=targets,
                              alt=Text.joined([Text("Stigmergy."), described,
                                               self.piece_list(state, viewer)]),
                              translator=translator)

    def render_text(self, state: StigmergyState, viewer: int | None = None) -> str:
        """Rows from the top: B/W stones, b/w empty cells Black/White controls, . the rest."""
        _, _, black_ctrl, white_ctrl = self._analyse(state)
        rows = []
        for number, (start, end) in reversed(list(enumerate(self.board.row_ranges(), 1))):
            marks = []
            for c in range(start, end):
                ch = state.board[c]
                if ch == ".":
                    ch = "b" if black_ctrl >> c & 1 else "w" if white_ctrl >> c & 1 else "."
                marks.append(ch)
            indent = " " * abs(number - self.side)
            rows.append(f"{number:>2} {indent}{' '.join(marks)}")
        return Text.joined([*self._header(state), *rows], "\n")

