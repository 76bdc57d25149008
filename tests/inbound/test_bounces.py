"""Bounces from stored examples of the common mail systems: the failed address, the original
message's headers and the VERP token each one yields."""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage

import pytest

from pbem.inbound.bounces import (
    bounced_recipients,
    delayed_recipients,
    find_verp_token,
    is_bounce,
    original_headers,
    verp_token,
)
from pbem.inbound.robots import is_mailer_daemon

Load = Callable[[str, str], EmailMessage]
DOMAIN = "pbem.example.org"

# fixture: (failed address, original Message-ID, VERP token)
BOUNCES = {
    # RFC 3464 delivery status notification, with the whole message returned.
    "postfix-dsn.eml": ("gone.player@example.net", "<outbox-4711.1742202722@pbem.example.org>",
                        "Ab3dE9xQ"),
    # Exim's own format: X-Failed-Recipients and the message copied into the text.
    "exim.eml": ("nobody-here@example.com", "<outbox-815.1742284989@pbem.example.org>",
                 "Kq7Zr2Lm"),
    # Gmail's "Delivery Status Notification (Failure)".
    "gmail.eml": ("no.such.user.xyz@gmail.com", "<outbox-902.1742391850@pbem.example.org>",
                  "Wd2Hq0Ty"),
    # Outlook.com / Exchange Online: a DSN returning the headers only (text/rfc822-headers).
    "outlook.eml": ("left.company@contoso.example", "<outbox-77.1742469643@pbem.example.org>",
                    "Vz5Nc8Pd"),
    # An old on-premises Exchange report, no DSN at all.
    "exchange-legacy.eml": ("old.friend@corp.example", "<outbox-99.1742543998@pbem.example.org>",
                            "Lg9Ex1Ch"),
}


@pytest.mark.parametrize("name", sorted(BOUNCES))
def test_bounce_names_the_failed_address(fixture_message: Load, name: str) -> None:
    address, _message_id, _token = BOUNCES[name]
    message = fixture_message("bounces", name)
    assert bounced_recipients(message) == {address}
    assert delayed_recipients(message) == set()
    assert is_bounce(message)
    assert is_mailer_daemon(message)


@pytest.mark.parametrize("name", sorted(BOUNCES))
def test_bounce_returns_the_original_headers(fixture_message: Load, name: str) -> None:
    _address, message_id, _token = BOUNCES[name]
    original = original_headers(fixture_message("bounces", name))
    assert original is not None
    assert original["Message-ID"] == message_id
    assert original["From"].addresses[0].addr_spec == "pbem@pbem.example.org"
    assert original["Reply-To"].addresses[0].addr_spec.startswith("play+")


@pytest.mark.parametrize("name", sorted(BOUNCES))
def test_bounce_finds_the_verp_token(fixture_message: Load, name: str) -> None:
    *_, token = BOUNCES[name]
    assert find_verp_token(fixture_message("bounces", name), domain=DOMAIN) == token


def test_verp_token_from_the_original_return_path(fixture_message: Load) -> None:
    # A bounce sent to the wrong address (a broken MTA answering From:) still names the email.
    message = fixture_message("bounces", "postfix-dsn.eml")
    for name in ("To", "Delivered-To"):
        del message[name]
    message["To"] = "pbem@pbem.example.org"
    assert find_verp_token(message, domain=DOMAIN) == "Ab3dE9xQ"


def test_envelope_recipient_comes_first(fixture_message: Load) -> None:
    message = fixture_message("bounces", "exim.eml")
    assert find_verp_token(message, domain=DOMAIN,
                           envelope_recipients=["bounce+Envelope1@pbem.example.org"]) == "Envelope1"


@pytest.mark.parametrize(("address", "token"), [
    ("bounce+Ab3d@pbem.example.org", "Ab3d"),
    ("<BOUNCE+Ab3d@PBEM.EXAMPLE.ORG>", "Ab3d"),
    ("bounce+a.b-c@pbem.example.org", "a.b-c"),
    ("bounce@pbem.example.org", None),
    ("bounce+@pbem.example.org", None),
    ("play+Ab3d@pbem.example.org", None),
    ("bounce+Ab3d@elsewhere.example.org", None),
    ("not an address", None),
])
def test_verp_token(address: str, token: str | None) -> None:
    assert verp_token(address, domain=DOMAIN) == token


def test_a_delay_is_not_a_bounce(fixture_bytes: Callable[[str, str], bytes]) -> None:
    import email
    import email.policy

    raw = fixture_bytes("bounces", "postfix-dsn.eml").replace(
        b"Action: failed", b"Action: delayed").replace(b"Status: 5.1.1", b"Status: 4.4.1")
    message = email.message_from_bytes(raw, policy=email.policy.default)
    assert bounced_recipients(message) == set()
    assert delayed_recipients(message) == {"gone.player@example.net"}


@pytest.mark.parametrize("name", ["human-gmail.eml", "human-outlook.eml", "oof-de.eml"])
def test_people_and_auto_replies_are_not_bounces(fixture_message: Load, name: str) -> None:
    message = fixture_message("robots", name)
    assert bounced_recipients(message) == set()
    assert not is_bounce(message)
    assert find_verp_token(message, domain=DOMAIN) is None


def test_no_original_in_a_plain_message(fixture_message: Load) -> None:
    assert original_headers(fixture_message("robots", "oof-nl.eml")) is None
