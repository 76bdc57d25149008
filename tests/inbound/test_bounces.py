"""Bounces from stored examples of the common mail systems: the failed address, the original
message's headers each one yields."""

from __future__ import annotations

from collections.abc import Callable
from email.message import EmailMessage

import pytest

from pbem.inbound.bounces import (
    bounced_recipients,
    delayed_recipients,
    original_headers,
)
from pbem.inbound.robots import is_mailer_daemon

Load = Callable[[str, str], EmailMessage]

# fixture: (failed address, original Message-ID)
BOUNCES = {
    # RFC 3464 delivery status notification, with the whole message returned.
    "postfix-dsn.eml": ("gone.player@example.net", "<outbox-4711.1742202722@pbem.example.org>"),
    # Exim's own format: X-Failed-Recipients and the message copied into the text.
    "exim.eml": ("nobody-here@example.com", "<outbox-815.1742284989@pbem.example.org>"),
    # Gmail's "Delivery Status Notification (Failure)".
    "gmail.eml": ("no.such.user.xyz@gmail.com", "<outbox-902.1742391850@pbem.example.org>"),
    # Outlook.com / Exchange Online: a DSN returning the headers only (text/rfc822-headers).
    "outlook.eml": ("left.company@contoso.example", "<outbox-77.1742469643@pbem.example.org>"),
    # An old on-premises Exchange report, no DSN at all.
    "exchange-legacy.eml": ("old.friend@corp.example", "<outbox-99.1742543998@pbem.example.org>"),
}


@pytest.mark.parametrize("name", sorted(BOUNCES))
def test_bounce_names_the_failed_address(fixture_message: Load, name: str) -> None:
    address, _message_id = BOUNCES[name]
    message = fixture_message("bounces", name)
    assert bounced_recipients(message) == {address}
    assert delayed_recipients(message) == set()
    assert is_mailer_daemon(message)


@pytest.mark.parametrize("name", sorted(BOUNCES))
def test_bounce_returns_the_original_headers(fixture_message: Load, name: str) -> None:
    _address, message_id = BOUNCES[name]
    original = original_headers(fixture_message("bounces", name))
    assert original is not None
    assert original["Message-ID"] == message_id
    assert original["From"].addresses[0].addr_spec == "pbem@pbem.example.org"
    assert original["Reply-To"].addresses[0].addr_spec.startswith("play+")


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
    assert delayed_recipients(message) == set()  # not a delay report either


def test_no_original_in_a_plain_message(fixture_message: Load) -> None:
    assert original_headers(fixture_message("robots", "oof-nl.eml")) is None
