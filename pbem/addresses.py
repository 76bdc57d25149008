"""Names and email addresses that people type, checked in one place for every form and command.

Addresses are checked for syntax only (no DNS) with ``email-validator`` and kept lower-case in
ASCII, so mail servers without SMTPUTF8 can deliver them. Names go into mail headers and pages, so
control characters and line separators are refused outright rather than cleaned.

>>> parse_player("Ann Example <Ann@Example.org>")
('Ann Example', 'ann@example.org')
>>> check_address("ann@@example.org")
Traceback (most recent call last):
...
pbem.addresses.BadAddress: enter an email address such as ann@example.org ('ann@@example.org': ...
>>> check_name("Eve\\nBcc: evil@example.test")
Traceback (most recent call last):
...
pbem.addresses.BadName: a name cannot contain line breaks or other control characters
"""

from __future__ import annotations

import re
import unicodedata

from email_validator import EmailNotValidError, validate_email

from engine.text import Text
from pbem.errors import ServiceError

MAX_NAME = 100
MAX_ADDRESS = 254  # RFC 5321's limit on a path

_NAME_AND_ADDRESS = re.compile(r'\s*(?:"?(?P<name>[^"<>]*)"?\s*)?<(?P<address>[^<>]*)>\s*')


class BadAddress(ServiceError):
    """Text that is not an email address pbem can send to."""


class BadName(ServiceError):
    """A name that cannot be shown in a page or a mail header."""


def has_control_characters(text: str) -> bool:
    """Control characters, line and paragraph separators, and other invisible formatting."""
    return any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in text)


def check_address(text: str) -> str:
    """The address, lower-case ASCII; :class:`BadAddress` says what is wrong with it."""
    raw = text.strip()
    if not raw:
        raise BadAddress(Text("enter an email address such as ann@example.org"))
    if has_control_characters(raw) or len(raw) > MAX_ADDRESS:
        raise BadAddress(Text("an email address is one line of at most %(count)d characters",
                              count=MAX_ADDRESS))
    try:
        checked = validate_email(raw, check_deliverability=False, allow_smtputf8=False,
                                 allow_quoted_local=False, allow_domain_literal=False,
                                 globally_deliverable=False, test_environment=True)
    except EmailNotValidError as error:
        raise BadAddress(Text("enter an email address such as ann@example.org (%(typed)s: "
                              "%(problem)s)", typed=repr(raw), problem=str(error))) from None
    return str(checked.ascii_email).lower()


def check_name(text: str, *, default: str = "") -> str:
    """The name, trimmed; ``default`` when it is empty. :class:`BadName` says what is wrong."""
    name = text.strip()
    if has_control_characters(name):
        raise BadName(Text("a name cannot contain line breaks or other control characters"))
    if len(name) > MAX_NAME:
        raise BadName(Text("a name can be at most %(count)d characters long", count=MAX_NAME))
    if any(c in name for c in '<>"'):
        raise BadName(Text('a name cannot contain <, > or "'))
    return name or default


def check_text(text: str, *, limit: int = 2000) -> str:
    """Free text for the players (a reason, a note), trimmed: line breaks and tabs are fine,
    other control characters (and invisible formatting such as U+202E) are refused.

    >>> check_text("  Bob never answered.\\nSorry.  ")
    'Bob never answered.\\nSorry.'
    """
    body = text.strip()
    if has_control_characters(body.replace("\r", "").replace("\n", "").replace("\t", "")):
        raise BadName(Text("the text cannot contain control characters other than line breaks"))
    if len(body) > limit:
        raise BadName(Text("the text can be at most %(count)d characters long", count=limit))
    return body


def parse_player(text: str) -> tuple[str, str]:
    """``Name <address>`` or a bare address -> (name, address); the name defaults to the
    address's local part."""
    if has_control_characters(text):
        raise BadName(Text("a player is one line: Name <email>"))
    match = _NAME_AND_ADDRESS.fullmatch(text)
    name, address = (match["name"] or "", match["address"]) if match else ("", text)
    address = check_address(address)
    return check_name(name, default=address.partition("@")[0]), address
