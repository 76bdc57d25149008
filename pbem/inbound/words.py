"""The command words of a reply (``help``, ``hulp``, ``hilfe``, ``aiuto``, ...) in each language
pbem writes in, and the units of ``vacation 5d``; :mod:`pbem.inbound.reading` reads them.

``accept`` and ``decline`` answer an invitation (a reply to the invitation email), as its link's
buttons do. ``notify digest`` (and ``all``, ``turns``, ``off``) chooses how much mail comes,
``mute`` and ``unmute`` the game's mail (pbem.notifications).
"""

from __future__ import annotations

from typing import Literal

CommandName = Literal["help", "board", "status", "games", "pass", "resign", "vacation",
                      "accept", "decline", "notify", "mute", "unmute"]
COMMANDS: tuple[CommandName, ...] = ("help", "board", "status", "games", "pass", "resign",
                                     "vacation", "accept", "decline", "notify", "mute", "unmute")
LANGUAGES = ("en", "nl", "de", "it")

# The command words of each language, the first of each the one its help shows. Words of every
# language are understood from everybody (a player may write in another language than the one
# their emails are in); none is a move in any game's notation or another command's word
# (tests/inbound/test_reply_languages.py checks both). "note" is the word before a note's colon,
# "say" the word before a message to the game's other players (pbem.chat).
COMMAND_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"help": ("help",), "board": ("board",), "status": ("status",),
           "games": ("games",), "pass": ("pass",), "resign": ("resign",),
           "vacation": ("vacation",), "accept": ("accept",), "decline": ("decline",),
           "notify": ("notify",), "mute": ("mute",), "unmute": ("unmute",), "note": ("note",),
           "say": ("say",)},
    "nl": {"help": ("hulp",), "board": ("bord",), "status": ("stand",),
           "games": ("partijen",), "pass": ("passen",), "resign": ("opgeven",),
           "vacation": ("vakantie",), "accept": ("accepteren",), "decline": ("afslaan",),
           "notify": ("meldingen",), "mute": ("dempen",), "unmute": ("ontdempen",),
           "note": ("notitie",), "say": ("zeg",)},
    "de": {"help": ("hilfe",), "board": ("brett",), "status": ("stand", "status"),
           "games": ("partien", "spiele"), "pass": ("passen",), "resign": ("aufgeben",),
           "vacation": ("urlaub",), "accept": ("annehmen",), "decline": ("ablehnen",),
           "notify": ("benachrichtigungen",), "mute": ("stumm",), "unmute": ("laut",),
           "note": ("notiz",), "say": ("sag",)},
    "it": {"help": ("aiuto",), "board": ("tavoliere",), "status": ("stato",),
           "games": ("partite",), "pass": ("passo",), "resign": ("abbandono",),
           "vacation": ("vacanza",), "accept": ("accetto", "accetta"),
           "decline": ("rifiuto", "rifiuta"), "notify": ("notifiche",), "mute": ("silenzia",),
           "unmute": ("riattiva",), "note": ("nota",), "say": ("scrivi",)},
}
# The settings of ``notify <setting>`` (pbem.notifications: all, turns, digest, off), the first
# word of each language the one its help shows; ``notify digest 8`` names the digest's hour.
NOTIFY_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"all": ("all",), "turns": ("turns",), "digest": ("digest",), "off": ("off",)},
    "nl": {"all": ("alles",), "turns": ("beurten",), "digest": ("overzicht",), "off": ("uit",)},
    "de": {"all": ("alle", "alles"), "turns": ("züge", "zuege"),
           "digest": ("übersicht", "uebersicht"), "off": ("aus",)},
    "it": {"all": ("tutte", "tutto"), "turns": ("turni",), "digest": ("riepilogo",),
           "off": ("spente", "spento")},
}
# The conditional moves' words (pbem.conditional): ``conditional`` shows them, ``conditional off``
# clears them; lines ``if X then Y`` keep them (their ``if`` and ``then`` in pbem.conditional.tree).
# Each language's (conditional, off), the help showing the reader's own.
CONDITIONAL_WORDS: dict[str, tuple[str, str]] = {
    "en": ("conditional", "off"), "nl": ("voorwaardelijk", "uit"), "de": ("bedingt", "aus"),
    "it": ("condizionale", "via")}

# The units of ``vacation 5d``: days and weeks, in the four languages.
DAY_UNITS = ("d", "day", "days", "dag", "dagen", "t", "tag", "tage", "g", "giorno", "giorni")
WEEK_UNITS = ("w", "week", "weeks", "weken", "woche", "wochen", "s", "settimana", "settimane")


def command_words(language: str) -> dict[str, str]:
    """The word of each command (and of ``note``) that ``language``'s help shows.

    >>> command_words("nl")["help"], command_words("xx")["help"]
    ('hulp', 'help')
    """
    words = COMMAND_WORDS.get(language, COMMAND_WORDS["en"])
    return {name: found[0] for name, found in words.items()}


def notify_words(language: str) -> dict[str, str]:
    """The word of each ``notify`` setting that ``language``'s answers show."""
    words = NOTIFY_WORDS.get(language, NOTIFY_WORDS["en"])
    return {name: found[0] for name, found in words.items()}


def words_of(name: str) -> tuple[str, ...]:
    """Every word, in any language, that means command ``name``."""
    found: list[str] = []
    for words in COMMAND_WORDS.values():
        found += (word for word in words.get(name, ()) if word not in found)
    return tuple(found)
