"""Organisers' actions on a game's clock: extend the deadline, pause, resume.

Each is audit-logged with the actor, and every player is told by email. The clock arithmetic is in
:mod:`pbem.clock`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session

from engine.text import Text
from pbem.clock.controls import format_duration
from pbem.clock.deadlines import (
    SECOND,
    clock_of,
    refresh_due,
    remaining,
    set_deadline,
    time_control_of,
)
from pbem.clock.wording import short_duration
from pbem.models import GameRecord, GameStatus, Player
from pbem.services.common import (
    GameNotActive,
    ServiceError,
    Site,
    audit,
    lock_game,
    seats_of,
)
from pbem.services.timeouts import clock_notice


def _running(session: Session, game_id: int) -> GameRecord:
    row = lock_game(session, game_id)
    if row.status != GameStatus.ACTIVE:
        raise GameNotActive(Text("this game is not running"))
    return row


def extend_deadline(
    session: Session, game_id: int, *, by: timedelta, now: datetime, actor: str,
    site: Site,
) -> GameRecord:
    """Give the player to move ``by`` more clock time (from now if their clock has run out); a
    held game starts waiting on them again."""
    if not isinstance(by, timedelta) or by <= timedelta(0):
        raise ServiceError(Text("an extension must be longer than zero"))
    row = _running(session, game_id)
    clock = clock_of(session, game_id)
    if time_control_of(clock) is None or clock.turn_started_at is None:
        raise ServiceError(Text("this game has no clock to extend"))
    clock.turn_bank_seconds = (clock.turn_bank_seconds or 0) + by // SECOND
    if clock.paused_at is not None:
        clock.paused_remaining_seconds = (clock.paused_remaining_seconds or 0) + by // SECOND
    if clock.paused_at is None and clock.deadline is not None and clock.deadline <= now:
        # An expired clock (held, or not swept yet): the extension counts from now, not from
        # the old deadline, or it could end in the past.
        clock.turn_started_at, clock.turn_bank_seconds = now, by // SECOND
    clock.held_since = None
    _clear_bounce_flag(session, row)
    set_deadline(session, row)
    session.add(clock)
    audit(session, now, "deadline extended", game_id=game_id, actor=actor,
          by=format_duration(by), deadline=clock.deadline.isoformat() if clock.deadline else None)
    clock_notice(session, now, site, row, "extended", lambda reader: reader.gettext(
        "The organiser (%(actor)s) gave the player to move %(length)s more.", actor=actor,
        length=short_duration(by, reader)))
    return row


def pause_game(session: Session, game_id: int, *, now: datetime, actor: str,
               site: Site) -> GameRecord:
    """Stop the clock; the time left is kept for :func:`resume_game`. Moves wait meanwhile."""
    row = _running(session, game_id)
    clock = clock_of(session, game_id)
    if clock.paused_at is not None:
        raise ServiceError(Text("this game is already paused"))
    left = remaining(session, row, now)
    clock.paused_at = now
    clock.paused_remaining_seconds = None if left is None else max(left // SECOND, 60)
    clock.deadline = None
    refresh_due(session, row)
    session.add(clock)
    audit(session, now, "game paused", game_id=game_id, actor=actor,
          remaining_seconds=clock.paused_remaining_seconds)
    clock_notice(session, now, site, row, "paused", lambda reader: reader.gettext(
        "The organiser (%(actor)s) paused the game: the clock is stopped and moves wait until "
        "it is resumed.", actor=actor))
    return row


def resume_game(session: Session, game_id: int, *, now: datetime, actor: str,
                site: Site) -> GameRecord:
    """Restart the clock with the time that was left when it was paused."""
    row = _running(session, game_id)
    clock = clock_of(session, game_id)
    if clock.paused_at is None:
        raise ServiceError(Text("this game is not paused"))
    clock.paused_at = None
    if clock.paused_remaining_seconds is not None:
        clock.turn_started_at, clock.turn_bank_seconds = now, clock.paused_remaining_seconds
    clock.paused_remaining_seconds = None
    set_deadline(session, row)
    session.add(clock)
    audit(session, now, "game resumed", game_id=game_id, actor=actor,
          deadline=clock.deadline.isoformat() if clock.deadline else None)
    clock_notice(session, now, site, row, "resumed", lambda reader: reader.gettext(
        "The organiser (%(actor)s) resumed the game; the clock runs again.", actor=actor))
    return row


def _clear_bounce_flag(session: Session, row: GameRecord) -> None:
    """The organiser has dealt with the player to move (their mail bounced, the game was held)."""
    seat = next((s for s in seats_of(session, row.id or 0) if s.seat == row.to_move), None)
    player = session.get(Player, seat.player_id) if seat is not None else None
    if player is not None and player.bounced_at is not None:
        player.bounced_at = None
        session.add(player)
