"""Password hashing with scrypt from the standard library: slow on purpose, salted per user.

>>> stored = hash_password("correct horse")
>>> stored.startswith("scrypt$")
True
>>> check_password("correct horse", stored), check_password("wrong", stored)
(True, False)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

from engine.text import Text

# n=2**15, r=8: about 32 MiB and a few tens of milliseconds per check (OWASP's scrypt minimum
# is n=2**17 with r=8 only for p=1 at higher memory; this stays inside OpenSSL's default limit).
SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
_MAXMEM = 64 * 1024 * 1024
MIN_PASSWORD_LENGTH = 10


class WeakPassword(ValueError):
    """A password too short to protect an organiser's account."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def hash_password(password: str, *, n: int = SCRYPT_N) -> str:
    """``scrypt$n$r$p$salt$key`` with a fresh random salt."""
    salt = secrets.token_bytes(16)
    key = hashlib.scrypt(password.encode(), salt=salt, n=n, r=SCRYPT_R, p=SCRYPT_P,
                         maxmem=_MAXMEM, dklen=32)
    return f"scrypt${n}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(key)}"


def check_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, key = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = base64.b64decode(key)
        actual = hashlib.scrypt(password.encode(), salt=base64.b64decode(salt), n=int(n),
                                r=int(r), p=int(p), maxmem=_MAXMEM, dklen=len(expected))
    except ValueError:
        return False
    return hmac.compare_digest(actual, expected)


def check_strength(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise WeakPassword(Text.counted("use at least %(count)d character",
                                        "use at least %(count)d characters",
                                        MIN_PASSWORD_LENGTH))


def new_password() -> str:
    """A random password an organiser can type: 16 characters of URL-safe base64."""
    return secrets.token_urlsafe(12)
