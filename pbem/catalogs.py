"""Keeping the four catalogs complete: what the code says against what the catalogs hold.

``python -m pbem.catalogs extract`` writes ``messages.pot`` from the code and templates (``make
messages`` then merges it into each language, and ``python -m pbem.catalogs english`` gives the
English catalog's new entries their own text); ``python -m pbem.catalogs check`` lists every
message that is missing, untranslated or fuzzy in a catalog, every catalog entry no code uses,
and every translation whose ``%(name)s`` values differ from the original. The test suite runs the
same check.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

from pbem.i18n import LANGUAGES, TRANSLATIONS

ROOT = Path(__file__).resolve().parent.parent
KEYWORDS: dict[str, tuple[int | tuple[int, str], ...] | None] = {
    "_": None, "gettext": None, "ngettext": (1, 2), "lazy_gettext": None, "_l": None,
    "N_": None, "Text": None, "counted": (1, 2), "pgettext": ((1, "c"), 2),
}
"""The calls whose first argument (or first two, for plurals) is a message to translate."""


def extract() -> Catalog:
    """Every message the code and the templates use."""
    with open(ROOT / "babel.cfg", encoding="utf-8") as config:
        # Babel's parse_mapping_cfg has no annotations (its result is typed below, by use).
        method_map, options_map = parse_mapping_cfg(config)  # type: ignore[no-untyped-call]
    catalog = Catalog(project="pbem", fuzzy=False)
    for _file, _line, message, comments, context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS, strip_comment_tags=True):
        catalog.add(message, None, auto_comments=comments, context=context)
    return catalog


def _key(message: Message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def _translated(message: Message) -> bool:
    strings = message.string if isinstance(message.string, tuple | list) else (message.string,)
    return bool(strings) and all(strings)


def problems(language: str, used: Catalog | None = None) -> Iterator[str]:
    """What is wrong with one language's catalog file, a line each (nothing: complete)."""
    path = TRANSLATIONS / language / "LC_MESSAGES" / "messages.po"
    if not path.is_file():
        yield f"{language}: no catalog at {path.relative_to(ROOT)}"
        return
    with open(path, "rb") as handle:
        catalog = read_po(handle, locale=language)
    yield from problems_in(catalog, used if used is not None else extract(), language)


def problems_in(catalog: Catalog, used: Catalog, language: str) -> Iterator[str]:
    """Missing, fuzzy, untranslated, unused and malformed entries of ``catalog``."""
    wanted = {_key(m) for m in used if m.id}
    for message in used:
        if not message.id:
            continue
        found = catalog.get(message.id, message.context)
        if found is None:
            yield f"{language}: missing {_key(message)!r}"
        elif found.fuzzy:
            yield f"{language}: fuzzy {_key(message)!r}"
        elif not _translated(found):
            yield f"{language}: untranslated {_key(message)!r}"
    for message in catalog:
        if message.id and _key(message) not in wanted:
            yield f"{language}: unused {_key(message)!r}"
    for message, errors in catalog.check():
        for error in errors:
            yield f"{language}: {_key(message)!r}: {error}"


def fill_english() -> int:
    """Give every new entry of the English catalog its own message id as its text: English is
    the source language, and its catalog lets the wording change without touching the code."""
    path = TRANSLATIONS / "en" / "LC_MESSAGES" / "messages.po"
    with open(path, "rb") as handle:
        catalog = read_po(handle, locale="en")
    filled = 0
    for message in catalog:
        if message.id and not _translated(message):
            message.string = message.id if isinstance(message.id, str) else tuple(message.id)
            filled += 1
    with open(path, "wb") as out:
        write_po(out, catalog, no_location=True, sort_output=True, width=100)
    return filled


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "check"
    if command == "extract":
        with open(TRANSLATIONS / "messages.pot", "wb") as out:
            write_po(out, extract(), omit_header=True, no_location=True, sort_output=True,
                     width=100)
        return 0
    if command == "english":
        print(f"{fill_english()} English entries filled in")
        return 0
    used = extract()
    found = [line for language in LANGUAGES for line in problems(language, used)]
    print("\n".join(found) or "all catalogs complete")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
