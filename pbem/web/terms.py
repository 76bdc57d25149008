"""Plain explanations of each game's own words, and seat labels with names and colours.

Pages show a game's jargon (komi, the button, Rifugio's tile codes) where it appears, so a
player never has to leave the page to understand it. The explanations depend on the game's
family (the engine package it comes from), never on pbem code per game id; Rifugio's codes come
from the engine's edition table, so a changed edition changes the legend too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import engine

Term = tuple[str, str]

# The engine names Rifugio's seats "Player 1".."Player 5" and tells them apart by the colours of
# its drawing (engine.games.rifugio.draw.SEAT_COLOURS); players read colours, not numbers.
_COLOUR_NAMES = {"#d62728": "Red", "#1f64c8": "Blue", "#f2b705": "Yellow", "#8e44ad": "Purple",
                 "#17a589": "Green"}
_GENERIC_SEAT = re.compile(r"(?:player|seat) ([0-9]+)", re.IGNORECASE)


def family_of(game_id: str) -> str:
    """The engine package a game comes from: ``mosey`` for all six Mosey games."""
    module = engine.game_class(game_id).__module__  # engine.games.<family>.rules
    return module.split(".")[2] if module.startswith("engine.games.") else game_id


def _seat_colours(game_id: str) -> tuple[str, ...]:
    """The colour each seat is drawn in, by name, when the engine's drawing has seat colours."""
    try:
        package = __import__(f"engine.games.{family_of(game_id)}.draw", fromlist=["draw"])
    except ImportError:
        return ()
    colours = getattr(package, "SEAT_COLOURS", ())
    return tuple(_COLOUR_NAMES.get(str(c).lower(), "") for c in colours)


def seat_names(game_id: str, names: Sequence[str]) -> list[str]:
    """The engine's seat names, with generic "Player 2" replaced by the seat's colour."""
    colours = _seat_colours(game_id)
    named = []
    for seat, name in enumerate(names):
        generic = _GENERIC_SEAT.fullmatch(name.strip())
        if generic and seat < len(colours) and colours[seat]:
            name = colours[seat]
        elif generic:
            name = f"seat {seat + 1}"
        named.append(name)
    return named


def seat_label(player_name: str, seat_name: str) -> str:
    """"Alice (Light)": how every page names a seat."""
    return f"{player_name} ({seat_name})" if seat_name else player_name


def _stigmergy(options: Mapping[str, object]) -> list[Term]:
    terms = [
        ("Sides", "Stigmergy's players are Black and White; Black places the first stone."),
        ("Control", "A cell is yours when more of your stones see it along its six lines than "
                    "half its number of neighbours. You may place on any cell your opponent does "
                    "not control, and replace an enemy stone on a cell you control."),
        ("Score", "Your stones plus the empty cells you control, plus the komi for White and "
                  "half a point for whoever holds the button."),
    ]
    if options.get("komi", "negotiate") != "none":
        terms += [
            ("Komi", "Points added to the second player's score (White's) to make up for "
                     "Black moving first. The first player names it at the start."),
            ("Choosing sides", "After the komi is named, the other player chooses: place the "
                               "first stone now and be Black, or \u201cPlay second\u201d: be "
                               "White and let the first player place first."),
            ("Button", "With an odd komi there is a button worth \u00bd point. Once sides are "
                       "chosen, a player may spend a whole turn on \u201cTake the button "
                       "(+\u00bd point)\u201d instead of placing; it can be taken once, and "
                       "with it no game can end in a tie."),
        ]
    return terms


def _rifugio(options: Mapping[str, object]) -> list[Term]:
    from engine.games.rifugio.tiles import EDITION, TOPS  # the edition's own component table

    terms: list[Term] = []
    for kind in EDITION.kinds:
        if not kind.code:
            continue  # plain grass, forest and rock carry no label
        terms.append((kind.code.upper(), _tile_text(kind.name, kind.group, kind.points, TOPS)))
    terms += [
        ("Hut", f"Costs one step to build on a plain tile you stand on. Each visit by another "
                f"player gives you a hut card worth {EDITION.hut_card} and them an extra-step "
                "card."),
        ("Extra-step card", f"Play one for one more step on your walk. You start with "
                            f"{EDITION.start_step_cards} and may hold at most "
                            f"{EDITION.max_step_cards}."),
        ("Set", f"Holding all three cards of flowers, animals, waterfalls, passes or mountain "
                f"tops is worth {EDITION.set_bonus} bonus points at the end."),
        ("Open display and blind pile", "Each turn you take one of the three face-up tiles or "
                                        "the top tile of the face-down pile, and lay it."),
    ]
    return terms


def _tile_text(name: str, group: str, points: int, tops: str) -> str:
    """What a coded tile is and what visiting it gives."""
    if group == "bear":
        return f"Bear: {points} points at every visit."
    from engine.games.rifugio.tiles import EDITION

    if group == tops:
        return (f"Mountain top ({name}): a card worth {points}; the first visitor of this top "
                f"gets {EDITION.first_top}.")
    if group == "passes":
        entrances = name.removeprefix("pass ").replace("G", "grass ").replace("F", "forest ")
        return (f"Pass with {entrances.strip().replace(' ', ' and ')} entrances: a card worth "
                f"{points}; walk in and out only through an entrance.")
    if group == "start":
        return "The start tile, with the start hut."
    return f"{name.capitalize()} ({group}): a card worth {points} at your first visit."


def _refugia(options: Mapping[str, object]) -> list[Term]:
    return [
        ("Neutral stone", "A \u201cmutual enemy\u201d stone that belongs to nobody: it counts as "
                          "an enemy for both players. A disc hopped by the opponent becomes one."),
        ("Hop", "Jump one of your discs over an adjacent enemy disc or neutral stone to the empty "
                "cell right behind it. A hopped enemy disc turns neutral; a hopped neutral stone "
                "becomes yours."),
        ("Enemies of a cell", "How many of its neighbours hold an opponent's disc or a neutral "
                              "stone. A disc may only move to a cell with fewer enemies."),
        ("Score", "When both players pass, each counts the pairs of their own discs that touch; "
                  "the most pairs wins."),
    ]


def _mosey(options: Mapping[str, object]) -> list[Term]:
    return [
        ("Group", "Stones of one colour that touch each other, cell to cell."),
        ("Capture", "Ending a move on an enemy stone removes it from the board."),
        ("Slide", "Move a stone in a straight line over empty cells."),
        ("Step", "Move a stone to a neighbouring empty cell."),
        ("Last to move", "Nobody may pass: when the player to move has no move, the game ends, "
                         "and the player who moved last wins or loses, depending on the game."),
    ]


_BY_FAMILY = {"stigmergy": _stigmergy, "rifugio": _rifugio, "refugia": _refugia, "mosey": _mosey}


def terms_for(game_id: str, options: Mapping[str, object]) -> list[Term]:
    """(term, plain explanation) pairs for ``game_id`` played with ``options``; [] for a game
    whose family has none written yet."""
    try:
        explain = _BY_FAMILY.get(family_of(game_id))
    except engine.UnknownGame:
        return []
    return explain(options) if explain else []


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
    "pass": "Pass",
    "play-second": "Play second (let the other player place the first stone)",
    "take-button": "Take the button (+\u00bd point)",
    "take blind": "Take the top tile of the blind pile",
    "end": "End your turn",
    "build": "Build a hut here",
}


def move_label(move: str) -> str:
    """What a button for ``move`` says: "Take the button (+½ point)", not "take-button".

    >>> move_label("take-button")
    'Take the button (+½ point) \u2014 take-button'
    >>> move_label("C2-E2")
    'C2-E2'
    """
    words = _MOVE_WORDS.get(move.strip().lower())
    return f"{words} \u2014 {move}" if words else move
