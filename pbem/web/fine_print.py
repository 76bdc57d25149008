"""The rules decisions of docs/rules/ as a player reads them on /rules/<game>.

Those files are written for whoever works on the engine as much as for players: beside the
rulings they cite the code, the tests, the digests and the reference implementations (Ludii,
Abstract Play) that decided them. A player needs the rulings only, so the page keeps every
sentence of the Markdown but those, in each language the files are written in: a sentence
that names a file, a function or field of the code, a test, a source text or a reference
implementation is left out, a parenthesis that only does so ("(tested)") too, and a heading
left with nothing under it goes with its section.

>>> for_players("# T\\n\\n## Speed\\nIt uses `fast.py`.\\n\\n## Passing\\n- A pass is legal "
...             "(tested). Ludii agrees.")
'# T\\n\\n## Passing\\n- A pass is legal.\\n'
"""

from __future__ import annotations

import re

# What marks a sentence as one about the code and its sources rather than the game. Notation
# in code spans (`C2-E2`, `take 1`, `lay 2,-1 r3`, `q,r`) has none of these characters.
_CODE_SPAN = re.compile(r"`[^`]*`")
_CODE = re.compile(r"[/_.()%=\"<>]|\b(?:encode|decode|describe|start|view|KINDS)\b")
_SOURCES = re.compile(
    r"\bLudii|Abstract Play|JavaScript|\bPython\b|\bSVG\b|\bUTF-8\b|\bhash\b|\bbit|playout"
    r"|\bengine\b|\bmotore\b|#\d+|\b(?:shared|seeds|rules)/|\.(?:py|lud|jsonl|txt|md)\b"
    r"|\bdigest|Zusammenfassung|\briassunt|\bsamenvatting|\bsources?\b|\bQuellen?\b|\bfont[ei]\b"
    r"|\bbron(?:nen)?\b"
    r"|\breferen|\briferimento|\bcatalog|\bKatalog"
    r"|\b(?:ge)?test(?:s|ed|et|ato|ata|ati)?\b|\bverificat",
    re.IGNORECASE)
_PARENTHESIS = re.compile(r"\s*\([^()]*\)")
# A sentence ends at . ; ! or ? before a space and a capital, a quote, a code span or a
# parenthesis; but not after an abbreviation, nor inside a quotation.
_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+(?=[A-ZÀ-Ý`\"'(])")
_ABBREVIATIONS = ("e.g.", "i.e.", "z. B.", "d. h.", "bijv.", "bv.", "ad es.")
_ITEM = re.compile(r"^(\s*(?:[-*+]|\d+\.)\s+|#+\s+)")
_HEADING = re.compile(r"^(#+)\s")


def _developers(text: str) -> bool:
    return (any(_CODE.search(span[0]) for span in _CODE_SPAN.finditer(text))
            or bool(_SOURCES.search(_CODE_SPAN.sub("", text) + " " + text)))


def _sentences(text: str) -> list[str]:
    """``text`` cut into sentences (a ``;`` ends one too)."""
    sentences: list[str] = []
    for piece in _SENTENCE_END.split(text):
        if sentences and (sentences[-1].endswith(_ABBREVIATIONS)
                          or sentences[-1].count('"') % 2):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return sentences


def _kept(text: str) -> str:
    """``text`` without its sentences and parentheses about the code and its sources."""
    text = _PARENTHESIS.sub(lambda m: "" if _developers(m[0]) else m[0], text)
    # A kept clause that a semicolon joined to a left-out one ends as a sentence of its own.
    sentences = [s[:-1] + "." if s.endswith(";") else s
                 for s in _sentences(text) if s.strip() and not _developers(s)]
    return " ".join(sentences).strip()


def _units(markdown: str) -> list[tuple[str, str]]:
    """(prefix, text) for each heading, list item, paragraph and table row: a unit's
    continuation lines joined to it; ("", "") for a blank line."""
    units: list[tuple[str, str]] = []
    for line in markdown.splitlines():
        item = _ITEM.match(line)
        if not line.strip():
            units.append(("", ""))
        elif line.lstrip().startswith("|"):
            units.append(("|", line))
        elif item:
            units.append((item[1], line[item.end():]))
        elif units and units[-1][1] and units[-1][0] != "|" and not _HEADING.match(units[-1][0]):
            prefix, text = units[-1]
            units[-1] = (prefix, f"{text} {line.strip()}")
        else:
            units.append(("¶", line.strip()))
    return units


def for_players(markdown: str) -> str:
    """``markdown`` with only what a player needs (the module's docstring says what goes)."""
    lines: list[str] = []
    for prefix, text in _units(markdown):
        if prefix == "|":
            if not _developers(text):
                lines.append(text)
        elif _HEADING.match(prefix) and not lines:
            lines.append(prefix + text)  # the title
        elif _HEADING.match(prefix):
            lines.append(prefix + text)
        elif prefix or text:
            kept = _kept(text)
            if kept:
                lines.append(("" if prefix == "¶" else prefix) + kept)
        else:
            lines.append("")
    return _without_empty_sections(lines)


def _without_empty_sections(lines: list[str]) -> str:
    """The lines without headings (but the title) that nothing stands under before the next
    heading of their level or above, and without runs of blank lines."""
    kept: list[str] = []
    for number, line in enumerate(lines):
        heading = _HEADING.match(line)
        if heading and kept:
            level = len(heading[1])
            has_content = False
            for later in lines[number + 1:]:
                other = _HEADING.match(later)
                if other and len(other[1]) <= level:
                    break
                if later.strip() and not other:
                    has_content = True
                    break
            if not has_content:
                continue
        if line.strip() or (kept and kept[-1].strip()):
            kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    # A heading's section starts after one blank line, as Markdown writes it.
    text = "\n".join(kept)
    return re.sub(r"\n(#+ [^\n]*)\n(?!\n)", r"\n\1\n", text) + "\n"
