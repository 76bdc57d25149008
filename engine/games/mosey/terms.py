"""The Mosey family's own words, explained plainly for the pages that show them."""

from __future__ import annotations

from collections.abc import Mapping

from engine.base import Term
from engine.text import Say, Translator


def glossary(options: Mapping[str, object], translator: Translator) -> list[Term]:
    """(term, explanation) pairs, the same for all six games."""
    _ = Say(translator)
    return [
        (_("Group"), _("Stones of one colour that touch each other, cell to cell.")),
        (_("Capture"), _("Ending a move on an enemy stone removes it from the board.")),
        (_("Slide"), _("Move a stone in a straight line over empty cells.")),
        (_("Step"), _("Move a stone to a neighbouring empty cell.")),
        (_("Last to move"), _("Nobody may pass: when the player to move has no move, the game "
                              "ends, and the player who moved last wins or loses, depending on "
                              "the game.")),
    ]
