"""Rifugio for the computer player: full states consistent with what one seat sees, and chance
outcomes (:class:`RifugioSearch`, the game's :class:`engine.base.Search`).

Rifugio hides three things from a seat (see ``Rifugio.view``): the order of the blind pile (and
the seed that orders it and every reshuffle), and the other seats' point cards, which it sees
only as counts. :func:`determinize` keeps everything the seat sees and replaces those three:

- the pile: the tiles nobody can see (all tiles but the laid, open, set-aside and held ones, a
  set the seat can count) in an order shuffled with the bot's rng;
- the seed: a fresh one from the bot's rng (so reshuffles too are the bot's guess), reshuffle
  count 0;
- each other seat's cards: as many as the view counts, drawn among the cards that seat could
  hold: a feature card of a feature tile on the map (once each), a bear for a bear tile on the
  map, a hut card for each hut it owns. A mountain top is worth the first-visitor bonus when no
  card known or drawn so far has it.

Nothing else of the true state is read, so two states that look the same to the seat give the
same determinizations for the same rng (``tests/engine/test_bots.py`` checks this).

>>> import random
>>> from engine import new_game
>>> game = new_game("rifugio", players=3)
>>> state = game.play(game.start(seed=5), "take blind")
>>> guess = determinize(state, 0, random.Random(1))
>>> sorted(guess.pile) == sorted(state.pile), guess.pile != state.pile
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import replace
from typing import Any

from engine.base import Game, Search
from engine.games.rifugio.state import State
from engine.games.rifugio.tiles import BEAR, EDITION, KINDS, NUM_TILES, TOPS


def unseen_tiles(state: State) -> list[int]:
    """The tiles in the blind pile as a set (sorted ids): every tile not laid, open, set aside
    or in hand. Any seat can work this out; only the order is secret."""
    seen = {t for _, _, t, _ in state.placed}
    seen.update(state.display)
    seen.update(state.set_aside)
    if state.hand is not None:
        seen.add(state.hand)
    return [t for t in range(NUM_TILES) if t not in seen]


def _cards(state: State, seat: int, count: int, taken_tops: set[int],
           rng: random.Random) -> tuple[tuple[tuple[int, int], ...], int, int]:
    """``count`` cards for ``seat``: (feature cards, bears, hut cards)."""
    features = sorted(t for _, _, t, _ in state.placed if KINDS[t].is_feature)
    bears = sum(1 for _, _, t, _ in state.placed if KINDS[t].group == BEAR)
    huts = sum(1 for _, _, owner in state.huts if owner == seat)
    pool: list[int | str] = [*features, *(["bear"] * bears), *(["hut"] * huts)]
    cards: list[tuple[int, int]] = []
    bear_cards = hut_cards = 0
    for _ in range(count):
        if not pool:
            hut_cards += 1
            continue
        pick = pool[rng.randrange(len(pool))]
        if pick == "bear":
            bear_cards += 1
        elif pick == "hut":
            hut_cards += 1
        else:
            assert isinstance(pick, int)
            pool.remove(pick)
            points = KINDS[pick].points
            if KINDS[pick].group == TOPS and pick not in taken_tops:
                points = EDITION.first_top
                taken_tops.add(pick)
            cards.append((pick, points))
    return tuple(cards), bear_cards, hut_cards


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A full state that ``seat`` cannot tell from ``state``, with the hidden parts drawn from
    ``rng`` (see the module's docstring)."""
    pile = unseen_tiles(state)
    rng.shuffle(pile)
    seed = f"bot-{rng.getrandbits(64):016x}"
    features = list(state.features)
    bears = list(state.bears)
    hut_cards = list(state.hut_cards)
    taken_tops = {t for t, points in state.features[seat] if points == EDITION.first_top
                  and KINDS[t].group == TOPS}
    for other in range(state.players):
        if other == seat:
            continue
        count = len(state.features[other]) + state.bears[other] + state.hut_cards[other]
        features[other], bears[other], hut_cards[other] = _cards(
            state, other, count, taken_tops, rng)
    return replace(state, pile=tuple(pile), seed=seed, reshuffles=0, features=tuple(features),
                   bears=tuple(bears), hut_cards=tuple(hut_cards))


def observe(state: State) -> Hashable:
    """What chance just showed everyone: the tile in hand and the open display (by kind, since
    tiles of one kind are interchangeable). A node of the tree has one child per observation."""
    hand = None if state.hand is None else KINDS[state.hand].name
    return hand, tuple(KINDS[t].name for t in state.display)


class RifugioSearch(Search[Game[State, Any], State, Any]):
    """Rifugio hides the pile and the cards, and draws tiles by chance: a search determinizes
    from a seat's view and keeps a node per tile drawn."""

    hidden = True

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        return determinize(state, seat, rng)

    def observe(self, state: State) -> Hashable:
        return observe(state)
