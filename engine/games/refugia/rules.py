"""Refugia (Dale W. Walton, 2020): place lone discs, flee from enemies, end with the most pairs.

Two players (White moves first) and neutral "mutual enemy" stones. A turn is a pass, a placement on
an empty cell with no own disc next to it, or a move of an own disc to a cell with fewer enemies
around it (opponent discs and neutrals, counted before the move): a step, or a hop over an opponent
disc (which turns neutral) or over a neutral (which becomes the mover's). Two passes in a row end
the game; the most adjacent pairs of own discs wins. Rules decisions: docs/rules/refugia.md.

>>> from engine import new_game
>>> game = new_game("refugia", board="2-3")
>>> state = game.play(game.play(game.start(), "B2"), "C2")  # White places, then Black beside it
>>> game.why_illegal(state, game.parse_move("A2"))
'A2 is next to your own disc'
>>> [str(m) for m in game.legal_moves(state) if "-" in str(m)]  # away from C2, B2 has 0 enemies
['B2-A1', 'B2-A2', 'B2-B3']
>>> game.why_illegal(state, game.parse_move("B2-D2"))  # the hopped C2 still counts at D2
'B2-D2 does not reduce the enemies around your disc (1 -> 1)'
>>> state = game.play(game.play(state, "pass"), "pass")
>>> game.outcome(state).reason
'Adjacent pairs (0) and discs (1) tied; Black made the final pass and loses.'
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from functools import cache, cached_property
from typing import Any

from engine import native
from engine.base import JSON, Game, GameInfo, IllegalMove, Option, Outcome, Term
from engine.games.refugia import terms
from engine.games.refugia.drawing import SEATS, RefugiaPresentation
from engine.games.refugia.state import CELL_CHARS, Groups, RefugiaState, adjacent_pairs, move_groups
from engine.hexboard import HexMove, hex_board, set_bits, shift_back
from engine.text import ENGLISH, N_, Text, Translator

BOARDS = ("2-3", "2-4", "3-4", "3-5", "4-5", "4-6", "5-6", "5-7", "6-7", "6-8")
PASS = HexMove(word="pass")
EXAMPLES = ("B2", "B2-C2", "pass")
"""Moves of each kind (on every board option), for the answer to text that is no move at all."""


class Refugia(Game[RefugiaState, HexMove]):
    info = GameInfo(
        id="refugia",
        name=N_("Refugia"),
        min_players=2,
        max_players=2,
        options=(Option("board", N_("Board"), BOARDS, "3-4",
                        help=N_("a hexagon whose edges alternate between the two lengths")),),
        summary=N_("Place lone discs, then move them only to cells with fewer enemies around "
                   "them, hopping enemy discs to neutralise them and neutral stones to win them "
                   "back. When both pass, the most adjacent pairs of own discs wins."),
    )
    move_words = terms.MOVE_WORDS

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        a, b = (int(n) for n in str(self.options["board"]).split("-"))
        self.board = hex_board(a, b)
        self.geometry = self.board.layout
        self.presentation = RefugiaPresentation(self)

    @cached_property
    def _core(self) -> Any | None:
        """This board's native core (asked for once: a playout on a small board is short)."""
        return native_core(self.options["board"])

    def glossary(self, translator: Translator = ENGLISH) -> list[Term]:
        return terms.glossary(self.options, translator)

    # -- the rules ----------------------------------------------------------------------------

    def start(self, seed: int | str | None = None) -> RefugiaState:
        return RefugiaState(discs=(0, 0), neutral=0)

    def to_move(self, state: RefugiaState) -> int | None:
        return None if state.passes >= 2 else state.turn

    def _groups(self, state: RefugiaState) -> tuple[int, Groups]:
        g, me = self.geometry, state.turn
        return move_groups(g.width, g.full, state.discs[me], state.discs[1 - me], state.neutral)

    def list_moves(self, state: RefugiaState) -> list[HexMove]:
        g, labels = self.geometry, self.board.labels
        place, groups = self._groups(state)
        moves = [PASS]
        moves += [HexMove(target=labels[i]) for i in g.cells(place)]
        for _, origins, land, _ in groups:
            moves += [HexMove(origin=labels[g.cell[bit]], target=labels[g.cell[bit + land]])
                      for bit in set_bits(origins)]
        return sorted(moves, key=str)

    def parse_move(self, text: str) -> HexMove:
        move = HexMove.parse(text, examples=EXAMPLES)
        if move.capture:
            raise IllegalMove(Text("Refugia has no 'x' moves: write a placement as D4, "
                                   "a step or hop as C2-E2, not %(move)s",
                                   move=repr(text.strip())))
        for label in move.cells:
            self.board.index(label)  # raises for a cell that is not on this board
        return move

    def occupant(self, state: RefugiaState, cell: int) -> int:
        """0 empty, 1 White, 2 Black, 3 neutral (the index into CELL_CHARS)."""
        bit = 1 << self.geometry.bits[cell]
        white, black = state.discs
        return 1 if white & bit else 2 if black & bit else 3 if state.neutral & bit else 0

    def _enemies(self, state: RefugiaState, cell: int) -> int:
        foes = (2 - state.turn, 3)
        return sum(self.occupant(state, n) in foes for n in self.board.adjacent[cell])

    def why_illegal(self, state: RefugiaState, move: HexMove) -> Text | None:
        """The reason ``move`` is illegal, or None: a cell-by-cell second reading of the rules
        (``list_moves`` reads them on bitboards; the tests hold the two to the same moves)."""
        if move.word is not None or move.target is None or move.capture:
            return None if move == PASS else Text("%(move)s is not a Refugia move", move=str(move))
        own, board = 1 + state.turn, self.board
        origin = None if move.origin is None else board.index(move.origin)
        if origin is not None and self.occupant(state, origin) != own:
            return Text("%(cell)s is not your disc", cell=board.labels[origin])
        target = board.index(move.target)
        if self.occupant(state, target):
            return Text("%(cell)s is occupied", cell=move.target)
        if origin is None:
            if any(self.occupant(state, n) == own for n in board.adjacent[target]):
                return Text("%(cell)s is next to your own disc", cell=move.target)
            return None
        line = board.direction(origin, target)
        if line is None or line[1] > 2:
            return Text("%(move)s is neither a step to a neighbouring cell nor a hop over one "
                        "stone", move=str(move))
        over = board.between(origin, target)
        if over is not None:
            kind = self.occupant(state, over)
            if kind == 0:
                return Text("%(move)s would hop over an empty cell on %(cell)s", move=str(move),
                            cell=board.labels[over])
            if kind == own:
                return Text("%(move)s would hop over your own disc on %(cell)s", move=str(move),
                            cell=board.labels[over])
        before, after = self._enemies(state, origin), self._enemies(state, target)
        if after >= before:
            return Text("%(move)s does not reduce the enemies around your disc "
                        "(%(before)d -> %(after)d)", move=str(move), before=before, after=after)
        return None

    def apply(self, state: RefugiaState, move: HexMove) -> RefugiaState:
        me = state.turn
        if move.word is not None:
            return RefugiaState(state.discs, state.neutral, 1 - me, state.passes + 1)
        g, board = self.geometry, self.board
        assert move.target is not None
        target = board.index(move.target)
        own, opp, neutral = state.discs[me], state.discs[1 - me], state.neutral
        own |= 1 << g.bits[target]
        if move.origin is not None:
            origin = board.index(move.origin)
            own ^= 1 << g.bits[origin]
            jumped = board.between(origin, target)
            if jumped is not None:
                over = 1 << g.bits[jumped]
                if opp & over:  # an opponent disc turns neutral
                    opp, neutral = opp ^ over, neutral | over
                else:  # a neutral stone becomes the mover's
                    own, neutral = own | over, neutral ^ over
        discs = (own, opp) if me == 0 else (opp, own)
        return RefugiaState(discs, neutral, 1 - me, 0)

    def fixed_seat_names(self) -> tuple[Text, ...]:
        return SEATS

    def move_cells(self, move: HexMove) -> tuple[str, ...]:
        return move.cells

    def describe(self, state: RefugiaState, viewer: int | None = None) -> Text:
        if state.passes >= 2:
            return super().describe(state, viewer)
        if state.passes:
            return Text("%(seat)s to move (the last move was a pass).", seat=SEATS[state.turn])
        return Text("%(seat)s to move.", seat=SEATS[state.turn])

    def scores(self, state: RefugiaState) -> tuple[int, int]:
        """Adjacent pairs of own discs for each seat."""
        shifts = self.geometry.shifts
        return adjacent_pairs(shifts, state.discs[0]), adjacent_pairs(shifts, state.discs[1])

    def final_outcome(self, state: RefugiaState) -> Outcome:
        scores = self.scores(state)
        counts = tuple(d.bit_count() for d in state.discs)
        if scores[0] != scores[1]:
            win = int(scores[1] > scores[0])
            reason = Text("%(seat)s has more adjacent pairs (%(pairs)d to %(other)d).",
                          seat=SEATS[win], pairs=scores[win], other=scores[1 - win])
        elif counts[0] != counts[1]:
            win = int(counts[1] > counts[0])
            reason = Text("Adjacent pairs tied at %(pairs)d; %(seat)s has more discs "
                          "(%(discs)d to %(other)d).", pairs=scores[0], seat=SEATS[win],
                          discs=counts[win], other=counts[1 - win])
        else:
            win = state.turn  # the final pass was made by the other seat, who loses
            reason = Text("Adjacent pairs (%(pairs)d) and discs (%(discs)d) tied; "
                          "%(seat)s made the final pass and loses.", pairs=scores[0],
                          discs=counts[0], seat=SEATS[1 - win])
        return Outcome(winners=(win,), scores=(scores[0], scores[1]), reason=reason)

    # -- fast random playouts -------------------------------------------------------------------

    def playout(self, state: RefugiaState, rng: random.Random,
                max_plies: int = 100_000) -> RefugiaState:
        """Uniformly random legal moves (pass included) until two passes; bitboards throughout."""
        if native.enabled() and self._core is not None:  # one call less: playouts are short
            final: RefugiaState = self._core.random_plies(state, rng, max_plies)
        else:
            final = self.random_plies(state, rng, max_plies)
        if final.passes < 2:
            raise RuntimeError(f"{self!r}: no end after {max_plies} plies")
        return final

    def random_plies(self, state: RefugiaState, rng: random.Random, plies: int) -> RefugiaState:
        """The position after ``plies`` uniformly random legal moves, or at the end if sooner.

        Each ply draws one of exactly the moves ``legal_moves`` lists, all equally likely. The
        native core (:mod:`engine.native`), where built, draws the same moves for the same ``rng``.
        """
        if native.enabled() and self._core is not None:
            end: RefugiaState = self._core.random_plies(state, rng, plies)
            return end
        g = self.geometry
        width, full = g.width, g.full
        discs, neutral, turn, passes = list(state.discs), state.neutral, state.turn, state.passes
        randrange = rng.randrange
        for _ in range(plies):
            if passes >= 2:
                break
            own, opp = discs[turn], discs[1 - turn]
            place, groups = move_groups(width, full, own, opp, neutral)
            n_place = place.bit_count()
            total = n_place + 1
            for group in groups:
                total += group[0]
            pick = randrange(total) - 1
            if pick < 0:
                passes += 1
                turn = 1 - turn
                continue
            passes = 0
            if pick < n_place:
                discs[turn] = own | _nth_bit(place, pick)
                turn = 1 - turn
                continue
            pick -= n_place
            for group in groups:
                if pick < group[0]:
                    break
                pick -= group[0]
            _, origins, land, jump = group
            origin = _nth_bit(origins, pick)
            own ^= origin | shift_back(origin, -land)
            if jump:
                over = shift_back(origin, -jump)
                if opp & over:
                    opp ^= over
                    neutral |= over
                else:
                    own |= over
                    neutral ^= over
            discs[turn], discs[1 - turn] = own, opp
            turn = 1 - turn
        return RefugiaState((discs[0], discs[1]), neutral, turn, passes)

    # -- storage and display --------------------------------------------------------------------

    def encode(self, state: RefugiaState) -> JSON:
        cells = "".join(CELL_CHARS[self.occupant(state, i)] for i in range(self.board.size))
        return {"cells": cells, "turn": state.turn, "passes": state.passes}

    def decode(self, data: Mapping[str, Any]) -> RefugiaState:
        cells, turn, passes = str(data["cells"]), int(data["turn"]), int(data["passes"])
        if len(cells) != self.board.size or set(cells) - set(CELL_CHARS):
            raise ValueError(f"not a Refugia {self.options['board']} position: {cells!r}")
        if turn not in (0, 1) or not 0 <= passes <= 2:
            raise ValueError(f"bad turn {turn} or passes {passes}")
        g = self.geometry
        masks = [g.mask([i for i, ch in enumerate(cells) if ch == kind]) for kind in "WBN"]
        return RefugiaState((masks[0], masks[1]), masks[2], turn, passes)


@cache
def native_core(board: object) -> Any | None:
    """The compiled random plies for a board option (``_native.pyx``), or None: not built."""
    module = native.load("engine.games.refugia")
    if module is None:
        return None
    a, b = (int(n) for n in str(board).split("-"))
    layout = hex_board(a, b).layout
    return module.NativeRefugia(layout.width, layout.full)


def _nth_bit(mask: int, n: int) -> int:
    """The n-th lowest set bit of ``mask`` (from 0), as a one-bit mask."""
    for _ in range(n):
        mask &= mask - 1
    return mask & -mask


GAME_CLASSES = (Refugia,)
