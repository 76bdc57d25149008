"""Rifugio in words: the one-line description, the terminal picture, and why a move is refused.

Everything here except :func:`explain` reads a view (``Rifugio.view``), never the state, so it can
only say what the viewer may know. Every sentence is a :class:`~engine.text.Text`, so the server
can say it in the player's language; tile names come from ``tiles.TILE_NAMES``.

>>> from engine.games.rifugio.rules import Rifugio
>>> game = Rifugio(players=3)
>>> describe_view(game.view(game.start(seed=1), 0))[:40]
'Turn 1: Player 1 to take a tile: open 1 '
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.base import JSON, and_list
from engine.games.rifugio.state import LAY, OVER, SWAP, TAKE, WALK, Table
from engine.games.rifugio.tiles import (
    KIND_BY_NAME,
    KINDS,
    ROTATIONS,
    START,
    huts_each,
    label,
    misfit,
    neighbour,
    passable,
    position,
    tile_name,
)
from engine.hexboard import DIRECTIONS
from engine.text import Text


def _listed(parts: Sequence[str], separator: str = ", ") -> Text:
    return Text.joined(parts, separator)


def _free_steps(n: int) -> Text:
    return Text.counted("%(count)d free step", "%(count)d free steps", n)


def _step_cards(n: int) -> Text:
    return Text.counted("%(count)d extra-step card", "%(count)d extra-step cards", n)


def _display(view: JSON) -> list[str]:
    """The open tiles as "1 gentian", "2 grass", ...."""
    return [Text("%(slot)d %(tile)s", slot=i, tile=tile_name(t))
            for i, t in enumerate(view["display"], 1)]


def _scores(seats: Sequence[JSON], skip: Sequence[int] = ()) -> Text:
    return _listed([Text("%(seat)s %(points)d", seat=s["name"], points=s["score"])
                    for i, s in enumerate(seats) if i not in skip])


def describe_view(view: JSON) -> Text:
    """One line: whose turn and what to do, or the result; plus the viewer's own score."""
    seats = view["seats"]
    if view["phase"] == OVER:
        winners = view["winners"]
        values: dict[str, str | int | float] = {
            "turns": view["turns_done"], "points": seats[winners[0]]["score"],
            "winners": and_list([seats[w]["name"] for w in winners])}
        one = len(winners) == 1
        if len(winners) == len(seats):
            return (Text("Game over after %(turns)d turns: %(winners)s won with %(points)d points.",
                         **values) if one else
                    Text("Game over after %(turns)d turns: %(winners)s share the win with "
                         "%(points)d points.", **values))
        others = _scores(seats, winners)
        return (Text("Game over after %(turns)d turns: %(winners)s won with %(points)d points "
                     "(%(others)s).", others=others, **values) if one else
                Text("Game over after %(turns)d turns: %(winners)s share the win with %(points)d "
                     "points (%(others)s).", others=others, **values))
    turn: dict[str, str | int | float] = {"turn": view["turns_done"] + 1,
                                          "seat": seats[view["to_move"]]["name"]}
    phase = view["phase"]
    line: Text
    if phase == TAKE:
        opened = _listed(_display(view)) if view["display"] else Text("none")
        line = Text("Turn %(turn)d: %(seat)s to take a tile: open %(open)s; blind pile "
                    "%(blind)d.", open=opened, blind=view["blind"], **turn)
    elif phase == SWAP:
        line = Text("Turn %(turn)d: %(seat)s to swap the %(tile)s, drawn blind and fitting "
                    "nowhere, for an open tile.", tile=tile_name(view["hand"]), **turn)
    elif phase == LAY:
        line = Text("Turn %(turn)d: %(seat)s to lay the %(tile)s.", tile=tile_name(view["hand"]),
                    **turn)
    else:
        seat = seats[view["to_move"]]
        free, cards = _free_steps(view["free_steps"]), _step_cards(seat["step_cards"])
        if view["bonus_step"]:
            line = Text("Turn %(turn)d: %(seat)s to walk (%(free)s, %(cards)s, a bonus step to "
                        "take at once), build or end.", free=free, cards=cards, **turn)
        else:
            line = Text("Turn %(turn)d: %(seat)s to walk (%(free)s, %(cards)s), build or end.",
                        free=free, cards=cards, **turn)
    viewer = view["viewer"]
    if viewer is not None:
        return Text.joined([line, Text("Your score: %(score)d.", score=seats[viewer]["score"])])
    return line


def caption_view(view: JSON) -> Text:
    """A short heading for the picture: whose turn and what to do, or who won."""
    seats = view["seats"]
    if view["phase"] == OVER:
        winners = view["winners"]
        who = and_list([seats[w]["name"] for w in winners])
        points = seats[winners[0]]["score"]
        if len(winners) == 1:
            return Text("Game over: %(winners)s won with %(points)d points", winners=who,
                        points=points)
        return Text("Game over: %(winners)s share the win with %(points)d points", winners=who,
                    points=points)
    phase, hand = view["phase"], view["hand"]
    turn: dict[str, str | int | float] = {"turn": view["turns_done"] + 1,
                                          "seat": seats[view["to_move"]]["name"]}
    if phase == WALK:
        if view["bonus_step"]:
            return Text("Turn %(turn)d · %(seat)s to walk (a bonus step now), build or end",
                        **turn)
        return Text("Turn %(turn)d · %(seat)s to walk (%(free)s), build or end",
                    free=_free_steps(view["free_steps"]), **turn)
    if phase == TAKE:
        return Text("Turn %(turn)d · %(seat)s to take a tile", **turn)
    if phase == SWAP:
        return Text("Turn %(turn)d · %(seat)s to swap the %(tile)s for an open tile",
                    tile=tile_name(hand), **turn)
    return Text("Turn %(turn)d · %(seat)s to lay the %(tile)s", tile=tile_name(hand), **turn)


def _token(name: str, hut: int | None) -> str:
    kind = KIND_BY_NAME[name]
    code = kind.code or {"G": "gr", "F": "fo", "R": "ro"}[kind.sides[0]]
    return f"{code:2}{'' if hut is None else hut + 1}".ljust(3)


def text_map(view: JSON) -> list[str]:
    """The landscape as rows of 3-letter tiles, north up; a digit after a tile is a hut's owner."""
    huts = {at: s for s, seat in enumerate(view["seats"]) for at in seat["huts"]}
    cells: dict[tuple[int, int], str] = {}
    for at, name, _ in view["tiles"]:
        cells[position(at)] = _token(name, huts.get(at))
    for at in view["lay_options"]:
        cells[position(at)] = " + "
    xs = [2 * q - r for q, r in cells]
    left = min(xs)
    lines = []
    for r in range(max(r for _, r in cells), min(r for _, r in cells) - 1, -1):
        row = [" "] * (2 * (max(xs) - left) + 4)
        for (q, rr), token in cells.items():
            if rr == r:
                x = 2 * (2 * q - r - left)
                row[x:x + 3] = list(token)
        lines.append(f"r={r:<3} " + "".join(row).rstrip())
    return lines


def text_view(view: JSON) -> Text:
    """The position for a terminal or a plain-text email."""
    lines: list[str] = [describe_view(view), ""]
    lines += text_map(view)
    lines.append(Text("(gr grass, fo forest, ro rock, T tops, P passes, Br bear, S start, + you "
                      "may lay there; q grows to the east, r to the north)"))
    passes = [Text("%(tile)s at %(place)s r%(rotation)d", tile=tile_name(name), place=at,
                   rotation=rot)
              for at, name, rot in view["tiles"] if KIND_BY_NAME[name].is_pass]
    if passes:
        lines.append(Text("Passes (r0: entrances E and W): %(passes)s.",
                          passes=_listed(passes, "; ")))
    opened = _listed(_display(view)) if view["display"] else Text("none")
    lines.append(Text("Open tiles: %(open)s; blind pile: %(blind)d.", open=opened,
                      blind=view["blind"]))
    if view["hand"]:
        lines.append(Text("Taken: %(tile)s.", tile=tile_name(view["hand"])))
    if view["set_aside"]:
        lines.append(Text("Set aside (fit nowhere): %(tiles)s.",
                          tiles=_listed([tile_name(t) for t in view["set_aside"]])))
    for seat in view["seats"]:
        huts = (Text("huts at %(places)s", places=and_list(seat["huts"])) if seat["huts"]
                else Text("no huts yet"))
        values: dict[str, str | int | float] = {
            "seat": seat["name"], "place": seat["walker"], "huts": huts,
            "left": seat["huts_left"], "step_cards": _step_cards(seat["step_cards"]),
            "point_cards": Text.counted("%(count)d point card", "%(count)d point cards",
                                        seat["point_cards"])}
        if "score" in seat:
            cards: list[str] = [Text("%(tile)s %(points)d", tile=tile_name(name), points=points)
                                for name, points in seat["cards"]]
            if seat["bears"]:
                cards.append(Text.counted("%(count)d bear", "%(count)d bears", seat["bears"]))
            if seat["hut_cards"]:
                cards.append(Text.counted("%(count)d hut card", "%(count)d hut cards",
                                          seat["hut_cards"]))
            lines.append(Text("%(seat)s: at %(place)s; %(huts)s (%(left)d left); %(step_cards)s; "
                              "%(point_cards)s: score %(score)d (%(cards)s).",
                              score=seat["score"],
                              cards=_listed(cards) if cards else Text("no cards"), **values))
        else:
            lines.append(Text("%(seat)s: at %(place)s; %(huts)s (%(left)d left); %(step_cards)s; "
                              "%(point_cards)s.", **values))
    # The seed and its SHA-256 are for checking the shuffle, on the game page (#shuffle) and in
    # the record; a board read in an email or a turn has no use for 64 hex digits.
    return Text.joined(lines, "\n")


# -- reasons for refusing a move -------------------------------------------------------------------

_DOING = {
    TAKE: Text("first take a tile (take 1-3 or take blind)"),
    SWAP: Text("the tile you drew blind fits nowhere: swap it for an open tile that fits "
               "(swap 1-3)"),
    LAY: Text("lay the tile you took first"),
    WALK: Text("your tiles are laid: step, build or end the turn"),
}


def explain(table: Table, verb: str, slot: int, pos: tuple[int, int], rot: int | None,
            direction: int) -> Text:
    """Why this move is refused while the game runs, in words for the player."""
    phase = table.phase
    wanted = {"take": TAKE, "swap": SWAP, "lay": LAY}.get(verb, WALK)
    if wanted != phase:
        return _DOING[phase]
    if verb in ("take", "swap"):
        if slot == 0:
            return Text("the blind pile is empty")
        if slot > len(table.display):
            return Text("there is no open tile %(slot)d", slot=slot)
        return Text("the %(tile)s fits nowhere in the landscape now",
                    tile=tile_name(KINDS[table.display[slot - 1]].name))
    if verb == "lay":
        return _explain_lay(table, pos, rot)
    if verb == "step":
        return _explain_step(table, direction)
    if verb == "build":
        return _explain_build(table)
    return Text("that is not a move here")


def _explain_lay(table: Table, pos: tuple[int, int], rot: int | None) -> Text:
    assert table.hand is not None
    name, rotations = tile_name(KINDS[table.hand].name), ROTATIONS[table.hand]
    if pos in table.tiles:
        return Text("%(place)s already has a tile", place=label(pos))
    if len(rotations) == 1 and rot is not None:
        return Text("the %(tile)s looks the same every way round: write %(move)s", tile=name,
                    move=f"lay {label(pos)}")
    if len(rotations) > 1 and rot is None:
        return Text("say how to turn the %(tile)s: %(move)s r0 to r%(last)d", tile=name,
                    move=f"lay {label(pos)}", last=rotations[-1])
    if rot is not None and rot not in rotations:
        return Text("r%(rotation)d is the same as r%(same)d for the %(tile)s: write r%(same)d",
                    rotation=rot, same=rot - 3, tile=name)
    why = misfit(table.hand, rot or 0, table.facing(pos))
    return Text("the %(tile)s does not fit at %(place)s: %(why)s", tile=name, place=label(pos),
                why=why)


def _explain_step(table: Table, d: int) -> Text:
    seat = table.seat
    pos = table.walkers[seat]
    there = neighbour(pos, d)
    if there not in table.tiles:
        return Text("there is no tile %(direction)s of your walker (at %(place)s)",
                    direction=DIRECTIONS[d], place=label(pos))
    if not (table.bonus or table.free or table.step_cards[seat]):
        return Text("no steps left: both free steps are used and you hold no extra-step card")
    here, rot = table.tiles[pos]
    if not passable(here, rot, d) or not passable(*table.tiles[there], (d + 3) % 6):
        return Text("a pass is entered and left only across one of its entrances")
    return Text("that step is not possible")


def _explain_build(table: Table) -> Text:
    seat = table.seat
    pos = table.walkers[seat]
    kind = KINDS[table.tiles[pos][0]]
    if table.built:
        return Text("you have already built a hut this turn")
    if sum(1 for h in table.huts if h[2] == seat) >= huts_each(table.n):
        return Text("all your %(huts)d huts are built", huts=huts_each(table.n))
    if kind.group == START:
        return Text("nothing may be built on the start tile")
    if kind.group:
        return Text("no hut may stand on the %(tile)s (only on plain grass, forest or rock)",
                    tile=tile_name(kind.name))
    if pos in table.hut_at:
        return Text("there is already a hut on this tile")
    if not (table.free or table.step_cards[seat]):
        return Text("building costs a step and you have none left")
    return Text("you cannot build here")
