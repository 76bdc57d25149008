"""The text of an HTML mail body, without its quoted parts and signatures: what
:func:`pbem.inbound.reading.reply_text` reads when a reply has no text/plain part, or an empty one.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr",
    "li", "main", "nav", "ol", "p", "pre", "section", "table", "tbody", "tfoot", "thead", "tr",
    "ul"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "param", "source", "track", "wbr"})
_HIDDEN = frozenset({"head", "script", "style", "template", "title"})
# Quoted text and signatures, dropped with their content: Gmail wraps the attribution and the
# quote in div.gmail_quote; Thunderbird writes div.moz-cite-prefix then blockquote[type=cite];
# Apple Mail puts everything in blockquote[type=cite]; signatures are div.gmail_signature and
# .moz-signature. Every <blockquote> goes: replies do not quote on purpose.
_QUOTE_CLASSES = frozenset({"gmail_quote", "gmail_quote_container", "gmail_attr", "moz-cite-prefix",
                            "gmail_signature", "moz-signature", "yahoo_quoted"})
# Outlook puts the old message *after* these, not inside: everything from them on is dropped.
_CUT_IDS = frozenset({"appendonsend", "divrplyfwdmsg", "stopspelling"})


class _TextOfHtml(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skipping: str | None = None  # the tag of the dropped element we are in
        self.depth = 0  # how deep in elements of that tag
        self.hidden = 0
        self.pre = 0
        self.cut = False

    def _at_line_start(self) -> bool:
        return not self.out or self.out[-1].endswith("\n")

    def _break(self) -> None:
        """A block boundary: one line break, however many blocks meet here."""
        if not self._at_line_start():
            self.out.append("\n")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.cut:
            return
        if self.skipping is not None:
            self.depth += tag == self.skipping and tag not in _VOID
            return
        values = {name: value or "" for name, value in attrs}
        if values.get("id", "").lower() in _CUT_IDS:
            self.cut = True
            return
        if tag == "blockquote" or _QUOTE_CLASSES & set(values.get("class", "").split()):
            if tag not in _VOID:
                self.skipping, self.depth = tag, 1
            self._break()
            return
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag == "br":
            self.out.append("\n")
        elif tag in ("td", "th") and not self._at_line_start():
            self.out.append(" ")
        elif tag in _BLOCKS:
            self.pre += tag == "pre"
            self._break()

    def handle_endtag(self, tag: str) -> None:
        if self.cut:
            return
        if self.skipping is not None:
            if tag == self.skipping:
                self.depth -= 1
                if not self.depth:
                    self.skipping = None
            return
        if tag in _HIDDEN:
            self.hidden = max(self.hidden - 1, 0)
        elif tag in _BLOCKS:
            self.pre = max(self.pre - (tag == "pre"), 0)
            self._break()

    def handle_data(self, data: str) -> None:
        if self.cut or self.skipping is not None or self.hidden:
            return
        if not self.pre:
            # HTML collapses white space (but not &nbsp;), and drops it at the start of a line.
            data = re.sub(r"[ \t\r\n\f]+", " ", data)
            if self._at_line_start():
                data = data.lstrip(" ")
        if data:
            self.out.append(data)


def html_to_text(html: str) -> str:
    """The text of an HTML mail body without its quoted parts: one line per block or ``<br>``.

    >>> html_to_text('<div dir="ltr">d4<div>e5</div></div><div class="gmail_quote">'
    ...              'On Mon, pbem wrote:<blockquote>pass</blockquote></div>')
    'd4\\ne5'
    """
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    lines = (line.rstrip() for line in "".join(parser.out).split("\n"))
    return "\n".join(lines).strip("\n")
