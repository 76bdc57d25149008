"""Clock arithmetic: how much of a player's clock runs between two instants, and the reverse.

A player's clock runs all the time except on their *paused days*: Saturdays and Sundays in their
own time zone when the game stops the clock on weekends, and the days of their absences
(vacations). A paused day runs from one local midnight to the next, so it lasts 23, 24 or 25 hours
of real time around a DST change. Nothing here reads the clock; every instant is an argument.

>>> from datetime import UTC, datetime, timedelta
>>> friday_noon = datetime(2024, 10, 25, 10, 0, tzinfo=UTC)  # 12:00 in Amsterdam
>>> deadline_after(friday_noon, timedelta(hours=24), zone="Europe/Amsterdam", weekends_off=True)
datetime.datetime(2024, 10, 28, 11, 0, tzinfo=datetime.timezone.utc)

That is 12 hours on Friday, a 49-hour weekend (the clocks went back on Sunday), then 12 hours on
Monday. :func:`counted_time` is the exact inverse:

>>> counted_time(friday_noon, datetime(2024, 10, 28, 11, 0, tzinfo=UTC),
...              zone="Europe/Amsterdam", weekends_off=True)
datetime.timedelta(days=1)

Vacations are limited to a yearly allowance, counted in calendar days per year
(:func:`check_absence`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from engine.text import NO_TEXT, Text

ZERO = timedelta(0)
ONE_DAY = timedelta(days=1)
DEFAULT_ALLOWANCE_DAYS = 30
"""Vacation days a player may take per calendar year unless the site says otherwise."""


class TimeControlError(ValueError):
    """Anything wrong with the values given to the clock functions; the message says what."""


class NaiveDatetime(TimeControlError):
    """A datetime without a time zone: we cannot tell which instant it means."""


class UnknownTimeZone(TimeControlError):
    """A time zone name that is not in the IANA database."""


class BadAbsence(TimeControlError):
    """An absence whose dates make no sense."""


def as_utc(instant: datetime, what: str = "instant") -> datetime:
    """``instant`` in UTC; naive datetimes are refused rather than guessed at.

    >>> as_utc(datetime(2025, 1, 1, 12, 0))
    Traceback (most recent call last):
    ...
    pbem.clock.arithmetic.NaiveDatetime: instant must be timezone-aware (UTC), not naive 2025-...
    """
    if not isinstance(instant, datetime):
        raise TimeControlError(f"{what} must be a datetime, not {type(instant).__name__}")
    if instant.utcoffset() is None:
        raise NaiveDatetime(f"{what} must be timezone-aware (UTC), not naive {instant.isoformat()}")
    return instant.astimezone(UTC)


def zone_info(zone: str) -> ZoneInfo:
    """The IANA zone called ``zone``, or :class:`UnknownTimeZone`.

    >>> zone_info("Mars/Olympus_Mons")
    Traceback (most recent call last):
    ...
    pbem.clock.arithmetic.UnknownTimeZone: unknown time zone 'Mars/Olympus_Mons'; ...
    """
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError, TypeError) as exc:
        raise UnknownTimeZone(
            f"unknown time zone {zone!r}; use an IANA name such as 'Europe/Amsterdam'"
        ) from exc


def local_date(instant: datetime, zone: str) -> date:
    """The calendar date at ``instant`` in ``zone``: a player's "today".

    >>> local_date(datetime(2025, 1, 1, 20, 0, tzinfo=UTC), "Asia/Kolkata")
    datetime.date(2025, 1, 2)
    """
    return as_utc(instant).astimezone(zone_info(zone)).date()


@dataclass(frozen=True, order=True)
class Absence:
    """Days away, both ends included, as dates in the player's time zone.

    >>> away = Absence(date(2025, 12, 29), date(2026, 1, 4))
    >>> away.days, str(away)
    (7, '2025-12-29..2026-01-04')
    """

    start: date
    end: date

    def __post_init__(self) -> None:
        for what, day in (("start", self.start), ("end", self.end)):
            # A datetime is a date too, but would smuggle a time of day into a whole-day rule.
            if not isinstance(day, date) or isinstance(day, datetime):
                raise BadAbsence(f"absence {what} must be a date, not {day!r}")
        if self.end < self.start:
            raise BadAbsence(f"an absence cannot end ({self.end}) before it starts ({self.start})")

    @property
    def days(self) -> int:
        """How many calendar days it covers."""
        return (self.end - self.start).days + 1

    def overlaps(self, other: Absence) -> bool:
        """Whether the two share at least one day."""
        return self.start <= other.end and other.start <= self.end

    def __str__(self) -> str:
        return f"{self.start.isoformat()}..{self.end.isoformat()}"



def _merged(absences: Iterable[Absence]) -> list[tuple[date, date]]:
    """Absences as sorted, disjoint, non-touching [first day, day after last) spans."""
    absences = list(absences)
    for absence in absences:
        if not isinstance(absence, Absence):
            raise BadAbsence(f"expected an Absence, not {absence!r}")
    spans: list[tuple[date, date]] = []
    for absence in sorted(absences):
        start, stop = absence.start, absence.end + ONE_DAY
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], stop))
        else:
            spans.append((start, stop))
    return spans


def _paused_runs(
    first: date, weekends_off: bool, spans: list[tuple[date, date]]
) -> Iterator[tuple[date, date]]:
    """Runs of consecutive paused days from ``first`` on, as [first day, day after last).

    Steps at most a day at a time (absences are jumped over whole), and stops when no paused day
    can follow, so a clock without weekends and absences costs nothing.
    """
    index = 0
    day = first

    def in_absence() -> bool:
        nonlocal index
        while index < len(spans) and spans[index][1] <= day:
            index += 1
        return index < len(spans) and spans[index][0] <= day

    while True:
        if not in_absence() and not (weekends_off and day.weekday() >= 5):
            upcoming = [spans[index][0]] if index < len(spans) else []
            if weekends_off:
                upcoming.append(day + timedelta(days=5 - day.weekday()))
            if not upcoming:
                return
            day = min(upcoming)
            continue
        run_start = day
        while True:
            if in_absence():
                day = spans[index][1]
            elif weekends_off and day.weekday() >= 5:
                day += ONE_DAY
            else:
                break
        yield run_start, day


def _midnight(day: date, tz: ZoneInfo) -> datetime:
    # fold=0 maps a midnight skipped by DST to the instant the clocks jumped, which is when that
    # local day really began; so consecutive midnights always increase.
    return datetime(day.year, day.month, day.day, tzinfo=tz).astimezone(UTC)


def _pauses(
    start: datetime, zone: str, weekends_off: bool, absences: Iterable[Absence]
) -> Iterator[tuple[datetime, datetime]]:
    """Paused intervals [from, until) in UTC, in order, from the one containing ``start`` on.

    Not a generator itself, so that a bad zone or absence is refused at once, not at first use.
    """
    tz = zone_info(zone)
    runs = _paused_runs(start.astimezone(tz).date(), weekends_off, _merged(absences))
    return ((_midnight(run_start, tz), _midnight(run_stop, tz)) for run_start, run_stop in runs)


def counted_time(
    start: datetime,
    end: datetime,
    *,
    zone: str = "UTC",
    weekends_off: bool = False,
    absences: Iterable[Absence] = (),
) -> timedelta:
    """How much clock time runs from ``start`` to ``end``: the real time minus the paused days.

    >>> friday = datetime(2025, 1, 3, 12, 0, tzinfo=UTC)
    >>> counted_time(friday, friday + timedelta(days=3), weekends_off=True)
    datetime.timedelta(days=1)
    """
    start, end = as_utc(start, "start"), as_utc(end, "end")
    if end < start:
        raise TimeControlError(f"end ({end.isoformat()}) is before start ({start.isoformat()})")
    counted = end - start
    for pause_from, pause_until in _pauses(start, zone, weekends_off, absences):
        if pause_from >= end:
            break
        counted -= min(pause_until, end) - max(pause_from, start)
    return counted


def deadline_after(
    start: datetime,
    budget: timedelta,
    *,
    zone: str = "UTC",
    weekends_off: bool = False,
    absences: Iterable[Absence] = (),
) -> datetime:
    """The first instant at which ``budget`` of clock time has run since ``start``.

    A budget that runs out exactly as a pause begins ends there (Friday midnight), not after the
    pause; a zero budget ends at ``start``.

    >>> friday = datetime(2025, 1, 3, 12, 0, tzinfo=UTC)
    >>> deadline_after(friday, timedelta(hours=12), weekends_off=True)
    datetime.datetime(2025, 1, 4, 0, 0, tzinfo=datetime.timezone.utc)
    >>> deadline_after(friday, timedelta(hours=13), weekends_off=True)
    datetime.datetime(2025, 1, 6, 1, 0, tzinfo=datetime.timezone.utc)
    """
    moment = as_utc(start, "start")
    if not isinstance(budget, timedelta) or budget < ZERO:
        raise TimeControlError(f"the time budget must be a timedelta of zero or more, not {budget}")
    pauses = _pauses(moment, zone, weekends_off, absences)
    if budget == ZERO:
        return moment
    left = budget
    for pause_from, pause_until in pauses:
        if pause_from > moment:
            if left <= pause_from - moment:
                return moment + left
            left -= pause_from - moment
        moment = pause_until
    return moment + left


def clock_running(
    instant: datetime,
    *,
    zone: str = "UTC",
    weekends_off: bool = False,
    absences: Iterable[Absence] = (),
) -> bool:
    """Whether the clock runs at ``instant`` (for "your clock is stopped until Monday").

    >>> clock_running(datetime(2025, 1, 4, 12, 0, tzinfo=UTC), weekends_off=True)  # a Saturday
    False
    """
    instant = as_utc(instant)
    for pause_from, pause_until in _pauses(instant, zone, weekends_off, absences):
        return not pause_from <= instant < pause_until
    return True


def days_in_year(absences: Iterable[Absence], year: int) -> int:
    """Absence days that fall in calendar ``year``; overlapping absences count each day once.

    >>> days_in_year([Absence(date(2025, 12, 29), date(2026, 1, 4))], 2026)
    4
    """
    first, after = date(year, 1, 1), date(year + 1, 1, 1)
    return sum(
        max(0, (min(stop, after) - max(start, first)).days) for start, stop in _merged(absences)
    )


@dataclass(frozen=True)
class AbsenceCheck:
    """The answer of :func:`check_absence`: true when the absence fits, else the reason why not."""

    reason: Text = NO_TEXT

    @property
    def ok(self) -> bool:
        return not self.reason

    def __bool__(self) -> bool:
        return self.ok


def check_absence(
    start: date,
    end: date,
    existing: Iterable[Absence],
    *,
    today: date,
    allowance_days: int = DEFAULT_ALLOWANCE_DAYS,
) -> AbsenceCheck:
    """Whether a new absence from ``start`` to ``end`` (inclusive) may be added.

    ``today`` is the player's local date (:func:`local_date`); an absence may start today but not
    earlier. Every calendar day counts against the allowance of its own year, so an absence over
    New Year uses some days of each year.

    >>> taken = [Absence(date(2025, 7, 1), date(2025, 7, 20))]
    >>> bool(check_absence(date(2025, 8, 1), date(2025, 8, 10), taken, today=date(2025, 6, 1)))
    True
    >>> check_absence(date(2025, 8, 1), date(2025, 8, 11), taken, today=date(2025, 6, 1)).reason
    'this absence needs 11 days in 2025, but only 10 of your 30 vacation days for 2025 are left'
    """
    existing = list(existing)
    if end < start:
        return AbsenceCheck(Text("the absence ends (%(end)s) before it starts (%(start)s)",
                                 end=str(end), start=str(start)))
    if start < today:
        return AbsenceCheck(Text("the absence starts in the past (%(start)s; today is %(today)s)",
                                 start=str(start), today=str(today)))
    wanted = Absence(start, end)
    for other in sorted(existing):
        if other.overlaps(wanted):
            return AbsenceCheck(Text("it overlaps your absence %(absence)s", absence=str(other)))
    if allowance_days <= 0:
        return AbsenceCheck(Text("vacations are not allowed here"))
    for year in range(start.year, end.year + 1):
        needed = days_in_year([wanted], year)
        left = max(0, allowance_days - days_in_year(existing, year))
        if needed > left:
            return AbsenceCheck(Text.counted(
                "this absence needs %(count)d day in %(year)d, but only %(left)d of your"
                " %(allowance)d vacation days for %(year)d are left",
                "this absence needs %(count)d days in %(year)d, but only %(left)d of your"
                " %(allowance)d vacation days for %(year)d are left",
                needed, year=year, left=left, allowance=allowance_days))
    return AbsenceCheck()
