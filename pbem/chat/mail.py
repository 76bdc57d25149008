"""A message by email to the game's other players: kind ``chat``, through the outbox like every
email of the game (:func:`pbem.services.notify.enqueue`), in each player's own thread of the
game (its In-Reply-To is the seat's first email, as the turn notices'), so a mail program shows
it among the game's emails. Its Reply-To is the seat's reply address: a ``say:`` line in the
answer writes back (pbem.chat.replies).

Not mailed: the author, computer players (enqueue sends them nothing), and players who muted
this game's chat. The kind is its own so that a player's mail settings can tell it apart."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from engine.text import N_
from pbem.chat.tables import ChatMessage, ChatMute
from pbem.game_options import game_name
from pbem.i18n import Reader
from pbem.inbound.words import command_words
from pbem.models import GameRecord
from pbem.services.common import Site, players_of, seats_of, shown_names
from pbem.services.notify import enqueue, subject_line, title_of

KIND = "chat"
ORGANISER = N_("The organiser")


def send_message(session: Session, now: datetime, site: Site, row: GameRecord,
                 message: ChatMessage) -> int:
    """Queue ``message`` for each player it goes to; how many emails were queued."""
    assert row.id is not None
    seats = seats_of(session, row.id)
    players = players_of(session, seats)
    muted = set(session.exec(select(ChatMute.player_id).where(ChatMute.game_id == row.id)))

    def author(reader: Reader) -> str:
        if message.seat is None or message.seat >= len(seats):
            return reader.gettext(ORGANISER)
        return shown_names(seats, players, reader)[message.seat]

    def context(reader: Reader) -> dict[str, Any]:
        return {"author": author(reader), "body": message.body,
                "game_name": game_name(row.game_type, reader),
                "say": command_words(reader.language)["say"] + ":"}

    sent = 0
    for seat in seats:
        if seat.seat == message.seat or seat.player_id in muted:
            continue

        def subject(reader: Reader, number: int = seat.seat) -> str:
            title = title_of(row, shown_names(seats, players, reader), number, reader)
            return subject_line(reader.gettext("%(player)s wrote:", player=author(reader)),
                                title)

        if enqueue(session, now, site, row=row, seat=seat, player=players[seat.player_id],
                   kind=KIND, subject=subject, context=context, essential=False) is not None:
            sent += 1
    return sent
