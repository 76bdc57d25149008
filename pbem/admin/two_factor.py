"""Two-factor sign-in for organisers: a TOTP code from an authenticator app (RFC 6238, pyotp),
or one of ten single-use recovery codes.

Set up on the account page: :func:`start_set_up` makes a secret (shown as a QR code and as
text), :func:`switch_on` turns it on once a code from the app matches and returns the recovery
codes, shown that once and stored only as hashes. The login then asks for a code
(pbem.admin.second_step) and :func:`check_code` takes either kind. Codes are accepted one 30-second
step either side of the server's clock (a phone's clock may be a little off), and never twice:
the newest accepted step is kept, and a code of that step or an earlier one is refused, in one
conditional UPDATE so two requests at once cannot both use it. A recovery code is used up the
same way. :func:`switch_off` (password asked by the page) and :func:`reset` (``pbem
create-admin EMAIL --reset-two-factor``, for a lost phone) remove the secret and the codes.

>>> from datetime import UTC, datetime
>>> secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
>>> now = datetime(2026, 11, 26, 12, 0, 10, tzinfo=UTC)
>>> code = pyotp.TOTP(secret).at(now)
>>> matching_step(secret, code, now) == pyotp.TOTP(secret).timecode(now)
True
>>> matching_step(secret, "000000" if code != "000000" else "111111", now) is None
True
>>> normalise("  ABCD-efgh ijkl-MNOP "), looks_like_totp(" 123 456 ")
('abcdefghijklmnop', True)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime
from typing import Any

import pyotp
import segno
from sqlalchemy import delete, update
from sqlmodel import Session, col, func, select

from pbem.models import AdminUser
from pbem.models.organisers import OrganiserRecoveryCode, OrganiserSecurity

ISSUER = "pbem"
RECOVERY_CODES = 10
_RECOVERY_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"  # base32: no 0/O or 1/l to confuse
_RECOVERY_LENGTH = 16  # 80 bits: no use guessing, even from a copy of the hashes


def matching_step(secret: str, code: str, now: datetime) -> int | None:
    """The time step whose code ``code`` is, within one step of ``now``; None if none is."""
    totp = pyotp.TOTP(secret)
    current = totp.timecode(now)
    typed = "".join(code.split())
    for step in (current, current - 1, current + 1):
        if hmac.compare_digest(totp.generate_otp(step), typed):
            return step
    return None


def normalise(code: str) -> str:
    """A code as typed, without spaces or dashes, in lower case."""
    return "".join(code.split()).replace("-", "").lower()


def looks_like_totp(code: str) -> bool:
    typed = "".join(code.split())
    return len(typed) == 6 and typed.isascii() and typed.isdigit()


def _hash(code: str) -> str:
    return hashlib.sha256(normalise(code).encode()).hexdigest()


def _row(session: Session, user_id: int) -> OrganiserSecurity:
    row = session.get(OrganiserSecurity, user_id)
    if row is None:
        row = OrganiserSecurity(admin_user_id=user_id)
        session.add(row)
        session.flush()
    return row


def is_on(session: Session, user_id: int) -> bool:
    """Whether this organiser's login asks for a code."""
    row = session.get(OrganiserSecurity, user_id)
    return row is not None and row.totp_on_at is not None and bool(row.totp_secret)


def switched_on_at(session: Session, user_id: int) -> datetime | None:
    row = session.get(OrganiserSecurity, user_id)
    return row.totp_on_at if row is not None and row.totp_secret else None


def recovery_codes_left(session: Session, user_id: int) -> int:
    return int(session.exec(select(func.count()).select_from(OrganiserRecoveryCode).where(
        OrganiserRecoveryCode.admin_user_id == user_id,
        col(OrganiserRecoveryCode.used_at).is_(None))).one())


def start_set_up(session: Session, user_id: int) -> str | None:
    """A new secret for the organiser to add to their app (replacing one not yet confirmed);
    None when two-factor sign-in is on already (it must be switched off first)."""
    row = _row(session, user_id)
    if row.totp_on_at is not None:
        return None
    row.totp_secret, row.totp_last_step = pyotp.random_base32(), None
    session.add(row)
    return row.totp_secret


def secret_being_set_up(session: Session, user_id: int) -> str | None:
    row = session.get(OrganiserSecurity, user_id)
    return row.totp_secret if row is not None and row.totp_on_at is None else None


def switch_on(session: Session, user_id: int, code: str, now: datetime) -> list[str] | None:
    """Turn two-factor sign-in on if ``code`` is the app's code for the secret being set up;
    the new recovery codes (shown once), or None."""
    row = session.get(OrganiserSecurity, user_id)
    if row is None or row.totp_on_at is not None or not row.totp_secret:
        return None
    step = matching_step(row.totp_secret, code, now)
    if step is None:
        return None
    row.totp_on_at, row.totp_last_step = now, step  # this code cannot sign in as well
    session.add(row)
    return new_recovery_codes(session, user_id, now)


def new_recovery_codes(session: Session, user_id: int, now: datetime) -> list[str]:
    """Ten fresh recovery codes (``abcd-efgh-ijkl-mnop``); earlier ones stop working."""
    session.execute(delete(OrganiserRecoveryCode).where(
        col(OrganiserRecoveryCode.admin_user_id) == user_id))
    codes = []
    for _ in range(RECOVERY_CODES):
        raw = "".join(secrets.choice(_RECOVERY_ALPHABET) for _ in range(_RECOVERY_LENGTH))
        codes.append("-".join(raw[i:i + 4] for i in range(0, _RECOVERY_LENGTH, 4)))
        session.add(OrganiserRecoveryCode(admin_user_id=user_id, code_hash=_hash(raw),
                                          created_at=now))
    session.flush()
    return codes


def check_code(session: Session, user_id: int, code: str, now: datetime) -> bool:
    """Whether ``code`` lets the organiser in: their app's code of a step newer than any used
    before, or an unused recovery code (which is then used up)."""
    row = session.get(OrganiserSecurity, user_id)
    if row is None or row.totp_on_at is None or not row.totp_secret:
        return False
    if looks_like_totp(code):
        step = matching_step(row.totp_secret, code, now)
        return step is not None and _claim(session, update(OrganiserSecurity).where(
            col(OrganiserSecurity.admin_user_id) == user_id,
            col(OrganiserSecurity.totp_on_at).is_not(None),
            (col(OrganiserSecurity.totp_last_step).is_(None))
            | (col(OrganiserSecurity.totp_last_step) < step),
        ).values(totp_last_step=step))
    if len(normalise(code)) != _RECOVERY_LENGTH:
        return False
    return _claim(session, update(OrganiserRecoveryCode).where(
        col(OrganiserRecoveryCode.admin_user_id) == user_id,
        col(OrganiserRecoveryCode.code_hash) == _hash(code),
        col(OrganiserRecoveryCode.used_at).is_(None),
    ).values(used_at=now))


def _claim(session: Session, statement: Any) -> bool:
    """Run a conditional UPDATE: True if it changed a row (so this request, and no other, got
    what the condition guards)."""
    changed = session.execute(statement).rowcount  # type: ignore[attr-defined]
    return bool(changed == 1)


def switch_off(session: Session, user_id: int) -> None:
    """No more codes at login; the secret and the recovery codes are gone."""
    row = session.get(OrganiserSecurity, user_id)
    if row is not None:
        row.totp_secret, row.totp_on_at, row.totp_last_step = None, None, None
        session.add(row)
    session.execute(delete(OrganiserRecoveryCode).where(
        col(OrganiserRecoveryCode.admin_user_id) == user_id))
    session.flush()


def reset(session: Session, email: str) -> AdminUser | None:
    """The operator's way back in for an organiser who lost their app and their recovery codes:
    two-factor sign-in off, and every session of theirs ended. None for an unknown address."""
    user = session.exec(select(AdminUser).where(
        AdminUser.email == email.strip().lower())).one_or_none()
    if user is None or user.id is None:
        return None
    switch_off(session, user.id)
    user.session_version += 1
    session.add(user)
    session.flush()
    return user


def provisioning_uri(secret: str, email: str) -> str:
    """The ``otpauth://`` URI an authenticator app reads from the QR code."""
    return pyotp.TOTP(secret).provisioning_uri(name=email, issuer_name=ISSUER)


def qr_code(uri: str) -> str:
    """``uri`` as a QR code: an SVG ``data:`` URI for an ``<img>`` (the site's CSP allows
    ``img-src data:``; segno needs no imaging library)."""
    return str(segno.make(uri, error="m").svg_data_uri(scale=5, border=2))


def grouped(secret: str) -> str:
    """The secret as typed into an app by hand: groups of four."""
    return " ".join(secret[i:i + 4] for i in range(0, len(secret), 4))
