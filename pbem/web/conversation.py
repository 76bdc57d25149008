"""A game's conversation as the seat page and the move page show it (pbem.chat): the notes of
the moves and the messages in the order they were written, the form to write one, and the
switch that mutes the game's chat emails. Shown to the game's players only, never on the public
game page (see pbem.chat)."""

from __future__ import annotations

from typing import Any

from flask import url_for

from pbem.chat.service import MAX_MESSAGE, conversation, is_muted, who_said
from pbem.services.common import players_of, seats_of, shown_names
from pbem.web.language import current_reader
from pbem.web.support import database, site


def conversation_view(game_id: int, seat: int, *, post_url: str, draft: str = "",
                      error: str = "") -> dict[str, Any]:
    """What ``_conversation.html`` shows to the player of ``seat``: ``said`` (each with the
    name of who said it), the form's address, the text a refused message left (``draft``) and
    why it was refused (``error``), and whether the player muted this game's chat emails."""
    reader = current_reader()
    with database().session() as session:
        seats = seats_of(session, game_id)
        players = players_of(session, seats)
        said = conversation(session, game_id)
        holder = next((s.player_id for s in seats if s.seat == seat), None)
        muted = holder is not None and is_muted(session, game_id, holder)
    names = shown_names(seats, players, reader)
    return {
        "said": [(who_said(s, names, reader), s) for s in said],
        "post_url": post_url, "draft": draft, "error": error, "muted": muted,
        "mute_url": url_for("chat.mute", token=site().links.sign(
            "seat-view", game=game_id, seat=seat)),
        "max_length": MAX_MESSAGE,
    }
