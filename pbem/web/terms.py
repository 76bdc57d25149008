"""Plain explanations of each game's own words, and seat labels with names and colours.

Pages show a game's jargon (komi, the button, Rifugio's tile codes) where it appears, so a
player never has to leave the page to understand it. Each game says its own words (its
``glossary``, ``move_words`` and ``seat_colours``, in engine/games/<game>/); this module only
reads them, for any game, and puts them in the reader's language.

Every function that returns words takes an optional ``reader`` (English by default): pages pass
the page's reader, emails the recipient's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache

import engine
from engine import Term
from engine.text import N_, Words
from pbem.game_options import seat_colours
from pbem.i18n import ENGLISH, Reader
from pbem.models import Seat

__all__ = ["label_seats", "move_label", "name_numbered_players", "seat_label",
           "seat_names", "status_word", "terms_for", "words"]

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


def seat_names(game_id: str, names: Sequence[Words], *, reader: Reader = ENGLISH) -> list[str]:
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


def terms_for(game_id: str, options: Mapping[str, object], *,
              reader: Reader = ENGLISH) -> list[Term]:
    """(term, plain explanation) pairs for ``game_id`` played with ``options`` (stored options a
    game no longer takes count as its defaults), as the game's glossary says them; [] for an
    unknown game or one without a glossary."""
    try:
        try:
            game = engine.new_game(game_id, **options)
        except engine.UnknownGame:
            game = engine.new_game(game_id)
    except engine.UnknownGame:
        return []
    return game.glossary(reader.catalog)


def name_numbered_players(text: str, labels: Sequence[str]) -> str:
    """The engine's sentences with "Player 2" replaced by that seat's label ("Bob (Blue)");
    other seat names (Light, Black) are words that may mean something else, so they stay."""
    def label(match: re.Match[str]) -> str:
        seat = int(match[1]) - 1
        return labels[seat] if 0 <= seat < len(labels) else match[0]

    return re.sub(r"\bPlayer ([0-9]+)\b", label, text)


@cache
def _move_words() -> dict[str, str]:
    """Every game's word moves and how a button says them (they never differ between games)."""
    return {move: label for gid in engine.GAMES
            for move, label in engine.game_class(gid).move_words.items()}


def move_label(move: str, *, reader: Reader = ENGLISH) -> str:
    """What a button for ``move`` says: "Take the button (+½ point)", not "take-button"; the
    words alone, without the notation after them, which the move list shows and no button
    needs.

    >>> move_label("take-button")
    'Take the button (+½ point)'
    >>> move_label("C2-E2")
    'C2-E2'
    """
    label = _move_words().get(move.strip().lower())
    return reader.gettext(label) if label else move
