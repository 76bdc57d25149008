"""Stigmergy's own words, explained plainly for the pages that show them."""

from __future__ import annotations

from collections.abc import Mapping

from engine.base import Term
from engine.text import N_, Say, Translator

MOVE_WORDS = {
    "pass": N_("Pass"),
    "play-second": N_("Play second (let the other player place the first stone)"),
    "take-button": N_("Take the button (+\u00bd point)"),
}
"""How a button says each of Stigmergy's word moves."""


def glossary(options: Mapping[str, object], translator: Translator) -> list[Term]:
    """(term, explanation) pairs; the komi, sides and button only where the komi is negotiated."""
    _ = Say(translator)
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
