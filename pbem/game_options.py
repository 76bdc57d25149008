"""A game's name, its chosen options in words as the forms label them ("Board size 4"; the stored
names, such as ``order``, mean nothing to players), and the colours its seats are drawn in: what
pages and emails alike say about a game."""

from __future__ import annotations

from collections.abc import Mapping

import engine
from pbem.i18n import Reader


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


def seat_colours(game_id: str) -> tuple[str, ...]:
    """The colour each seat is drawn in, by name (to translate), where the game's seat names do
    not say it (Rifugio's "Player 1" is drawn red); () where they do."""
    return engine.game_class(game_id).seat_colours
