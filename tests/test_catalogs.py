"""The four languages stay complete: every message the code uses is translated, not fuzzy, keeps
its placeholders, and no catalog keeps entries the code no longer uses."""

from __future__ import annotations

import pytest
from babel.messages.catalog import Catalog

from pbem.catalogs import extract, problems, problems_in
from pbem.i18n import TRANSLATIONS, Reader


@pytest.fixture(scope="module")
def used() -> Catalog:
    return extract()


def test_the_code_has_messages_to_translate(used: Catalog) -> None:
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in used if m.id}
    assert len(ids) > 500
    assert "the game is over" in ids  # engine (Text)
    assert "it is not your turn" in ids


@pytest.mark.parametrize("language", ["en", "nl", "de", "it"])
def test_catalog_is_complete(language: str, used: Catalog) -> None:
    found = list(problems(language, used))
    assert not found, f"{len(found)} problems, e.g.:\n" + "\n".join(found[:40])


@pytest.mark.parametrize("language", ["en", "nl", "de", "it"])
def test_compiled_catalog_is_up_to_date(language: str) -> None:
    folder = TRANSLATIONS / language / "LC_MESSAGES"
    po, mo = folder / "messages.po", folder / "messages.mo"
    assert mo.is_file() and mo.stat().st_mtime >= po.stat().st_mtime, "run: make translations"


def test_checker_reports_missing_fuzzy_untranslated_unused_and_bad_placeholders() -> None:
    used = Catalog()
    for message in ("Board", "Your move in %(game)s", "Resign", "Pass"):
        used.add(message)
    used.add(("%(count)d move", "%(count)d moves"))
    catalog = Catalog(locale="nl")
    catalog.add("Board", "Bord")
    catalog.add("Your move in %(game)s", "Jouw zet in %(spel)s")  # a renamed placeholder
    catalog.add("Resign", "Opgeven", flags=["fuzzy"])
    catalog.add(("%(count)d move", "%(count)d moves"), ("%(count)d zet", ""))
    catalog.add("Old words", "Oude woorden")
    found = "\n".join(problems_in(catalog, used, "nl"))
    assert "missing 'Pass'" in found
    assert "fuzzy 'Resign'" in found
    assert "untranslated '%(count)d move'" in found
    assert "unused 'Old words'" in found
    assert "'Your move in %(game)s'" in found and "spel" in found
    assert "'Board'" not in found


@pytest.mark.parametrize(("language", "one", "two"), [
    ("en", "1 move played.", "2 moves played."), ("nl", "1 zet gespeeld.", "2 zetten gespeeld."),
    ("de", "1 Zug gespielt.", "2 Züge gespielt."), ("it", "1 mossa giocata.", "2 mosse giocate."),
])
def test_plural_forms_follow_the_language(language: str, one: str, two: str) -> None:
    reader = Reader(language)
    singular, plural = "%(num)d move played.", "%(num)d moves played."
    assert reader.ngettext(singular, plural, 1, num=1) == one
    assert reader.ngettext(singular, plural, 2, num=2) == two
    assert reader.ngettext("%(count)d day", "%(count)d days", 3) == {
        "en": "3 days", "nl": "3 dagen", "de": "3 Tage", "it": "3 giorni"}[language]
