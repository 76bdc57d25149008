"""Each game's clock as data: the deadline of the current turn, Fischer banks, pauses, reminders.

:mod:`pbem.clock.controls` and :mod:`pbem.clock.arithmetic` do the arithmetic (banks, weekends off
in the player's zone, absences); this module keeps their answers in the game row so the sweep can
find due games through one index, ``games.next_due_at``: the earlier of the deadline and the next
reminder not yet sent, or None when nothing is due (finished, paused, held, no clock). Every
function runs in the caller's transaction and takes ``now``.

Organisers' actions on a clock (extend, pause, resume) are services that also write audit entries
and email: :mod:`pbem.services.clock_actions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

import engine
from engine.text import N_
from pbem.clock.controls import (
    DEFAULT_REMINDERS,
    Absence,
    Fischer,
    OutOfTime,
    PerMove,
    TimeControl,
    reminder_times,
    time_control_from_dict,
)
from pbem.errors import ServiceError
from pbem.models import GameRecord, GameStatus, Player, PlayerAbsence, Seat

POLICIES = ("pass", "random", "bot", "forfeit", "forfeit-bot", "grace", "hold")
# In English; translate where shown (reader.gettext, or gettext on a page).
POLICY_LABELS = {
    "pass": N_("pass for the player (a random move where passing is not allowed)"),
    "random": N_("play a random legal move for the player"),
    "bot": N_("the computer plays the move for the player (they play on from their next turn)"),
    "forfeit": N_("the player loses (with three or more, a stand-in plays their seat)"),
    "forfeit-bot": N_("the player loses (with three or more, the computer plays their seat to "
                      "the end)"),
    "grace": N_("one extension of the same length, then pass or a random move"),
    "hold": N_("the game waits and the organisers are alerted"),
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


def time_control_of(row: GameRecord) -> TimeControl | None:
    return time_control_from_dict(row.time_control) if row.time_control else None


def reminder_offsets(row: GameRecord) -> list[timedelta]:
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
        "reminder_seconds": sorted({o // SECOND for o in offsets}, reverse=True),
        "vacations_allowed": vacations_allowed,
    }


def absences_of(session: Session, player_id: int) -> list[Absence]:
    rows = session.exec(select(PlayerAbsence).where(PlayerAbsence.player_id == player_id))
    return [Absence(a.start, a.end) for a in rows]


def _seat_clock(session: Session, row: GameRecord, seat: int) -> tuple[str, list[Absence]]:
    """The zone (weekends off) and absences that stop ``seat``'s clock in this game."""
    holder = session.exec(select(Seat).where(Seat.game_id == row.id, Seat.seat == seat)).one()
    player = session.get(Player, holder.player_id)
    zone = player.time_zone if player else "UTC"
    absences = absences_of(session, holder.player_id) if row.vacations_allowed else []
    return zone, absences


def refresh_due(row: GameRecord) -> None:
    """Set ``next_due_at``: the sweep's index over deadlines and unsent reminders."""
    if (row.status != GameStatus.ACTIVE or row.deadline is None or row.paused_at is not None
            or row.held_since is not None or row.turn_started_at is None):
        row.next_due_at = None
        return
    sent = set(row.reminders_sent or [])
    reminders = reminder_times(row.deadline, row.turn_started_at, reminder_offsets(row))
    pending = [r.at for r in reminders if r.before // SECOND not in sent]
    row.next_due_at = min([row.deadline, *pending])


def set_deadline(session: Session, row: GameRecord) -> None:
    control = time_control_of(row)
    if (control is None or row.to_move is None or row.turn_started_at is None
            or row.paused_at is not None):
        row.deadline = None
    else:
        zone, absences = _seat_clock(session, row, row.to_move)
        bank = timedelta(seconds=row.turn_bank_seconds or 0)
        row.deadline = control.deadline(row.turn_started_at, bank, zone=zone, absences=absences)
    refresh_due(row)


def start_turn(session: Session, row: GameRecord, now: datetime) -> None:
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


def end_turn(session: Session, row: GameRecord, seat: int, now: datetime) -> None:
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


def remaining(session: Session, row: GameRecord, now: datetime) -> timedelta | None:
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
                           absences_changed: bool = True) -> list[GameRecord]:
    """The deadlines of the games waiting on a player whose absences (only games that allow
    vacations) or time zone (``absences_changed=False``: all their games) changed."""
    query = (select(GameRecord).join(Seat, col(Seat.game_id) == GameRecord.id)
             .where(Seat.player_id == player_id, GameRecord.status == GameStatus.ACTIVE,
                    col(GameRecord.to_move) == col(Seat.seat)))
    if absences_changed:
        query = query.where(col(GameRecord.vacations_allowed))
    rows = session.exec(query.with_for_update(of=GameRecord)).all()
    for row in rows:
        set_deadline(session, row)
        session.add(row)
    return list(rows)


# -- organisers' actions -------------------------------------------------------------------------
