"""Each game's clock as data: the deadline of the current turn, Fischer banks, pauses, reminders.

:mod:`pbem.clock.controls` and :mod:`pbem.clock.arithmetic` do the arithmetic (banks, weekends off
in the player's zone, absences); this module keeps their answers in the game's clock row
(:class:`pbem.clock.tables.GameClock`) so the sweep can find due games through one index,
``game_clocks.next_due_at``: the earlier of the deadline and the next reminder not yet sent, or
None when nothing is due (finished, paused, held, no clock). Every function runs in the caller's
transaction and takes ``now``; those that change a clock take the game's row, whose lock the
caller holds, and read whose turn it is there.

Organisers' actions on a clock (extend, pause, resume) are services that also write audit entries
and email: :mod:`pbem.services.clock_actions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select
from sqlmodel.sql.expression import Select

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
from pbem.clock.tables import GameClock
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
# With two players a forfeit ends the game: nobody is left for a stand-in to play against, so
# the sentence about one would only puzzle them.
TWO_PLAYER_LABELS = {"forfeit": N_("the player loses"), "forfeit-bot": N_("the player loses")}
DEFAULT_TIME_CONTROL: TimeControl = PerMove()


def policy_label(policy: str, players: int) -> str:
    """``policy`` in words (English, to translate) for a game of ``players`` seats.

    >>> policy_label("forfeit", 2), policy_label("forfeit", 3)[:30]
    ('the player loses', 'the player loses (with three o')
    """
    if players <= 2 and policy in TWO_PLAYER_LABELS:
        return TWO_PLAYER_LABELS[policy]
    return POLICY_LABELS.get(policy, policy)
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


_READ_CLOCKS = "pbem.clocks"  # the key of the clocks a session keeps (Session.info)


def clock_of(session: Session, game_id: int | None) -> GameClock:
    """The game's clock (every game has one from its creation: :func:`clock_columns`). Read it
    after locking the game (:func:`pbem.services.common.lock_game`) to change it: the game's
    lock guards its clock too."""
    clock = session.get(GameClock, game_id) if game_id is not None else None
    if clock is None:
        raise LookupError(f"game {game_id} has no clock")
    # The session's identity map holds what it loaded weakly: an unchanged clock let go between
    # two calls was read again, four times in one move. The session keeps the clocks it read.
    session.info.setdefault(_READ_CLOCKS, {})[game_id] = clock
    return clock


def with_clocks() -> Select[GameRecord, GameClock]:
    """Games with their clocks, in one query (pages that list games and their deadlines)."""
    return select(GameRecord, GameClock).join(GameClock,
                                              col(GameClock.game_id) == col(GameRecord.id))


def time_control_of(clock: GameClock) -> TimeControl | None:
    return time_control_from_dict(clock.time_control) if clock.time_control else None


def reminder_offsets(clock: GameClock) -> list[timedelta]:
    seconds = DEFAULT_REMINDERS if clock.reminder_seconds is None else [
        timedelta(seconds=s) for s in clock.reminder_seconds]
    return list(seconds)


def clock_columns(
    control: TimeControl | None, reminders: Sequence[timedelta] | None, vacations_allowed: bool
) -> dict[str, Any]:
    """The clock settings of a new game, as GameClock column values."""
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


def _seat_clock(session: Session, row: GameRecord, clock: GameClock,
                seat: int) -> tuple[str, list[Absence]]:
    """The zone (weekends off) and absences that stop ``seat``'s clock in this game."""
    holder = session.exec(select(Seat).where(Seat.game_id == row.id, Seat.seat == seat)).one()
    player = session.get(Player, holder.player_id)
    zone = player.time_zone if player else "UTC"
    absences = absences_of(session, holder.player_id) if clock.vacations_allowed else []
    return zone, absences


def refresh_due(session: Session, row: GameRecord) -> None:
    """Set ``next_due_at``: the sweep's index over deadlines and unsent reminders."""
    clock = clock_of(session, row.id)
    if (row.status != GameStatus.ACTIVE or clock.deadline is None or clock.paused_at is not None
            or clock.held_since is not None or clock.turn_started_at is None):
        clock.next_due_at = None
        return
    sent = set(clock.reminders_sent or [])
    reminders = reminder_times(clock.deadline, clock.turn_started_at, reminder_offsets(clock))
    pending = [r.at for r in reminders if r.before // SECOND not in sent]
    clock.next_due_at = min([clock.deadline, *pending])


def stop_clock(session: Session, row: GameRecord) -> None:
    """The game is over: no deadline, reminder, pause or hold is left for the scheduler."""
    clock = clock_of(session, row.id)
    clock.deadline = clock.next_due_at = clock.paused_at = clock.held_since = None


def set_deadline(session: Session, row: GameRecord) -> None:
    clock = clock_of(session, row.id)
    control = time_control_of(clock)
    if (control is None or row.to_move is None or clock.turn_started_at is None
            or clock.paused_at is not None):
        clock.deadline = None
    else:
        zone, absences = _seat_clock(session, row, clock, row.to_move)
        bank = timedelta(seconds=clock.turn_bank_seconds or 0)
        clock.deadline = control.deadline(clock.turn_started_at, bank, zone=zone,
                                          absences=absences)
    refresh_due(session, row)


def start_turn(session: Session, row: GameRecord, now: datetime) -> None:
    """A new turn for ``row.to_move``: its bank, deadline and reminders (none sent yet)."""
    clock = clock_of(session, row.id)
    control = time_control_of(clock)
    clock.reminders_sent = []
    clock.grace_used = False
    clock.held_since = None
    if control is None or row.to_move is None or row.status != GameStatus.ACTIVE:
        clock.turn_started_at = clock.deadline = None
        clock.turn_bank_seconds = None
        refresh_due(session, row)
        return
    bank = control.start_bank
    if isinstance(control, Fischer) and clock.banks and str(row.to_move) in clock.banks:
        bank = timedelta(seconds=clock.banks[str(row.to_move)])
    clock.turn_started_at = now
    clock.turn_bank_seconds = bank // SECOND
    if clock.paused_at is not None:  # a turn that begins while paused waits with its whole bank
        clock.paused_remaining_seconds = clock.turn_bank_seconds
    set_deadline(session, row)


def end_turn(session: Session, row: GameRecord, seat: int, now: datetime) -> None:
    """The mover's turn is over: with a Fischer clock, their bank for next time."""
    clock = clock_of(session, row.id)
    control = time_control_of(clock)
    if not isinstance(control, Fischer) or clock.turn_started_at is None:
        return
    zone, absences = _seat_clock(session, row, clock, seat)
    bank = timedelta(seconds=clock.turn_bank_seconds or 0)
    try:
        left = control.bank_after_move(clock.turn_started_at, now, bank, zone=zone,
                                       absences=absences)
    except OutOfTime:
        # Played after the deadline but before the sweep got to it: the move stands and the
        # next turn gets only the increment (at least a minute, so the clock can start at all).
        left = max(min(control.increment, control.maximum), timedelta(minutes=1))
    clock.banks = {**(clock.banks or {}), str(seat): left // SECOND}


def remaining(session: Session, row: GameRecord, now: datetime) -> timedelta | None:
    """Clock time the player to move has left (None: no clock, or not running)."""
    clock = clock_of(session, row.id)
    control = time_control_of(clock)
    if clock.paused_at is not None and clock.paused_remaining_seconds is not None:
        return timedelta(seconds=clock.paused_remaining_seconds)
    if control is None or row.to_move is None or clock.turn_started_at is None:
        return None
    zone, absences = _seat_clock(session, row, clock, row.to_move)
    bank = timedelta(seconds=clock.turn_bank_seconds or 0)
    return control.remaining(clock.turn_started_at, now, bank, zone=zone, absences=absences)


def recompute_deadlines_of(session: Session, player_id: int, *,
                           absences_changed: bool = True) -> list[GameRecord]:
    """The deadlines of the games waiting on a player whose absences (only games that allow
    vacations) or time zone (``absences_changed=False``: all their games) changed."""
    query = (select(GameRecord).join(Seat, col(Seat.game_id) == GameRecord.id)
             .where(Seat.player_id == player_id, GameRecord.status == GameStatus.ACTIVE,
                    col(GameRecord.to_move) == col(Seat.seat)))
    if absences_changed:
        query = query.join(GameClock, col(GameClock.game_id) == col(GameRecord.id)).where(
            col(GameClock.vacations_allowed))
    # Only the games are locked, as every writer of a clock locks its game first; each clock is
    # then read after its game's lock (set_deadline), never as it was before a move waited for.
    rows = list(session.exec(query.with_for_update(of=GameRecord)).all())
    for row in rows:
        set_deadline(session, row)
    return rows
