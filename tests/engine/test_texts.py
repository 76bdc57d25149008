"""Every word the engine says to a player can be translated: sentences are Texts with message ids,
boards are drawn through a translator, and the stroke font draws accented letters.

Two fake translators do the checking: ``SCRAMBLED`` replaces every letter of every message with
"ж" (so any English word left in the output escaped translation), and ``MARKED`` wraps every
message in «» (so a translated label can be found in a board).
"""

from __future__ import annotations

import io
import itertools
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from engine import GAMES, IllegalMove, UnknownGame, new_game
from engine.base import Game
from engine.games.rifugio import drawing as rifugio_draw
from engine.strokefont import stroke_text, text_width
from engine.text import ENGLISH, Catalog, Text, Translator

# Small boards keep the random positions quick; every game id is covered.
OPTIONS: dict[str, dict[str, Any]] = {
    **{gid: {"order": 4} for gid in GAMES if "order" in [o.name for o in GAMES[gid].options]},
    "refugia": {"board": "2-3"},
    "stigmergy": {"size": 5},
    "rifugio": {"players": 3},
}
GAME_IDS = list(GAMES)

# Words of the move notation, which stay the same in every language (they reach sentences as
# values: "write lay 2,-1").
NOTATION = {"take", "blind", "swap", "lay", "step", "build", "end", "pass"}
_PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|%%")


def _scramble(message: str) -> str:
    """Every letter outside the placeholders becomes ж."""
    out, last = [], 0
    for match in _PLACEHOLDER.finditer(message):
        out.append(re.sub(r"[A-Za-z]", "ж", message[last:match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(re.sub(r"[A-Za-z]", "ж", message[last:]))
    return "".join(out)


class Scrambled:
    def gettext(self, message: str) -> str:
        return _scramble(message)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return _scramble(singular if n == 1 else plural)


class Marked:
    def gettext(self, message: str) -> str:
        return f"«{message}»"

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return f"«{singular if n == 1 else plural}»"


SCRAMBLED: Translator = Scrambled()
MARKED: Translator = Marked()


def english_words(words: str) -> set[str]:
    """Words of three or more Latin letters that are not notation: untranslated English."""
    return {w for w in re.findall(r"\b[A-Za-z]{3,}\b", words) if w.lower() not in NOTATION}


def assert_translatable(words: str, what: str) -> None:
    """``words`` is a Text with real message ids, and no English survives its translation."""
    assert isinstance(words, Text), f"{what} is a plain str: {words!r}"
    assert words.msgid or words.parts, f"{what} is empty: {words!r}"
    if words.parts is not None:
        assert any(isinstance(p, Text) and (p.msgid or p.parts) for p in words.parts), \
            f"{what} is only verbatim: {words!r}"
    translated = words.render(SCRAMBLED)
    assert translated != str(words), f"{what} is not translated: {words!r}"
    assert not english_words(translated), (
        f"{what}: {sorted(english_words(translated))} escaped translation in {translated!r}")


def positions(gid: str, seeds: range = range(3), plies: int = 40, every: int = 4) -> Iterator[Any]:
    """(game, state) along seeded random games, and the final position of each."""
    game = new_game(gid, **OPTIONS.get(gid, {}))
    for seed in seeds:
        rng = random.Random(seed)
        state = game.start(seed=seed)
        for ply in range(plies):
            if game.to_move(state) is None:
                break
            if ply % every == 0:
                yield game, state
            state = game.play(state, game.random_move(state, rng))
        yield game, state
        yield game, game.playout(state, rng)


def _candidates(game: Game[Any, Any], state: Any) -> list[str]:
    """Move texts, most of them illegal here, for why_illegal."""
    if game.info.id == "rifugio":
        return ["take 1", "take 3", "take blind", "swap 2", "lay 0,0", "lay 1,0", "lay 1,0 r1",
                "lay 1,-1 r4", "lay 9,9", "step E", "step NW", "step SW", "build", "end"]
    board = game.board  # type: ignore[attr-defined]
    rng = random.Random(str(state))
    cells = rng.sample(board.labels, 6)
    return [*(f"{a}-{b}" for a, b in itertools.pairwise(cells)),
            *(f"{a}x{b}" for a, b in zip(cells, cells[2:], strict=False)),
            *cells, *(f"{c}x" for c in cells), "pass", "take-button", "play-second", "7"]


def illegal_moves(game: Game[Any, Any], state: Any) -> Iterator[Any]:
    """Moves the seat to move may not make (none once the game is over: play refuses every
    move then, with the base class's "the game is over")."""
    if game.to_move(state) is None:
        return
    for text in _candidates(game, state):
        try:
            move = game.parse_move(text)
        except IllegalMove:
            continue
        if game.why_illegal(state, move) is not None:
            yield move


# -- (a) the sentences ---------------------------------------------------------------------------

@pytest.mark.parametrize("gid", GAME_IDS)
def test_descriptions_and_piece_lists_are_translated_texts(gid: str) -> None:
    for game, state in positions(gid):
        viewers = [None, *range(game.num_players)] if game.info.hidden_information else [None]
        for viewer in viewers:
            assert_translatable(game.describe(state, viewer), f"{gid} describe")
            assert_translatable(game.piece_list(state, viewer), f"{gid} piece_list")
        result = game.outcome(state)
        if result is not None:
            assert_translatable(result.reason, f"{gid} outcome reason")


@pytest.mark.parametrize("gid", GAME_IDS)
def test_reasons_for_illegal_moves_are_translated_texts(gid: str) -> None:
    seen = 0
    for game, state in positions(gid, plies=30, every=6):
        for move in illegal_moves(game, state):
            reason = game.why_illegal(state, move)
            assert reason is not None
            assert_translatable(reason, f"{gid} {move}")
            with pytest.raises(IllegalMove) as caught:
                game.play(state, move)
            assert_translatable(caught.value.text, f"{gid} play {move}")
            seen += 1
    assert seen > 10


@pytest.mark.parametrize("gid", GAME_IDS)
def test_seat_names_are_translated_texts(gid: str) -> None:
    for game, state in positions(gid, seeds=range(2)):
        for name in game.seat_names(state):
            assert_translatable(name, f"{gid} seat name")


@pytest.mark.parametrize("gid", GAME_IDS)
def test_render_text_has_no_untranslated_sentence(gid: str) -> None:
    """The terminal picture: the rows are notation, every sentence is translated."""
    for game, state in positions(gid, seeds=range(1), every=10):
        text = game.render_text(state, 0 if game.info.hidden_information else None)
        assert isinstance(text, Text)
        assert not english_words(text.render(SCRAMBLED)) - {"gr", "fo", "ro"}


def test_hidden_effects_are_translated_texts() -> None:
    game = new_game("rifugio", players=2)
    state = game.start(seed=3)
    for move in game.legal_moves(state):
        if game.reveals_hidden(state, move):
            assert_translatable(game.hidden_effect(state, move), f"hidden effect of {move}")


def test_catalogue_words_are_plain_marked_strings() -> None:
    """Names, summaries and option labels stay str (pbem translates them with gettext); the
    extraction finds them because they are marked with N_ (checked against the catalog extract)."""
    from pbem.catalogs import extract

    ids = {m.id for m in extract()}
    for gid, info in GAMES.items():
        assert type(info.name) is str and info.name in ids, gid
        assert info.summary in ids, gid
        for option in info.options:
            assert option.label in ids and (not option.help or option.help in ids), gid


def test_translated_text_keeps_values_that_are_texts_translated() -> None:
    game = new_game("mosey", order=4)
    described = game.describe(game.start())
    assert described.render(Catalog({"%(seat)s to move.": "%(seat)s ist am Zug.",
                                     "Light": "Hell"})) == "Hell ist am Zug."


# -- (c) IllegalMove carries the move ------------------------------------------------------------

def _values(text: Text) -> Iterator[object]:
    for value in text.values.values():
        yield value
        if isinstance(value, Text):
            yield from _values(value)
    for part in text.parts or ():
        if isinstance(part, Text):
            yield from _values(part)


@pytest.mark.parametrize("gid", GAME_IDS)
def test_parse_error_names_the_garbage_in_a_value(gid: str) -> None:
    game = new_game(gid, **OPTIONS.get(gid, {}))
    with pytest.raises(IllegalMove) as caught:
        game.parse_move("garbage!")
    text = caught.value.text
    assert "%(" in text.msgid
    assert any("garbage!" in str(v) for v in _values(text))
    assert "garbage!" in text.render(SCRAMBLED)


ILLEGAL = {"mosey": "C1-D1", "refugia": "B2-C2", "stigmergy": "A1x", "rifugio": "lay 0,0"}


@pytest.mark.parametrize("gid", GAME_IDS)
def test_illegal_move_error_holds_the_move_in_its_values(gid: str) -> None:
    game = new_game(gid, **OPTIONS.get(gid, {}))
    state = game.start(seed=1)
    if gid == "stigmergy":
        state = game.play(game.play(state, "3"), "play-second")
    if gid == "rifugio":
        state = game.play(state, next(m for m in game.legal_moves(state)
                                      if str(m) in ("take 1", "take 2", "take 3")))
    move = ILLEGAL.get(gid, ILLEGAL["mosey"])
    with pytest.raises(IllegalMove) as caught:
        game.play(state, move)
    text = caught.value.text
    assert "%(" in text.msgid, text.msgid
    values = [str(v) for v in _values(text)]
    assert any(v and v in move for v in values), (move, values)


def test_unknown_game_and_option_errors_are_texts() -> None:
    with pytest.raises(UnknownGame) as caught:
        new_game("nine-men")
    assert caught.value.text.msgid.startswith("unknown game %(game)s")
    assert caught.value.text.values["game"] == "'nine-men'"
    with pytest.raises(UnknownGame) as caught:
        new_game("mosey", order=9)
    assert caught.value.text.values["value"] == "9"
    with pytest.raises(UnknownGame) as caught:
        new_game("mosey", size=9)
    assert "%(options)s" in caught.value.text.msgid


# -- (b) boards drawn through a translator -------------------------------------------------------

def _words_in_svg(svg: str) -> str:
    """What a person reads or hears from an SVG: texts, titles, descriptions and link names."""
    root = ET.fromstring(svg)
    found = []
    for element in root.iter():
        if element.tag.rsplit("}", 1)[-1] in ("text", "title", "desc") and element.text:
            found.append(element.text)
        if "aria-label" in element.attrib:
            found.append(element.attrib["aria-label"])
    return "\n".join(found)


def _href(cell: str) -> str:
    return f"?at={cell}"


@pytest.mark.parametrize("gid", GAME_IDS)
def test_board_words_all_go_through_the_translator(gid: str) -> None:
    for game, state in positions(gid, seeds=range(2), every=9):
        for viewer in (None, 0):
            english = game.render_svg(state, viewer, cell_href=_href, chosen=())
            assert english == game.render_svg(state, viewer, cell_href=_href, chosen=(),
                                              translator=ENGLISH)
            svg = game.render_svg(state, viewer, cell_href=_href, chosen=(),
                                  translator=SCRAMBLED)
            assert english_words(_words_in_svg(english))
            assert not english_words(_words_in_svg(svg)), sorted(english_words(_words_in_svg(svg)))


LABELS = {
    "mosey": ["«Stones left: Light 12, Dark 12»", "«Light» to move»", "«Light stone»»",
              "board of side 4»"],
    "refugia": ["«0 pairs»", "««White» to move.»", "«Refugia 2-3»", "«A1, «empty»»"],
    "stigmergy": ["«Stigmergy»", "««First» to name the komi.»", "«Komi not named yet»"],
    "rifugio": ["to take a tile»", "«Player 1»", "«Tiles: ", "«shuffle commitment",
                "«your walker»", "«3 «edelweiss»»"],
}
UNTRANSLATED = {
    "mosey": ["Stones left", "to move", "board of side", "Light stone", "your"],
    "refugia": ["pairs", "discs", "White to move", "empty"],
    "stigmergy": ["Komi not named yet", "to name the komi", "empty"],
    "rifugio": ["to take a tile", "Player 1", "Tiles:", "shuffle commitment", "your walker",
                "edelweiss"],
}


@pytest.mark.parametrize("gid", ["mosey", "refugia", "stigmergy", "rifugio"])
def test_board_shows_the_translated_labels_and_not_the_english(gid: str) -> None:
    game = new_game(gid, **OPTIONS.get(gid, {}))
    state = game.start(seed=2)
    marked = game.render_svg(state, 0, cell_href=_href, chosen=(), translator=MARKED)
    for label in LABELS[gid]:
        assert label in marked, label
    scrambled = game.render_svg(state, 0, cell_href=_href, chosen=(), translator=SCRAMBLED)
    english = game.render_svg(state, 0, cell_href=_href, chosen=())
    for words in UNTRANSLATED[gid]:
        assert words in english, words
        assert words not in scrambled, words


def test_rifugio_panel_labels_are_drawn_in_the_readers_language(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The stroke-font labels (column heads, the tiles row, tile names) are translated too."""
    drawn: list[str] = []

    def spy(text: str, *args: Any, **kwargs: Any) -> str:
        drawn.append(text)
        return stroke_text(text, *args, **kwargs)

    monkeypatch.setattr(rifugio_draw, "stroke_text", spy)
    game = new_game("rifugio", players=2)
    rng = random.Random(4)
    state = game.start(seed=4)
    for _ in range(3):
        state = game.play(state, game.random_move(state, rng))
    game.render_svg(state, 0)
    assert {"score", "huts left", "step cards"} <= set(drawn)
    drawn.clear()
    game.render_svg(state, 0, translator=SCRAMBLED)
    assert not english_words(" ".join(drawn)), sorted(english_words(" ".join(drawn)))


# -- (d) accented letters ------------------------------------------------------------------------

@pytest.mark.parametrize("letter", list("ÄÖÜÈÉÀÌÒÙËÏ"))
def test_stroke_font_draws_accented_capitals_as_letter_and_accent(letter: str) -> None:
    base = {"Ä": "A", "Ö": "O", "Ü": "U", "È": "E", "É": "E", "À": "A", "Ì": "I", "Ò": "O",
            "Ù": "U", "Ë": "E", "Ï": "I"}[letter]
    accented, plain = stroke_text(letter, 0, 20, 10), stroke_text(base, 0, 20, 10)
    assert accented.startswith(plain) and len(accented) > len(plain)
    assert stroke_text(letter.lower(), 0, 20, 10) == accented
    assert text_width(letter, 10) == text_width(base, 10)


def test_stroke_font_writes_eszett_as_double_s_and_falls_back_to_the_base_letter() -> None:
    assert stroke_text("Züge", 0, 20, 10)  # nothing vanishes
    assert stroke_text("ß", 0, 20, 10) == stroke_text("SS", 0, 20, 10)
    assert stroke_text("Ç", 0, 20, 10) == stroke_text("C", 0, 20, 10)
    assert text_width("Straße", 10) == text_width("STRASSE", 10)


def test_accent_is_inked_above_the_capital() -> None:
    from engine.png import render_rgb

    def inked_rows(text: str) -> set[int]:
        svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="60" height="60">'
               f'<path d="{stroke_text(text, 10, 50, 40)}" fill="none" stroke="#000" '
               'stroke-width="2"/></svg>')
        image = render_rgb(svg, scale=1).convert("L")
        return {y for y in range(60) for x in range(60) if image.getpixel((x, y)) < 128}

    cap_top = 50 - 6 * 0.12 * 40  # 21.2
    assert not {y for y in inked_rows("U") if y < cap_top - 2}
    assert {y for y in inked_rows("Ü") if y < cap_top - 2}


GERMAN = Catalog({
    "%(seat)s to move": "%(seat)s am Zug (Züge: ÄÖÜß)",
    "Light": "Hell",
    "score": "Punteggio più",
    "huts left": "Hütten übrig",
    "grass": "Gräser",
    "blind pile %(count)d": "verdeckter Stapel %(count)d",
})


@pytest.mark.parametrize("gid", ["mosey", "rifugio"])
def test_board_with_accented_words_rasterises(gid: str) -> None:
    from engine.png import svg_to_png

    game = new_game(gid, **OPTIONS.get(gid, {}))
    state = game.start(seed=1)
    svg = game.render_svg(state, 0, translator=GERMAN)
    assert svg != game.render_svg(state, 0)
    if gid == "mosey":
        assert "Hell am Zug (Züge: ÄÖÜß)" in svg
    png = svg_to_png(svg, scale=1)
    assert Image.open(io.BytesIO(png)).width > 100
