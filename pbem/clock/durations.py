"""The text form of a duration: days, hours and minutes, largest unit first ("3d", "36h", "1d12h",
"90m"), as time controls (:mod:`pbem.clock.controls`) write theirs; its API is re-exported there.
"""

from __future__ import annotations

import re
from datetime import timedelta

from pbem.clock.arithmetic import ZERO, TimeControlError

MINUTE = timedelta(minutes=1)


class BadTimeControl(TimeControlError):
    """A time control or duration that cannot be read or makes no sense."""


_UNIT_WORDS = r"""
    ^(?:(?P<d>\d+)\s*(?:d|days?))?
    \s*(?:(?P<h>\d+)\s*(?:h|hrs?|hours?))?
    \s*(?:(?P<m>\d+)\s*(?:m|mins?|minutes?))?$
"""
_DURATION = re.compile(_UNIT_WORDS, re.VERBOSE)
_EXAMPLES = '"3d", "36h", "1d12h", "90m"'


def is_duration(text: str) -> bool:
    """Whether lower-case ``text`` has the form :func:`parse_duration` reads (it may still be far
    too long for a duration)."""
    return _DURATION.match(text) is not None


def parse_duration(text: str) -> timedelta:
    """A duration in days, hours and minutes, largest unit first.

    >>> parse_duration("1d12h"), parse_duration("90m"), parse_duration("2 days")
    (datetime.timedelta(days=1, seconds=43200), datetime.timedelta(seconds=5400), \
datetime.timedelta(days=2))
    """
    if not isinstance(text, str):
        raise BadTimeControl(f"a duration must be text such as {_EXAMPLES}, not {text!r}")
    match = _DURATION.match(text.strip().lower())
    if not text.strip() or match is None:
        raise BadTimeControl(
            f"{text!r} is not a duration; write days, hours and minutes in that order,"
            f" e.g. {_EXAMPLES}"
        )
    days, hours, minutes = (int(match[unit] or 0) for unit in "dhm")
    try:
        return timedelta(days=days, hours=hours, minutes=minutes)
    except OverflowError:
        raise BadTimeControl(f"{text!r} is far too long for a duration") from None


def format_duration(duration: timedelta) -> str:
    """The canonical text of a whole number of minutes; :func:`parse_duration` reads it back.

    >>> format_duration(timedelta(hours=36)), format_duration(timedelta(0))
    ('1d12h', '0m')
    """
    if duration < ZERO or duration % MINUTE:
        raise BadTimeControl(f"only whole, non-negative minutes have a text form, not {duration}")
    hours, minutes = divmod(duration // MINUTE, 60)
    days, hours = divmod(hours, 24)
    text = "".join(f"{n}{unit}" for n, unit in ((days, "d"), (hours, "h"), (minutes, "m")) if n)
    return text or "0m"
