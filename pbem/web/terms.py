"""Plain explanations of each game's own words, and seat labels with names and colours.

Pages show a game's jargon (komi, the button, Rifugio's tile codes) where it appears, so a
player never has to leave the page to understand it. The explanations depend on the game's
family (the engine package it comes from), never on pbem code per game id; Rifugio's codes come
from the engine's edition table, so a changed edition changes the legend too.

Every function that returns words takes an optional ``reader`` (English by default): pages pass
the page's reader, emails the recipient's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import engine
from engine.text import N_
from pbem.game_options import family_of, seat_colours
from pbem.i18n import ENGLISH, Reader
from pbem.models import Seat

Term = tuple[str, str]

_GENERIC_SEAT = re.compile(r"(?:player|seat) ([0-9]+)", re.IGNORECASE)


def words(reader: Reader, text: str) -> str:
    """An engine's words for ``reader``: a Text is rendered, a marked constant (a game's name, a
    seat's colour) is looked up in the catalog, anything else is returned as it is."""
    if not isinstance(text, str) or not text:
        return text  # an option's value may be a number
    rendered = reader.text(text)
    return rendered if rendered is not text else reader.gettext(text)


# A game's and a seat's status as pages show it (pbem.models.GameStatus and SeatStatus).
_STATUS_WORDS = {"invited": N_("invited"), "active": N_("active"), "finished": N_("finished"),
                 "aborted": N_("aborted"), "accepted": N_("accepted"),
                 "declined": N_("declined")}


def status_word(status: str, *, reader: Reader = ENGLISH) -> str:
    """A game's or seat's status in ``reader``'s words ("active", "accepted")."""
    word = _STATUS_WORDS.get(status)
    return reader.gettext(word) if word else status


def seat_names(game_id: str, names: Sequence[str], *, reader: Reader = ENGLISH) -> list[str]:
    """The engine's seat names, with generic "Player 2" replaced by the seat's colour."""
    colours = seat_colours(game_id)
    named = []
    for seat, name in enumerate(names):
        generic = _GENERIC_SEAT.fullmatch(name.strip())
        if generic and seat < len(colours) and colours[seat]:
            name = reader.gettext(colours[seat])
        elif generic:
            name = reader.gettext("seat %(number)d", number=seat + 1)
        else:
            name = words(reader, name)
        named.append(name)
    return named


def seat_label(player_name: str, seat_name: str) -> str:
    """"Alice (Light)": how every page names a seat."""
    return f"{player_name} ({seat_name})" if seat_name else player_name


def label_seats(seats: Sequence[Seat], people: Sequence[str], names: Sequence[str]) -> list[str]:
    """:func:`seat_label` of each of ``seats``: ``people`` are their players' shown names, in
    the same order; ``names`` the colours by seat number (a seat past its end has none)."""
    return [seat_label(person, names[s.seat] if s.seat < len(names) else "")
            for s, person in zip(seats, people, strict=True)]


def _stigmergy(options: Mapping[str, object], reader: Reader) -> list[Term]:
    _ = reader.gettext
    terms = [
        (_("Sides"), _("Stigmergy's players are Black and White; Black places the first stone.")),
        (_("Control"), _("A cell is yours when more of your stones see it along its six lines "
                         "than half its number of neighbours. You may place on any cell your "
                         "opponent does not control, and replace an enemy stone on a cell you "
                         "control.")),
        (_("Score"), _("Your stones plus the empty cells you control, plus the komi for White "
                       "and half a point for whoever holds the button.")),
    ]
    if options.get("komi", "negotiate") != "none":
        terms += [
            (_("Komi"), _("Points added to the second player's score (White's) to make up for "
                          "Black moving first. The first player names it at the start.")),
            (_("Choosing sides"), _("After the komi is named, the other player chooses: place "
                                    "the first stone now and be Black, or \u201cPlay "
                                    "second\u201d: be White and let the first player place "
                                    "first.")),
            (_("Button"), _("With an odd komi there is a button worth \u00bd point. Once sides "
                            "are chosen, a player may spend a whole turn on \u201cTake the "
                            "button (+\u00bd point)\u201d instead of placing; it can be taken "
                            "once, and with it no game can end in a tie.")),
        ]
    return terms


def _rifugio(options: Mapping[str, object], reader: Reader) -> list[Term]:
    from engine.games.rifugio.tiles import EDITION, TOPS  # the edition's own component table

    _ = reader.gettext
    terms: list[Term] = []
    for kind in EDITION.kinds:
        if not kind.code:
            continue  # plain grass, forest and rock carry no label
        terms.append((kind.code.upper(),
                      _tile_text(kind.name, kind.group, kind.points, TOPS, reader)))
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


def _tile_text(name: str, group: str, points: int, tops: str,
               reader: Reader = ENGLISH) -> str:
    """What a coded tile is and what visiting it gives."""
    _ = reader.gettext
    if group == "bear":
        return _("Bear: %(points)s points at every visit.", points=points)
    from engine.games.rifugio.tiles import EDITION

    if group == tops:
        return _("Mountain top (%(name)s): a card worth %(points)s; the first visitor of this "
                 "top gets %(first)s.", name=words(reader, name), points=points,
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
             name=words(reader, name).capitalize(), group=words(reader, group), points=points)


def _refugia(options: Mapping[str, object], reader: Reader) -> list[Term]:
    _ = reader.gettext
    return [
        (_("Neutral stone"), _("A \u201cmutual enemy\u201d stone that belongs to nobody: it "
                               "counts as an enemy for both players. A disc hopped by the "
                               "opponent becomes one.")),
        (_("Hop"), _("Jump one of your discs over an adjacent enemy disc or neutral stone to the "
                     "empty cell right behind it. A hopped enemy disc turns neutral; a hopped "
                     "neutral stone becomes yours.")),
        (_("Enemies of a cell"), _("How many of its neighbours hold an opponent's disc or a "
                                   "neutral stone. A disc may only move to a cell with fewer "
                                   "enemies.")),
        (_("Score"), _("When both players pass, each counts the pairs of their own discs that "
                       "touch; the most pairs wins.")),
    ]


def _mosey(options: Mapping[str, object], reader: Reader) -> list[Term]:
    _ = reader.gettext
    return [
        (_("Group"), _("Stones of one colour that touch each other, cell to cell.")),
        (_("Capture"), _("Ending a move on an enemy stone removes it from the board.")),
        (_("Slide"), _("Move a stone in a straight line over empty cells.")),
        (_("Step"), _("Move a stone to a neighbouring empty cell.")),
        (_("Last to move"), _("Nobody may pass: when the player to move has no move, the game "
                              "ends, and the player who moved last wins or loses, depending on "
                              "the game.")),
    ]


_BY_FAMILY = {"stigmergy": _stigmergy, "rifugio": _rifugio, "refugia": _refugia, "mosey": _mosey}


def terms_for(game_id: str, options: Mapping[str, object], *,
              reader: Reader = ENGLISH) -> list[Term]:
    """(term, plain explanation) pairs for ``game_id`` played with ``options``; [] for a game
    whose family has none written yet."""
    try:
        explain = _BY_FAMILY.get(family_of(game_id))
    except engine.UnknownGame:
        return []
    return explain(options, reader) if explain else []


def name_generic_seats(text: str, labels: Sequence[str]) -> str:
    """The engine's sentences with "Player 2" replaced by that seat's label ("Bob (Blue)");
    other seat names (Light, Black) are words that may mean something else, so they stay."""
    def label(match: re.Match[str]) -> str:
        seat = int(match[1]) - 1
        return labels[seat] if 0 <= seat < len(labels) else match[0]

    return re.sub(r"\bPlayer ([0-9]+)\b", label, text)


# Moves that are words rather than cells, as a button says them. The notation stays the value
# sent, and is shown beside the words so players learn what to type or write in a reply.
_MOVE_WORDS = {
    "pass": N_("Pass"),
    "play-second": N_("Play second (let the other player place the first stone)"),
    "take-button": N_("Take the button (+\u00bd point)"),
    "take blind": N_("Take the top tile of the blind pile"),
    "end": N_("End your turn"),
    "build": N_("Build a hut here"),
}


def move_label(move: str, *, reader: Reader = ENGLISH) -> str:
    """What a button for ``move`` says: "Take the button (+½ point)", not "take-button".

    >>> move_label("take-button")
    'Take the button (+½ point) \u2014 take-button'
    >>> move_label("C2-E2")
    'C2-E2'
    """
    label = _MOVE_WORDS.get(move.strip().lower())
    return f"{reader.gettext(label)} \u2014 {move}" if label else move
