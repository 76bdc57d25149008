"""A game's name, its chosen options in words as the forms label them ("Board size 4"; the stored
names, such as ``order``, mean nothing to players), and the colours its seats are drawn in: what
pages and emails alike say about a game."""

from __future__ import annotations

from collections.abc import Mapping

import engine
from engine.text import N_
from pbem.i18n import Reader

# The engine names Rifugio's seats "Player 1".."Player 5" and tells them apart by the colours of
# its drawing (engine.games.rifugio.draw.SEAT_COLOURS); players read colours, not numbers.
_COLOUR_NAMES = {"#d62728": N_("Red"), "#1f64c8": N_("Blue"), "#f2b705": N_("Yellow"),
                 "#8e44ad": N_("Purple"), "#17a589": N_("Green")}


def options_in_words(game_type: str, options: Mapping[str, object], reader: Reader) -> str:
    """"Board size 4, Komi none": each option's label in ``reader``'s language and its choice
    as templates/_game_options.html shows it, in the game's own order; "" for none. An option
    the game no longer has keeps its stored name rather than vanishing."""
    info = engine.GAMES.get(game_type)
    known = {o.name: o for o in info.options} if info is not None else {}
    order = [name for name in known if name in options]
    order += [name for name in options if name not in known]
    parts = []
    for name in order:
        option = known.get(name)
        if option is None:
            parts.append(f"{name} {options[name]}")
            continue
        label, choice = reader.gettext(option.label), option.words(options[name])
        parts.append(f"{label} {reader.gettext(choice) if choice else choice}")
    return ", ".join(parts)


def game_name(game_type: str, reader: Reader) -> str:
    """A game's name in ``reader``'s language; the stored id itself for a game no longer
    offered, so a list of old games never fails on one.

    >>> from pbem.i18n import ENGLISH
    >>> game_name("dont-mosey", ENGLISH), game_name("chess", ENGLISH)
    ("Don't Mosey", 'chess')
    """
    info = engine.GAMES.get(game_type)
    return reader.gettext(info.name) if info is not None else game_type


def family_of(game_id: str) -> str:
    """The engine package a game comes from: ``mosey`` for all six Mosey games."""
    module = engine.game_class(game_id).__module__  # engine.games.<family>.rules
    return module.split(".")[2] if module.startswith("engine.games.") else game_id


def seat_colours(game_id: str) -> tuple[str, ...]:
    """The colour each seat is drawn in, by name, when the engine's drawing has seat colours."""
    try:
        package = __import__(f"engine.games.{family_of(game_id)}.draw", fromlist=["draw"])
    except ImportError:
        return ()
    colours = getattr(package, "SEAT_COLOURS", ())
    return tuple(_COLOUR_NAMES.get(str(c).lower(), "") for c in colours)
