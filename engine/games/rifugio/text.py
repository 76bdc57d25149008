"""Rifugio in words: the one-line description, the terminal picture, and why a move is refused.

Everything here except :func:`explain` reads a view (``Rifugio.view``), never the state, so it can
only say what the viewer may know.

>>> from engine.games.rifugio.rules import Rifugio
>>> game = Rifugio(players=3)
>>> describe_view(game.view(game.start(seed=1), 0))[:40]
'Turn 1: Player 1 to take a tile: open 1 '
"""

from __future__ import annotations

from engine.base import JSON
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
)
from engine.hexboard import DIRECTIONS


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def describe_view(view: JSON) -> str:
    """One line: whose turn and what to do, or the result; plus the viewer's own score."""
    seats = view["seats"]
    if view["phase"] == OVER:
        winners = view["winners"]
        best = seats[winners[0]]["score"]
        who = " and ".join(seats[w]["name"] for w in winners)
        verb = "won" if len(winners) == 1 else "share the win"
        others = ", ".join(f"{s['name']} {s['score']}" for i, s in enumerate(seats)
                           if i not in winners)
        tail = f" ({others})" if others else ""
        return f"Game over after {view['turns_done']} turns: {who} {verb} with {best} points{tail}."
    name = seats[view["to_move"]]["name"]
    phase = view["phase"]
    if phase == TAKE:
        opened = ", ".join(f"{i} {t}" for i, t in enumerate(view["display"], 1))
        what = f"take a tile: open {opened or 'none'}; blind pile {view['blind']}"
    elif phase == SWAP:
        what = f"swap the {view['hand']}, drawn blind and fitting nowhere, for an open tile"
    elif phase == LAY:
        what = f"lay the {view['hand']}"
    else:
        seat = seats[view["to_move"]]
        free = _plural(view["free_steps"], "free step")
        what = (f"walk ({free}, {_plural(seat['step_cards'], 'extra-step card')}"
                f"{', a bonus step to take at once' if view['bonus_step'] else ''}), build or end")
    line = f"Turn {view['turns_done'] + 1}: {name} to {what}."
    viewer = view["viewer"]
    if viewer is not None:
        line += f" Your score: {seats[viewer]['score']}."
    return line


def caption_view(view: JSON) -> str:
    """A short heading for the picture: whose turn and what to do, or who won."""
    seats = view["seats"]
    if view["phase"] == OVER:
        winners = view["winners"]
        who = " and ".join(seats[w]["name"] for w in winners)
        verb = "won" if len(winners) == 1 else "share the win"
        return f"Game over: {who} {verb} with {seats[winners[0]]['score']} points"
    phase, hand = view["phase"], view["hand"]
    if phase == WALK:
        left = _plural(view["free_steps"], "free step")
        what = f"walk ({'a bonus step now' if view['bonus_step'] else left}), build or end"
    else:
        what = {TAKE: "take a tile", SWAP: f"swap the {hand} for an open tile",
                LAY: f"lay the {hand}"}[phase]
    return f"Turn {view['turns_done'] + 1} · {seats[view['to_move']]['name']} to {what}"


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


def text_view(view: JSON) -> str:
    """The position for a terminal or a plain-text email."""
    lines = [describe_view(view), ""]
    lines += text_map(view)
    lines.append("(gr grass, fo forest, ro rock, T tops, P passes, Br bear, S start, + you may lay "
                 "there; q grows to the east, r to the north)")
    passes = [f"{name} at {at} r{rot}" for at, name, rot in view["tiles"]
              if KIND_BY_NAME[name].is_pass]
    if passes:
        lines.append("Passes (r0: entrances E and W): " + "; ".join(passes) + ".")
    opened = ", ".join(f"{i} {t}" for i, t in enumerate(view["display"], 1)) or "none"
    lines.append(f"Open tiles: {opened}; blind pile: {view['blind']}.")
    if view["hand"]:
        lines.append(f"Taken: {view['hand']}.")
    if view["set_aside"]:
        lines.append("Set aside (fit nowhere): " + ", ".join(view["set_aside"]) + ".")
    for seat in view["seats"]:
        huts = f"huts at {' and '.join(seat['huts'])}" if seat["huts"] else "no huts yet"
        line = (f"{seat['name']}: at {seat['walker']}; {huts} ({seat['huts_left']} left); "
                f"{_plural(seat['step_cards'], 'extra-step card')}; "
                f"{_plural(seat['point_cards'], 'point card')}")
        if "score" in seat:
            cards = [f"{name} {points}" for name, points in seat["cards"]]
            cards += [_plural(seat["bears"], "bear")] if seat["bears"] else []
            cards += [_plural(seat["hut_cards"], "hut card")] if seat["hut_cards"] else []
            line += f": score {seat['score']} ({', '.join(cards) or 'no cards'})"
        lines.append(line + ".")
    lines.append(f"Shuffle commitment (SHA-256 of the seed): {view['seed_sha256']}")
    if "seed" in view:
        lines.append(f"Seed: {view['seed']}")
    return "\n".join(lines)


# -- reasons for refusing a move -------------------------------------------------------------------

_DOING = {
    TAKE: "first take a tile (take 1-3 or take blind)",
    SWAP: "the tile you drew blind fits nowhere: swap it for an open tile that fits (swap 1-3)",
    LAY: "lay the tile you took first",
    WALK: "your tiles are laid: step, build or end the turn",
}


def explain(table: Table, verb: str, slot: int, pos: tuple[int, int], rot: int | None,
            direction: int) -> str:
    """Why this move is refused, in words for the player."""
    phase = table.phase
    if phase == OVER:
        return "the game is over"
    wanted = {"take": TAKE, "swap": SWAP, "lay": LAY}.get(verb, WALK)
    if wanted != phase:
        return _DOING[phase]
    if verb in ("take", "swap"):
        if slot == 0:
            return "the blind pile is empty"
        if slot > len(table.display):
            return f"there is no open tile {slot}"
        return f"the {KINDS[table.display[slot - 1]].name} fits nowhere in the landscape now"
    if verb == "lay":
        return _explain_lay(table, pos, rot)
    if verb == "step":
        return _explain_step(table, direction)
    if verb == "build":
        return _explain_build(table)
    return "that is not a move here"


def _explain_lay(table: Table, pos: tuple[int, int], rot: int | None) -> str:
    assert table.hand is not None
    name, rotations = KINDS[table.hand].name, ROTATIONS[table.hand]
    if pos in table.tiles:
        return f"{label(pos)} already has a tile"
    if len(rotations) == 1 and rot is not None:
        return f"the {name} looks the same every way round: write lay {label(pos)}"
    if len(rotations) > 1 and rot is None:
        return f"say how to turn the {name}: lay {label(pos)} r0 to r{rotations[-1]}"
    if rot is not None and rot not in rotations:
        return f"r{rot} is the same as r{rot - 3} for the {name}: write r{rot - 3}"
    why = misfit(table.hand, rot or 0, table.facing(pos))
    return f"the {name} does not fit at {label(pos)}: {why}"


def _explain_step(table: Table, d: int) -> str:
    seat = table.seat
    pos = table.walkers[seat]
    there = neighbour(pos, d)
    if there not in table.tiles:
        return f"there is no tile {DIRECTIONS[d]} of your walker (at {label(pos)})"
    if not (table.bonus or table.free or table.step_cards[seat]):
        return "no steps left: both free steps are used and you hold no extra-step card"
    here, rot = table.tiles[pos]
    if not passable(here, rot, d) or not passable(*table.tiles[there], (d + 3) % 6):
        return "a pass is entered and left only across one of its entrances"
    return "that step is not possible"


def _explain_build(table: Table) -> str:
    seat = table.seat
    pos = table.walkers[seat]
    kind = KINDS[table.tiles[pos][0]]
    if table.built:
        return "you have already built a hut this turn"
    if sum(1 for h in table.huts if h[2] == seat) >= huts_each(table.n):
        return f"all your {huts_each(table.n)} huts are built"
    if kind.group == START:
        return "nothing may be built on the start tile"
    if kind.group:
        return f"no hut may stand on the {kind.name} (only on plain grass, forest or rock)"
    if pos in table.hut_at:
        return "there is already a hut on this tile"
    if not (table.free or table.step_cards[seat]):
        return "building costs a step and you have none left"
    return "you cannot build here"

