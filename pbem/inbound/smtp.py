"""The SMTP (or LMTP) server that the site's mail server hands replies and bounces to.

``pbem inbound`` runs an :class:`InboundServer`: aiosmtpd in a thread of its own. It refuses
recipients that are not pbem's (``accept_recipient``) at RCPT time, so the sending server bounces
them rather than pbem, refuses messages over ``max_size`` (SIZE at MAIL FROM and again while
reading DATA), and calls ``deliver`` with each accepted message. Only when ``deliver`` returns is
the message acknowledged with 250: if it raises, the answer is 451 4.3.0 so that the sending
server keeps the message and tries again later, and no mail is lost.

``deliver(raw, sender, recipients)`` gets the message exactly as received, the envelope sender
("" for the null sender of bounces) and the accepted recipients. It runs in a worker thread,
not on the server's event loop, because it does blocking database work; other connections are
served meanwhile.

With ``lmtp=True`` the server speaks LMTP (RFC 2033: LHLO instead of EHLO, and one answer per
recipient after DATA), for mail servers such as Postfix that deliver to a local program over
LMTP. Each recipient is then delivered on its own, so one failing recipient is retried without
delivering the others twice.

Recipients are reply and bounce addresses, whose tokens let anyone play for a seat; aiosmtpd's
``mail.log`` writes every command of a session at INFO (``RCPT TO:<play+TOKEN@...>``). So records
of that logger and of this module are masked (:mod:`pbem.logs`) wherever they are handled, even
where no command set up pbem's logging.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session

from pbem.logs import mask_logger

log = logging.getLogger(__name__)
mask_logger(log, "mail.log")  # "mail.log": aiosmtpd's logger

Deliver = Callable[[bytes, str, list[str]], None]
AcceptRecipient = Callable[[str], bool]

MAX_SIZE = 1_000_000
ACCEPTED = "250 2.0.0 Message accepted for delivery"
NO_SUCH_USER = "550 5.1.1 No such user here"
TOO_BIG = "552 5.3.4 Message too big"
TRY_LATER = "451 4.3.0 Temporary failure, please try again later"


class InboundHandler:
    """aiosmtpd handler: checks recipients and size, then hands the message to ``deliver``."""

    def __init__(self, *, accept_recipient: AcceptRecipient, deliver: Deliver,
                 max_size: int = MAX_SIZE, lmtp: bool = False) -> None:
        self.accept_recipient = accept_recipient
        self.deliver = deliver
        self.max_size = max_size
        self.lmtp = lmtp

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope,
                          address: str, rcpt_options: list[str]) -> str:
        try:
            accepted = await asyncio.get_running_loop().run_in_executor(
                None, self.accept_recipient, address)
        except Exception:  # a broken check (database down) must not refuse mail for good
            log.exception("checking recipient %r failed", address)
            return TRY_LATER
        if not accepted:
            return NO_SUCH_USER
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        if isinstance(raw, str):  # only when decode_data is on, which InboundServer never sets
            raw = raw.encode("utf-8", "surrogateescape")
        # The null reverse-path of bounces (MAIL FROM:<>) arrives as "<>": pass it on as "".
        sender = "" if envelope.mail_from in (None, "<>") else envelope.mail_from
        recipients = list(envelope.rcpt_tos)
        # aiosmtpd already refuses a too-long DATA; this also holds if the limit counts
        # differently (dot-stuffing, line endings) or the handler is used with another server.
        if len(raw) > self.max_size:
            return "\r\n".join([TOO_BIG] * len(recipients)) if self.lmtp else TOO_BIG
        if not self.lmtp:
            return await self._deliver(raw, sender, recipients)
        # LMTP: one reply line per accepted recipient, in RCPT order (RFC 2033 section 4.2).
        # aiosmtpd pushes the returned status followed by CRLF, so the lines are joined by CRLF.
        replies = [await self._deliver(raw, sender, [recipient]) for recipient in recipients]
        return "\r\n".join(replies)

    async def _deliver(self, raw: bytes, sender: str, recipients: list[str]) -> str:
        try:
            await asyncio.get_running_loop().run_in_executor(
                None, self.deliver, raw, sender, recipients)
        except Exception:
            log.exception("delivering a message from %r to %r failed; the sender will retry",
                          sender, recipients)
            return TRY_LATER
        return ACCEPTED


class _LMTP(LMTP):
    """aiosmtpd's LMTP, answering DATA errors once per recipient as RFC 2033 requires.

    aiosmtpd answers a too-large (552) or over-long-line (500) DATA with one line even in LMTP,
    and an LMTP client that waits for one reply per recipient would hang; the message is
    refused for every recipient, so the same reply is repeated for each.
    """

    _DATA_ERRORS = ("552 Error: Too much mail data", "500 Line too long")

    async def push(self, status: Any) -> None:
        text = status.decode("ascii", "replace") if isinstance(status, bytes) else str(status)
        count = len(self.envelope.rcpt_tos) if self.envelope is not None else 0
        if count > 1 and text.startswith(self._DATA_ERRORS):
            status = "\r\n".join([text] * count)
        await super().push(status)


class _Controller(Controller):
    """aiosmtpd's threaded controller, speaking LMTP instead of SMTP when asked."""

    def __init__(self, handler: InboundHandler, *, lmtp: bool, **kwargs: Any) -> None:
        self.lmtp = lmtp
        super().__init__(handler, **kwargs)

    def factory(self) -> SMTP:
        if self.lmtp:
            return _LMTP(self.handler, **self.SMTP_kwargs)
        return SMTP(self.handler, **self.SMTP_kwargs)


class InboundServer:
    """An SMTP or LMTP server on ``host``:``port`` in a thread of its own.

    >>> server = InboundServer("127.0.0.1", 0, lmtp=False, accept_recipient=lambda a: True,
    ...                        deliver=lambda raw, sender, recipients: None)
    >>> server.max_size
    1000000
    """

    def __init__(self, host: str, port: int, *, lmtp: bool, accept_recipient: AcceptRecipient,
                 deliver: Deliver, max_size: int = MAX_SIZE, hostname: str | None = None,
                 ready_timeout: float = 5.0) -> None:
        self.host = host
        self.port = port
        self.lmtp = lmtp
        self.max_size = max_size
        self.handler = InboundHandler(accept_recipient=accept_recipient, deliver=deliver,
                                      max_size=max_size, lmtp=lmtp)
        self._controller = _Controller(
            self.handler, lmtp=lmtp, hostname=host, port=port, ready_timeout=ready_timeout,
            # SIZE is advertised, a larger MAIL FROM SIZE= is refused and DATA is cut off at
            # the limit with 552 (aiosmtpd discards the excess rather than keeping it in memory).
            data_size_limit=max_size,
            server_hostname=hostname,
            # SMTPUTF8 mail is passed on as raw bytes; the service parses it.
            enable_SMTPUTF8=True, decode_data=False)
        self._running = False

    def start(self) -> None:
        """Start listening; returns once the server answers."""
        self._controller.start()
        self._running = True

    def stop(self) -> None:
        """Stop listening and wait for the server's thread to end."""
        if self._running:
            self._controller.stop()
            self._running = False

    def __enter__(self) -> InboundServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
