"""Drawing Rifugio as SVG from a view, so a picture can only show what its viewer may know.

The map is scaled to a fixed width (phones included) however far the landscape spreads. Terrains
differ by marks as well as by colour and lightness (grass tufts, forest trees, rock hatching, a
grey peak on a white summit), so a greyscale print tells them apart; huts and walkers carry their
owner's number.

The picture is rasterised for every email, so it is built for cairosvg's speed: shapes of one style
are merged into one path, and short labels use the stroke font of :mod:`engine.strokefont`
(real text only for sentences). Links are invisible hexagons laid over the tiles.

>>> from engine.games.rifugio.rules import Rifugio
>>> game = Rifugio(players=2)
>>> svg = game.render_svg(game.start(seed=1), cell_href=lambda c: f"?at={c}")
>>> svg.startswith("<svg") and 'href="?at=0,0"' in svg
True
"""

from __future__ import annotations

import math
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from engine.base import JSON, CellHref, Ending, Presentation, SideTable
from engine.games.rifugio.state import State
from engine.games.rifugio.text import caption_view, describe_view, text_view
from engine.games.rifugio.tiles import KIND_BY_NAME, position, tile_name
from engine.hexboard import DIRECTIONS
from engine.strokefont import stroke_text
from engine.svg import (
    CHOSEN,
    HIGHLIGHT,
    INK,
    PAPER,
    SQRT3,
    TARGET,
    circle_path,
    fmt,
    hexagon_path,
    sub,
    svg_root,
    to_string,
)
from engine.text import ENGLISH, N_, Text, Translator, Words, localize

if TYPE_CHECKING:  # the rules make their presentation from this module
    from engine.games.rifugio.rules import (
        Rifugio,  # noqa: F401 (named in a string below)
        RifugioMove,
    )

WIDTH = 480
PAD = 8
MAX_RADIUS = 34
MAX_MAP_HEIGHT = 520
LINE = 16
ROW = 18
TILES_ROW = 64
EDGE = "#4d4a44"
MUTED = "#6b6358"

# Owner colours that stay apart for red-green colour blindness; the numbers settle greyscale.
SEAT_COLOURS = ("#d62728", "#1f64c8", "#f2b705", "#8e44ad", "#17a589")
SEAT_TEXT = ("#fff", "#fff", INK, "#fff", "#fff")
FILLS = {"G": "#cde49a", "F": "#2f6a35", "R": "#aaa69d", "S": "#f7f7f2"}
WALKER_ANGLES = (150, 30, 90, 210, 330)  # where each seat's walker stands on a tile
LAYERS = ("ground", "texture", "detail", "edge", "spots", "mark", "badges", "huts", "seats",
          "labels")

Style = tuple[tuple[str, str], ...]


class Shapes:
    """Path data collected per layer and style, written out as one path per style."""

    def __init__(self) -> None:
        self.layers: dict[str, dict[Style, list[str]]] = {name: {} for name in LAYERS}

    def add(self, layer: str, d: str, **style: float | str) -> None:
        key = tuple(sorted((k, fmt(v)) for k, v in style.items()))
        self.layers[layer].setdefault(key, []).append(d)

    def label(self, text: str, x: float, y: float, size: float, colour: str = INK,
              anchor: str = "middle") -> None:
        # One stroke width for every size: one path per colour is what keeps it quick.
        self.add("labels", stroke_text(text, x, y, size, anchor), stroke=colour,
                 stroke_width=1.1)

    def write(self, root: ET.Element) -> None:
        for layer in LAYERS:
            styles = self.layers[layer]
            if layer == "labels" and styles:
                root = sub(root, "g", fill="none", stroke_linecap="round",
                           stroke_linejoin="round")
            for key, parts in styles.items():
                attrs = {k.replace("_", "-"): v for k, v in key}
                ET.SubElement(root, "path", {"d": "".join(parts), **attrs})


def _corner(cx: float, cy: float, radius: float, k: int) -> tuple[float, float]:
    angle = math.radians(60 * k - 90)
    return cx + radius * math.cos(angle), cy + radius * math.sin(angle)


def _poly(points: list[tuple[float, float]]) -> str:
    return "M" + " ".join(f"{fmt(x)} {fmt(y)}" for x, y in points) + "Z"


def _house(cx: float, cy: float, radius: float) -> str:
    w, h, top = radius * 0.36, radius * 0.3, cy - radius * 0.52
    return _poly([(cx - w, cy + h * 0.35), (cx - w, top + h), (cx, top), (cx + w, top + h),
                  (cx + w, cy + h * 0.35)])


def tile(shapes: Shapes, name: str, rot: int, cx: float, cy: float, radius: float) -> None:
    """One landscape tile with its feature code; ``rot`` turns a pass clockwise."""
    kind = KIND_BY_NAME[name]
    if kind.is_pass:
        for d in range(6):
            shapes.add("ground", _poly([(cx, cy), _corner(cx, cy, radius, (1 - d) % 6),
                                        _corner(cx, cy, radius, (2 - d) % 6)]),
                       fill=FILLS[kind.sides[(d + rot) % 6]])
        ends = [d for d in range(6) if kind.sides[(d + rot) % 6] != "R"]
        trail = [(cx + radius * 0.8 * math.cos(math.radians(-60 * d)),
                  cy + radius * 0.8 * math.sin(math.radians(-60 * d))) for d in ends]
        shapes.add("detail", "M" + " ".join(f"{fmt(x)} {fmt(y)}" for x, y in trail),
                   stroke="#efe3c2", stroke_width=round(radius * 0.22, 1), fill="none")
        shapes.add("edge", hexagon_path(cx, cy, radius), fill="none", stroke=EDGE, stroke_width=0.8)
    else:  # the outline comes with the fill: one path per terrain keeps cairosvg quick
        shapes.add("ground", hexagon_path(cx, cy, radius), fill=FILLS[kind.sides[0]], stroke=EDGE,
                   stroke_width=0.8)
        _texture(shapes, kind.sides[0], cx, cy, radius)
    if kind.sides[0] == "S":
        shapes.add("detail", _poly([(cx - radius * 0.72, cy + radius * 0.45),
                                    (cx, cy - radius * 0.7),
                                    (cx + radius * 0.72, cy + radius * 0.45)]), fill="#8b877f")
    if kind.group == "start":
        shapes.add("huts", _house(cx, cy, radius), fill="#fff", stroke=INK, stroke_width=1.2)
    elif kind.code:
        bear = kind.group == "bear"
        shapes.add("badges", circle_path(cx, cy, radius * 0.38), fill="#5b3a1e" if bear else "#fff",
                   stroke=INK, stroke_width=1)
        shapes.label(kind.code.upper(), cx, cy + radius * 0.15, radius * 0.38,
                     "#fff" if bear else INK)


def _seat_shape(shapes: Shapes, seat: int, d: str) -> None:
    """A hut, walker or table disc: all of one seat go into one path."""
    shapes.add("seats", d, fill=SEAT_COLOURS[seat], stroke=INK, stroke_width=1)


def _texture(shapes: Shapes, terrain: str, cx: float, cy: float, radius: float) -> None:
    """Marks that tell the terrains apart without colour: trees, hatching, grass tufts."""
    for side in (-1, 1):
        x, y = cx + side * radius * 0.42, cy - radius * 0.4
        u = radius * 0.16
        if terrain == "F":
            shapes.add("texture", _poly([(x, y - u * 1.2), (x + u, y + u), (x - u, y + u)]),
                       fill="#7fbf70")
        elif terrain == "R":
            shapes.add("texture", f"M{fmt(x - u)} {fmt(y + u)} {fmt(x + u)} {fmt(y - u)}"
                       f"M{fmt(x - u * 0.2)} {fmt(y + u * 1.6)} {fmt(x + u * 1.6)} "
                       f"{fmt(y - u * 0.2)}", stroke="#5f5a52", stroke_width=1, fill="none")
        elif terrain == "G":
            shapes.add("texture", f"M{fmt(x - u)} {fmt(y - u)} {fmt(x)} {fmt(y + u * 0.6)} "
                       f"{fmt(x + u)} {fmt(y - u)}", stroke="#6f9a38", stroke_width=1,
                       fill="none")


def draw(view: JSON, caption: Words, title: Words, *, cell_href: CellHref | None = None,
         mark: str | None = None, chosen: Sequence[str] | None = None,
         targets: Mapping[str, bool] | None = None, translator: Translator = ENGLISH) -> str:
    """The whole picture: caption, map, open tiles, the players' table, the commitment.

    For a move page, ``chosen`` (the cells clicked so far) get a dark outline and ``targets`` (the
    next click's cells) a ring on a light halo, which stands out on every terrain; the links are
    then named by what their place holds. Every word is said through ``translator``.
    """
    caption, title = localize(caption, translator), localize(title, translator)
    at = {label: position(label) for label, _, _ in view["tiles"]}
    options = {label: position(label) for label in view["lay_options"]}
    units = [(SQRT3 * (q - r / 2), -1.5 * r) for q, r in (*at.values(), *options.values())]
    left, right = min(x for x, _ in units), max(x for x, _ in units)
    low, high = min(y for _, y in units), max(y for _, y in units)
    radius = min(MAX_RADIUS, (WIDTH - 2 * PAD) / (right - left + SQRT3),
                 MAX_MAP_HEIGHT / (high - low + 2))
    heading = textwrap.wrap(caption, 64) or [""]
    map_top = LINE * len(heading) + 4
    map_height = (high - low + 2) * radius + PAD
    x0 = WIDTH / 2 - radius * (left + right) / 2
    y0 = map_top + PAD + radius * (1 - low)

    def centre(pos: tuple[int, int]) -> tuple[float, float]:
        return x0 + radius * SQRT3 * (pos[0] - pos[1] / 2), y0 - radius * 1.5 * pos[1]

    seats = view["seats"]
    notes = _card_lines(view, translator)
    panel_top = map_top + map_height + TILES_ROW
    notes_top = panel_top + ROW * (len(seats) + 1) + 10
    height = notes_top + LINE * len(notes) + 2
    interactive = cell_href is not None and any(
        cell_href(label) for label in (*at, *options))
    root = svg_root(WIDTH, height, title=title,
                    label=f"{title} {piece_list_view(view).render(translator)}",
                    interactive=interactive)
    # Not drawn (text is slow to rasterise), but in the file for anyone who checks.
    sub(root, "desc", Text("shuffle commitment: sha256 %(sha)s",
                           sha=view["seed_sha256"]).render(translator))
    sub(root, "rect", width=WIDTH, height=height, fill=PAPER)
    text = sub(root, "g", font_size=13, fill=INK)
    for n, line in enumerate(heading):
        sub(text, "text", line, x=PAD, y=LINE * (n + 1) - 2)

    shapes = Shapes()
    _compass(shapes, WIDTH - PAD - 22, panel_top + 40)
    hut_at = {h: s for s, seat in enumerate(seats) for h in seat["huts"]}
    for label, name, rot in view["tiles"]:
        cx, cy = centre(at[label])
        tile(shapes, name, rot, cx, cy, radius)
        if label in hut_at:
            s = hut_at[label]
            _seat_shape(shapes, s, _house(cx, cy, radius))
            shapes.label(str(s + 1), cx, cy + radius * 0.02, radius * 0.3, SEAT_TEXT[s])
    for label, pos in options.items():
        cx, cy = centre(pos)
        shapes.add("spots", hexagon_path(cx, cy, radius * 0.92), fill="#fffdf3", stroke=EDGE,
                   stroke_dasharray="3 2")
        shapes.label(label, cx, cy + radius * 0.12, max(radius * 0.3, 6), EDGE)
    if mark in at:
        cx, cy = centre(at[mark])
        shapes.add("mark", hexagon_path(cx, cy, radius - 1.5), fill="none", stroke=HIGHLIGHT,
                   stroke_width=2.5)
    for s, seat in enumerate(seats):
        cx, cy = centre(position(seat["walker"]))
        angle = math.radians(WALKER_ANGLES[s])
        wx, wy = cx + radius * 0.56 * math.cos(angle), cy + radius * 0.56 * math.sin(angle)
        size = max(radius * 0.24, 4.5)
        _seat_shape(shapes, s, circle_path(wx, wy, size))
        if s == view["to_move"]:
            shapes.add("mark", circle_path(wx, wy, size + 1.5), fill="none", stroke=INK,
                       stroke_width=2)
        shapes.label(str(s + 1), wx, wy + size * 0.45, size * 1.25, SEAT_TEXT[s])

    for label in chosen or ():
        if label in at or label in options:
            shapes.add("mark", hexagon_path(*centre((at | options)[label]), radius - 2),
                       fill="none", stroke=CHOSEN, stroke_width=4)
    for label in targets or {}:
        if label in at or label in options:
            cx, cy = centre((at | options)[label])
            # Around an open place's name; along a tile's rim, clear of its walkers and hut.
            ring = (circle_path(cx, cy, radius * 0.62) if label in options
                    else hexagon_path(cx, cy, radius * 0.9))
            shapes.add("mark", ring, fill="none", stroke=PAPER, stroke_width=6)
            shapes.add("badges", ring, fill="none", stroke=TARGET, stroke_width=3)
    _tiles_row(shapes, view, map_top + map_height, translator)
    _players(shapes, view, panel_top, translator)
    shapes.write(root)
    if cell_href is not None:
        links = sub(root, "g", fill="#fff", fill_opacity=0)
        for label, pos in (*at.items(), *options.items()):
            href = cell_href(label)
            if href:
                cx, cy = centre(pos)
                name = label if chosen is None else place_name(
                    view, label, label in options).render(translator)
                link = sub(links, "a", href=href, aria_label=name, data_cell=label)
                sub(link, "path", d=hexagon_path(cx, cy, radius))
    notes_group = sub(root, "g", font_size=10, fill=INK)
    for n, line in enumerate(notes):
        sub(notes_group, "text", line, x=PAD, y=notes_top + LINE * n)
    return to_string(root)


def place_name(view: JSON, label: str, open_place: bool = False) -> Text:
    """What a link on the map is called: the place and what stands there."""
    seats = view["seats"]
    own = view.get("viewer")
    if open_place:
        return Text("%(place)s, open place for a tile", place=label)
    name = next((n for lb, n, _ in view["tiles"] if lb == label), "")
    parts: list[str] = [Text("%(place)s, %(tile)s tile", place=label, tile=tile_name(name))]
    for s, seat in enumerate(seats):
        if label in seat["huts"]:
            parts.append(Text("your hut") if s == own
                         else Text("%(seat)s's hut", seat=seat["name"]))
        if seat["walker"] == label:
            parts.append(Text("your walker") if s == own
                         else Text("%(seat)s's walker", seat=seat["name"]))
    return Text.joined(parts, ", ")


def piece_list_view(view: JSON) -> Text:
    """Where the tiles, huts and walkers are, in words (the map's text alternative)."""
    tiles = Text.joined([Text("%(place)s %(tile)s", place=lb, tile=tile_name(name))
                         for lb, name, _ in view["tiles"]], "; ")
    lines: list[str] = [Text("Tiles: %(tiles)s.", tiles=tiles)]
    for seat in view["seats"]:
        huts = ", ".join(seat["huts"]) or Text("none")
        lines.append(Text("%(seat)s: walker on %(place)s, huts on %(huts)s.", seat=seat["name"],
                          place=seat["walker"], huts=huts))
    if view["lay_options"]:
        lines.append(Text("Open places: %(places)s.", places=", ".join(view["lay_options"])))
    return Text.joined(lines)


def _compass(shapes: Shapes, cx: float, cy: float) -> None:
    shapes.add("edge", hexagon_path(cx, cy, 6), fill="none", stroke=MUTED, stroke_width=1)
    for d, name in enumerate(DIRECTIONS):
        angle = math.radians(-60 * d)
        shapes.label(name, cx + 16 * math.cos(angle), cy + 16 * math.sin(angle) + 3, 8, MUTED)


def _tiles_row(shapes: Shapes, view: JSON, top: float, translator: Translator = ENGLISH) -> None:
    """The open display, the tile taken, and the blind pile, drawn small with their names.

    The stroke font writes capitals only, so its words are written in lower case here."""
    shapes.add("edge", f"M{PAD} {fmt(top)}H{WIDTH - PAD}", stroke="#c9bfa8")
    slots = [(str(i), name) for i, name in enumerate(view["display"], 1)]
    if view["hand"]:
        slots.append((Text("taken").render(translator), view["hand"]))
    for n, (title, name) in enumerate(slots):
        cx = PAD + 40 + 84 * n
        shapes.label(title, cx - 20, top + 16, 9, anchor="end" if n == 3 else "middle")
        tile(shapes, name, 0, cx, top + 28, 16)
        if KIND_BY_NAME[name].code:  # plain terrain speaks for itself
            shapes.label(tile_name(name).render(translator), cx, top + 56, 7.5)
    shapes.label(Text("blind pile %(count)d", count=view["blind"]).render(translator),
                 WIDTH - PAD, top + 30, 9, anchor="end")
    if view["set_aside"]:
        shapes.label(Text("set aside %(count)d", count=len(view["set_aside"])).render(translator),
                     WIDTH - PAD, top + 46, 9, anchor="end")


# Column headings of the players' table (drawn in capitals; keep translations short).
_COLUMNS = ((N_("at"), 40), (N_("huts left"), 120), (N_("step cards"), 205),
            (N_("point cards"), 295), (N_("score"), 390))


def _seat_values(seat: JSON) -> tuple[str, ...]:
    """A player's row of the table, in the columns' order: the score is "?" while hidden."""
    score = str(seat["score"]) if "score" in seat else "?"
    return (str(seat["walker"]), str(seat["huts_left"]), str(seat["step_cards"]),
            str(seat["point_cards"]), score)


def side_table_view(view: JSON, translator: Translator = ENGLISH) -> SideTable:
    """The players' table as data: headings (capitalised, as a page's are) and each seat's
    row, the values :func:`_players` draws."""
    headings = (translator.gettext(title) for title, _ in _COLUMNS)
    return SideTable(columns=tuple(h[:1].upper() + h[1:] for h in headings),
                     rows=tuple(_seat_values(seat) for seat in view["seats"]))


def _players(shapes: Shapes, view: JSON, top: float, translator: Translator = ENGLISH) -> None:
    """One row per player: walker, huts left, extra-step cards, point cards, score if known."""
    shapes.add("edge", f"M{PAD} {fmt(top)}H{WIDTH - PAD}", stroke="#c9bfa8")
    for title, x in _COLUMNS:
        shapes.label(translator.gettext(title), x, top + 13, 7.5, MUTED, anchor="start")
    for s, seat in enumerate(view["seats"]):
        y = top + ROW * (s + 2) - 4
        _seat_shape(shapes, s, circle_path(PAD + 10, y - 5, 7.5))
        if s == view["to_move"]:
            shapes.add("mark", circle_path(PAD + 10, y - 5, 9), fill="none", stroke=INK,
                       stroke_width=2)
        shapes.label(str(s + 1), PAD + 10, y - 1.3, 10, SEAT_TEXT[s])
        for (_, x), value in zip(_COLUMNS, _seat_values(seat), strict=True):
            shapes.label(value, x, y, 10, anchor="start")


def _card_lines(view: JSON, translator: Translator = ENGLISH) -> list[str]:
    """The point cards the viewer may see: their own, or everyone's once the game is over."""
    lines = []
    for s, seat in enumerate(view["seats"]):
        if "cards" not in seat:
            continue
        cards: list[str] = [f"{KIND_BY_NAME[name].code.upper()} {points}"
                            for name, points in seat["cards"]]
        if seat["bears"]:
            cards.append(Text("bear -3 ×%(count)d", count=seat["bears"]))
        if seat["hut_cards"]:
            cards.append(Text("hut 2 ×%(count)d", count=seat["hut_cards"]))
        listed = Text.joined(cards, ", ") if cards else Text("none")
        line = (Text("Your cards: %(cards)s", cards=listed) if s == view["viewer"]
                else Text("%(seat)s's cards: %(cards)s", seat=seat["name"], cards=listed))
        lines += textwrap.wrap(line.render(translator), 84)
    return lines


class RifugioPresentation(Presentation["Rifugio", State, "RifugioMove"]):
    """Rifugio's pictures and text board, each drawn from the view of the seat it is for."""

    def render_text(self, state: State, viewer: int | None = None) -> str:
        return text_view(self.game.view(state, viewer))

    def piece_list(self, state: State, viewer: int | None = None) -> Text:
        return piece_list_view(self.game.view(state, viewer))

    def side_table(self, state: State, viewer: int | None = None, *,
                   translator: Translator = ENGLISH) -> SideTable:
        return side_table_view(self.game.view(state, viewer), translator)

    def render_svg(
        self,
        state: State,
        viewer: int | None = None,
        last_move: RifugioMove | str | None = None,
        cell_href: CellHref | None = None,
        *,
        chosen: Sequence[str] | None = None,
        translator: Translator = ENGLISH,
        ending: Ending | None = None,
    ) -> str:
        move = self.game.last_move_of(last_move)
        cells = self.game.move_cells(move) if move is not None else ()
        seen = self.game.view(state, viewer)
        targets = None if chosen is None else self.game.click_targets(state, chosen)
        caption, described = caption_view(seen), describe_view(seen)
        if self.game.ended_off_board(state, ending):  # nobody is to move
            caption, described = Text("Game over"), Text("Game over.")
            if viewer is not None:
                described = Text.joined([described, Text("Your score: %(score)d.",
                                                          score=seen["seats"][viewer]["score"])])
        return draw(seen, caption, described, cell_href=cell_href,
                    mark=cells[0] if cells else None, chosen=chosen, targets=targets,
                    translator=translator)
