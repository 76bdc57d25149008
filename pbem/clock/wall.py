"""The wall clock, read in this one place; everything else takes ``now`` as an argument, so tests
give it the instant they need instead of waiting for it."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    """Now, timezone-aware UTC."""
    return datetime.now(UTC)
