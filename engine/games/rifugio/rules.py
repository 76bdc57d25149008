"""Rifugio (Niels Ramon Pieterse): lay landscape tiles, hike, build mountain huts. 2-5 players.

A turn is several moves by the same seat: take a tile (``take 2`` from the open display or
``take blind``), lay it (``lay 2,-1`` or, for a pass, ``lay 2,-1 r3``), for two players a second
tile, then any number of ``step NE``, at most one ``build``, and ``end``. Steps beyond the two free
ones use an extra-step card by themselves. The rules are in :mod:`engine.games.rifugio.state`, the
components in :mod:`engine.games.rifugio.tiles`, the notation in docs/rules/rifugio.md.

>>> game = Rifugio(players=2)
>>> state = game.start(seed="demo")
>>> [str(m) for m in game.legal_moves(state)][-1]
'take blind'
>>> state = game.play(state, "take blind")
>>> game.view(state, 0)["hand"] == game.view(state, None)["hand"] != None
True
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import native
from engine.base import (
    JSON,
    Game,
    GameInfo,
    IllegalMove,
    Option,
    Outcome,
    Term,
)
from engine.games.rifugio import terms
from engine.games.rifugio.drawing import RifugioPresentation
from engine.games.rifugio.search import RifugioSearch
from engine.games.rifugio.state import (
    BLIND,
    LAY,
    OVER,
    PHASES,
    State,
    Table,
    TableMove,
    hut_points,
    native_core,
    new_state,
    score,
    seed_sha256,
    weighted_pick,
)
from engine.games.rifugio.text import describe_view, explain
from engine.games.rifugio.tiles import EDITION, KINDS, ROTATIONS, huts_each, label, neighbour
from engine.hexboard import DIRECTIONS
from engine.text import ENGLISH, N_, Text, Translator

__all__ = ["GAME_CLASSES", "Rifugio", "RifugioMove"]

Pos = tuple[int, int]

_EXAMPLES = "take 2, take blind, swap 1, lay 2,-1, lay 2,-1 r3, step NE, build, end"
"""Examples of the notation, the same in every language."""

_MOVE = re.compile(
    r"^(?:(take)(blind|\d)|(swap)(\d)|(lay)(-?\d{1,3}),(-?\d{1,3})(?:r(\d))?"
    r"|(step)(e|ne|nw|w|sw|se)|(build)|(end))$")


@dataclass(frozen=True)
class RifugioMove:
    """One move of a turn, in the notation of docs/rules/rifugio.md.

    ``slot`` is the open tile (1-3) to take or swap for, 0 for ``take blind``; ``pos`` and ``rot``
    say where and how to lay (``rot`` None for a tile that looks the same in every rotation);
    ``direction`` indexes DIRECTIONS. ``dest`` (filled in by ``legal_moves``, not part of the move)
    is where a step arrives, so a page can make that tile clickable.

    >>> RifugioMove.parse(" Lay 2, -1  R3 ")
    RifugioMove(verb='lay', slot=0, pos=(2, -1), rot=3, direction=0)
    >>> str(RifugioMove.parse("STEP ne")), str(RifugioMove.parse("take  blind"))
    ('step NE', 'take blind')
    """

    verb: str
    slot: int = 0
    pos: Pos = (0, 0)
    rot: int | None = None
    direction: int = 0
    dest: Pos | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        if self.verb in ("take", "swap"):
            return f"{self.verb} {self.slot or 'blind'}"
        if self.verb == "lay":
            turn = "" if self.rot is None else f" r{self.rot}"
            return f"lay {label(self.pos)}{turn}"
        if self.verb == "step":
            return f"step {DIRECTIONS[self.direction]}"
        return self.verb

    @classmethod
    def parse(cls, text: str) -> RifugioMove:
        match = _MOVE.match("".join(text.lower().split()))
        if not match:
            raise IllegalMove(Text("%(move)s is not a move (try e.g. %(examples)s)",
                                   move=repr(text.strip()), examples=_EXAMPLES))
        g = match.groups()
        if g[0]:
            slot = 0 if g[1] == "blind" else int(g[1])
            if not 1 <= slot <= EDITION.display_size and g[1] != "blind":
                raise IllegalMove(Text("there are only %(count)d open tiles",
                                       count=EDITION.display_size))
            return cls("take", slot=slot)
        if g[2]:
            if not 1 <= int(g[3]) <= EDITION.display_size:
                raise IllegalMove(Text("there are only %(count)d open tiles",
                                       count=EDITION.display_size))
            return cls("swap", slot=int(g[3]))
        if g[4]:
            rot = None if g[7] is None else int(g[7])
            if rot is not None and rot > 5:
                raise IllegalMove(Text("a rotation is r0 to r5"))
            return cls("lay", pos=(int(g[5]), int(g[6])), rot=rot)
        if g[8]:
            return cls("step", direction=DIRECTIONS.index(g[9].upper()))
        return cls(g[10] or g[11])

    def table_move(self) -> TableMove:
        if self.verb in ("take", "swap"):
            return (self.verb, self.slot - 1 if self.slot else BLIND, 0, 0)
        if self.verb == "lay":
            return ("lay", self.pos[0], self.pos[1], self.rot or 0)
        return (self.verb, self.direction, 0, 0)


def _from_table(table: Table, move: TableMove) -> RifugioMove:
    verb, a, b, c = move
    if verb in ("take", "swap"):
        return RifugioMove(verb, slot=0 if a == BLIND else a + 1)
    if verb == "lay":
        assert table.hand is not None
        rot = None if len(ROTATIONS[table.hand]) == 1 else c
        return RifugioMove("lay", pos=(a, b), rot=rot)
    if verb == "step":
        return RifugioMove("step", direction=a, dest=neighbour(table.walkers[table.seat], a))
    return RifugioMove(verb)


class Rifugio(Game[State, RifugioMove]):
    """Rifugio for 2-5 players; the option ``players`` fixes the number of seats."""

    info = GameInfo(
        id="rifugio",
        name=N_("Rifugio"),
        min_players=2,
        max_players=5,
        options=(Option("players", N_("Players"), (2, 3, 4, 5), 3,
                        N_("How many hikers (two players lay two tiles a turn).")),),
        summary=N_("Grow an alpine landscape of hexagonal tiles together, one tile a turn from an "
                 "open display or the blind pile, and hike through it: flowers, animals, "
                 "waterfalls, passes and mountain tops give point cards, bears cost points, and "
                 "your huts score whenever others drop in. Most points when the tiles run out "
                 "wins."),
        chance=True,
        hidden_information=True,
    )
    move_words = terms.MOVE_WORDS
    seat_colours = terms.SEAT_COLOURS

    def glossary(self, translator: Translator = ENGLISH) -> list[Term]:
        return terms.glossary(self.options, translator)

    def search(self) -> RifugioSearch:
        return RifugioSearch(self)

    def __init__(self, **options: object) -> None:
        super().__init__(**options)
        self.presentation = RifugioPresentation(self)

    @property
    def num_players(self) -> int:
        return int(self.options["players"])

    def start(self, seed: int | str | None = None) -> State:
        return new_state(self.num_players, seed)

    def to_move(self, state: State) -> int | None:
        return state.seat

    def list_moves(self, state: State) -> list[RifugioMove]:
        table = Table(state)
        return sorted((_from_table(table, m) for m in table.legal()), key=str)

    def why_illegal(self, state: State, move: RifugioMove) -> Text | None:
        table = Table(state)
        if any(_from_table(table, m) == move for m in table.legal()):
            return None
        return explain(table, move.verb, move.slot, move.pos, move.rot, move.direction)

    def parse_move(self, text: str) -> RifugioMove:
        return RifugioMove.parse(text)

    def apply(self, state: State, move: RifugioMove) -> State:
        table = Table(state)
        table.do(move.table_move())
        return table.freeze()

    def move_cells(self, move: RifugioMove) -> tuple[str, ...]:
        if move.verb == "lay":
            return (label(move.pos),)
        if move.verb == "step" and move.dest is not None:
            return (label(move.dest),)
        return ()

    def reveals_hidden(self, state: State, move: RifugioMove) -> bool:
        """Any move that takes from the blind pile: ``take blind``, and a ``lay`` or ``end``
        after which the open display is refilled (or the pile set aside). Whether that happens
        depends on the pile's contents, which are public, never on its order."""
        if move.verb == "take":
            return move.slot == 0
        if move.verb not in ("lay", "end"):
            return False
        return self.apply(state, move).pile != state.pile

    def hidden_effect(self, state: State, move: RifugioMove) -> Text:
        if move.verb == "take":
            return Text("you will draw the top tile of the blind pile; you see it once your move "
                        "is played")
        if move.verb == "lay":
            return Text("you will lay your tile at %(place)s; then the open display is "
                        "refilled from the blind pile", place=label(move.pos))
        return Text("your turn ends and the open display is refilled from the blind pile")

    def final_outcome(self, state: State) -> Outcome:
        n = state.players
        scores = [score(state, s) for s in range(n)]
        best = max(scores)
        winners = [s for s in range(n) if scores[s] == best]
        listing = Text.joined([Text("%(seat)s %(points)d", seat=name, points=points)
                               for name, points in zip(self.seat_names(state), scores,
                                                       strict=True)], ", ")
        reason = Text("most points (%(scores)s)", scores=listing)
        if len(winners) > 1:
            huts = max(hut_points(state, s) for s in winners)
            winners = [s for s in winners if hut_points(state, s) == huts]
            reason = (Text("tied, most hut points (%(scores)s)", scores=listing)
                      if len(winners) == 1 else
                      Text("tied on points and hut points: a shared win (%(scores)s)",
                           scores=listing))
        return Outcome(tuple(winners), tuple(float(s) for s in scores), reason)

    def playout(self, state: State, rng: random.Random, max_plies: int = 100_000) -> State:
        """Legal moves drawn by the playout policy (``Table.weights``) on one mutable table."""
        core = native_core() if native.enabled() else None
        if core is not None:  # the same moves for the same random numbers (engine.native)
            end: State = core.playout(state, rng, max_plies, self)
            return end
        table = Table(state)
        for _ in range(max_plies):
            if table.phase == OVER:
                return table.freeze()
            moves = table.legal()
            table.do(moves[weighted_pick(rng, table.weights(moves))])
        raise RuntimeError(f"{self!r}: no end after {max_plies} plies")

    # -- storage and what each seat sees ---------------------------------------------------------

    def encode(self, state: State) -> JSON:
        return {
            "players": state.players, "seed": state.seed, "pile": list(state.pile),
            "display": list(state.display), "placed": [list(p) for p in state.placed],
            "set_aside": list(state.set_aside), "walkers": [list(w) for w in state.walkers],
            "huts": [list(h) for h in state.huts], "step_cards": list(state.step_cards),
            "features": [[list(c) for c in cards] for cards in state.features],
            "bears": list(state.bears), "hut_cards": list(state.hut_cards), "turns": state.turns,
            "phase": state.phase, "hand": state.hand, "to_lay": state.to_lay,
            "free": state.free, "bonus": state.bonus, "built": state.built,
            "reshuffles": state.reshuffles,
        }

    def decode(self, data: Mapping[str, Any]) -> State:
        def ints(key: str) -> tuple[int, ...]:
            return tuple(int(x) for x in data[key])

        players = int(data["players"])
        if players != self.num_players or data["phase"] not in PHASES:
            raise ValueError(f"not a {self.num_players}-player Rifugio state")
        return State(
            players=players, seed=str(data["seed"]), pile=ints("pile"), display=ints("display"),
            placed=tuple((int(q), int(r), int(t), int(rot)) for q, r, t, rot in data["placed"]),
            set_aside=ints("set_aside"),
            walkers=tuple((int(q), int(r)) for q, r in data["walkers"]),
            huts=tuple((int(q), int(r), int(owner)) for q, r, owner in data["huts"]),
            step_cards=ints("step_cards"),
            features=tuple(tuple((int(t), int(p)) for t, p in cards)
                           for cards in data["features"]),
            bears=ints("bears"), hut_cards=ints("hut_cards"), turns=int(data["turns"]),
            phase=str(data["phase"]), hand=None if data["hand"] is None else int(data["hand"]),
            to_lay=int(data["to_lay"]), free=int(data["free"]), bonus=bool(data["bonus"]),
            built=bool(data["built"]), reshuffles=int(data["reshuffles"]))

    def view(self, state: State, viewer: int | None) -> JSON:
        """What ``viewer`` (a seat, or None for the public) may know; never the pile order.

        Other seats' point cards appear only as counts until the game is over; the seed only as
        its SHA-256 until then.
        """
        over = state.phase == OVER
        names = self.seat_names(state)
        seats: list[JSON] = []
        for s in range(state.players):
            owned = [label((q, r)) for q, r, owner in state.huts if owner == s]
            entry: JSON = {
                "name": names[s], "walker": label(state.walkers[s]), "huts": owned,
                "huts_left": huts_each(state.players) - len(owned),
                "step_cards": state.step_cards[s],
                "point_cards": len(state.features[s]) + state.bears[s] + state.hut_cards[s],
            }
            if over or s == viewer:
                entry.update(cards=[[KINDS[t].name, p] for t, p in state.features[s]],
                             bears=state.bears[s], hut_cards=state.hut_cards[s],
                             score=score(state, s))
            seats.append(entry)
        table = Table(state)
        data: JSON = {
            "game": self.info.id, "players": state.players, "viewer": viewer,
            "seed_sha256": seed_sha256(state.seed), "phase": state.phase,
            "to_move": state.seat, "turns_done": state.turns,
            "tiles": [[label((q, r)), KINDS[t].name, rot] for q, r, t, rot in state.placed],
            "display": [KINDS[t].name for t in state.display], "blind": len(state.pile),
            "set_aside": sorted(KINDS[t].name for t in state.set_aside),
            "hand": None if state.hand is None else KINDS[state.hand].name,
            "lay_options": sorted({label((q, r)) for q, r, _ in table.placements(state.hand)})
            if state.phase == LAY and state.hand is not None else [],
            "tiles_to_lay": state.to_lay, "free_steps": state.free,
            "bonus_step": state.bonus, "built": state.built, "seats": seats,
        }
        if over:
            result = self.outcome(state)
            assert result is not None
            data.update(seed=state.seed, winners=list(result.winners))
        return data

    def describe(self, state: State, viewer: int | None = None) -> Text:
        return describe_view(self.view(state, viewer))


GAME_CLASSES = (Rifugio,)
