"""How a Mosey position is drawn and told: the SVG board, the text board, the status line
(:class:`MoseyPresentation`, which each game of the family makes of itself). It asks the rules
for ``board``, ``order``, ``outcome`` and the game's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.base import CellHref, Ending, Presentation
from engine.games.mosey.state import MoseyState
from engine.hexboard import HexMove
from engine.hexsvg import counted, draw_hex_board, selection, stone_list
from engine.text import ENGLISH, Text, Translator

if TYPE_CHECKING:  # the rules make their presentation from this module
    from engine.games.mosey.rules import MoseyGame  # noqa: F401 (named in a string below)

SEATS = (Text("Light"), Text("Dark"))
STONE_NAMES = {"white": Text("Light stone"), "black": Text("Dark stone")}
STONE_LISTS = {"white": counted("Light stone: %(cells)s.", "Light stones: %(cells)s."),
               "black": counted("Dark stone: %(cells)s.", "Dark stones: %(cells)s.")}


class MoseyPresentation(Presentation["MoseyGame", MoseyState, HexMove]):
    """Status lines and drawings of Mosey positions."""

    def _status(self, state: MoseyState) -> Text:
        result = self.game.outcome(state)
        if result is None:
            return Text("%(seat)s to move", seat=SEATS[state.mover])
        return Text("%(seat)s won", seat=SEATS[result.winners[0]])

    def _stones_left(self, state: MoseyState) -> Text:
        return Text("Stones left: Light %(light)d, Dark %(dark)d",
                    light=state.light.bit_count(), dark=state.dark.bit_count())

    def _stones(self, state: MoseyState) -> dict[int, str]:
        size = self.game.board.size
        stones = {i: "white" for i in range(size) if (state.light >> i) & 1}
        stones.update({i: "black" for i in range(size) if (state.dark >> i) & 1})
        return stones

    def piece_list(self, state: MoseyState, viewer: int | None = None) -> Text:
        return stone_list(self.game.board, self._stones(state), STONE_NAMES, STONE_LISTS)

    def render_svg(
        self,
        state: MoseyState,
        viewer: int | None = None,
        last_move: HexMove | str | None = None,
        cell_href: CellHref | None = None,
        *,
        chosen: Sequence[str] | None = None,
        translator: Translator = ENGLISH,
        ending: Ending | None = None,
    ) -> str:
        game, board = self.game, self.game.board
        stones = self._stones(state)
        ended = game.ended_off_board(state, ending)  # nobody is to move
        move = game.last_move_of(last_move)
        marks = [board.index(c) for c in move.cells if c in board] if move else []
        picked, targets = selection(game, state, board, chosen)
        title = Text("%(game)s, board of side %(order)d", game=game.name_text, order=game.order)
        return draw_hex_board(
            board, stones=stones, marks=marks, cell_href=cell_href,
            header=[Text("%(game)s: game over", game=game.name_text) if ended else
                    Text("%(game)s: %(status)s", game=game.name_text, status=self._status(state))],
            footer=[self._stones_left(state)],
            title=title, names=STONE_NAMES, own=("white", "black")[viewer] if viewer in (0, 1)
            else None, chosen=picked, targets=targets,
            alt=Text.joined([Text("%(game)s, board of side %(order)d.", game=game.name_text,
                                  order=game.order),
                             Text("Game over.") if ended else game.describe(state, viewer),
                             self.piece_list(state, viewer)]),
            translator=translator,
        )

    def render_text(self, state: MoseyState, viewer: int | None = None) -> str:
        """The board as text, top row first: O is Light, X is Dark, . is empty.

        >>> from engine.games.mosey.rules import Mosey
        >>> print(Mosey().presentation.render_text(Mosey().start()).splitlines()[-3])
         1     . O X . E
        """
        n = self.game.order
        rows: dict[int, list[str]] = {}
        width = 4 * n - 1
        for i, (q, r) in enumerate(self.game.board.coords):
            line = rows.setdefault(r, [" "] * (width + 2))
            symbol = "O" if (state.light >> i) & 1 else "X" if (state.dark >> i) & 1 else "."
            line[2 * q - r + n - 1] = symbol
        for q in range(n, 2 * n - 1):
            rows[q - n][q + 2 * n - 1] = chr(ord("A") + q)  # below the column's lowest cell
        letters = [" "] * (width + 2)
        for q in range(n):
            letters[2 * q + n] = chr(ord("A") + q)
        lines: list[str] = [Text("%(game)s: %(status)s (O Light, X Dark)", game=self.game.name_text,
                                 status=self._status(state))]
        lines += [f"{r + 1:2}  {''.join(rows[r]).rstrip()}" for r in sorted(rows, reverse=True)]
        lines.append("    " + "".join(letters).rstrip())
        lines.append(self._stones_left(state))
        return Text.joined(lines, "\n")
