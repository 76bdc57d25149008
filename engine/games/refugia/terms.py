"""Refugia's own words, explained plainly for the pages that show them."""

from __future__ import annotations

from collections.abc import Mapping

from engine.base import Term
from engine.text import N_, Say, Translator

MOVE_WORDS = {"pass": N_("Pass")}
"""How a button says Refugia's word move."""


def glossary(options: Mapping[str, object], translator: Translator) -> list[Term]:
    """(term, explanation) pairs; the same on every board."""
    _ = Say(translator)
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
