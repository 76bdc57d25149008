"""Clocks in words for players, in their language: durations ("1 day 12 hours") and time controls
("3 days per move"). The text forms in :mod:`pbem.clock.controls` ("3d", "fischer 2d+1d max 4d")
are what organisers type and stay as they are.
"""

from __future__ import annotations

from datetime import timedelta

from pbem.clock.arithmetic import ZERO
from pbem.clock.controls import Fischer, PerMove, TimeControl, format_duration
from pbem.clock.durations import MINUTE
from pbem.i18n import ENGLISH, Reader

__all__ = ["PerMove", "describe_control", "describe_duration", "short_duration"]


def describe_duration(duration: timedelta, reader: Reader = ENGLISH, *,
                      units: int | None = None) -> str:
    """A duration in words for ``reader``, whole minutes: "1 day 12 hours", "30 minutes"
    (``units``: at most that many of the largest units, as people say "about").

    >>> describe_duration(timedelta(days=1, hours=2, minutes=5), units=2)
    '1 day 2 hours'
    >>> describe_duration(timedelta(0))
    'no time'
    """
    minutes = max(int(duration.total_seconds() // 60), 0)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = []
    if days:
        parts.append(reader.ngettext("%(count)d day", "%(count)d days", days))
    if hours:
        parts.append(reader.ngettext("%(count)d hour", "%(count)d hours", hours))
    if minutes:
        parts.append(reader.ngettext("%(count)d minute", "%(count)d minutes", minutes))
    return " ".join(parts[:units]) or reader.gettext("no time")


def short_duration(duration: timedelta, reader: Reader = ENGLISH) -> str:
    """A duration in a notice: the canonical text ("1d12h", what organisers type) in English,
    words in other languages (whose speakers need not know our abbreviations)."""
    if reader.language == "en" and duration >= ZERO and not duration % MINUTE:
        return format_duration(duration)
    return describe_duration(duration, reader)


def describe_control(control: TimeControl, reader: Reader = ENGLISH) -> str:
    """A time control in words for players, in ``reader``'s language (the text form of
    ``str(control)`` is for forms and the command line, and stays as it is).

    >>> describe_control(PerMove(timedelta(days=3)))
    '3 days per move'
    >>> describe_control(Fischer(weekends_off=True))
    '2 days to start, plus 1 day per move, at most 4 days; weekends off'
    """
    if isinstance(control, Fischer):
        values = {"initial": describe_duration(control.initial, reader),
                  "increment": describe_duration(control.increment, reader),
                  "maximum": describe_duration(control.maximum, reader)}
        if control.weekends_off:
            return reader.gettext("%(initial)s to start, plus %(increment)s per move, at most "
                                  "%(maximum)s; weekends off", **values)
        return reader.gettext("%(initial)s to start, plus %(increment)s per move, at most "
                              "%(maximum)s", **values)
    per_move = describe_duration(control.per_move, reader)
    if control.weekends_off:
        return reader.gettext("%(time)s per move; weekends off", time=per_move)
    return reader.gettext("%(time)s per move", time=per_move)
