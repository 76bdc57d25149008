"""Rifugio speaks each language in the words of that language's edition of the rulebook.

Every Rifugio message (the engine's texts for Rifugio and pbem's Rifugio terms) that names a
component in English must name it, in each translation, by the rulebook's word: the table in
``tests/i18n/rifugio_terms.py`` was taken from the four-language rulebook, not from our catalogs.
"""

from __future__ import annotations

import re
from functools import cache

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po

from pbem.catalogs import KEYWORDS, ROOT
from pbem.i18n import TRANSLATIONS
from tests.i18n.rifugio_terms import PLURALS, TERMS

# The components a player reads about most; each must keep its rulebook name.
CHECKED = ["tile", "walker", "hut", "point card", "hut card", "hut points", "extra-step card",
           "mountain top",
           "bear", "butterfly", "grass", "forest", "rock", "start tile"]
SOURCES = sorted((ROOT / "engine" / "games" / "rifugio").glob("*.py"))


@cache
def rifugio_messages() -> list[str | tuple[str, str]]:
    found: list[str | tuple[str, str]] = []
    for path in SOURCES:
        for _line, message, _comments, _context in extract_from_file(
                "python", str(path), keywords=KEYWORDS):
            if message not in found:
                found.append(message)
    return found


@cache
def catalog(language: str) -> Catalog:
    with open(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po", "rb") as handle:
        return read_po(handle, locale=language)


def forms(term: str, language: str) -> list[str]:
    """The rulebook's words for ``term``: singular, plural, and their shared stem (so that
    compounds and inflections such as German "Hüttenkarte" or Italian "tessere" count)."""
    words = [TERMS[term][language], PLURALS.get(term, {}).get(language, "")]
    words = [w.lower() for w in words if w]
    stem = ""
    if len(words) == 2:
        common = 0
        while common < min(map(len, words)) and words[0][common] == words[1][common]:
            common += 1
        stem = words[0][:common]
    return [w for w in [*words, stem] if len(w) >= 3]


def _pattern(term: str) -> str:
    english = re.escape(term).replace(r"\ ", r"[ -]")
    return rf"(?<![\w-]){english}s?(?![\w])"


def english_mentions(message: str, term: str) -> bool:
    return re.search(_pattern(term), message, re.IGNORECASE) is not None


def test_the_rifugio_sources_have_messages() -> None:
    assert len(rifugio_messages()) > 40


@pytest.mark.parametrize("language", ["nl", "de", "it"])
def test_rifugio_components_keep_their_rulebook_names(language: str) -> None:
    wrong = []
    for message in rifugio_messages():
        english = message if isinstance(message, str) else message[0]
        entry = catalog(language).get(message if isinstance(message, str) else message[0])
        assert entry is not None, f"{language}: {english!r} is not in the catalog"
        translated = " ".join(entry.string if isinstance(entry.string, tuple | list)
                              else [entry.string]).lower()
        rest = re.sub(r"%\(\w+\)[sdif]", " ", english)  # a value, not a word: "%(tile)s"
        for term in sorted(CHECKED, key=len, reverse=True):  # "hut card" before "hut"
            if english_mentions(rest, term) and not any(
                    w in translated for w in forms(term, language)):
                wrong.append(f"{english!r} -> {translated!r}: expected "
                             f"{TERMS[term][language]!r} for {term!r}")
            rest = re.sub(_pattern(term), " ", rest, flags=re.IGNORECASE)
    assert not wrong, f"{language}: {len(wrong)} terms not as in the rulebook:\n" + "\n".join(
        wrong[:30])


def test_the_check_catches_a_wrong_word() -> None:
    assert forms("walker", "de")[0] == "spielfigur"
    assert not any(w in "der wanderer geht" for w in forms("walker", "de"))
    assert english_mentions("Your walker stands here", "walker")
    assert not english_mentions("a sidewalker", "walker")
