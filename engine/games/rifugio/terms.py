"""Rifugio's own words, explained plainly for the pages that show them: every coded tile of the
edition (from its component table, so a changed edition changes the legend too), huts, cards,
sets and the two ways to draw."""

from __future__ import annotations

from collections.abc import Mapping

from engine.base import Term
from engine.games.rifugio.tiles import EDITION, TOPS
from engine.text import N_, Say, Translator

MOVE_WORDS = {
    "take blind": N_("Take the top tile of the blind pile"),
    "end": N_("End your turn"),
    "build": N_("Build a hut here"),
}
"""How a button says each of Rifugio's word moves."""

SEAT_COLOURS = (N_("Red"), N_("Blue"), N_("Yellow"), N_("Purple"), N_("Green"))
"""The names of the seats' colours in the drawing (``drawing.SEAT_COLOURS``), seat by seat."""


def glossary(options: Mapping[str, object], translator: Translator) -> list[Term]:
    """(term, explanation) pairs: the coded tiles, then huts, cards, sets and drawing."""
    _ = Say(translator)
    terms: list[Term] = []
    for kind in EDITION.kinds:
        if not kind.code:
            continue  # plain grass, forest and rock carry no label
        terms.append((kind.code.upper(), tile_text(kind.name, kind.group, kind.points, _)))
    terms += [
        (_("Hut"), _("Costs one step to build on a plain tile you stand on. Each visit by "
                     "another player gives you a hut card worth %(points)s and them an "
                     "extra-step card.", points=EDITION.hut_card)),
        (_("Extra-step card"), _("Play one for one more step on your walk. You start with "
                                 "%(start)s and may hold at most %(most)s.",
                                 start=EDITION.start_step_cards, most=EDITION.max_step_cards)),
        (_("Set"), _("Holding all three cards of flowers, animals, waterfalls, passes or "
                     "mountain tops is worth %(bonus)s bonus points at the end.",
                     bonus=EDITION.set_bonus)),
        (_("Open display and blind pile"), _("Each turn you take one of the three face-up tiles "
                                             "or the top tile of the face-down pile, and lay "
                                             "it.")),
    ]
    return terms


def tile_text(name: str, group: str, points: int, _: Say) -> str:
    """What a coded tile is and what visiting it gives."""
    if group == "bear":
        return _("Bear: %(points)s points at every visit.", points=points)
    if group == TOPS:
        return _("Mountain top (%(name)s): a card worth %(points)s; the first visitor of this "
                 "top gets %(first)s.", name=_.word(name), points=points,
                 first=EDITION.first_top)
    if group == "passes":
        entrances = [_("grass") if c == "G" else _("forest")
                     for c in name.removeprefix("pass ") if c in "GF"]
        if len(entrances) == 2:
            return _("Pass with %(first)s and %(second)s entrances: a card worth %(points)s; "
                     "walk in and out only through an entrance.", first=entrances[0],
                     second=entrances[1], points=points)
        return _("Pass with %(entrances)s entrances: a card worth %(points)s; walk in and out "
                 "only through an entrance.", entrances=" ".join(entrances), points=points)
    if group == "start":
        return _("The start tile, with the start hut.")
    return _("%(name)s (%(group)s): a card worth %(points)s at your first visit.",
             name=_.word(name).capitalize(), group=_.word(group), points=points)
