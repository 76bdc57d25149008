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
>>> game.why_illegal(state, game.parse_move("G7-G6"))
'G7-G6 does not make a larger group: a lone stone must end next to a friend'
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from engine.base import (
    JSON,
    Game,
    GameInfo,
    IllegalMove,
    Option,
    Outcome,
    Term,
    marked,
)
from engine.games.mosey import terms
from engine.games.mosey.drawing import SEATS, MoseyPresentation
from engine.games.mosey.fast import native_rules, playout_rules
from engine.games.mosey.moves import Movement, explain, has_move, legal_triples, stone_moves
from engine.games.mosey.state import DARK, LIGHT, SETUPS, MoseyState
from engine.hexboard import HexBoard, HexMove, hex_board
from engine.text import ENGLISH, N_, Text, Translator

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


class MoseyGame(Game[MoseyState, HexMove]):
    """What the six games share; subclasses set ``info``, ``movement`` and ``last_mover_wins``."""

    movement: ClassVar[Movement]
    last_mover_wins: ClassVar[bool]

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self.order = int(self.options["order"])
        self.board: HexBoard = hex_board(self.order)
        self.presentation = MoseyPresentation(self)

    @property
    def name_text(self) -> Text:
        """The game's name inside a sentence (translated with it)."""
        return marked(self.info.name)

    def glossary(self, translator: Translator = ENGLISH) -> list[Term]:
        return terms.glossary(self.options, translator)

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
        over = not self._has_move(own, enemy)
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

    def fixed_seat_names(self) -> tuple[Text, ...]:
        return SEATS

    # -- moves ---------------------------------------------------------------------------------

    def _has_move(self, own: int, enemy: int) -> bool:
        """Whether the player with ``own`` can move: by the native core where it is built (the
        same answer, faster), else by the rules as written."""
        core = native_rules(self.order, self.movement)
        if core is not None:
            return core.has_move(own, enemy)
        return has_move(self.board, self.movement, own, enemy)

    def _triples(self, own: int, enemy: int) -> list[tuple[int, int, bool]]:
        """Every legal (origin, target, capture), unsorted: as :meth:`_has_move` decides."""
        core = native_rules(self.order, self.movement)
        if core is not None:
            return [(o, t, bool((enemy >> t) & 1)) for o, t in core.moves(own, enemy)]
        return legal_triples(self.board, self.movement, own, enemy)

    def _sides(self, state: MoseyState) -> tuple[int, int]:
        return (state.dark, state.light) if state.mover else (state.light, state.dark)

    def list_moves(self, state: MoseyState) -> list[HexMove]:
        labels = self.board.labels
        own, enemy = self._sides(state)
        moves = [HexMove(origin=labels[o], target=labels[t], capture=c)
                 for o, t, c in self._triples(own, enemy)]
        return sorted(moves, key=str)

    def parse_move(self, text: str) -> HexMove:
        """Read ``C2-E2`` or ``C2xE4`` (any case, spaces allowed); there is no pass."""
        move = HexMove.parse(text, words=("pass",), examples=("C2-E2", "C2xE4"))
        if move.word is not None:
            raise IllegalMove(Text("passing is not allowed in %(game)s", game=self.name_text))
        if move.origin is None or move.target is None:
            raise IllegalMove(Text("%(move)s is not a move in %(game)s: move a stone, "
                                   "e.g. C2-E2 or C2xE4", move=str(move), game=self.name_text))
        self.board.index(move.origin)
        self.board.index(move.target)
        return move

    def why_illegal(self, state: MoseyState, move: HexMove) -> Text | None:
        if move.origin is None or move.target is None:
            return Text("%(move)s is not a move in %(game)s", move=str(move), game=self.name_text)
        if move.origin not in self.board or move.target not in self.board:
            return Text("%(move)s leaves the board", move=str(move))
        own, enemy = self._sides(state)
        origin, target = self.board.index(move.origin), self.board.index(move.target)
        if (own >> origin) & 1 and (target, move.capture) in stone_moves(
                self.board, self.movement, own, enemy, origin):
            return None
        return explain(self.board, self.movement, own, enemy, origin, target, move.capture,
                       self.name_text)

    def apply(self, state: MoseyState, move: HexMove) -> MoseyState:
        assert move.origin is not None and move.target is not None
        origin, target = self.board.index(move.origin), self.board.index(move.target)
        own, enemy = self._sides(state)
        own ^= (1 << origin) | (1 << target)
        enemy &= ~(1 << target)
        over = not self._has_move(enemy, own)
        light, dark = (enemy, own) if state.mover else (own, enemy)
        return MoseyState(light, dark, 1 - state.mover, state.ply + 1, over)

    def move_cells(self, move: HexMove) -> tuple[str, ...]:
        return move.cells

    def playout(
        self, state: MoseyState, rng: random.Random, max_plies: int = 100_000
    ) -> MoseyState:
        """Uniformly random legal moves to the end, on the bitboards of ``fast`` (compiled where
        the native core is built: the same moves for the same ``rng``)."""
        if state.over:
            return state
        fast = playout_rules(self.order, self.movement)
        light, dark, mover, plies = fast.playout(state.light, state.dark, state.mover, rng,
                                                 max_plies)
        return MoseyState(light, dark, mover, state.ply + plies, True)

    # -- the result ----------------------------------------------------------------------------

    def final_outcome(self, state: MoseyState) -> Outcome:
        stuck, last = state.mover, 1 - state.mover
        winner = last if self.last_mover_wins else stuck
        has_stones = state.dark if stuck else state.light
        values = {"seat": SEATS[stuck], "game": self.name_text}
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
