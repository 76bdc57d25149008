"""A small stroke font for short labels (coordinates, codes, numbers) drawn as one SVG path.

SVG text is slow to rasterise with cairosvg (each text element and each letter is placed and traced
on its own), and the picture goes out as a PNG with every email. Short labels drawn as strokes are
cheaper, because all labels of one colour become one path. Capitals, digits and a little
punctuation; lower case is written as capitals. Accented capitals (À É Ä Ö Ü È Ì Ò Ù Ë Ï, and
the rest of Latin-1's grave, acute, circumflex, diaeresis and tilde letters) are their letter with
the accent drawn above it; any other letter with a base letter in Unicode (Ç, Å) is drawn as that
letter, and ß is written SS as capitals are. Look-alikes are drawn apart (a narrow slashed 0
and a round O, a G with a spur and a curved 6, a flagged 1 and a serifed I, two loops for 8 and
a straight-backed B); tests/engine/test_board_legibility.py checks them as bitmaps.

>>> stroke_text("T1", 10, 20, 10)   # T is two strokes, 1 (a long flag) is one
'M10 12.8 14.8 12.8M12.4 12.8 12.4 20M16.8 15.4 19.8 12.8 19.8 20'
>>> round(text_width("T1", 10), 1)
11.6
"""

from __future__ import annotations

import unicodedata

from engine.svg import fmt

# Each glyph: polylines of "x,y" points on a grid 4 wide and 6 high, y up from the baseline.
_GLYPHS = {
    "A": "0,0 0,4 2,6 4,4 4,0|0,3 4,3",
    "B": "0,0 0,6 3,6 4,5 4,4 3,3 0,3|3,3 4,2 4,1 3,0 0,0",
    "C": "4,5 3,6 1,6 0,5 0,1 1,0 3,0 4,1",
    "D": "0,0 0,6 2,6 4,4 4,2 2,0 0,0",
    "E": "4,6 0,6 0,0 4,0|0,3 3,3",
    "F": "4,6 0,6 0,0|0,3 3,3",
    "G": "4,5 3,6 1,6 0,5 0,1 1,0 3,0 4,1 4,3 2,3|4,3 4,0",  # bar and spur: not a 6
    "H": "0,0 0,6|4,0 4,6|0,3 4,3",
    "I": "0.5,6 3.5,6|2,6 2,0|0.5,0 3.5,0",  # serifs at both ends: not a 1
    "J": "4,6 4,1 3,0 1,0 0,1",
    "K": "0,0 0,6|4,6 0,2|1,3 4,0",
    "L": "0,6 0,0 4,0",
    "M": "0,0 0,6 2,3 4,6 4,0",
    "N": "0,0 0,6 4,0 4,6",
    "O": "1.5,0 2.5,0 4,1.5 4,4.5 2.5,6 1.5,6 0,4.5 0,1.5 1.5,0",  # wide and round: not a 0
    "P": "0,0 0,6 3,6 4,5 4,4 3,3 0,3",
    "Q": "1,0 3,0 4,1 4,5 3,6 1,6 0,5 0,1 1,0|2,2 4,0",
    "R": "0,0 0,6 3,6 4,5 4,4 3,3 0,3|2,3 4,0",
    "S": "4,5 3,6 1,6 0,5 0,4 1,3 3,3 4,2 4,1 3,0 1,0 0,1",
    "T": "0,6 4,6|2,6 2,0",
    "U": "0,6 0,1 1,0 3,0 4,1 4,6",
    "V": "0,6 2,0 4,6",
    "W": "0,6 1,0 2,3 3,0 4,6",
    "X": "0,0 4,6|0,6 4,0",
    "Y": "0,6 2,3 4,6|2,3 2,0",
    "Z": "0,6 4,6 0,0 4,0",
    "0": "1.5,0 2.5,0 3.4,1 3.4,5 2.5,6 1.5,6 0.6,5 0.6,1 1.5,0|3.2,5.2 0.8,0.8",  # narrow, slashed
    "1": "0,3.8 2.5,6 2.5,0",  # a long flag, no serifs: not an I
    "2": "0,6 4,6 4,3 0,3 0,0 4,0",
    "3": "0,6 4,6 4,0 0,0|1,3 4,3",
    "4": "0,6 0,3 4,3|3,6 3,0",
    "5": "4,6 0,6 0,3 4,3 4,0 0,0",
    "6": "3.5,6 1,3.6 0,2 0,1 1,0 3,0 4,1 4,2 3,3 1,3 0,2",  # a curved stem: not a G
    "7": "0,6 4,6 4,0",
    # two closed loops, no straight side: not a B
    "8": "2,3 0.8,3.8 0.8,5.2 1.6,6 2.4,6 3.2,5.2 3.2,3.8 2,3 "
         "0.5,2.2 0,1.2 1,0 3,0 4,1.2 3.5,2.2 2,3",
    "9": "0.5,0 3,2.4 4,4 4,5 3,6 1,6 0,5 0,4 1,3 3,3 4,4",
    "-": "0,3 3,3",
    "+": "0,3 4,3|2,1 2,5",
    ",": "1,0.6 0,-1.4",
    ".": "0,0 0.1,0",
    ":": "0,1 0.1,1|0,4 0.1,4",
    "/": "0,0 3,6",
    "(": "2,6.5 1,5 1,1 2,-0.5",
    ")": "0,6.5 1,5 1,1 0,-0.5",
    "?": "0,5 1,6 3,6 4,5 4,4 2,3 2,2|2,0 2.1,0",
}
_WIDTHS = {"-": 3.0, "+": 4.0, ",": 1.0, ".": 0.1, ":": 0.1, "/": 3.0, "(": 2.0, ")": 1.0,
           " ": 2.4}
_GAP = 1.7
_UNIT = 0.12  # grid unit per pixel of font size: capitals are 0.72 of the size


def _parse(spec: str) -> tuple[tuple[tuple[float, float], ...], ...]:
    return tuple(tuple((float(x), float(y)) for x, y in (p.split(",") for p in line.split()))
                 for line in spec.split("|"))


# Accents above a capital (which reaches y=6), centred on the 4-wide cell.
_ACCENTS = {
    "\u0300": "1.3,7.9 2.5,6.9",  # grave
    "\u0301": "1.5,6.9 2.7,7.9",  # acute
    "\u0302": "1,6.9 2,7.8 3,6.9",  # circumflex
    "\u0303": "0.8,7.1 1.6,7.7 2.4,7.1 3.2,7.7",  # tilde
    "\u0308": "1.1,7.4 1.2,7.4|2.8,7.4 2.9,7.4",  # diaeresis: two dots
}


def _decomposed(ch: str) -> tuple[str, str]:
    """A letter's base letter and its accents (combining marks); ``("", "")`` for no base."""
    parts = unicodedata.normalize("NFD", ch)
    return (parts[0], parts[1:]) if len(parts) > 1 else ("", "")


def _accented() -> dict[str, str]:
    """Glyph specs for the accented capitals of Latin-1 (and a few more) that we can draw."""
    specs = {}
    for code in range(0xC0, 0x17F):
        ch = chr(code)
        base, marks = _decomposed(ch)
        if ch.isupper() and base in _GLYPHS and marks and all(m in _ACCENTS for m in marks):
            specs[ch] = "|".join([_GLYPHS[base], *(_ACCENTS[m] for m in marks)])
    return specs


_GLYPHS.update(_accented())
GLYPHS = {ch: _parse(spec) for ch, spec in _GLYPHS.items()}


def _advance(ch: str) -> float:
    return _WIDTHS.get(ch, 4.0) + _GAP


def _glyph(ch: str) -> tuple[tuple[tuple[float, float], ...], ...]:
    """The strokes of ``ch``; a letter without a glyph of its own falls back to its base letter
    (Ç is drawn as C), anything else to nothing (a blank of a letter's width)."""
    found = GLYPHS.get(ch)
    if found is None:
        found = GLYPHS.get(_decomposed(ch)[0], ())
    return found


def text_width(text: str, size: float) -> float:
    """The width of ``text`` drawn at ``size``, in pixels."""
    if not text:
        return 0.0
    return (sum(_advance(ch) for ch in text.upper()) - _GAP) * _UNIT * size


def stroke_text(text: str, x: float, y: float, size: float, anchor: str = "start") -> str:
    """Path data that writes ``text`` with its baseline at ``y``; ``anchor`` as in SVG."""
    unit = _UNIT * size
    if anchor == "middle":
        x -= text_width(text, size) / 2
    elif anchor == "end":
        x -= text_width(text, size)
    parts = []
    for ch in text.upper():
        for line in _glyph(ch):
            points = " ".join(f"{fmt(x + gx * unit)} {fmt(y - gy * unit)}" for gx, gy in line)
            parts.append(f"M{points}")
        x += _advance(ch) * unit
    return "".join(parts)
