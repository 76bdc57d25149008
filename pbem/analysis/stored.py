"""Kept analysis lines: a line whose address would pass what browsers, mail programs and
servers reliably carry is kept under an unguessable id, and its address names the id instead.

A kept line never changes, so a shared address keeps its meaning; playing on from it keeps a
new line. The id is looked up within its game only, so an id copied into another game's
address finds nothing.
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime

from sqlmodel import Session

from pbem.analysis.line import SEPARATOR
from pbem.analysis.tables import AnalysisLine

MAX_ADDRESS = 1800  # characters of an address kept in the address (under the ~2,000 safe limit)
ID_BYTES = 16  # 128 random bits: 22 characters
_ID = re.compile(r"[A-Za-z0-9_-]{22}")


class UnknownLine(ValueError):
    """An address's line id that no kept line of its game has (``malformed``: it cannot be one
    of ours at all, the address was changed or cut)."""

    def __init__(self, malformed: bool) -> None:
        super().__init__("malformed line id" if malformed else "no such line")
        self.malformed = malformed


def keep_line(session: Session, now: datetime, game_id: int, steps: tuple[str, ...]) -> str:
    """Keep ``steps`` of game ``game_id`` as a new line; its id."""
    line_id = secrets.token_urlsafe(ID_BYTES)
    session.add(AnalysisLine(id=line_id, game_id=game_id, steps=SEPARATOR.join(steps),
                             created_at=now))
    return line_id


def kept_steps(session: Session, game_id: int, line_id: str) -> str:
    """The steps of kept line ``line_id`` of game ``game_id`` (as an address's ``line``);
    :class:`UnknownLine` when there is none."""
    if not _ID.fullmatch(line_id):
        raise UnknownLine(malformed=True)
    row = session.get(AnalysisLine, line_id)
    if row is None or row.game_id != game_id:
        raise UnknownLine(malformed=False)
    return row.steps
