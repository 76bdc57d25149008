"""DKIM: a message signed with a freshly made key verifies against the DNS record that
``dns_record`` prints (served by a stub resolver), and any change to it breaks the signature."""

from __future__ import annotations

import dataclasses
import email
import email.policy
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import dkim as dkimpy
import pytest

from pbem.db import Database
from pbem.mail.dkim import (
    SIGNED_HEADERS,
    DkimError,
    dns_record,
    generate_key,
    public_txt,
    sign_message,
)
from pbem.mail.outbox import deliver_pending, dkim_signer
from pbem.models import OutboxEmail
from tests.dkim_support import txt_value, verify_message
from tests.support import SmtpServer

SELECTOR, DOMAIN = "pbem2025", "pbem.example.org"
MESSAGE = (b"From: pbem <pbem@pbem.example.org>\r\n"
           b"To: Ann <ann@example.org>\r\n"
           b"Reply-To: pbem <play+g1.p0.Ab12@pbem.example.org>\r\n"
           b"Subject: Your move in Mosey #1\r\n"
           b"Date: Mon, 17 Mar 2025 09:12:02 +0000\r\n"
           b"Message-ID: <outbox-1.1742202722@pbem.example.org>\r\n"
           b"MIME-Version: 1.0\r\n"
           b"Content-Type: text/plain; charset=\"utf-8\"\r\n"
           b"\r\n"
           b"It is your turn in Mosey #1.\r\n")


@pytest.fixture(scope="module")
def key() -> tuple[bytes, str]:
    return generate_key()


@pytest.fixture(scope="module")
def dns(key: tuple[bytes, str]) -> dict[bytes, bytes]:
    """The stub DNS: the TXT value a resolver returns for the record dns_record prints."""
    record = dns_record(SELECTOR, DOMAIN, key[1])
    name = record.split()[0]
    return {name.encode(): txt_value(record).encode()}


def stub(dns: dict[bytes, bytes]) -> Callable[..., bytes | None]:
    def dnsfunc(name: bytes, timeout: float = 5) -> bytes | None:
        # dkimpy asks for "selector._domainkey.domain." with the final dot.
        return dns.get(name if name.endswith(b".") else name + b".")
    return dnsfunc


def test_generated_key(key: tuple[bytes, str]) -> None:
    private, txt = key
    assert private.startswith(b"-----BEGIN PRIVATE KEY-----")
    assert txt.startswith("v=DKIM1; k=rsa; p=")
    assert public_txt(private) == txt
    # An RSA 2048 public key: the SubjectPublicKeyInfo is 294 bytes, 392 in base64.
    assert len(txt.removeprefix("v=DKIM1; k=rsa; p=")) == 392


def test_dns_record_is_split_into_255_character_strings(key: tuple[bytes, str]) -> None:
    record = dns_record(SELECTOR, DOMAIN, key[1])
    assert record.startswith(f"{SELECTOR}._domainkey.{DOMAIN}. IN TXT (")
    strings = re.findall(r'"([^"]*)"', record)
    assert len(strings) == 2 and all(len(s) <= 255 for s in strings)
    assert "".join(strings) == key[1] == txt_value(record)


def test_signed_message_verifies(key: tuple[bytes, str], dns: dict[bytes, bytes]) -> None:
    signed = sign_message(MESSAGE, selector=SELECTOR, domain=DOMAIN, private_key=key[0])
    assert signed.endswith(MESSAGE)
    assert verify_message(signed, dnsfunc=stub(dns))
    # dkimpy's own verify, as a receiver runs it.
    assert dkimpy.verify(signed, dnsfunc=stub(dns))
    header = email.message_from_bytes(signed, policy=email.policy.default)["DKIM-Signature"]
    tags = dict(t.strip().split("=", 1) for t in "".join(str(header).split()).split(";") if t)
    assert (tags["d"], tags["s"], tags["c"], tags["a"]) == (DOMAIN, SELECTOR, "relaxed/relaxed",
                                                            "rsa-sha256")
    # Every header a reader trusts, once more than the message has it (oversigned).
    present = {"from", "to", "reply-to", "subject", "date", "message-id", "mime-version",
               "content-type"}
    assert tags["h"].split(":") == [name for h in SIGNED_HEADERS for name in
                                    [h.lower()] * (2 if h.lower() in present else 1)]


@pytest.mark.parametrize(("old", "new"), [
    (b"It is your turn", b"It is not your turn"),                      # the body
    (b"Subject: Your move", b"Subject: Our move"),                     # a signed header
    (b"Reply-To: pbem <play+g1", b"Reply-To: evil <play+g1"),          # where replies go
    (b"MIME-Version: 1.0\r\n", b"MIME-Version: 1.0\r\nIn-Reply-To: <x@y>\r\n"),  # one added
    (b"From: pbem", b"Subject: Pay here\r\nFrom: pbem"),            # a second one on top
])
def test_a_modified_message_fails(key: tuple[bytes, str], dns: dict[bytes, bytes],
                                  old: bytes, new: bytes) -> None:
    signed = sign_message(MESSAGE, selector=SELECTOR, domain=DOMAIN, private_key=key[0])
    assert old in signed
    assert not verify_message(signed.replace(old, new, 1), dnsfunc=stub(dns))


def test_relaxed_canonicalisation_survives_refolding(key: tuple[bytes, str],
                                                     dns: dict[bytes, bytes]) -> None:
    signed = sign_message(MESSAGE, selector=SELECTOR, domain=DOMAIN, private_key=key[0])
    refolded = signed.replace(b"Subject: Your move", b"Subject:   Your\r\n  move")
    assert verify_message(refolded, dnsfunc=stub(dns))


def test_another_key_fails(key: tuple[bytes, str], dns: dict[bytes, bytes]) -> None:
    other, _ = generate_key()
    signed = sign_message(MESSAGE, selector=SELECTOR, domain=DOMAIN, private_key=other)
    assert not verify_message(signed, dnsfunc=stub(dns))


def test_lf_line_endings_are_kept(key: tuple[bytes, str], dns: dict[bytes, bytes]) -> None:
    lf = MESSAGE.replace(b"\r\n", b"\n")
    signed = sign_message(lf, selector=SELECTOR, domain=DOMAIN, private_key=key[0])
    assert b"\r\n" not in signed
    assert verify_message(signed, dnsfunc=stub(dns))


def test_a_bad_key_raises() -> None:
    with pytest.raises(DkimError):
        sign_message(MESSAGE, selector=SELECTOR, domain=DOMAIN, private_key=b"not a key")


# -- RFC 8058: one-click unsubscription counts only when the signature covers its headers -------


def test_list_unsubscribe_is_signed_as_the_outbox_sends_it(
        key: tuple[bytes, str], dns: dict[bytes, bytes], sqlite_database: Database,
        smtp_server: SmtpServer, tmp_path: Path) -> None:
    """An email with an unsubscribe link goes through the outbox, DKIM-signed with the site's
    key file as PBEM_DKIM_* configure it, to a real SMTP server; what arrives verifies, its
    ``h=`` names both headers, and changing either (or adding one) breaks the signature."""
    key_file = tmp_path / "dkim.pem"
    key_file.write_bytes(key[0])
    signer = dkim_signer({"DKIM_SELECTOR": SELECTOR, "DKIM_DOMAIN": DOMAIN,
                          "DKIM_KEY_FILE": str(key_file)})
    assert signer is not None
    url = "http://localhost/unsubscribe/" + "t0ken" * 12  # longer than a header line
    now = datetime.now(UTC)
    with sqlite_database.write() as session:
        session.add(OutboxEmail(kind="turn", to_address="ann@example.org", to_name="Ann",
                                subject="Your move in Mosey #1", text_body="Your turn.",
                                html_body="<p>Your turn.</p>",
                                message_id="<outbox-1@pbem.example.org>", unsubscribe_url=url,
                                next_attempt_at=now, created_at=now))
    settings = dataclasses.replace(smtp_server.settings(), sign=signer)
    assert deliver_pending(sqlite_database, settings, now).sent == 1
    raw = smtp_server.messages[-1].raw
    received = email.message_from_bytes(raw, policy=email.policy.default)
    assert received["List-Unsubscribe"] == f"<{url}>"
    assert received["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert verify_message(raw, dnsfunc=stub(dns))
    tags = dict(t.strip().split("=", 1) for t in
                "".join(str(received["DKIM-Signature"]).split()).split(";") if t)
    signed = tags["h"].split(":")
    assert signed.count("list-unsubscribe") == 2 and signed.count("list-unsubscribe-post") == 2

    elsewhere = raw.replace(url.encode(), b"https://evil.example/unsubscribe", 1)
    assert elsewhere != raw and not verify_message(elsewhere, dnsfunc=stub(dns))
    no_post = raw.replace(b"List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n", b"", 1)
    assert no_post != raw and not verify_message(no_post, dnsfunc=stub(dns))
    on_top = b"List-Unsubscribe: <https://evil.example/u>\r\n" + raw
    assert not verify_message(on_top, dnsfunc=stub(dns))
