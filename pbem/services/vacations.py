"""Players' absences: days their clocks stop, within a yearly allowance.

An absence is whole days in the player's own time zone. It stops their clock in every game that
allows vacations (``game_clocks.vacations_allowed``); the deadlines of games waiting on them are
recomputed at once, so reminders and timeouts follow.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlmodel import Session, col, select

from engine.text import Text
from pbem.clock.controls import DEFAULT_ALLOWANCE_DAYS, check_absence, days_in_year, local_date
from pbem.clock.deadlines import absences_of, recompute_deadlines_of
from pbem.models import Player, PlayerAbsence
from pbem.services.common import ServiceError, audit


class AbsenceRefused(ServiceError):
    """An absence that cannot be added; the message says why, for the player."""


def absences_for(session: Session, player_id: int) -> list[PlayerAbsence]:
    return list(session.exec(select(PlayerAbsence).where(PlayerAbsence.player_id == player_id)
                             .order_by(col(PlayerAbsence.start))))


def days_left(session: Session, player_id: int, year: int,
              allowance_days: int = DEFAULT_ALLOWANCE_DAYS) -> int:
    return max(0, allowance_days - days_in_year(absences_of(session, player_id), year))


def add_absence(
    session: Session, now: datetime, *, player_id: int, start: date, end: date,
    allowance_days: int = DEFAULT_ALLOWANCE_DAYS,
) -> PlayerAbsence:
    """Record an absence after :func:`pbem.clock.controls.check_absence` says it fits."""
    player = session.get(Player, player_id)
    if player is None:
        raise AbsenceRefused(Text("there is no such player"))
    verdict = check_absence(start, end, absences_of(session, player_id),
                            today=local_date(now, player.time_zone),
                            allowance_days=allowance_days)
    if not verdict:
        raise AbsenceRefused(verdict.reason)
    absence = PlayerAbsence(player_id=player_id, start=start, end=end, created_at=now)
    session.add(absence)
    session.flush()
    games = recompute_deadlines_of(session, player_id)
    audit(session, now, "absence added", player_id=player_id, start=start.isoformat(),
          end=end.isoformat(), games=[g.id for g in games])
    return absence


def remove_absence(session: Session, now: datetime, *, player_id: int, absence_id: int) -> None:
    """Cancel an absence that has not begun (days already away cannot be handed back)."""
    absence = session.get(PlayerAbsence, absence_id)
    if absence is None or absence.player_id != player_id:
        raise AbsenceRefused(Text("there is no such absence"))
    player = session.get(Player, player_id)
    if absence.start <= local_date(now, player.time_zone if player else "UTC"):
        raise AbsenceRefused(Text("an absence that has begun cannot be cancelled"))
    session.delete(absence)
    session.flush()
    recompute_deadlines_of(session, player_id)
    audit(session, now, "absence cancelled", player_id=player_id,
          start=absence.start.isoformat(), end=absence.end.isoformat())
