"""Options in words (pbem.game_options): the form's labels in the reader's language, not the
stored names."""

from __future__ import annotations

from pbem.game_options import options_in_words
from pbem.i18n import Reader


def test_options_read_as_the_form_labels_them() -> None:
    assert options_in_words("mosey", {"order": 4}, Reader("en")) == "Board size 4"
    for language in ("nl", "de"):
        reader = Reader(language)
        label = reader.gettext("Board size")
        assert label != "Board size"  # translated, so the test shows the reader is used
        assert options_in_words("mosey", {"order": 5}, reader) == f"{label} 5"


def test_no_options_and_unknown_ones() -> None:
    assert options_in_words("mosey", {}, Reader("en")) == ""
    assert options_in_words("no-such-game", {"size": 3}, Reader("en")) == "size 3"


def test_options_whose_choices_are_words_read_in_the_readers_language() -> None:
    assert options_in_words("stigmergy", {"size": 8, "komi": "negotiate"},
                            Reader("en")) == "Board side 8, Komi negotiated"
    assert options_in_words("stigmergy", {"komi": "none"}, Reader("en")) == "Komi zero"
    german = options_in_words("stigmergy", {"size": 8, "komi": "negotiate"}, Reader("de"))
    assert german.endswith("Komi ausgehandelt"), german
