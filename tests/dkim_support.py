"""DKIM checks the tests make on what pbem signs and publishes (moved out of pbem.mail.dkim,
which only signs and makes keys: nothing in the service verifies or reads back a record)."""

from __future__ import annotations

import re
from collections.abc import Callable

import dkim as dkimpy  # type: ignore[import-untyped]  # dkimpy ships no types


def verify_message(raw: bytes, *, dnsfunc: Callable[..., bytes | None] | None = None) -> bool:
    """Whether the topmost DKIM signature of ``raw`` verifies; ``dnsfunc(name, timeout=5)``
    returns the TXT record for a name (default: real DNS)."""
    if dnsfunc is None:
        return bool(dkimpy.verify(raw))
    return bool(dkimpy.verify(raw, dnsfunc=dnsfunc))


def txt_value(record: str) -> str:
    """The TXT value of a :func:`pbem.mail.dkim.dns_record` line: its strings joined, as a
    resolver returns it.

    >>> txt_value('s._domainkey.example.org. IN TXT ( "v=DKIM1; p=A"\\n    "BC" )')
    'v=DKIM1; p=ABC'
    """
    return "".join(re.findall(r'"([^"]*)"', record))
