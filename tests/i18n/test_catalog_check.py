"""The start-up check of the compiled catalogs (issue 30): a language whose ``messages.mo`` is
missing, broken, or older than its ``messages.po`` is named, file and all, instead of its readers
silently getting English."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import write_po

from pbem.i18n import LANGUAGES, TRANSLATIONS, catalog_problems

# A message of each kind the code has: plain, with a value, plural, and with a context.
MESSAGES: list[tuple[str | tuple[str, str], str | None]] = [
    ("Your move", None),
    ("Your move in %(game)s", None),
    (("%(count)d day", "%(count)d days"), None),
    ("cancelled", "tournament"),
]
DUTCH: dict[str, str | tuple[str, str]] = {
    "Your move": "Jouw zet", "Your move in %(game)s": "Jouw zet in %(game)s",
    "%(count)d day": ("%(count)d dag", "%(count)d dagen"), "cancelled": "geannuleerd"}


def catalog(language: str, leave_out: str | None = None, fuzzy: str | None = None) -> Catalog:
    """Our four messages in ``language`` (Dutch words for every language: only presence counts
    here), without ``leave_out``, with ``fuzzy`` marked fuzzy."""
    result = Catalog(locale=language)
    for message, context in MESSAGES:
        key = message if isinstance(message, str) else message[0]
        if key == leave_out:
            continue
        text = message if language == "en" else DUTCH[key]
        result.add(message, text, context=context, flags=["fuzzy"] if key == fuzzy else [])
    return result


def write(folder: Path, language: str, po: Catalog, mo: Catalog | None) -> Path:
    """``language``'s messages.po from ``po`` and, unless None, its messages.mo from ``mo``, as
    ``make translations`` compiles it (fuzzy entries left out)."""
    messages = folder / language / "LC_MESSAGES"
    messages.mkdir(parents=True, exist_ok=True)
    with open(messages / "messages.po", "wb") as out:
        write_po(out, po)
    if mo is not None:
        with open(messages / "messages.mo", "wb") as out:
            write_mo(out, mo)
    return messages / "messages.mo"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A complete translations folder in all four languages."""
    for language in LANGUAGES:
        write(tmp_path, language, catalog(language), catalog(language))
    return tmp_path


def test_a_complete_set_has_no_problems(folder: Path) -> None:
    assert catalog_problems(folder) == []


def test_a_missing_compiled_catalog_is_named(folder: Path) -> None:
    compiled = folder / "nl" / "LC_MESSAGES" / "messages.mo"
    compiled.unlink()
    problems = catalog_problems(folder)
    assert len(problems) == 1
    assert str(compiled) in problems[0]
    assert "missing" in problems[0] and "Nederlands" in problems[0]


@pytest.mark.parametrize("left_out", ["Your move", "%(count)d day", "cancelled"])
def test_a_catalog_compiled_from_an_older_po_is_named_with_a_message_it_lacks(
        folder: Path, left_out: str) -> None:
    # The .po has the message now; the .mo was compiled before it had it.
    compiled = write(folder, "de", catalog("de"), catalog("de", leave_out=left_out))
    problems = catalog_problems(folder)
    assert len(problems) == 1
    assert str(compiled) in problems[0]
    assert f"lacks 1 of the 4 messages (e.g. {left_out!r})" in problems[0]


def test_fuzzy_and_untranslated_entries_are_not_compiled_so_they_are_lacking(
        folder: Path) -> None:
    write(folder, "it", catalog("it", fuzzy="Your move"), catalog("it", fuzzy="Your move"))
    untranslated = catalog("nl")
    untranslated["Your move in %(game)s"].string = ""
    write(folder, "nl", untranslated, untranslated)
    problems = catalog_problems(folder)
    assert len(problems) == 2
    assert "it/LC_MESSAGES/messages.mo lacks 1" in problems[0] + problems[1]
    assert "nl/LC_MESSAGES/messages.mo lacks 1" in problems[0] + problems[1]


def test_a_message_the_source_catalog_gained_is_lacking_in_every_other_language(
        folder: Path) -> None:
    # English is the source: a new message in its catalog, not yet in any compiled catalog.
    english = catalog("en")
    english.add("Resign", "Resign")
    write(folder, "en", english, None)
    problems = catalog_problems(folder)
    assert len(problems) == 4  # English's own .mo was compiled before the message too
    assert all("lacks 1 of the 5 messages (e.g. 'Resign')" in line for line in problems)


def test_a_catalog_that_does_not_load_is_named(folder: Path) -> None:
    compiled = folder / "it" / "LC_MESSAGES" / "messages.mo"
    compiled.write_bytes(b"<html>not a catalog</html>")
    problems = catalog_problems(folder)
    assert len(problems) == 1
    assert str(compiled) in problems[0] and "does not load" in problems[0]
    assert "\n" not in problems[0]


def test_the_shipped_catalogs_are_complete(tmp_path: Path) -> None:
    # make pytest compiles them first (make translations); a wheel compiles them when built.
    assert catalog_problems() == []
    copy = shutil.copytree(TRANSLATIONS, tmp_path / "translations")  # a folder not yet cached
    assert catalog_problems(copy) == []
