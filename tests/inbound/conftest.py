"""Fixtures of the mail-plumbing tests: stored messages, and a real Dovecot IMAP server.

The Dovecot tests are real: Debian's dovecot-imapd is started on a free loopback port with a
throwaway user (tests/inbound/dovecot.py). When it is not installed they are skipped with the
reason; ``make test`` installs it.
"""

from __future__ import annotations

import email
import email.policy
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from imapclient import IMAPClient

from tests.inbound import dovecot as dovecot_server

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_bytes(kind: str, name: str) -> bytes:
    """The raw bytes of fixtures/<kind>/<name>, with CRLF line endings as on the wire."""
    raw = (FIXTURES / kind / name).read_bytes()
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def fixture_message(kind: str, name: str) -> EmailMessage:
    message = email.message_from_bytes(fixture_bytes(kind, name), policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


@pytest.fixture(name="fixture_bytes")
def fixture_bytes_fixture() -> Callable[[str, str], bytes]:
    return fixture_bytes


@pytest.fixture(name="fixture_message")
def fixture_message_fixture() -> Callable[[str, str], EmailMessage]:
    return fixture_message


@pytest.fixture(scope="session")
def dovecot_instance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dovecot_server.Dovecot]:
    """One Dovecot for the whole session (it starts in well under a second, but there is no
    need to start it for every test); each test gets a mailbox of its own (see ``dovecot``)."""
    reason = dovecot_server.available()
    if reason is not None:
        pytest.skip(reason)
    server = dovecot_server.start(tmp_path_factory.mktemp("dovecot"))
    yield server
    server.stop()


@pytest.fixture
def dovecot(dovecot_instance: dovecot_server.Dovecot,
            request: pytest.FixtureRequest) -> Iterator[tuple[str, Callable[[bytes], None]]]:
    """(the PBEM_IMAP_URL of an empty mailbox, a function that appends a raw message to it).

    The mailbox is a folder named after the test, so tests never see each other's mail.
    """
    folder = "t-" + "".join(c if c.isalnum() else "-" for c in request.node.name)[:60]
    client = _client(dovecot_instance)
    if client.folder_exists(folder):
        client.delete_folder(folder)
    client.create_folder(folder)

    def deliver(raw: bytes) -> None:
        client.append(folder, raw)

    yield dovecot_instance.url(folder), deliver
    client.delete_folder(folder)
    client.logout()


def _client(server: dovecot_server.Dovecot) -> IMAPClient:
    client = IMAPClient(server.host, port=server.port, ssl=False, timeout=10)
    client.login(server.user, server.password)
    return client


@pytest.fixture
def mailbox_contents(
        dovecot_instance: dovecot_server.Dovecot,
        dovecot: tuple[str, Callable[[bytes], None]],
) -> Callable[[], list[tuple[bytes, tuple[bytes, ...]]]]:
    """A function that lists (raw message, flags) of every message in the test's mailbox, as
    the server has it, expunged ones gone."""
    from urllib.parse import unquote, urlsplit

    folder = unquote(urlsplit(dovecot[0]).path.lstrip("/"))

    def contents() -> list[tuple[bytes, tuple[bytes, ...]]]:
        client = _client(dovecot_instance)
        try:
            client.select_folder(folder, readonly=True)
            uids = client.search("ALL")
            found = client.fetch(uids, ["BODY.PEEK[]", "FLAGS"]) if uids else {}
            return [(bytes(found[uid][b"BODY[]"]), tuple(found[uid][b"FLAGS"]))
                    for uid in uids]
        finally:
            client.logout()
    return contents


# -- players who answer their mail ---------------------------------------------------------------


@pytest.fixture
def reply_table(sqlite_database: Any, smtp_server: Any) -> Iterator[Any]:
    """A site with play by reply on, its outbox read through the test SMTP server, and a real
    ``pbem inbound`` SMTP server that hands answers to the service."""
    yield from _reply_table(sqlite_database, smtp_server)


@pytest.fixture
def any_reply_table(database: Any, smtp_server: Any) -> Iterator[Any]:
    """``reply_table`` on each backend, SQLite and PostgreSQL: for what the database decides
    (which messages are the same, how many answers went out this hour)."""
    yield from _reply_table(database, smtp_server)


def _reply_table(database: Any, smtp_server: Any) -> Iterator[Any]:
    from tests.inbound.replies import ReplyTable, inbound_server, reply_site
    from tests.support import Mailbox

    site = reply_site(database)
    outcomes: list[Any] = []
    for server in inbound_server(database, site, outcomes):
        yield ReplyTable(database, site, Mailbox(database, smtp_server), server, outcomes)
