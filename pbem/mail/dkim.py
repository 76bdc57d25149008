"""DKIM: signing outgoing mail so that receivers can tell it really comes from the site.

Optional: when PBEM_DKIM_SELECTOR, PBEM_DKIM_DOMAIN and PBEM_DKIM_KEY_FILE are set, the outbox
signs each message with :func:`sign_message` just before sending it. ``pbem dkim-keygen`` makes a
key with :func:`generate_key` and prints the DNS record to publish with :func:`dns_record`.

Signing uses dkimpy, relaxed/relaxed canonicalisation (survives the re-folding and whitespace
changes that relays make) and rsa-sha256. The headers a reader trusts are signed, each once more
than the message has it ("oversigned", RFC 6376 section 8.15), so that nobody can add a Reply-To
or a second Subject later without breaking the signature. Among them are ``List-Unsubscribe``
and ``List-Unsubscribe-Post``: RFC 8058 one-click unsubscription counts only when the signature
covers both, since whoever could change them could make a mail client POST to any URL. Keys
are RSA 2048 (the size RFC 8301 recommends and every receiver accepts; 4096
no longer fits one DNS TXT string and some DNS providers refuse it). dkimpy does not generate
keys; like its own ``dknewkey``, :func:`generate_key` asks the ``openssl`` command.
"""

from __future__ import annotations

import base64
import shutil
import subprocess

import dkim as dkimpy  # type: ignore[import-untyped]  # dkimpy (this is pbem.mail.dkim)

SIGNED_HEADERS = ("From", "To", "Subject", "Date", "Message-ID", "Reply-To", "In-Reply-To",
                  "References", "MIME-Version", "Content-Type", "List-Unsubscribe",
                  "List-Unsubscribe-Post")
KEY_BITS = 2048
# RFC 1035: one character-string in a TXT record holds at most 255 octets.
TXT_CHUNK = 255


class DkimError(Exception):
    """A key could not be made or read, or a message could not be signed."""


def sign_message(raw: bytes, *, selector: str, domain: str, private_key: bytes) -> bytes:
    """``raw`` with a DKIM-Signature header on top (d=``domain``, s=``selector``).

    ``private_key`` is the PEM (PKCS#1 or PKCS#8) RSA key. Raises DkimError when the key or
    the message cannot be used, so that a broken setup is noticed rather than sending mail
    that fails DKIM.
    """
    try:
        signature = dkimpy.sign(
            raw, selector.encode("ascii"), domain.encode("idna"), private_key,
            canonicalize=(b"relaxed", b"relaxed"), include_headers=signed_header_names(raw))
    except (dkimpy.DKIMException, UnicodeError) as error:
        raise DkimError(f"cannot DKIM-sign: {error}") from error
    # dkimpy folds the header with CRLF; keep the message's own line endings.
    if b"\r\n" not in raw:
        signature = signature.replace(b"\r\n", b"\n")
    return bytes(signature) + raw


def signed_header_names(raw: bytes) -> list[bytes]:
    """The ``h=`` list for ``raw``: each of :data:`SIGNED_HEADERS` as many times as ``raw`` has
    it, plus once. A verifier matches the names from the bottom of the header up, so the extra
    name stands for "no more of these": a copy added on top later breaks the signature.

    >>> signed_header_names(b"Subject: hi\\r\\nFrom: a@b.c\\r\\n\\r\\nbody\\r\\n")[:4]
    [b'from', b'from', b'to', b'subject']
    """
    headers, _ = dkimpy.rfc822_parse(raw)
    present = [bytes(name).lower() for name, _ in headers]
    names: list[bytes] = []
    for name in SIGNED_HEADERS:
        wanted = name.lower().encode("ascii")
        names += [wanted] * (present.count(wanted) + 1)
    return names


def generate_key(bits: int = KEY_BITS) -> tuple[bytes, str]:
    """A new RSA key: (private key PEM, the TXT value to publish, "v=DKIM1; k=rsa; p=...")."""
    pem = _openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", f"rsa_keygen_bits:{bits}"])
    return pem, public_txt(pem)


def public_txt(private_key: bytes) -> str:
    """The DNS TXT value for the public half of ``private_key`` (PEM)."""
    der = _openssl(["pkey", "-pubout", "-outform", "DER"], private_key)
    return f"v=DKIM1; k=rsa; p={base64.b64encode(der).decode('ascii')}"


def dns_record(selector: str, domain: str, public_txt: str) -> str:
    """The zone-file line to publish, the TXT value split into quoted strings of at most 255
    characters (a longer value is the concatenation of the strings, RFC 7489 / RFC 6376 3.6.2.2).

    >>> dns_record("pbem", "example.org", "v=DKIM1; k=rsa; p=" + "A" * 300)[:60]
    'pbem._domainkey.example.org. IN TXT ( "v=DKIM1; k=rsa; p=AAA'
    >>> dns_record("s", "example.org", "v=DKIM1; p=AB")
    's._domainkey.example.org. IN TXT "v=DKIM1; p=AB"'
    """
    name = f"{selector}._domainkey.{domain.rstrip('.')}."
    chunks = [public_txt[i:i + TXT_CHUNK] for i in range(0, len(public_txt), TXT_CHUNK)]
    if len(chunks) <= 1:
        return f'{name} IN TXT "{public_txt}"'
    # Parentheses let a zone file continue the record on the next lines.
    strings = "\n    ".join(f'"{chunk}"' for chunk in chunks)
    return f"{name} IN TXT ( {strings} )"


def _openssl(arguments: list[str], stdin: bytes | None = None) -> bytes:
    binary = shutil.which("openssl")
    if binary is None:
        raise DkimError("the openssl command is needed to make DKIM keys (apt-get install openssl)")
    try:
        done = subprocess.run([binary, *arguments], input=stdin, capture_output=True,
                              check=True, timeout=120)
    except subprocess.CalledProcessError as error:
        message = error.stderr.decode(errors="replace").strip()
        raise DkimError(f"openssl {arguments[0]} failed: {message}") from error
    return done.stdout
