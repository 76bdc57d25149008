"""Stigmergy (Steve Metzger and Luis Bolaños Mures, 2021): a territory game of lines of sight.

Place a stone on any empty cell your opponent does not control, or replace an enemy stone on a cell
you control; two successive passes end the game. Rules decisions: docs/rules/stigmergy.md.

>>> from engine import new_game
>>> game = new_game("stigmergy", size=5)
>>> moves = [str(m) for m in game.legal_moves(game.start())]
>>> moves[:3], len(moves), game.number_range(game.start()).high
(['-62', '-61', '-60'], 125, 62)
>>> state = game.play(game.play(game.start(), "+7"), "play-second")
>>> game.seat_names(state), game.to_move(state)
(('Black', 'White'), 0)
>>> str(game.legal_moves(state)[-1])
'take-button'
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine.base import JSON, Game, GameInfo, NumberRange, Option, Outcome, Term
from engine.games.stigmergy import terms
from engine.games.stigmergy.drawing import (
    COLOUR_NAMES,
    SEATS_BEFORE_SIDES,
    StigmergyPresentation,
    points,
)
from engine.games.stigmergy.moves import KomiMove, StigmergyMove, parse_move
from engine.games.stigmergy.search import StigmergySearch
from engine.games.stigmergy.state import (
    BLACK,
    CHARS,
    EMPTY,
    WHITE,
    Sight,
    StigmergyState,
    has_button,
    playout,
)
from engine.hexboard import HexMove
from engine.text import ENGLISH, N_, Text, Translator

SIZES = (5, 6, 7, 8, 9, 10)

__all__ = ["GAME_CLASSES", "KomiMove", "Stigmergy", "StigmergyMove", "StigmergyState"]


class Stigmergy(Game[StigmergyState, StigmergyMove]):
    """Stigmergy on a hexhex board, with komi named and sides chosen in two setup turns."""

    info = GameInfo(
        id="stigmergy",
        name=N_("Stigmergy"),
        min_players=2,
        max_players=2,
        options=(
            Option("size", N_("Board side"), SIZES, 8, help=N_("hexhex board of 61 to 271 cells")),
            Option("komi", N_("Komi"), ("negotiate", "none"), "negotiate",
                   help=N_("negotiated: the first player names the komi, the second chooses "
                           "sides; zero: no komi, the first player is Black"),
                   choice_words=(N_("negotiated"), N_("zero"))),
        ),
        summary=N_("A territory game of lines of sight on a hexhex board. A cell is yours when "
                 "more than half as many of your stones see it as it has neighbours. Place on "
                 "any cell your opponent does not control, replace enemy stones on cells you "
                 "control; stones plus controlled cells score."),
    )
    move_words = terms.MOVE_WORDS

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self.side = int(self.options["size"])
        self.sight = Sight.of(self.side)
        self.board = self.sight.board
        self.negotiate = self.options["komi"] == "negotiate"
        self.komi_limit = self.board.size + 1
        self._control_cache: dict[str, tuple[int, int, int, int]] = {}
        self.presentation = StigmergyPresentation(self)

    # -- words -------------------------------------------------------------------------------

    def komi_words(self, state: StigmergyState, capital: bool = False) -> Text:
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

    def seat_names(self, state: StigmergyState) -> tuple[Text, ...]:
        if state.black_seat is None:
            return SEATS_BEFORE_SIDES
        black, white = COLOUR_NAMES[BLACK], COLOUR_NAMES[WHITE]
        return (black, white) if state.black_seat == 0 else (white, black)

    def describe(self, state: StigmergyState, viewer: int | None = None) -> Text:
        if state.passes >= 2:
            return super().describe(state, viewer)
        names = self.seat_names(state)
        if state.komi is None:
            return Text("%(seat)s to name the komi.", seat=names[0])
        if state.black_seat is None:
            return Text("Komi %(komi)d. %(seat)s to choose sides: place Black's first stone, "
                        "or play-second.", komi=state.komi, seat=names[1])
        return Text.joined([self.score_line(state),
                            Text("%(seat)s to move.", seat=names[state.mover])])

    def score_line(self, state: StigmergyState) -> Text:
        black, white = self.colour_scores(state)
        return Text("Black %(black)s, White %(white)s (%(terms)s).", black=points(black),
                    white=points(white), terms=self.komi_words(state))

    def move_cells(self, move: StigmergyMove) -> tuple[str, ...]:
        return move.cells if isinstance(move, HexMove) else ()

    def glossary(self, translator: Translator = ENGLISH) -> list[Term]:
        return terms.glossary(self.options, translator)

    def search(self) -> StigmergySearch:
        return StigmergySearch(self)

    # -- positions ---------------------------------------------------------------------------

    def start(self, seed: int | str | None = None) -> StigmergyState:
        empty = CHARS[EMPTY] * self.board.size
        if self.negotiate:
            return StigmergyState(board=empty, komi=None, black_seat=None)
        return StigmergyState(board=empty, komi=0, black_seat=0)

    def to_move(self, state: StigmergyState) -> int | None:
        return None if state.passes >= 2 else state.mover

    def analyse(self, state: StigmergyState) -> tuple[int, int, int, int]:
        """(Black stones, White stones, cells Black controls, cells White controls)."""
        found = self._control_cache.get(state.board)
        if found is None:
            black, white = state.masks()
            found = (black, white, *self.sight.control(black, white))
            if len(self._control_cache) > 256:
                self._control_cache.clear()
            self._control_cache[state.board] = found
        return found

    def _words(self, state: StigmergyState) -> list[str]:
        """The single-word moves open to the seat to move (sorted)."""
        if state.komi is None:
            return []
        if state.black_seat is None:
            return ["play-second"]
        if self._button_available(state):
            return ["take-button"]
        black, white, black_ctrl, white_ctrl = self.analyse(state)
        uncontrolled = self.board.all_mask & ~(black | white | black_ctrl | white_ctrl)
        return [] if uncontrolled else ["pass"]

    @staticmethod
    def _button_available(state: StigmergyState) -> bool:
        return state.black_seat is not None and has_button(state.komi) and state.button is None

    def number_range(self, state: StigmergyState) -> NumberRange | None:
        if state.komi is not None:
            return None
        return NumberRange("komi", -self.komi_limit, self.komi_limit,
                           label=N_("Komi (added to White's score)"),
                           hint=N_("Your opponent then chooses which side to play, so name the "
                                   "komi that makes Black and White equally good: a higher "
                                   "komi helps White, a lower one Black."))

    def list_moves(self, state: StigmergyState) -> list[StigmergyMove]:
        if state.komi is None:
            return [KomiMove(k) for k in range(-self.komi_limit, self.komi_limit + 1)]
        black, white, black_ctrl, white_ctrl = self.analyse(state)
        if state.colour_to_move == BLACK:
            places, replaces = ~(black | white | white_ctrl), white & black_ctrl
        else:
            places, replaces = ~(black | white | black_ctrl), black & white_ctrl
        moves: list[StigmergyMove] = [
            HexMove(target=text.removesuffix("x"), capture=True) if x else HexMove(target=text)
            for text, c, x in self.sight.order if (replaces if x else places) >> c & 1
        ]
        moves.extend(HexMove(word=w) for w in self._words(state))
        return moves

    def parse_move(self, text: str) -> StigmergyMove:
        return parse_move(text)

    def _cell_problem(self, state: StigmergyState, move: HexMove) -> Text | None:
        """Why a placement or replacement is illegal, or None when it is legal."""
        label = move.target or ""
        if label not in self.board:
            return Text("%(cell)s is not a cell of this board", cell=label)
        c = self.board.index(label)
        colour = state.colour_to_move
        found = self._control_cache.get(state.board)
        if found is None:  # one cell's rays, not the whole board's map (an analysis line
            black, white = state.masks()  # checks hundreds of moves, one per position)
            controller = self.sight.controller(c, black, white)
        else:
            black, white, black_ctrl, white_ctrl = found
            controller = BLACK if black_ctrl >> c & 1 else WHITE if white_ctrl >> c & 1 else EMPTY
        mine, theirs = (black, white) if colour == BLACK else (white, black)
        if not move.capture:
            if (black | white) >> c & 1:
                return Text("%(cell)s is occupied (replace with %(replace)s if you control it)",
                            cell=label, replace=f"{label}x")
            if controller not in (colour, EMPTY):
                if colour == BLACK:
                    return Text("%(cell)s is controlled by White", cell=label)
                return Text("%(cell)s is controlled by Black", cell=label)
            return None
        if mine >> c & 1:
            return Text("%(cell)s holds your own stone", cell=label)
        if not theirs >> c & 1:
            return Text("%(cell)s is empty (place with %(place)s)", cell=label, place=label)
        if controller != colour:
            return Text("you do not control %(cell)s", cell=label)
        return None

    def why_illegal(self, state: StigmergyState, move: StigmergyMove) -> Text | None:
        if isinstance(move, KomiMove):
            if state.komi is not None:
                return (Text("the komi has already been named") if self.negotiate
                        else Text("this game is played without komi"))
            if not -self.komi_limit <= move.value <= self.komi_limit:
                return Text("komi must be a whole number from %(low)d to %(high)d",
                            low=-self.komi_limit, high=self.komi_limit)
            return None
        if state.komi is None:
            return Text("first name the komi: a whole number from %(low)d to %(high)d",
                        low=-self.komi_limit, high=self.komi_limit)
        if move.word is None:
            return self._cell_problem(state, move)
        if move.word == "play-second":
            return None if state.black_seat is None else Text("sides have already been chosen")
        if move.word == "take-button":
            if not has_button(state.komi):
                return Text("there is no button: the komi is even")
            if state.button is not None:
                return Text("the button is already held by %(seat)s",
                            seat=self.seat_names(state)[state.button])
            if state.black_seat is None:
                return Text("the button can be taken once sides are chosen")
            return None
        if state.black_seat is None:
            return Text("you may not pass while choosing sides")
        if self._button_available(state):
            return Text("you may not pass while the button is available")
        if "pass" not in self._words(state):
            return Text("you may not pass while an empty cell is uncontrolled")
        return None

    def apply(self, state: StigmergyState, move: StigmergyMove) -> StigmergyState:
        after = replace(state, mover=1 - state.mover, ply=state.ply + 1)
        if isinstance(move, KomiMove):
            return replace(after, komi=move.value)
        if move.word == "pass":
            return replace(after, passes=state.passes + 1)
        if move.word == "take-button":
            return replace(after, button=state.mover, passes=0)
        if move.word == "play-second":
            return replace(after, black_seat=1 - state.mover)
        c = self.board.index(move.target or "")
        board = state.board[:c] + CHARS[state.colour_to_move] + state.board[c + 1:]
        black_seat = state.mover if state.black_seat is None else state.black_seat
        return replace(after, board=board, black_seat=black_seat, passes=0)

    def playout(self, state: StigmergyState, rng: random.Random,
                max_plies: int = 100_000) -> StigmergyState:
        return playout(self.sight, state, rng, max_plies, (-self.komi_limit, self.komi_limit))

    # -- results -----------------------------------------------------------------------------

    def colour_scores(self, state: StigmergyState) -> tuple[float, float]:
        """(Black, White): stones plus controlled empty cells, komi to White, 1/2 for the button."""
        black, white, black_ctrl, white_ctrl = self.analyse(state)
        empty = self.board.all_mask & ~(black | white)
        scores = [0.0, float((black | black_ctrl & empty).bit_count()),
                  float((white | white_ctrl & empty).bit_count() + (state.komi or 0))]
        if state.button is not None and state.black_seat is not None:
            scores[BLACK if state.button == state.black_seat else WHITE] += 0.5
        return scores[BLACK], scores[WHITE]

    def final_outcome(self, state: StigmergyState) -> Outcome:
        black, white = self.colour_scores(state)
        black_seat = state.black_seat or 0
        by_seat = [0.0, 0.0]
        by_seat[black_seat], by_seat[1 - black_seat] = black, white
        winners = () if black == white else (black_seat if black > white else 1 - black_seat,)
        reason = Text("Black %(black)s, White %(white)s (%(terms)s).", black=points(black),
                      white=points(white), terms=self.komi_words(state))
        return Outcome(winners=winners, scores=(by_seat[0], by_seat[1]), reason=reason)

    # -- storage -----------------------------------------------------------------------------

    def encode(self, state: StigmergyState) -> JSON:
        return {"board": state.board, "komi": state.komi, "black_seat": state.black_seat,
                "mover": state.mover, "button": state.button, "passes": state.passes,
                "ply": state.ply}

    def decode(self, data: Mapping[str, Any]) -> StigmergyState:
        board = str(data["board"])
        if len(board) != self.board.size or set(board) - set(CHARS):
            raise ValueError(f"a Stigmergy board of side {self.side} has {self.board.size} "
                             f"cells of {CHARS!r}")

        def seat(value: object) -> int | None:
            return None if value is None else int(str(value))

        return StigmergyState(
            board=board, komi=None if data["komi"] is None else int(data["komi"]),
            black_seat=seat(data["black_seat"]), mover=int(data["mover"]),
            button=seat(data.get("button")), passes=int(data.get("passes", 0)),
            ply=int(data.get("ply", 0)))


GAME_CLASSES = (Stigmergy,)
