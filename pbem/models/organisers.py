"""Tables for organisers' sign-in beyond the password (pbem.admin.devices, pbem.admin.two_factor).

:class:`OrganiserSecurity` is one row per organiser, made the first time it is needed: which
remembered browsers still count (``devices_version``) and the two-factor secret.
:class:`OrganiserRecoveryCode` holds the one-time recovery codes, hashed.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from pbem.models.columns import time_column

__all__ = ["OrganiserRecoveryCode", "OrganiserSecurity"]


class OrganiserSecurity(SQLModel, table=True):
    """An organiser's remembered browsers and two-factor sign-in."""

    __tablename__ = "organiser_security"

    admin_user_id: int = Field(foreign_key="admin_users.id", primary_key=True)
    # Part of every device cookie (pbem.admin.devices): a new password and "sign out everywhere"
    # add one, so browsers remembered before are strangers again. Logging out does not.
    devices_version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # Base32 TOTP secret (RFC 6238). Set with ``totp_on_at`` empty while being set up; the
    # login asks for a code only once ``totp_on_at`` is set.
    totp_secret: str | None = None
    totp_on_at: datetime | None = time_column(nullable=True)
    # The newest 30-second time step a code was accepted for: a code of that step or an earlier
    # one is refused, so a code seen over a shoulder cannot be used again.
    totp_last_step: int | None = None


class OrganiserRecoveryCode(SQLModel, table=True):
    """One recovery code, for signing in without the authenticator app; each works once."""

    __tablename__ = "organiser_recovery_codes"

    id: int | None = Field(default=None, primary_key=True)
    admin_user_id: int = Field(foreign_key="admin_users.id", index=True)
    code_hash: str  # sha256 hex of the code as normalised (pbem.admin.two_factor)
    created_at: datetime = time_column()
    used_at: datetime | None = time_column(nullable=True)
