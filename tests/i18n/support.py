"""What the language tests share: the English a player must not meet, and reading pages and
emails as a person does (no tags, scripts, links or addresses)."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterable
from typing import Any

# English a player must not meet in another language: whole words, case-sensitive, chosen so
# that none is also a Dutch, German or Italian word (so not "won", "Pass", "November",
# "Deadline", which those languages use too).
ENGLISH = [
    "It is your turn", "your turn", "Your move", "Confirm", "confirm your move", "Game over",
    "to move", "You play", "you play", "Resign", "resign", "Accept", "Decline", "invitation",
    "Invitation", "the game", "The game", "Reply", "reply", "Board", "board", "move", "Move",
    "Rules", "rules", "please", "Please", "since", "Since", "Your", "your", "the", "The", "and",
    "with", "Sign", "Settings", "Wednesday", "Thursday", "Monday", "Tuesday", "Friday",
    "Saturday", "Sunday", "January", "February", "March", "June", "July", "October",
    "December", "not a legal", "is not", "days", "hours", "minutes", "Player",
]


def visible_text(markup: str) -> str:
    """What a reader sees of an HTML page or part: no tags, scripts, styles, URLs or notation."""
    markup = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", markup)
    markup = re.sub(r"(?is)<svg\b.*?</svg>", _board_words, markup)
    attributes = re.findall(r'(?:alt|title|aria-label|placeholder)="([^"]*)"', markup)
    # A value is read only on a button made of an input; a form's other values (hidden fields,
    # radio buttons, options, typed text) are data.
    attributes += re.findall(
        r'<input\b[^>]*\btype="(?:submit|button|reset)"[^>]*\bvalue="([^"]*)"', markup)
    text = re.sub(r"(?s)<[^>]+>", " ", markup)
    text = html_lib.unescape(text + " " + " ".join(attributes))
    return re.sub(r"\s+", " ", without_addresses(text))


def without_addresses(text: str) -> str:
    """Links and email addresses are not words anyone reads."""
    return re.sub(r"\S+@\S+", " ", re.sub(r"https?://\S+", " ", text))


def _board_words(svg: re.Match[str]) -> str:
    """A board's words: its title and the names of its links and regions, not its markup."""
    labels = re.findall(r'aria-label="([^"]*)"', svg[0]) + re.findall(r"<title>([^<]*)</title>",
                                                                       svg[0])
    return " ".join(labels)


def english_in(text: str, words: Iterable[str] = ENGLISH) -> list[str]:
    """The phrases of ``words`` (by default ``ENGLISH``) that ``text`` has as whole words."""
    found = []
    for phrase in words:
        pattern = re.escape(phrase.strip())
        if re.search(rf"(?<![\w-]){pattern}(?![\w-])", text):
            found.append(phrase)
    return found


def email_texts(message: Any) -> list[str]:
    """What a reader sees of an email: its subject, its text part, and its HTML part."""
    parts = [str(message["Subject"]), without_addresses(message.get_body(("plain",)).get_content())]
    html_part = message.get_body(("html",))
    if html_part is not None:
        parts.append(visible_text(html_part.get_content()))
    return parts
