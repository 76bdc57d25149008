"""Words for players that the server can translate, without the engine knowing any language.

A :class:`Text` is an English string (it *is* a ``str``: printing it, comparing it and putting it in
an f-string all give the English) that also remembers its message id and values, so that pbem can
render it in the reader's language with a gettext catalog::

    >>> text = Text("%(cell)s is not a cell of this board", cell="Z9")
    >>> text
    'Z9 is not a cell of this board'
    >>> text.msgid, text.values
    ('%(cell)s is not a cell of this board', {'cell': 'Z9'})
    >>> text.render(Catalog({text.msgid: "%(cell)s ligt niet op dit bord"}))
    'Z9 ligt niet op dit bord'
    >>> Text.counted("%(count)d move", "%(count)d moves", 2)
    '2 moves'

Message ids use Python's ``%(name)s`` placeholders, which gettext tools check in every translation.
Values may be Texts themselves (a colour's name inside a sentence): they are translated too.
``pybabel extract`` finds the ids through the keywords ``Text``, ``counted`` and ``N_`` (babel.cfg).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol


class Translator(Protocol):
    """What a gettext catalog offers (``babel.support.Translations`` is one)."""

    def gettext(self, message: str) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int) -> str: ...


class English:
    """The translator that leaves every message as written: the engine's own language."""

    def gettext(self, message: str) -> str:
        return message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural


class Catalog(English):
    """A translator from a plain dict, for tests and examples (no plural forms)."""

    def __init__(self, entries: Mapping[str, str]) -> None:
        self.entries = dict(entries)

    def gettext(self, message: str) -> str:
        return self.entries.get(message, message)


ENGLISH = English()


def N_(message: str) -> str:
    """Mark a constant (a game's name, a seat's colour) for translation where it is defined;
    pbem translates it where it is shown."""
    return message


class Text(str):
    """An English sentence that can be said again in another language (see the module's doc)."""

    msgid: str
    plural: str | None
    number: int | None
    values: dict[str, Words | int | float]
    parts: tuple[str, ...] | None
    separator: str

    def __new__(cls, msgid: str, /, **values: Words | int | float) -> Text:
        return cls._make(msgid, None, None, values)

    @classmethod
    def counted(cls, singular: str, plural: str, count: int, /,
                **values: Words | int | float) -> Text:
        """A message with plural forms; ``count`` picks the form and is the value ``count``."""
        return cls._make(singular, plural, count, {"count": count, **values})

    @classmethod
    def joined(cls, parts: Iterable[Words], separator: str = " ") -> Text:
        """Sentences side by side, each translated on its own."""
        items = tuple(parts)
        text = str.__new__(cls, separator.join(items))
        text.msgid, text.plural, text.number, text.values = "", None, None, {}
        text.parts, text.separator = items, separator
        return text

    @classmethod
    def verbatim(cls, words: str) -> Text:
        """Words that are the same in every language (a move's notation, a cell label)."""
        return cls.joined([words], "") if not isinstance(words, Text) else words

    @classmethod
    def _make(cls, msgid: str, plural: str | None, count: int | None,
              values: dict[str, Words | int | float]) -> Text:
        english = msgid if plural is None or count == 1 else plural
        text = str.__new__(cls, english % values if values else english)
        text.msgid, text.plural, text.number, text.values = msgid, plural, count, values
        text.parts, text.separator = None, ""
        return text

    def render(self, translator: Translator) -> str:
        """This text in the translator's language (values that are Texts are translated too)."""
        if self.parts is not None:
            return self.separator.join(localize(part, translator) for part in self.parts)
        if self.plural is not None and self.number is not None:
            pattern = translator.ngettext(self.msgid, self.plural, self.number)
        else:
            pattern = translator.gettext(self.msgid)
        if not self.values:
            return pattern
        values = {key: localize(value, translator) if isinstance(value, str) else value
                  for key, value in self.values.items()}
        try:
            return pattern % values
        except (KeyError, ValueError, TypeError):
            # A broken translation must not hide the message: fall back to English.
            return str(self)


NO_TEXT = Text.verbatim("")  # nothing to say (no reason given): empty in every language

# Where a Text and a plain string are both right by design: a plain string is words that read the
# same in every language (a move's notation, a player's name, a cell), a Text is translated.
# Where only a sentence for players belongs, the type is Text, so that mypy refuses a plain str.
Words = Text | str


def localize(words: Words, translator: Translator) -> str:
    """``words`` for a reader: a Text is translated, any other string is returned as it is."""
    return words.render(translator) if isinstance(words, Text) else words


def and_list(names: Sequence[Words]) -> Text:
    """Names joined by "and", each pair a sentence part that translators can reorder.

    >>> and_list(["Light"]), and_list(["Red", "Blue", "Green"])
    ('Light', 'Red and Blue and Green')
    """
    if len(names) == 1:
        return names[0] if isinstance(names[0], Text) else Text.verbatim(names[0])
    return Text("%(first)s and %(second)s", first=and_list(names[:-1]), second=names[-1])


def marked(constant: str) -> Text:
    """The Text of a constant marked with ``N_`` where it is defined (a game's name, a colour):
    its msgid is the constant, so it is translated inside a sentence.

    >>> marked("Mosey").msgid
    'Mosey'
    """
    return constant if isinstance(constant, Text) else Text(constant)


class Say:
    """``_(message, **values)`` said through a translator: the message translated, then its
    values filled in. Glossaries and other words a game returns as finished strings use it.

    >>> _ = Say(Catalog({"%(points)s points": "%(points)s punten"}))
    >>> _("%(points)s points", points=3), _("Komi")
    ('3 punten', 'Komi')
    """

    def __init__(self, translator: Translator) -> None:
        self.translator = translator

    def __call__(self, message: str, **values: object) -> str:
        text = self.translator.gettext(message)
        return text % values if values else text

    def word(self, constant: str) -> str:
        """A constant marked with ``N_`` (a tile's name), or a Text, in the translator's words."""
        if not isinstance(constant, str) or not constant:
            return constant
        if isinstance(constant, Text):
            return constant.render(self.translator)
        return self.translator.gettext(constant)
