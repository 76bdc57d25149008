"""The organisers' accounts. Players have no accounts: their signed links are their identity."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Column
from sqlmodel import Field, SQLModel

from pbem.models import UTCDateTime


def _time(nullable: bool = False) -> Any:
    return Field(default=None, sa_column=Column(UTCDateTime(), nullable=nullable))


class AdminUser(SQLModel, table=True):
    """An organiser who may log in to the dashboard."""

    __tablename__ = "admin_users"

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(index=True, unique=True)  # stored lower-case
    password_hash: str  # see pbem.admin.passwords
    active: bool = True
    created_at: datetime = _time()
    last_login_at: datetime | None = _time(nullable=True)

    # Flask-Login's user protocol, written out rather than inherited from UserMixin so the
    # SQLModel metaclass sees only plain fields.
    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def is_active(self) -> bool:
        return self.active

    @property
    def is_anonymous(self) -> bool:
        return False

    def get_id(self) -> str:
        return str(self.id)


class SeatReplacement(SQLModel, table=True):
    """An organiser put another player on a seat; links sent to the earlier one stop working."""

    __tablename__ = "seat_replacements"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    old_player_id: int = Field(foreign_key="players.id")
    new_player_id: int = Field(foreign_key="players.id")
    admin_id: int | None = Field(default=None, foreign_key="admin_users.id")
    at: datetime = _time()
