"""The reader's language: gettext catalogs, Babel's formats, and Flask-Babel for pages.

Every word a person reads is written for one reader. A :class:`Reader` is that person's language
and time zone; it translates messages (ours and the engine's :class:`engine.text.Text`) and formats
moments, numbers and durations the way their language does::

    >>> from datetime import datetime, UTC
    >>> Reader("nl", "Europe/Amsterdam").when(datetime(2026, 11, 25, 16, 1, tzinfo=UTC))
    'woensdag 25 november 2026, 17:01 (CET)'
    >>> Reader("en").ngettext("%(count)d move", "%(count)d moves", 2)
    '2 moves'

Emails are written outside any request, often several in one (a move mails a Dutch and an
Italian player), so services take a Reader for each recipient. Pages use Flask-Babel: its locale
is the player's own language on pages reached by a player's link, else the visitor's choice (a
cookie the switcher sets), else ``Accept-Language``, else ``PBEM_DEFAULT_LANGUAGE``.

Catalogs live in ``pbem/translations/<lang>/LC_MESSAGES/messages.po``; ``make messages`` extracts
and updates them, ``make translations`` compiles them (docs/contributing.md), and so does building
a wheel (setup.py). A catalog that is not compiled, or compiled from an older ``messages.po``,
would silently give its readers English: :func:`catalog_problems` says so at start.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel import Locale
from babel.dates import format_date, format_time, format_timedelta
from babel.messages.catalog import Message
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

from engine.text import Text, Words

LANGUAGES: dict[str, str] = {"en": "English", "nl": "Nederlands", "de": "Deutsch",
                             "it": "Italiano"}
"""The languages every word is kept in, with their own names (for the switcher)."""

TRANSLATIONS = Path(__file__).resolve().parent / "translations"
LANGUAGE_COOKIE = "pbem_language"
# Babel's name of the one way each language writes a day ("woensdag 25 november 2026"):
# every date a person reads, alone or with a time, is written so.
DATE_FORMAT = "full"


def supported(language: str | None, default: str = "en") -> str:
    """``language`` if we speak it (``nl-BE`` counts as ``nl``), else ``default``.

    >>> supported("nl-BE"), supported("fr"), supported(None, "de")
    ('nl', 'en', 'de')
    """
    code = (language or "").replace("_", "-").split("-")[0].strip().lower()
    return code if code in LANGUAGES else default


@cache
def translations(language: str) -> NullTranslations:
    """The compiled catalog of ``language`` (English: the messages as written, unless the
    English catalog words them otherwise)."""
    return Translations.load(str(TRANSLATIONS), [language], domain="messages")


SOURCE_LANGUAGE = "en"
"""The language the code is written in. Its catalog has every message the code uses, each with
its own wording (tests/test_catalogs.py keeps it so): the list every compiled catalog must cover."""


def catalog_problems(folder: Path = TRANSLATIONS) -> list[str]:
    """Why some readers would not get their own language, one line per problem naming the file:
    a compiled catalog (``messages.mo``) that is missing, does not load, or lacks messages of the
    source catalog. Empty when every language is complete. The fix is the caller's to say: in a
    checkout ``make translations`` compiles them, and a wheel has them compiled.

    Runs at every start, so it is cheap (one ``.po`` read, each ``.mo`` loaded as pages load it:
    about 20 ms) and done once per folder::

        >>> catalog_problems()
        []
    """
    return list(_catalog_problems(folder.resolve()))


@cache
def _catalog_problems(folder: Path) -> tuple[str, ...]:
    found: list[str] = []
    source = folder / SOURCE_LANGUAGE / "LC_MESSAGES" / "messages.po"
    try:
        with open(source, "rb") as handle:
            wanted = [message for message in read_po(handle, locale=SOURCE_LANGUAGE)
                      if message.id]
    except (OSError, ValueError) as error:
        found.append(f"{source} does not load ({error}): which messages the catalogs need "
                     "is unknown")
        wanted = []
    for language, name in LANGUAGES.items():
        compiled = folder / language / "LC_MESSAGES" / "messages.mo"
        if not compiled.is_file():
            found.append(f"{compiled} is missing: {name} readers would get English")
            continue
        try:
            with open(compiled, "rb") as handle:
                catalog = Translations(handle, domain="messages")
        except Exception as error:  # whatever gettext raises on a broken file, said in one line
            found.append(f"{compiled} does not load ({error or type(error).__name__}): "
                         f"{name} readers would get English")
            continue
        catalog.add_fallback(_Unknown())
        lacking = [message for message in wanted if not _has(catalog, message)]
        if lacking:
            example = _singular(lacking[0])
            found.append(f"{compiled} lacks {len(lacking)} of the {len(wanted)} messages (e.g. "
                         f"{example!r}): {name} readers would get them in English")
    return tuple(found)


_UNKNOWN = "\x00unknown\x00"  # no message is this: a .mo file keeps NUL as its separator


class _Unknown(NullTranslations):
    """The last fallback of a catalog under check: what the catalog lacks comes back as
    ``_UNKNOWN`` instead of the English a reader would quietly get."""

    def gettext(self, message: str) -> str:
        return _UNKNOWN

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return _UNKNOWN

    def pgettext(self, context: str, message: str) -> str:
        return _UNKNOWN

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return _UNKNOWN


def _singular(message: Message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def _has(catalog: Translations, message: Message) -> bool:
    """Whether ``catalog`` (its last fallback an ``_Unknown``) has its own text for ``message``;
    a plural entry has all its forms or none, so one form tells."""
    context = message.context
    if isinstance(message.id, str):
        text = catalog.pgettext(context, message.id) if context else catalog.gettext(message.id)
    else:
        singular, plural = message.id[0], message.id[1]
        text = (catalog.npgettext(context, singular, plural, 1) if context
                else catalog.ngettext(singular, plural, 1))
    return text is not _UNKNOWN


@cache
def _locale(language: str) -> Locale:
    """Babel's locale data for ``language``, parsed once (every date and number needs it)."""
    return Locale.parse(language)


def zone(time_zone: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(time_zone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


@dataclass(frozen=True)
class Reader:
    """One person reading: their language and time zone."""

    language: str = "en"
    time_zone: str = "UTC"

    @classmethod
    def of(cls, player: Any, default: str = "en") -> Reader:
        """The reader a player row (or anything with ``language`` and ``time_zone``) is."""
        return cls(supported(getattr(player, "language", None), default),
                   getattr(player, "time_zone", None) or "UTC")

    @property
    def catalog(self) -> NullTranslations:
        return translations(self.language)

    @property
    def locale(self) -> Locale:
        return _locale(self.language)

    def gettext(self, message: str, **values: Any) -> str:
        """``message`` in this language, with ``%(name)s`` values filled in."""
        text = self.catalog.gettext(message)
        return text % values if values else text

    def ngettext(self, singular: str, plural: str, count: int, **values: Any) -> str:
        """The plural form for ``count`` (a value named ``count`` is filled in too)."""
        return self.catalog.ngettext(singular, plural, count) % {"count": count, **values}

    def text(self, words: Words) -> str:
        """An engine :class:`Text` in this language; other strings as they are."""
        return words.render(self.catalog) if isinstance(words, Text) else words

    def when(self, moment: datetime | None) -> str:
        """A moment as this reader's calendar and clock show it, with the zone's abbreviation."""
        if moment is None:
            return self.gettext("never")
        local = moment.astimezone(zone(self.time_zone))
        clock = format_time(local, "HH:mm", locale=self.locale)
        return f"{self.day(local)}, {clock} ({local.tzname()})"

    def day(self, moment: date | datetime) -> str:
        """Just the day, written as :meth:`when` writes it (one date format per language): a
        moment on this reader's calendar, a date as it is.

        >>> Reader("de").day(date(2026, 11, 25))
        'Mittwoch, 25. November 2026'
        """
        if isinstance(moment, datetime):
            moment = moment.astimezone(zone(self.time_zone)).date()
        return format_date(moment, DATE_FORMAT, locale=self.locale)

    def number(self, value: float) -> str:
        return format_decimal(value, locale=self.locale)

    def duration(self, span: timedelta, *, threshold: float = 0.85) -> str:
        """A span in words, e.g. '3 dagen' (rounded the way people say it)."""
        return format_timedelta(span, threshold=threshold, locale=self.locale)


ENGLISH = Reader()
