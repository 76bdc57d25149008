"""One fetch pass over a real IMAP mailbox: Debian's Dovecot on a free loopback port (see
tests/inbound/dovecot.py; skipped with the reason when dovecot-imapd is not installed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from imapclient import DELETED, SEEN

from pbem.inbound.imap import FetchResult, fetch_pass, parse_url

Mailbox = tuple[str, Callable[[bytes], None]]
Contents = Callable[[], list[tuple[bytes, tuple[bytes, ...]]]]


def message(n: int) -> bytes:
    return (f"From: Ann <ann@example.org>\r\nTo: play+g1.p0.Ab12@pbem.example.org\r\n"
            f"Subject: Re: Your move\r\nMessage-ID: <m{n}@example.org>\r\n\r\nmove {n}\r\n"
            ).encode()


def test_messages_are_handled_once_and_deleted(dovecot: Mailbox, mailbox_contents: Contents
                                               ) -> None:
    url, deliver = dovecot
    for n in range(3):
        deliver(message(n))
    handled: list[bytes] = []
    assert fetch_pass(url, handled.append) == FetchResult(handled=3, failed=0)
    assert handled == [message(n) for n in range(3)]  # byte for byte, in arrival order
    assert mailbox_contents() == []
    # A second pass finds nothing more.
    assert fetch_pass(url, handled.append) == FetchResult(handled=0, failed=0)
    assert len(handled) == 3


def test_an_empty_mailbox(dovecot: Mailbox) -> None:
    url, _deliver = dovecot
    assert fetch_pass(url, lambda raw: None) == FetchResult(0, 0)


def test_a_failing_handler_leaves_its_message_for_the_next_pass(
        dovecot: Mailbox, mailbox_contents: Contents) -> None:
    url, deliver = dovecot
    for n in range(3):
        deliver(message(n))
    handled: list[bytes] = []

    def handle(raw: bytes) -> None:
        if b"move 1" in raw:
            raise RuntimeError("database is down")
        handled.append(raw)

    # The pass goes on after the failure: messages 0 and 2 are handled.
    assert fetch_pass(url, handle) == FetchResult(handled=2, failed=1)
    assert handled == [message(0), message(2)]
    # The failed message stays, untouched (not even \Seen), and the next pass offers it again.
    left = mailbox_contents()
    assert [raw for raw, _ in left] == [message(1)]
    assert SEEN not in left[0][1] and DELETED not in left[0][1]
    assert fetch_pass(url, handled.append) == FetchResult(handled=1, failed=0)
    assert handled[-1] == message(1)
    assert mailbox_contents() == []


def test_a_crash_after_commit_offers_the_message_again(dovecot: Mailbox,
                                                       mailbox_contents: Contents) -> None:
    """The handler commits, then the process dies before the message is marked done: the next
    pass offers it again (the service's Message-ID dedupe then ignores it), it is not lost."""
    url, deliver = dovecot
    deliver(message(0))
    deliver(message(1))
    committed: list[bytes] = []

    def commit_then_crash(raw: bytes) -> None:
        committed.append(raw)
        if b"move 1" in raw:
            raise KeyboardInterrupt  # the process is killed right after the commit

    with pytest.raises(KeyboardInterrupt):
        fetch_pass(url, commit_then_crash)
    assert committed == [message(0), message(1)]
    # Message 0 was marked done before the crash and expunged on the way out; message 1 stays.
    assert [raw for raw, _ in mailbox_contents()] == [message(1)]
    offered: list[bytes] = []
    assert fetch_pass(url, offered.append) == FetchResult(handled=1, failed=0)
    assert offered == [message(1)]


def test_messages_deleted_by_someone_else_are_skipped(dovecot: Mailbox,
                                                      dovecot_instance: object) -> None:
    from imapclient import IMAPClient

    from tests.inbound.dovecot import Dovecot

    assert isinstance(dovecot_instance, Dovecot)
    url, deliver = dovecot
    deliver(message(0))
    deliver(message(1))
    settings = parse_url(url)
    with IMAPClient(settings.host, port=settings.port, ssl=False, timeout=10) as client:
        client.login(settings.user, settings.password)
        client.select_folder(settings.folder)
        first = client.search(["HEADER", "Message-ID", "<m0@example.org>"])
        client.add_flags(first, [DELETED])
    offered: list[bytes] = []
    assert fetch_pass(url, offered.append) == FetchResult(handled=1, failed=0)
    assert offered == [message(1)]


def test_wrong_password_raises(tmp_path: Path) -> None:
    # A server of its own: Dovecot makes later logins from an address that gave a wrong password
    # wait a few seconds, which would slow the other tests down.
    from imapclient.exceptions import LoginError

    from tests.inbound import dovecot as dovecot_server

    if (reason := dovecot_server.available()) is not None:
        pytest.skip(reason)
    server = dovecot_server.start(tmp_path)
    try:
        server.password = "wrong"
        with pytest.raises(LoginError):
            fetch_pass(server.url(), lambda raw: None, timeout=10)
    finally:
        server.stop()


def test_starttls_yes_refuses_a_server_without_it(dovecot: Mailbox) -> None:
    url, _deliver = dovecot
    with pytest.raises(ConnectionError):
        fetch_pass(url + "?starttls=yes", lambda raw: None, timeout=10)


@pytest.mark.parametrize(("url", "expected"), [
    ("imaps://u%40example.org:p%3Aw%2F%40@imap.example.org/INBOX",
     ("imap.example.org", 993, "u@example.org", "p:w/@", "INBOX", True, "auto")),
    ("imap://u:p@127.0.0.1:1143", ("127.0.0.1", 1143, "u", "p", "INBOX", False, "auto")),
    ("imap://u:p@mail.example.org/Games%2Fpbem?starttls=yes",
     ("mail.example.org", 143, "u", "p", "Games/pbem", False, "yes")),
])
def test_parse_url(url: str, expected: tuple[object, ...]) -> None:
    s = parse_url(url)
    assert (s.host, s.port, s.user, s.password, s.folder, s.tls, s.starttls) == expected
    assert s.password not in repr(s) or s.password == "p"


@pytest.mark.parametrize("url", ["pop3://u:p@example.org/", "imap://example.org/INBOX",
                                 "imaps://u:p@/INBOX", "imap://u:p@h/?starttls=maybe"])
def test_parse_url_refuses(url: str) -> None:
    with pytest.raises(ValueError):
        parse_url(url)
