"""The ``say:`` lines of a reply by mail (pbem.inbound reads them), posted as the seat's
message: subscribed to :class:`~pbem.services.events.ReplySaid` (pbem.features)."""

from __future__ import annotations

from pbem.chat.service import REPLY, ChatRefused, post_message
from pbem.errors import reason_of
from pbem.services.events import ReplySaid


def on_reply_said(event: ReplySaid) -> str | None:
    """Post the message, or say why not (untranslated: the reply's answer translates it).
    A refused message changes nothing (its own savepoint), and the rest of the reply goes on."""
    assert event.row.id is not None
    try:
        with event.session.begin_nested():
            post_message(event.session, event.now, event.site, game_id=event.row.id,
                         seat=event.seat.seat, text=event.text, source=REPLY)
    except ChatRefused as refusal:
        return reason_of(refusal)
    return None
