"""Time controls: how long a player may take over a move, and when to remind them.

Two kinds, small frozen values with a canonical text form (for the command line and forms) and a
JSON-safe dict form (for the database):

>>> control = parse_time_control("fischer 48h + 24h max 96h, weekends off")
>>> control
Fischer(initial=datetime.timedelta(days=2), increment=datetime.timedelta(days=1), \
maximum=datetime.timedelta(days=4), weekends_off=True)
>>> str(control)
'fischer 2d+1d max 4d weekends off'
>>> parse_time_control("36h")
PerMove(per_move=datetime.timedelta(days=1, seconds=43200), weekends_off=False)

Durations ("36h", "1d12h") are read and written by :mod:`pbem.clock.durations`, whose API is
re-exported here.

**Banks.** Each turn has a *bank*: the clock time the player may use on it. With :class:`PerMove`
the bank is ``per_move`` on every turn; with :class:`Fischer` the first turn's bank is ``initial``
and after each move it becomes ``min(bank - time used + increment, maximum)``. The clock stops on
the player's paused days (weekends in their time zone if the control says so, and their absences),
which :mod:`pbem.clock.arithmetic` works out; its API is re-exported here.

>>> from datetime import UTC
>>> start = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)  # a Monday
>>> Fischer().deadline(start, timedelta(days=2))
datetime.datetime(2025, 1, 8, 9, 0, tzinfo=datetime.timezone.utc)
>>> Fischer().bank_after_move(start, start + timedelta(hours=10), timedelta(days=2))
datetime.timedelta(days=2, seconds=50400)

A clock that has run out shows as a remaining time of zero or less (:meth:`PerMove.remaining`), and
:meth:`Fischer.bank_after_move` refuses a move made after that (:class:`OutOfTime`) rather than
revive the bank with the increment.

**Reminders count wall time.** "2 hours before the deadline" means two real hours before it, even
when the clock is stopped (a deadline on Monday 09:00 after a weekend off is reminded on Sunday
09:00 and Monday 07:00), because that is what players read in the email and what they expect.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pbem.clock.arithmetic import (
    DEFAULT_ALLOWANCE_DAYS,
    ZERO,
    Absence,
    AbsenceCheck,
    BadAbsence,
    NaiveDatetime,
    TimeControlError,
    UnknownTimeZone,
    as_utc,
    check_absence,
    clock_running,
    counted_time,
    days_in_year,
    deadline_after,
    local_date,
    zone_info,
)
from pbem.clock.durations import (
    MINUTE,
    BadTimeControl,
    format_duration,
    is_duration,
    parse_duration,
)

__all__ = [
    "DEFAULT_ALLOWANCE_DAYS",
    "DEFAULT_REMINDERS",
    "Absence",
    "AbsenceCheck",
    "BadAbsence",
    "BadTimeControl",
    "Fischer",
    "NaiveDatetime",
    "OutOfTime",
    "PerMove",
    "Reminder",
    "TimeControl",
    "TimeControlError",
    "UnknownTimeZone",
    "as_utc",
    "check_absence",
    "clock_running",
    "counted_time",
    "days_in_year",
    "deadline_after",
    "format_duration",
    "local_date",
    "parse_duration",
    "parse_time_control",
    "reminder_times",
    "time_control_from_dict",
    "zone_info",
]

MAX_DURATION = timedelta(days=365)
"""Longer than this in a time control is surely a typo."""
DEFAULT_REMINDERS = (timedelta(hours=24), timedelta(hours=2))


class OutOfTime(TimeControlError):
    """A move made after the player's clock had run out."""


_FISCHER = re.compile(r"^(?P<initial>.+?)\s*\+\s*(?P<increment>.+?)\s+max\s+(?P<maximum>.+)$")
def _check(name: str, value: object, *, positive: bool) -> None:
    if not isinstance(value, timedelta):
        raise BadTimeControl(f"{name} must be a timedelta, not {value!r}")
    if value < ZERO or (positive and value == ZERO):
        raise BadTimeControl(f"{name} must be {'more than' if positive else 'at least'} zero")
    if value % MINUTE:
        raise BadTimeControl(f"{name} must be whole minutes, not {value}")
    if value > MAX_DURATION:
        raise BadTimeControl(f"{name} of {format_duration(value)} is more than a year")


class _Banked:
    """What both time controls do with a turn's bank; each says how the bank refills."""

    weekends_off: bool

    @property
    def start_bank(self) -> timedelta:
        """The bank of a player's first turn."""
        raise NotImplementedError

    def _refill(self, left: timedelta) -> timedelta:
        raise NotImplementedError

    def deadline(
        self,
        turn_start: datetime,
        bank: timedelta | None = None,
        *,
        zone: str = "UTC",
        absences: Iterable[Absence] = (),
    ) -> datetime:
        """When the clock of a turn that started at ``turn_start`` with ``bank`` runs out.

        ``bank`` defaults to :attr:`start_bank`, which is every turn's bank with a fixed time per
        move; an organiser's extension is a larger bank.
        """
        bank = self.start_bank if bank is None else bank
        return deadline_after(
            turn_start, bank, zone=zone, weekends_off=self.weekends_off, absences=absences
        )

    def remaining(
        self,
        turn_start: datetime,
        now: datetime,
        bank: timedelta | None = None,
        *,
        zone: str = "UTC",
        absences: Iterable[Absence] = (),
    ) -> timedelta:
        """Clock time left at ``now``; zero or less means the clock has run out."""
        bank = self.start_bank if bank is None else bank
        used = counted_time(
            turn_start, now, zone=zone, weekends_off=self.weekends_off, absences=absences
        )
        return bank - used

    def bank_after_move(
        self,
        turn_start: datetime,
        moved_at: datetime,
        bank: timedelta | None = None,
        *,
        zone: str = "UTC",
        absences: Iterable[Absence] = (),
    ) -> timedelta:
        """The bank for the player's next turn after moving at ``moved_at``.

        Raises :class:`OutOfTime` if the clock had already run out (a move exactly at the deadline
        is too late), since adding the increment would bring a lost clock back to life.
        """
        left = self.remaining(turn_start, moved_at, bank, zone=zone, absences=absences)
        if left <= ZERO:
            raise OutOfTime(
                f"the clock ran out before the move at {as_utc(moved_at).isoformat()}"
                f" ({format_duration(-(left // MINUTE) * MINUTE)} late)"
            )
        return self._refill(left)


@dataclass(frozen=True)
class PerMove(_Banked):
    """A fixed time for every move (default 3 days).

    >>> str(PerMove(timedelta(hours=36), weekends_off=True))
    '1d12h weekends off'
    """

    per_move: timedelta = timedelta(days=3)
    weekends_off: bool = False

    def __post_init__(self) -> None:
        _check("the time per move", self.per_move, positive=True)
        if not isinstance(self.weekends_off, bool):
            raise BadTimeControl(f"weekends_off must be True or False, not {self.weekends_off!r}")

    @property
    def start_bank(self) -> timedelta:
        return self.per_move

    def _refill(self, left: timedelta) -> timedelta:
        return self.per_move

    def __str__(self) -> str:
        return format_duration(self.per_move) + (" weekends off" if self.weekends_off else "")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe form, durations in seconds; :func:`time_control_from_dict` reads it."""
        return {
            "kind": "per_move",
            "per_move_seconds": self.per_move // timedelta(seconds=1),
            "weekends_off": self.weekends_off,
        }


@dataclass(frozen=True)
class Fischer(_Banked):
    """A bank that starts at ``initial`` and gains ``increment`` per move, up to ``maximum``.

    The default is Abstract Play's: 48 hours, plus 24 hours per move, at most 96 hours.

    >>> str(Fischer(timedelta(hours=48), timedelta(hours=24), timedelta(hours=96)))
    'fischer 2d+1d max 4d'
    """

    initial: timedelta = timedelta(hours=48)
    increment: timedelta = timedelta(hours=24)
    maximum: timedelta = timedelta(hours=96)
    weekends_off: bool = False

    def __post_init__(self) -> None:
        _check("the initial time", self.initial, positive=True)
        _check("the increment", self.increment, positive=False)
        _check("the maximum", self.maximum, positive=True)
        if self.maximum < self.initial:
            raise BadTimeControl(
                f"the maximum ({format_duration(self.maximum)}) is less than the initial time"
                f" ({format_duration(self.initial)})"
            )
        if not isinstance(self.weekends_off, bool):
            raise BadTimeControl(f"weekends_off must be True or False, not {self.weekends_off!r}")

    @property
    def start_bank(self) -> timedelta:
        return self.initial

    def _refill(self, left: timedelta) -> timedelta:
        return min(left + self.increment, self.maximum)

    def __str__(self) -> str:
        parts = (format_duration(d) for d in (self.initial, self.increment, self.maximum))
        text = "fischer {}+{} max {}".format(*parts)
        return text + (" weekends off" if self.weekends_off else "")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe form, durations in seconds; :func:`time_control_from_dict` reads it."""
        second = timedelta(seconds=1)
        return {
            "kind": "fischer",
            "initial_seconds": self.initial // second,
            "increment_seconds": self.increment // second,
            "maximum_seconds": self.maximum // second,
            "weekends_off": self.weekends_off,
        }


TimeControl = PerMove | Fischer

_HELP = 'write e.g. "3d", "36h per move" or "fischer 48h+24h max 96h", then maybe "weekends off"'


def parse_time_control(text: str) -> TimeControl:
    """Read a time control: a time per move, or ``fischer`` (alone for the default clock).

    Either may end with ``weekends off``; case, extra spaces and commas do not matter.

    >>> parse_time_control("3 days per move, weekends off")
    PerMove(per_move=datetime.timedelta(days=3), weekends_off=True)
    >>> parse_time_control("fischer") == Fischer()
    True
    """
    if not isinstance(text, str):
        raise BadTimeControl(f"a time control must be text, not {text!r}")
    spec = " ".join(text.lower().replace(",", " ").split())
    weekends_off = spec == "weekends off" or spec.endswith(" weekends off")
    if weekends_off:
        spec = spec.removesuffix("weekends off").strip()
    if not spec:
        raise BadTimeControl(f"{text!r} is not a time control; {_HELP}")
    if spec == "fischer":
        return Fischer(weekends_off=weekends_off)
    if spec.startswith("fischer "):
        match = _FISCHER.match(spec.removeprefix("fischer "))
        if match is None:
            raise BadTimeControl(
                f'write a Fischer clock as "fischer 48h+24h max 96h", not {text!r}'
            )
        initial, increment, maximum = (
            parse_duration(match[part]) for part in ("initial", "increment", "maximum")
        )
        return Fischer(initial, increment, maximum, weekends_off)
    spec = spec.removesuffix("per move").strip()
    if not spec or not is_duration(spec):
        raise BadTimeControl(f"{text!r} is not a time control; {_HELP}")
    return PerMove(parse_duration(spec), weekends_off)


def time_control_from_dict(data: dict[str, Any]) -> TimeControl:
    """Read back what ``to_dict`` wrote.

    >>> time_control_from_dict(PerMove().to_dict()) == PerMove()
    True
    """
    fields = {
        "per_move": ("per_move_seconds",),
        "fischer": ("initial_seconds", "increment_seconds", "maximum_seconds"),
    }
    kind = data.get("kind") if isinstance(data, dict) else None
    if kind not in fields:
        raise BadTimeControl(f"not a stored time control (kind per_move or fischer): {data!r}")
    expected = {"kind", "weekends_off", *fields[kind]}
    if set(data) != expected:
        raise BadTimeControl(f"a stored {kind} time control has keys {sorted(expected)}: {data!r}")
    seconds = [data[key] for key in fields[kind]]
    if any(type(s) is not int for s in seconds) or type(data["weekends_off"]) is not bool:
        raise BadTimeControl(f"stored durations must be whole seconds: {data!r}")
    durations = [timedelta(seconds=s) for s in seconds]
    if kind == "per_move":
        return PerMove(durations[0], data["weekends_off"])
    initial, increment, maximum = durations
    return Fischer(initial, increment, maximum, data["weekends_off"])


@dataclass(frozen=True, order=True)
class Reminder:
    """Send a reminder ``at`` this instant, ``before`` the deadline."""

    at: datetime
    before: timedelta


def reminder_times(
    deadline: datetime,
    turn_start: datetime,
    offsets: Iterable[timedelta] = DEFAULT_REMINDERS,
) -> list[Reminder]:
    """The reminders of a turn, earliest first: ``deadline - offset`` in wall time, for each offset
    that falls after ``turn_start`` (a one-hour turn gets no 24-hour reminder, and a reminder due
    at the very moment the turn begins would only repeat the turn's own email).

    >>> from datetime import UTC
    >>> deadline = datetime(2025, 1, 3, 12, 0, tzinfo=UTC)
    >>> [str(r.at) for r in reminder_times(deadline, deadline - timedelta(hours=3))]
    ['2025-01-03 10:00:00+00:00']
    """
    deadline, turn_start = as_utc(deadline, "deadline"), as_utc(turn_start, "turn_start")
    reminders: set[Reminder] = set()
    for offset in offsets:
        if not isinstance(offset, timedelta) or offset <= ZERO:
            raise BadTimeControl(f"a reminder offset must be a positive timedelta, not {offset!r}")
        if deadline - offset > turn_start:
            reminders.add(Reminder(deadline - offset, offset))
    return sorted(reminders)
