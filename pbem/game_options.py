"""A game's chosen options in words, as the forms label them ("Board size 4"), for pages and
emails that describe a challenge or seek (the stored names, such as ``order``, mean nothing to
players)."""

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
        label = reader.gettext(option.label) if option is not None else name
        parts.append(f"{label} {options[name]}")
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
