"""The calendar feed: the player's turns that have a deadline, as iCalendar events.

Each event's UID names the game and the ply, so a calendar app keeps one event per turn and
moves it when the deadline moves (a vacation, an organiser's extension); the next turn is a new
event, and a turn played is gone at the app's next refresh. Everything is said in the player's
language; times are UTC, which every calendar app shows in its own zone.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from icalendar import Calendar, Event
from sqlmodel import Session, col, select

from pbem.clock.tables import GameClock
from pbem.i18n import Reader
from pbem.links import Links
from pbem.models import GameRecord, GameStatus, Player, Seat
from pbem.services.common import players_of, seats_of, shown_names
from pbem.services.notify import subject_line, title_of

PRODUCT = "-//pbem//deadlines//EN"
REFRESH = timedelta(hours=1)  # how often calendar apps are asked to look again (RFC 7986)


@dataclass(frozen=True)
class Turn:
    """A turn the player is to play: the game, their seat, and when it must be played."""

    row: GameRecord
    seat: Seat
    deadline: datetime


def deadline_of(row: GameRecord, clock: GameClock) -> datetime | None:
    """When the turn now in ``row`` must be played, None while no clock runs (no time
    control, paused, over): the one place the calendar reads a game's deadline."""
    if row.status != GameStatus.ACTIVE or clock.paused_at is not None:
        return None
    return clock.deadline


def turns_of(session: Session, player_id: int) -> list[Turn]:
    """The player's turns that have a deadline, soonest first (a seat the computer plays for
    them is not theirs to play)."""
    rows = session.exec(
        select(GameRecord, GameClock, Seat)
        .join(GameClock, col(GameClock.game_id) == col(GameRecord.id))
        .join(Seat, col(Seat.game_id) == col(GameRecord.id))
        .where(Seat.player_id == player_id, col(Seat.stand_in).is_(None),
               GameRecord.status == GameStatus.ACTIVE, col(GameRecord.to_move) == col(Seat.seat))
    ).all()
    turns = [Turn(row, seat, deadline) for row, clock, seat in rows
             if (deadline := deadline_of(row, clock)) is not None]
    return sorted(turns, key=lambda turn: (turn.deadline, turn.row.id or 0))


def feed(session: Session, links: Links, player: Player, now: datetime) -> bytes:
    """The player's calendar as iCalendar text (RFC 5545)."""
    assert player.id is not None
    reader = Reader.of(player)
    calendar = Calendar()
    calendar.add("prodid", PRODUCT)
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    name = reader.gettext("Your turns")
    calendar.add("name", name)
    calendar.add("x-wr-calname", name)  # what most apps still read for the name
    calendar.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    calendar.add("x-published-ttl", "PT1H")  # the same, for Outlook
    domain = urlsplit(links.base_url).hostname or "pbem"
    for turn in turns_of(session, player.id):
        calendar.add_component(_event(session, links, player, turn, reader, now, domain))
    text: bytes = calendar.to_ical()
    return text


def _event(session: Session, links: Links, player: Player, turn: Turn, reader: Reader,
           now: datetime, domain: str) -> Event:
    row, seat = turn.row, turn.seat
    assert row.id is not None
    seats = seats_of(session, row.id)
    names = shown_names(seats, players_of(session, seats), reader)
    move_url = links.move_url(row.id, seat.seat, row.ply, holder=player.id)
    event = Event()
    event.add("uid", f"turn-{row.public_id}-{row.ply}@{domain}")
    event.add("dtstamp", now)
    # No end: an event of no length at the deadline itself (RFC 5545, 3.6.1).
    event.add("dtstart", turn.deadline)
    event.add("summary", subject_line(reader.gettext("Your turn:"),
                                      title_of(row, names, seat.seat, reader)))
    event.add("description", reader.gettext("Make your move: %(url)s", url=move_url))
    event.add("url", move_url)
    event.add("transp", "TRANSPARENT")  # a deadline, not a meeting: it keeps no time busy
    return event
