"""Each game's clock as data: the deadline of the current turn, Fischer banks, pauses, reminders.

:mod:`pbem.timecontrol` does the arithmetic (banks, weekends off in the player's zone, absences);
this module keeps its answers in the game row so the sweep can find due games through one index,
``games.next_due_at``: the earlier of the deadline and the next reminder not yet sent, or None
when nothing is due (finished, paused, held, no clock). Every function runs in the caller's
transaction and takes ``now``.

Organisers' actions (:func:`extend_deadline`, :func:`pause_game`, :func:`resume_game`) are
audit-logged with the actor and every player is told by email.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

import engine
from pbem.models import Game, GameStatus, Player, PlayerAbsence, Seat
from pbem.services.common import GameNotActive, ServiceError, Site, audit, lock_game
from pbem.timecontrol import (
    DEFAULT_REMINDERS,
    Absence,
    Fischer,
    OutOfTime,
    PerMove,
    TimeControl,
    format_duration,
    reminder_times,
    time_control_from_dict,
)

POLICIES = ("pass", "random", "forfeit", "grace", "hold")
POLICY_LABELS = {
    "pass": "pass for the player (a random move where passing is not allowed)",
    "random": "play a random legal move for the player",
    "forfeit": "the player loses (with three or more, a stand-in plays their seat)",
    "grace": "one extension of the same length, then pass or a random move",
    "hold": "the game waits and the organisers are alerted",
}
DEFAULT_TIME_CONTROL: TimeControl = PerMove()
SECOND = timedelta(seconds=1)


def game_allows_pass(game_type: str) -> bool:
    """Whether the rules know a pass at all (it may still be illegal in a given position)."""
    try:
        engine.new_game(game_type).parse_move("pass")
    except (engine.IllegalMove, ValueError):
        return False
    return True


def default_timeout_policy(game_id: str) -> str:
    """``pass`` where the game's rules have a pass; else ``grace`` (one extension, then a
    random move), which forgives one forgotten email without stalling the others for ever.

    ``game_id`` is the engine's id (``"mosey"``), as in ``engine.GAMES``.
    """
    return "pass" if game_allows_pass(game_id) else "grace"


def check_policy(policy: str | None, game_type: str) -> str:
    if policy is None or policy == "":
        return default_timeout_policy(game_type)
    if policy not in POLICIES:
        raise ServiceError(f"unknown timeout policy {policy!r}; use one of {', '.join(POLICIES)}")
    return policy


def time_control_of(row: Game) -> TimeControl | None:
    return time_control_from_dict(row.time_control) if row.time_control else None


def reminder_offsets(row: Game) -> list[timedelta]:
    seconds = DEFAULT_REMINDERS if row.reminder_seconds is None else [
        timedelta(seconds=s) for s in row.reminder_seconds]
    return list(seconds)


def clock_columns(
    control: TimeControl | None, reminders: Sequence[timedelta] | None, vacations_allowed: bool
) -> dict[str, Any]:
    """The clock settings of a new game, as Game column values."""
    control = control or DEFAULT_TIME_CONTROL
    offsets = DEFAULT_REMINDERS if reminders is None else tuple(reminders)
    if any(not isinstance(o, timedelta) or o <= timedelta(0) for o in offsets):
        raise ServiceError("reminders must be positive times before the deadline")
    return {
        "time_control": control.to_dict(),
        "per_move_seconds": control.per_move // SECOND if isinstance(control, PerMove) else None,
        "reminder_seconds": sorted({o // SECOND for o in offsets}, reverse=True),
        "vacations_allowed": vacations_allowed,
    }


def absences_of(session: Session, player_id: int) -> list[Absence]:
    rows = session.exec(select(PlayerAbsence).where(PlayerAbsence.player_id == player_id))
    return [Absence(a.start, a.end) for a in rows]


def _seat_clock(session: Session, row: Game, seat: int) -> tuple[str, list[Absence]]:
    """The zone (weekends off) and absences that stop ``seat``'s clock in this game."""
    holder = session.exec(select(Seat).where(Seat.game_id == row.id, Seat.seat == seat)).one()
    player = session.get(Player, holder.player_id)
    zone = player.time_zone if player else "UTC"
    absences = absences_of(session, holder.player_id) if row.vacations_allowed else []
    return zone, absences


def refresh_due(row: Game) -> None:
    """Set ``next_due_at``: the sweep's index over deadlines and unsent reminders."""
    if (row.status != GameStatus.ACTIVE or row.deadline is None or row.paused_at is not None
            or row.held_since is not None or row.turn_started_at is None):
        row.next_due_at = None
        return
    sent = set(row.reminders_sent or [])
    reminders = reminder_times(row.deadline, row.turn_started_at, reminder_offsets(row))
    pending = [r.at for r in reminders if r.before // SECOND not in sent]
    row.next_due_at = min([row.deadline, *pending])


def set_deadline(session: Session, row: Game) -> None:
    control = time_control_of(row)
    if (control is None or row.to_move is None or row.turn_started_at is None
            or row.paused_at is not None):
        row.deadline = None
    else:
        zone, absences = _seat_clock(session, row, row.to_move)
        bank = timedelta(seconds=row.turn_bank_seconds or 0)
        row.deadline = control.deadline(row.turn_started_at, bank, zone=zone, absences=absences)
    refresh_due(row)


def start_turn(session: Session, row: Game, now: datetime) -> None:
    """A new turn for ``row.to_move``: its bank, deadline and reminders (none sent yet)."""
    control = time_control_of(row)
    row.reminders_sent = []
    row.grace_used = False
    row.held_since = None
    if control is None or row.to_move is None or row.status != GameStatus.ACTIVE:
        row.turn_started_at = row.deadline = None
        row.turn_bank_seconds = None
        refresh_due(row)
        return
    bank = control.start_bank
    if isinstance(control, Fischer) and row.banks and str(row.to_move) in row.banks:
        bank = timedelta(seconds=row.banks[str(row.to_move)])
    row.turn_started_at = now
    row.turn_bank_seconds = bank // SECOND
    if row.paused_at is not None:  # a turn that begins while paused waits with its whole bank
        row.paused_remaining_seconds = row.turn_bank_seconds
    set_deadline(session, row)


def end_turn(session: Session, row: Game, seat: int, now: datetime) -> None:
    """The mover's turn is over: with a Fischer clock, their bank for next time."""
    control = time_control_of(row)
    if not isinstance(control, Fischer) or row.turn_started_at is None:
        return
    zone, absences = _seat_clock(session, row, seat)
    bank = timedelta(seconds=row.turn_bank_seconds or 0)
    try:
        left = control.bank_after_move(row.turn_started_at, now, bank, zone=zone,
                                       absences=absences)
    except OutOfTime:
        # Played after the deadline but before the sweep got to it: the move stands and the
        # next turn gets only the increment (at least a minute, so the clock can start at all).
        left = max(min(control.increment, control.maximum), timedelta(minutes=1))
    row.banks = {**(row.banks or {}), str(seat): left // SECOND}


def remaining(session: Session, row: Game, now: datetime) -> timedelta | None:
    """Clock time the player to move has left (None: no clock, or not running)."""
    control = time_control_of(row)
    if row.paused_at is not None and row.paused_remaining_seconds is not None:
        return timedelta(seconds=row.paused_remaining_seconds)
    if control is None or row.to_move is None or row.turn_started_at is None:
        return None
    zone, absences = _seat_clock(session, row, row.to_move)
    bank = timedelta(seconds=row.turn_bank_seconds or 0)
    return control.remaining(row.turn_started_at, now, bank, zone=zone, absences=absences)


def recompute_deadlines_of(session: Session, player_id: int, *,
                           absences_changed: bool = True) -> list[Game]:
    """The deadlines of the games waiting on a player whose absences (only games that allow
    vacations) or time zone (``absences_changed=False``: all their games) changed."""
    query = (select(Game).join(Seat, col(Seat.game_id) == Game.id)
             .where(Seat.player_id == player_id, Game.status == GameStatus.ACTIVE,
                    col(Game.to_move) == col(Seat.seat)))
    if absences_changed:
        query = query.where(col(Game.vacations_allowed))
    rows = session.exec(query.with_for_update(of=Game)).all()
    for row in rows:
        set_deadline(session, row)
        session.add(row)
    return list(rows)


# -- organisers' actions -------------------------------------------------------------------------


def _running(session: Session, game_id: int) -> Game:
    row = lock_game(session, game_id)
    if row.status != GameStatus.ACTIVE:
        raise GameNotActive("this game is not running")
    return row


def extend_deadline(
    session: Session, game_id: int, *, by: timedelta, now: datetime, actor: str,
    site: Site,
) -> Game:
    """Give the player to move ``by`` more clock time (from now if their clock has run out); a
    held game starts waiting on them again."""
    if not isinstance(by, timedelta) or by <= timedelta(0):
        raise ServiceError("an extension must be longer than zero")
    row = _running(session, game_id)
    if time_control_of(row) is None or row.turn_started_at is None:
        raise ServiceError("this game has no clock to extend")
    row.turn_bank_seconds = (row.turn_bank_seconds or 0) + by // SECOND
    if row.paused_at is not None:
        row.paused_remaining_seconds = (row.paused_remaining_seconds or 0) + by // SECOND
    if row.paused_at is None and row.deadline is not None and row.deadline <= now:
        # An expired clock (held, or not swept yet): the extension counts from now, not from
        # the old deadline, or it could end in the past.
        row.turn_started_at, row.turn_bank_seconds = now, by // SECOND
    row.held_since = None
    set_deadline(session, row)
    session.add(row)
    audit(session, now, "deadline extended", game_id=game_id, actor=actor,
          by=format_duration(by), deadline=row.deadline.isoformat() if row.deadline else None)
    _tell_everyone(session, now, site, row, "extended",
                   f"The organiser ({actor}) gave the player to move {format_duration(by)} more.")
    return row


def pause_game(session: Session, game_id: int, *, now: datetime, actor: str,
               site: Site) -> Game:
    """Stop the clock; the time left is kept for :func:`resume_game`. Moves wait meanwhile."""
    row = _running(session, game_id)
    if row.paused_at is not None:
        raise ServiceError("this game is already paused")
    left = remaining(session, row, now)
    row.paused_at = now
    row.paused_remaining_seconds = None if left is None else max(left // SECOND, 60)
    row.deadline = None
    refresh_due(row)
    session.add(row)
    audit(session, now, "game paused", game_id=game_id, actor=actor,
          remaining_seconds=row.paused_remaining_seconds)
    _tell_everyone(session, now, site, row, "paused",
                   f"The organiser ({actor}) paused the game: the clock is stopped and moves "
                   "wait until it is resumed.")
    return row


def resume_game(session: Session, game_id: int, *, now: datetime, actor: str,
                site: Site) -> Game:
    """Restart the clock with the time that was left when it was paused."""
    row = _running(session, game_id)
    if row.paused_at is None:
        raise ServiceError("this game is not paused")
    row.paused_at = None
    if row.paused_remaining_seconds is not None:
        row.turn_started_at, row.turn_bank_seconds = now, row.paused_remaining_seconds
    row.paused_remaining_seconds = None
    set_deadline(session, row)
    session.add(row)
    audit(session, now, "game resumed", game_id=game_id, actor=actor,
          deadline=row.deadline.isoformat() if row.deadline else None)
    _tell_everyone(session, now, site, row, "resumed",
                   f"The organiser ({actor}) resumed the game; the clock runs again.")
    return row


def _tell_everyone(session: Session, now: datetime, site: Site, row: Game, event: str,
                   text: str) -> None:
    from pbem.services.timeouts import clock_notice  # timeouts builds on this module

    clock_notice(session, now, site, row, event, text)
