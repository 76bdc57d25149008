"""The inbound SMTP and LMTP server, talked to with smtplib over a real socket on a free port."""

from __future__ import annotations

import smtplib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from pbem.inbound.smtp import InboundServer
from tests.support import free_port

REPLY_DOMAIN = "pbem.example.org"
MESSAGE = (b"From: Ann <ann@example.org>\r\nTo: play+g1.p0.Ab12@pbem.example.org\r\n"
           b"Subject: Re: Your move\r\nMessage-ID: <m1@example.org>\r\n\r\nD4\r\n")


@dataclass
class Inbox:
    """What the server delivered; ``fail`` makes that many deliveries raise (a database down)."""

    delivered: list[tuple[bytes, str, list[str]]] = field(default_factory=list)
    fail: int = 0
    fail_for: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def accept(self, address: str) -> bool:
        local, _, domain = address.lower().rpartition("@")
        return domain == REPLY_DOMAIN and local.startswith(("play+", "bounce+"))

    def deliver(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        with self.lock:
            if self.fail > 0 or set(recipients) & self.fail_for:
                self.fail -= 1
                raise RuntimeError("database is down")
            self.delivered.append((raw, sender, recipients))


@pytest.fixture
def inbox() -> Inbox:
    return Inbox()


def serve(inbox: Inbox, *, lmtp: bool, max_size: int = 1_000_000) -> InboundServer:
    return InboundServer("127.0.0.1", free_port(), lmtp=lmtp, accept_recipient=inbox.accept,
                         deliver=inbox.deliver, max_size=max_size)


@pytest.fixture
def smtp_server(inbox: Inbox) -> Iterator[InboundServer]:
    with serve(inbox, lmtp=False) as server:
        yield server


@pytest.fixture
def lmtp_server(inbox: Inbox) -> Iterator[InboundServer]:
    with serve(inbox, lmtp=True) as server:
        yield server


def test_smtp_accepts_a_reply(smtp_server: InboundServer, inbox: Inbox) -> None:
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        refused = client.sendmail("ann@example.org", ["play+g1.p0.Ab12@pbem.example.org"],
                                  MESSAGE)
    assert refused == {}
    assert inbox.delivered == [(MESSAGE, "ann@example.org",
                                ["play+g1.p0.Ab12@pbem.example.org"])]


def test_bounce_with_empty_sender(smtp_server: InboundServer, inbox: Inbox) -> None:
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        client.sendmail("<>", ["bounce+Zz99@pbem.example.org"], MESSAGE)
    assert inbox.delivered == [(MESSAGE, "", ["bounce+Zz99@pbem.example.org"])]


def test_unknown_recipient_is_refused_at_rcpt(smtp_server: InboundServer, inbox: Inbox) -> None:
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        client.ehlo()
        client.mail("ann@example.org")
        code, text = client.rcpt("someone@pbem.example.org")
        assert (code, text[:5]) == (550, b"5.1.1")
        assert client.rcpt("play+g1.p0.Ab12@pbem.example.org")[0] == 250
        assert client.data(MESSAGE)[0] == 250
    # Only the accepted recipient reaches the service.
    assert [d[2] for d in inbox.delivered] == [["play+g1.p0.Ab12@pbem.example.org"]]


def test_all_recipients_refused(smtp_server: InboundServer, inbox: Inbox) -> None:
    with (smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client,
          pytest.raises(smtplib.SMTPRecipientsRefused) as refused):
        client.sendmail("ann@example.org", ["ann@example.org", "x@elsewhere.example"], MESSAGE)
    assert {code for code, _ in refused.value.recipients.values()} == {550}
    assert inbox.delivered == []


def test_size_is_advertised_and_checked_at_mail_from(smtp_server: InboundServer) -> None:
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        client.ehlo()
        assert client.has_extn("size")
        assert int(client.esmtp_features["size"]) == 1_000_000
        code, _ = client.mail("ann@example.org", ["SIZE=2000000"])
        assert code == 552


def test_too_big_is_refused_in_data(smtp_server: InboundServer, inbox: Inbox) -> None:
    big = MESSAGE + b"x" * 998 + b"\r\n"
    big += (b"y" * 998 + b"\r\n") * 1001  # just over 1 MB, without announcing SIZE
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        client.ehlo()
        client.mail("ann@example.org")
        client.rcpt("play+g1.p0.Ab12@pbem.example.org")
        code, _ = client.data(big)
        assert code == 552
        # The session goes on: a message of allowed size is still accepted afterwards.
        client.mail("ann@example.org")
        client.rcpt("play+g1.p0.Ab12@pbem.example.org")
        assert client.data(MESSAGE)[0] == 250
    assert len(inbox.delivered) == 1


def test_the_service_limit_applies_to_a_smaller_maximum(inbox: Inbox) -> None:
    with serve(inbox, lmtp=False, max_size=200) as server, \
            smtplib.SMTP(server.host, server.port, timeout=10) as client:
        client.ehlo()
        client.mail("ann@example.org")
        client.rcpt("play+g1.p0.Ab12@pbem.example.org")
        assert client.data(MESSAGE + b"z" * 300 + b"\r\n")[0] == 552
    assert inbox.delivered == []


def test_failing_delivery_answers_try_later(smtp_server: InboundServer, inbox: Inbox) -> None:
    inbox.fail = 1
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        client.ehlo()
        client.mail("ann@example.org")
        client.rcpt("play+g1.p0.Ab12@pbem.example.org")
        code, text = client.data(MESSAGE)
        assert (code, text[:5]) == (451, b"4.3.0")
    assert inbox.delivered == []
    # The sending server tries again later, and then it works: nothing is lost.
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        assert client.sendmail("ann@example.org", ["play+g1.p0.Ab12@pbem.example.org"],
                               MESSAGE) == {}
    assert len(inbox.delivered) == 1


def test_lmtp_accepts_and_refuses(lmtp_server: InboundServer, inbox: Inbox) -> None:
    with smtplib.LMTP(lmtp_server.host, lmtp_server.port, timeout=10) as client:
        client.ehlo()  # smtplib's LMTP sends LHLO
        client.mail("ann@example.org")
        assert client.rcpt("nobody@pbem.example.org")[0] == 550
        assert client.rcpt("play+g1.p0.Ab12@pbem.example.org")[0] == 250
        assert client.data(MESSAGE)[0] == 250
    assert inbox.delivered == [(MESSAGE, "ann@example.org",
                                ["play+g1.p0.Ab12@pbem.example.org"])]


def lmtp_data(server: InboundServer, recipients: list[str], message: bytes) -> list[str]:
    """Send one LMTP transaction by hand and return the reply lines after DATA: smtplib reads
    only the first, and RFC 2033 sends one per recipient."""
    import socket

    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        reader = sock.makefile("rb")

        def reply() -> list[str]:
            lines = []
            while True:
                line = reader.readline().decode().rstrip("\r\n")
                lines.append(line)
                if line[3:4] != "-":
                    return lines

        def command(text: str) -> list[str]:
            sock.sendall(text.encode() + b"\r\n")
            return reply()

        reply()  # greeting
        command("LHLO client.example")
        command("MAIL FROM:<ann@example.org>")
        for recipient in recipients:
            assert command(f"RCPT TO:<{recipient}>")[0].startswith("250")
        assert command("DATA")[0].startswith("354")
        sock.sendall(message + b".\r\n")
        lines = [reply()[0] for _ in recipients]
        command("QUIT")
        return lines


def test_lmtp_answers_each_recipient(lmtp_server: InboundServer, inbox: Inbox) -> None:
    first, second = "play+g1.p0.Ab12@pbem.example.org", "play+g2.p1.Cd34@pbem.example.org"
    inbox.fail_for = {second}
    assert [line[:3] for line in lmtp_data(lmtp_server, [first, second], MESSAGE)] == [
        "250", "451"]
    # Each recipient is delivered on its own, so the retry of the second one does not deliver
    # the first again.
    assert inbox.delivered == [(MESSAGE, "ann@example.org", [first])]
    inbox.fail_for = set()
    assert [line[:3] for line in lmtp_data(lmtp_server, [second], MESSAGE)] == ["250"]
    assert [d[2] for d in inbox.delivered] == [[first], [second]]


def test_lmtp_too_big_answers_each_recipient(inbox: Inbox) -> None:
    recipients = ["play+g1.p0.Ab12@pbem.example.org", "play+g2.p1.Cd34@pbem.example.org"]
    with serve(inbox, lmtp=True, max_size=500) as server:
        lines = lmtp_data(server, recipients, MESSAGE + (b"z" * 100 + b"\r\n") * 10)
    assert [line[:3] for line in lines] == ["552", "552"]
    assert inbox.delivered == []


def test_smtp_refuses_lhlo_and_lmtp_refuses_ehlo(smtp_server: InboundServer,
                                                 lmtp_server: InboundServer) -> None:
    with smtplib.SMTP(lmtp_server.host, lmtp_server.port, timeout=10) as client:
        assert client.ehlo()[0] == 500
    with smtplib.LMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        assert client.ehlo()[0] >= 500


def test_stop_frees_the_port(inbox: Inbox) -> None:
    server = serve(inbox, lmtp=False)
    server.start()
    server.stop()
    server.stop()  # twice is harmless
    with pytest.raises(OSError):
        smtplib.SMTP(server.host, server.port, timeout=2)
