"""The Mosey family (Dale W. Walton, 2021): six games on one board that differ in how stones move.

Light and Dark start on every third cell of a hexhex board; Light moves first and nobody passes.
In Mosey and Don't Mosey a stone slides toward a friend further along its line; in the other four
it steps to join a larger group or slides to capture, with a priority that differs per game. The
game ends when the player to move has no move; the last mover wins or loses, per game. Rules:
docs/rules/mosey.md.

>>> game = Conflagration(order=4)
>>> state = game.play(game.start(), "c6 x c4")
>>> game.to_move(state), len(game.legal_moves(state))
(1, 69)
>>> state = game.position(light=["C3", "E3", "G7"], dark=["C5"])
>>> [str(move) for move in game.legal_moves(state)]
['C3-D3', 'C3xC5', 'E3-D3']
>>> game.explain_illegal(state, game.parse_move("G7-G6"))
'G7-G6 does not make a larger group: a lone stone must end next to a friend'
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.base import (
    JSON,
    CellHref,
    Game,
    GameInfo,
    IllegalMove,
    NumberChoice,
    Option,
    Outcome,
    marked,
)
from engine.games.mosey.fast import fast_rules
from engine.games.mosey.moves import Movement, explain, has_move, legal_triples, stone_moves
from engine.hexboard import HexBoard, HexMove, hex_board
from engine.hexsvg import counted, draw_hex_board, selection, stone_list
from engine.text import ENGLISH, N_, Text, Translator

SEATS = (Text("Light"), Text("Dark"))
STONE_NAMES = {"white": Text("Light stone"), "black": Text("Dark stone")}
STONE_LISTS = {"white": counted("Light stone: %(cells)s.", "Light stones: %(cells)s."),
               "black": counted("Dark stone: %(cells)s.", "Dark stones: %(cells)s.")}
LIGHT, DARK = 0, 1

# Every third cell in a 3-colouring: Light and Dark take two colours, the third starts empty.
SETUPS: dict[int, tuple[str, str]] = {
    4: ("B1 A2 D2 C3 F3 B4 E4 D5 G5 C6 F6 E7",
        "C1 B2 E2 A3 D3 C4 F4 B5 E5 D6 G6 F7"),
    5: ("A1 D1 C2 F2 B3 E3 A4 D4 G4 C5 F5 I5 B6 E6 H6 D7 G7 F8 I8 E9 H9",
        "B1 E1 A2 D2 C3 F3 B4 E4 H4 A5 D5 G5 C6 F6 I6 E7 H7 D8 G8 F9 I9"),
    6: ("A1 D1 C2 F2 B3 E3 H3 A4 D4 G4 C5 F5 I5 B6 E6 H6 K6 D7 G7 J7 C8 F8 I8 E9 H9 K9 G10 J10 "
        "F11 I11",
        "C1 F1 B2 E2 A3 D3 G3 C4 F4 I4 B5 E5 H5 A6 D6 G6 J6 C7 F7 I7 E8 H8 K8 D9 G9 J9 F10 I10 "
        "H11 K11"),
}

ORDER = Option("order", N_("Board size"), (4, 5, 6), 4,
               N_("hexhex board of side 4 (37 cells, 12 stones each), 5 (61, 21) or 6 (91, 30)"))

# Each game's summary is one message for the translators: the games differ in a sentence or two.
_SUMMARIES = {
    "mosey": N_(
        "Light and Dark start with stones on every third cell of a hexagonal board; Light moves "
        "first and nobody may pass. On your turn slide one of your stones along a line over empty "
        "cells toward a friendly stone further along that line (it need not be in sight). It stops "
        "either on an empty cell where it joins a larger group of your stones than the one it "
        "left, or on the first enemy stone in its way, which it captures. When the player to move "
        "has no move, the game ends and the player who moved last wins."),
    "dont-mosey": N_(
        "Light and Dark start with stones on every third cell of a hexagonal board; Light moves "
        "first and nobody may pass. On your turn slide one of your stones along a line over empty "
        "cells toward a friendly stone further along that line (it need not be in sight). It stops "
        "either on an empty cell where it joins a larger group of your stones than the one it "
        "left, or on the first enemy stone in its way, which it captures. When the player to move "
        "has no move, the game ends and the player who moved last loses."),
    "keep-a-riding": N_(
        "Light and Dark start with stones on every third cell of a hexagonal board; Light moves "
        "first and nobody may pass. On your turn either step a stone to a neighbouring empty cell "
        "where it joins a larger group of your stones than the one it left, or slide it along a "
        "line over empty cells onto an enemy stone, which it captures. A stone may capture only if "
        "it cannot step. When the player to move has no move, the game ends and the player who "
        "moved last wins."),
    "firestorm": N_(
        "Light and Dark start with stones on every third cell of a hexagonal board; Light moves "
        "first and nobody may pass. On your turn either step a stone to a neighbouring empty cell "
        "where it joins a larger group of your stones than the one it left, or slide it along a "
        "line over empty cells onto an enemy stone, which it captures. A stone may capture only if "
        "it cannot step. When the player to move has no move, the game ends and the player who "
        "moved last loses."),
    "conflagration": N_(
        "Light and Dark start with stones on every third cell of a hexagonal board; Light moves "
        "first and nobody may pass. On your turn either step a stone to a neighbouring empty cell "
        "where it joins a larger group of your stones than the one it left, or slide it along a "
        "line over empty cells onto an enemy stone, which it captures. Any stone may do either. "
        "When the player to move has no move, the game ends and the player who moved last loses."),
    "backfire": N_(
        "Light and Dark start with stones on every third cell of a hexagonal board; Light moves "
        "first and nobody may pass. On your turn either step a stone to a neighbouring empty cell "
        "where it joins a larger group of your stones than the one it left, or slide it along a "
        "line over empty cells onto an enemy stone, which it captures. A stone may step only if it "
        "cannot capture. When the player to move has no move, the game ends and the player who "
        "moved last loses."),
}


@dataclass(frozen=True)
class MoseyState:
    """A position: bitmasks of Light's and Dark's stones over cell indices, and whose turn it is.

    ``over`` says that ``mover`` has no move: the game has ended. Build states with
    :meth:`MoseyGame.position` (or ``start``/``play``), which work it out.
    """

    light: int
    dark: int
    mover: int = LIGHT
    ply: int = 0
    over: bool = False


class MoseyGame(Game[MoseyState, HexMove]):
    """What the six games share; subclasses set ``info``, ``movement`` and ``last_mover_wins``."""

    movement: ClassVar[Movement]
    last_mover_wins: ClassVar[bool]

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self.order = int(self.options["order"])
        self.board: HexBoard = hex_board(self.order)

    # -- positions -----------------------------------------------------------------------------

    def position(
        self, light: Iterable[str], dark: Iterable[str], mover: int = LIGHT, ply: int = 0
    ) -> MoseyState:
        """The position with stones on the named cells and ``mover`` to move.

        >>> game = Mosey()
        >>> game.to_move(game.position(["D4"], ["A1", "G4"], mover=1)) is None
        True
        """
        light_mask, dark_mask = self._mask(light), self._mask(dark)
        if light_mask & dark_mask:
            raise ValueError("a cell cannot hold a Light and a Dark stone at once")
        if mover not in (LIGHT, DARK):
            raise ValueError(f"mover must be 0 (Light) or 1 (Dark), not {mover!r}")
        own, enemy = (dark_mask, light_mask) if mover else (light_mask, dark_mask)
        over = not has_move(self.board, self.movement, own, enemy)
        return MoseyState(light_mask, dark_mask, mover, ply, over)

    def _mask(self, cells: Iterable[str]) -> int:
        return sum({1 << self.board.index(cell) for cell in cells})

    def _cells(self, mask: int) -> list[str]:
        return [label for i, label in enumerate(self.board.labels) if (mask >> i) & 1]

    def start(self, seed: int | str | None = None) -> MoseyState:
        light, dark = SETUPS[self.order]
        return self.position(light.split(), dark.split())

    def to_move(self, state: MoseyState) -> int | None:
        return None if state.over else state.mover

    def seat_names(self, state: MoseyState) -> tuple[str, ...]:
        return SEATS

    # -- moves ---------------------------------------------------------------------------------

    def _sides(self, state: MoseyState) -> tuple[int, int]:
        return (state.dark, state.light) if state.mover else (state.light, state.dark)

    def legal_moves(self, state: MoseyState) -> list[HexMove | NumberChoice]:
        if state.over:
            return []
        labels = self.board.labels
        own, enemy = self._sides(state)
        moves = [HexMove(origin=labels[o], target=labels[t], capture=c)
                 for o, t, c in legal_triples(self.board, self.movement, own, enemy)]
        return sorted(moves, key=str)

    def parse_move(self, text: str) -> HexMove:
        """Read ``C2-E2`` or ``C2xE4`` (any case, spaces allowed); there is no pass."""
        move = HexMove.parse(text, words=("pass",))
        if move.word is not None:
            raise IllegalMove(Text("passing is not allowed in %(game)s", game=self._name))
        if move.origin is None or move.target is None:
            raise IllegalMove(Text("%(move)s is not a move in %(game)s: move a stone, "
                                   "e.g. C2-E2 or C2xE4", move=str(move), game=self._name))
        self.board.index(move.origin)
        self.board.index(move.target)
        return move

    def is_legal(self, state: MoseyState, move: HexMove) -> bool:
        if state.over or move.origin is None or move.target is None:
            return False
        if move.origin not in self.board or move.target not in self.board:
            return False
        origin, target = self.board.index(move.origin), self.board.index(move.target)
        own, enemy = self._sides(state)
        if not (own >> origin) & 1:
            return False
        return (target, move.capture) in stone_moves(self.board, self.movement, own, enemy, origin)

    def explain_illegal(self, state: MoseyState, move: HexMove) -> str:
        if state.over:
            return Text("the game is over")
        if move.origin is None or move.target is None:
            return Text("%(move)s is not a move in %(game)s", move=str(move), game=self._name)
        if move.origin not in self.board or move.target not in self.board:
            return Text("%(move)s leaves the board", move=str(move))
        own, enemy = self._sides(state)
        origin, target = self.board.index(move.origin), self.board.index(move.target)
        return explain(self.board, self.movement, own, enemy, origin, target, move.capture,
                       self._name)

    def apply(self, state: MoseyState, move: HexMove) -> MoseyState:
        assert move.origin is not None and move.target is not None
        origin, target = self.board.index(move.origin), self.board.index(move.target)
        own, enemy = self._sides(state)
        own ^= (1 << origin) | (1 << target)
        enemy &= ~(1 << target)
        over = not has_move(self.board, self.movement, enemy, own)
        light, dark = (enemy, own) if state.mover else (own, enemy)
        return MoseyState(light, dark, 1 - state.mover, state.ply + 1, over)

    def move_cells(self, move: HexMove) -> tuple[str, ...]:
        return move.cells

    def playout(
        self, state: MoseyState, rng: random.Random, max_plies: int = 100_000
    ) -> MoseyState:
        """Uniformly random legal moves to the end, on the bitboards of ``fast``."""
        if state.over:
            return state
        fast = fast_rules(self.order, self.movement)
        light, dark, mover, plies = fast.playout(state.light, state.dark, state.mover, rng,
                                                 max_plies)
        return MoseyState(light, dark, mover, state.ply + plies, True)

    # -- the result ----------------------------------------------------------------------------

    def outcome(self, state: MoseyState) -> Outcome | None:
        if not state.over:
            return None
        stuck, last = state.mover, 1 - state.mover
        winner = last if self.last_mover_wins else stuck
        has_stones = state.dark if stuck else state.light
        values = {"seat": SEATS[stuck], "game": self._name}
        if has_stones and self.last_mover_wins:
            reason = Text("%(seat)s has no move; in %(game)s the last player to move wins",
                          **values)
        elif has_stones:
            reason = Text("%(seat)s has no move; in %(game)s the last player to move loses",
                          **values)
        elif self.last_mover_wins:
            reason = Text("%(seat)s has no stones left; in %(game)s the last player to move wins",
                          **values)
        else:
            reason = Text("%(seat)s has no stones left; in %(game)s the last player to move loses",
                          **values)
        return Outcome(
            winners=(winner,),
            scores=(float(state.light.bit_count()), float(state.dark.bit_count())),
            reason=reason,
        )

    # -- storage -------------------------------------------------------------------------------

    def encode(self, state: MoseyState) -> JSON:
        return {"light": self._cells(state.light), "dark": self._cells(state.dark),
                "mover": state.mover, "ply": state.ply}

    def decode(self, data: Mapping[str, Any]) -> MoseyState:
        try:
            return self.position(data["light"], data["dark"], int(data["mover"]),
                                 int(data.get("ply", 0)))
        except (KeyError, TypeError) as error:
            raise ValueError(f"not a {self.info.name} position: {error}") from None

    # -- drawing -------------------------------------------------------------------------------

    @property
    def _name(self) -> Text:
        return marked(self.info.name)

    def _status(self, state: MoseyState) -> Text:
        result = self.outcome(state)
        if result is None:
            return Text("%(seat)s to move", seat=SEATS[state.mover])
        return Text("%(seat)s won", seat=SEATS[result.winners[0]])

    def _stones_left(self, state: MoseyState) -> Text:
        return Text("Stones left: Light %(light)d, Dark %(dark)d",
                    light=state.light.bit_count(), dark=state.dark.bit_count())

    def _stones(self, state: MoseyState) -> dict[int, str]:
        stones = {i: "white" for i in range(self.board.size) if (state.light >> i) & 1}
        stones.update({i: "black" for i in range(self.board.size) if (state.dark >> i) & 1})
        return stones

    def piece_list(self, state: MoseyState, viewer: int | None = None) -> str:
        return stone_list(self.board, self._stones(state), STONE_NAMES, STONE_LISTS)

    def render_svg(
        self,
        state: MoseyState,
        viewer: int | None = None,
        last_move: HexMove | str | None = None,
        cell_href: CellHref | None = None,
        *,
        chosen: Sequence[str] | None = None,
        translator: Translator = ENGLISH,
        over: bool = False,
    ) -> str:
        stones = self._stones(state)
        ended = over and self.outcome(state) is None  # ended off the board: nobody is to move
        move = self.last_move_of(last_move)
        marks = [self.board.index(c) for c in move.cells if c in self.board] if move else []
        picked, targets = selection(self, state, self.board, chosen)
        title = Text("%(game)s, board of side %(order)d", game=self._name, order=self.order)
        return draw_hex_board(
            self.board, stones=stones, marks=marks, cell_href=cell_href,
            header=[Text("%(game)s: game over", game=self._name) if ended else
                    Text("%(game)s: %(status)s", game=self._name, status=self._status(state))],
            footer=[self._stones_left(state)],
            title=title, names=STONE_NAMES, own=("white", "black")[viewer] if viewer in (0, 1)
            else None, chosen=picked, targets=targets,
            alt=Text.joined([Text("%(game)s, board of side %(order)d.", game=self._name,
                                  order=self.order),
                             Text("Game over.") if ended else self.describe(state, viewer),
                             self.piece_list(state, viewer)]),
            translator=translator,
        )

    def render_text(self, state: MoseyState, viewer: int | None = None) -> str:
        """The board as text, top row first: O is Light, X is Dark, . is empty.

        >>> print(Mosey().render_text(Mosey().start()).splitlines()[-3])
         1     . O X . E
        """
        n = self.order
        rows: dict[int, list[str]] = {}
        width = 4 * n - 1
        for i, (q, r) in enumerate(self.board.coords):
            line = rows.setdefault(r, [" "] * (width + 2))
            symbol = "O" if (state.light >> i) & 1 else "X" if (state.dark >> i) & 1 else "."
            line[2 * q - r + n - 1] = symbol
        for q in range(n, 2 * n - 1):
            rows[q - n][q + 2 * n - 1] = chr(ord("A") + q)  # below the column's lowest cell
        letters = [" "] * (width + 2)
        for q in range(n):
            letters[2 * q + n] = chr(ord("A") + q)
        lines: list[str] = [Text("%(game)s: %(status)s (O Light, X Dark)", game=self._name,
                                 status=self._status(state))]
        lines += [f"{r + 1:2}  {''.join(rows[r]).rstrip()}" for r in sorted(rows, reverse=True)]
        lines.append("    " + "".join(letters).rstrip())
        lines.append(self._stones_left(state))
        return Text.joined(lines, "\n")


class Mosey(MoseyGame):
    info = GameInfo("mosey", N_("Mosey"), 2, 2, (ORDER,),
                    _SUMMARIES["mosey"],
                    aliases=("the-last-scavenger", "last-scavenger"))
    movement = "toward-friend"
    last_mover_wins = True


class DontMosey(MoseyGame):
    info = GameInfo("dont-mosey", N_("Don't Mosey"), 2, 2, (ORDER,),
                    _SUMMARIES["dont-mosey"],
                    aliases=("don't-mosey", "dontmosey"))
    movement = "toward-friend"
    last_mover_wins = False


class KeepARiding(MoseyGame):
    info = GameInfo("keep-a-riding", N_("Keep-a-riding"), 2, 2, (ORDER,),
                    _SUMMARIES["keep-a-riding"],
                    aliases=("shakattrition", "keep-a-ridin"))
    movement = "step-first"
    last_mover_wins = True


class Firestorm(MoseyGame):
    info = GameInfo("firestorm", N_("Firestorm"), 2, 2, (ORDER,),
                    _SUMMARIES["firestorm"],
                    aliases=("shakattrition-misere", "conflagration-firestorm"))
    movement = "step-first"
    last_mover_wins = False


class Conflagration(MoseyGame):
    info = GameInfo("conflagration", N_("Conflagration"), 2, 2, (ORDER,),
                    _SUMMARIES["conflagration"],
                    aliases=("conflagration-standard",))
    movement = "either"
    last_mover_wins = False


class Backfire(MoseyGame):
    info = GameInfo("backfire", N_("Backfire"), 2, 2, (ORDER,),
                    _SUMMARIES["backfire"],
                    aliases=("conflagration-backfire",))
    movement = "capture-first"
    last_mover_wins = False


GAME_CLASSES = (Mosey, DontMosey, KeepARiding, Firestorm, Conflagration, Backfire)
