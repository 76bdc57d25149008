"""Bounces: which addresses a delivery report says failed, and which outgoing email it was about.

pbem sends every email with a VERP return path, ``bounce+TOKEN@<reply domain>``, whose token
names the outbox row, so a bounce tells the service which email failed even when the report
itself is unreadable. The report's contents are parsed with flufl.bounce, which knows RFC 3464
delivery status notifications and the common non-standard formats (Exim's X-Failed-Recipients,
old Exchange, qmail, ...). The embedded copy of the original message gives its Message-ID and
Return-Path as a second way back to the outbox row, for bounces sent to the wrong address.
"""

from __future__ import annotations

import email.policy
import re
from collections.abc import Iterable
from email.message import EmailMessage, Message
from email.parser import BytesHeaderParser

from flufl.bounce import all_failures

# Where non-MIME bounces (Exim, qmail, Sendmail's plain format, ...) start their inline copy of
# the returned message; the headers follow on the next lines.
_INLINE_COPY = re.compile(
    rb"^-*\s*(This is a copy of the message|Below this line is a copy of the message"
    rb"|Original message follows|Original message headers|The original message was"
    rb"|Returned mail follows|Undelivered message follows|Text of the original message)"
    rb"[^\n]*\n(\s*\n)?",
    re.IGNORECASE | re.MULTILINE)
_HEADER_LINE = re.compile(rb"^[!-9;-~]+:[ \t]")


def bounced_recipients(message: Message) -> set[str]:
    """The addresses that ``message`` reports as failed for good, lower-cased; empty when it
    is not a bounce (or only reports a delay, which is no reason to stop mailing anyone)."""
    _temporary, permanent = _failures(message)
    return permanent


def delayed_recipients(message: Message) -> set[str]:
    """The addresses that ``message`` reports as only delayed (temporary failures)."""
    temporary, _permanent = _failures(message)
    return temporary


def original_headers(message: Message) -> EmailMessage | None:
    """The headers of the message that bounced, as a header-only EmailMessage, or None.

    Looked for in a message/rfc822 part (RFC 3464 and most MTAs), a text/rfc822-headers part
    (Exchange and others that return headers only), then an inline copy in the text of
    non-MIME bounces (Exim's "This is a copy of the message, including all the headers").
    """
    for part in message.walk():
        content_type = part.get_content_type()
        if content_type == "message/rfc822":
            payload = part.get_payload()
            inner = payload[0] if isinstance(payload, list) and payload else None
            if isinstance(inner, Message):
                parsed = _headers_of(inner.as_bytes(policy=email.policy.compat32))
                if parsed is not None:
                    return parsed
        elif content_type == "text/rfc822-headers":
            parsed = _headers_of(_payload_bytes(part))
            if parsed is not None:
                return parsed
    for part in message.walk():
        if part.get_content_type() == "text/plain":
            found = _INLINE_COPY.search(_payload_bytes(part).replace(b"\r\n", b"\n"))
            if found:
                parsed = _headers_of(found.string[found.end():])
                if parsed is not None:
                    return parsed
    return None


def _failures(message: Message) -> tuple[set[str], set[str]]:
    """(temporary, permanent) failed addresses, decoded and lower-cased."""
    try:
        temporary, permanent = all_failures(message)
    except Exception:  # flufl's heuristics choke on some malformed mail; that is no bounce
        return set(), set()
    return _addresses(temporary), _addresses(permanent)


def _addresses(found: Iterable[bytes | str]) -> set[str]:
    result = set()
    for address in found:
        text = address.decode("ascii", "replace") if isinstance(address, bytes) else address
        text = text.strip().strip("<>").strip().lower()
        if "@" in text:
            result.add(text)
    return result


def _payload_bytes(part: Message) -> bytes:
    payload = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        return payload
    text = part.get_payload()
    return text.encode("utf-8", "surrogateescape") if isinstance(text, str) else b""


def _headers_of(raw: bytes) -> EmailMessage | None:
    """``raw``'s leading header block as an EmailMessage, or None when it has no header."""
    raw = raw.lstrip(b"\r\n")
    if not _HEADER_LINE.match(raw):
        return None
    parsed = BytesHeaderParser(policy=email.policy.default).parsebytes(raw)
    assert isinstance(parsed, EmailMessage)
    return parsed if len(parsed) else None
