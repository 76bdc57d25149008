"""The games as cards: the home page's, and the game pickers' of a new challenge and of a game
against the computer. A family of variants (the six games of the Mosey family) is one card
with a choice of variant, so nobody reads six near-identical paragraphs.

Each card has a picture, ``/pictures/<game_id>.svg``: the engine's drawing of a few seeded
random moves on the game's smallest board (stopping short of its end), the same for everyone
(an ``<img>`` with an empty ``alt``: the card's words say what it is).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from flask import Blueprint, Response, abort, url_for

import engine
from pbem.i18n import Reader

bp = Blueprint("catalogue", __name__)

PICTURE_MOVES = 16  # enough for a board that shows how the game looks
PICTURE_SEED = 1
ONE_DAY = 24 * 3600


@dataclass(frozen=True)
class Card:
    """One game, or one family of variants, as a card."""

    name: str
    url: str  # where choosing the game leads (its rules, or its form)
    summary: str  # the first sentence of its summary
    players: str  # "2 players", "2–5 players"
    picture: str  # the picture's URL
    variants: tuple[tuple[str, str], ...] = ()  # (name, url) of each game of a family


def game_cards(reader: Reader, link: Callable[[str], str]) -> list[Card]:
    """A card per family of the catalogue, in its order; ``link`` makes a game's URL."""
    families: dict[str, list[engine.GameInfo]] = {}
    for game_id, info in engine.GAMES.items():
        families.setdefault(engine.family_of(game_id), []).append(info)
    cards = []
    for games in families.values():
        first = games[0]
        low = min(info.min_players for info in games)
        high = max(info.max_players for info in games)
        cards.append(Card(
            name=reader.gettext(first.name), url=link(first.id),
            summary=first_sentence(reader.gettext(first.summary)),
            players=(reader.ngettext("%(low)d–%(num)d player", "%(low)d–%(num)d players", high,
                                     low=low, num=high) if low != high
                     else reader.ngettext("%(num)d player", "%(num)d players", low, num=low)),
            picture=url_for("catalogue.picture", game_id=first.id),
            variants=tuple((reader.gettext(info.name), link(info.id)) for info in games)
            if len(games) > 1 else ()))
    return cards


def first_sentence(text: str) -> str:
    """The first sentence of ``text``: a card's words about a game.

    >>> first_sentence("A territory game. Each cell counts.")
    'A territory game.'
    """
    return re.split(r"(?<=[.!?])\s+", text.strip(), maxsplit=1)[0]


@cache
def _picture(game_id: str) -> str:
    info = engine.GAMES[game_id]
    options = {o.name: o.choices[0] for o in info.options if getattr(o, "choices", None)}
    game = engine.new_game(game_id, **options)
    state = game.start(PICTURE_SEED)
    rng = random.Random(PICTURE_SEED)
    for _ in range(PICTURE_MOVES):
        after = game.play(state, game.random_move(state, rng))
        if game.outcome(after) is not None:  # a game in play, not one that is over
            break
        state = after
    return game.render_svg(state, None)  # the engine escapes every text it draws


@bp.get("/pictures/<game_id>.svg")
def picture(game_id: str) -> Response:
    """A game's picture for its card; the same for everyone, so caches may keep it a day."""
    if game_id not in engine.GAMES:
        abort(404)
    response = Response(_picture(game_id), mimetype="image/svg+xml")
    response.cache_control.public = True
    response.cache_control.max_age = ONE_DAY
    return response
