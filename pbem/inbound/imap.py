"""One pass over an IMAP mailbox: hand every message to the service, then delete it.

``pbem fetch-mail`` (and the scheduler, every PBEM_FETCH_EVERY seconds) calls :func:`fetch_pass`
with PBEM_IMAP_URL. A message is flagged \\Deleted only after ``handle`` returned, that is after
its effects are committed; the flagged messages are expunged at the end of the pass. So:

- a handler that raises leaves its message untouched (counted as failed) for the next pass, and
  the pass goes on with the next message;
- a crash between ``handle`` and the flag leaves the message to be offered again next time, and
  the service's dedupe (Message-ID, sender and body digest) makes the second offer harmless
  (handled exactly once);
- a crash between the flag and the expunge leaves a \\Deleted message, which no pass offers
  again (it was handled) and the next pass's expunge removes;
- two fetchers at once may both offer a message; the dedupe again plays it once.

Messages already flagged \\Deleted by anyone are skipped. Messages are read with BODY.PEEK[],
which leaves \\Seen alone, so a person watching the mailbox still sees what is new.

The URL is ``imap://`` or ``imaps://``, user and password URL-quoted, an optional port and the
folder as the path (default INBOX): ``imaps://pbem%40example.org:s3cret@imap.example.org/INBOX``.
``imaps://`` is TLS from the start (port 993); ``imap://`` (port 143) upgrades with STARTTLS
whenever the server offers it, and goes on in the clear only when it does not (a loopback
server); add ``?starttls=no`` to skip STARTTLS, or ``?starttls=yes`` to refuse a server that
does not offer it. Certificates are always verified.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from imapclient import DELETED, IMAPClient  # type: ignore[import-untyped]

log = logging.getLogger(__name__)

Handle = Callable[[bytes], None]


@dataclass(frozen=True)
class ImapSettings:
    """What an IMAP URL says. ``starttls`` is "auto", "yes" or "no" (only for imap://)."""

    host: str
    port: int
    user: str
    password: str
    folder: str = "INBOX"
    tls: bool = True
    starttls: str = "auto"

    def __repr__(self) -> str:  # keep the password out of logs and tracebacks
        scheme = "imaps" if self.tls else "imap"
        return f"ImapSettings({scheme}://{self.user}@{self.host}:{self.port}/{self.folder})"


@dataclass(frozen=True)
class FetchResult:
    """How one pass went: messages handled (and deleted) and messages whose handler failed."""

    handled: int = 0
    failed: int = 0


def parse_url(url: str) -> ImapSettings:
    """Read an imap:// or imaps:// URL.

    >>> parse_url("imaps://pbem%40example.org:p%2Fw@imap.example.org/Games%2Fpbem")
    ImapSettings(imaps://pbem@example.org@imap.example.org:993/Games/pbem)
    >>> parse_url("imap://u:p@localhost:1143").folder
    'INBOX'
    """
    parts = urlsplit(url)
    if parts.scheme not in ("imap", "imaps"):
        # Never the URL itself in the message: it carries the password.
        raise ValueError(f"not an imap:// or imaps:// URL (scheme {parts.scheme!r})")
    if not parts.hostname:
        raise ValueError("the IMAP URL names no host")
    if parts.username is None or parts.password is None:
        raise ValueError("the IMAP URL needs user:password@ before the host")
    tls = parts.scheme == "imaps"
    starttls = parse_qs(parts.query).get("starttls", ["auto"])[-1].lower()
    if starttls not in ("auto", "yes", "no"):
        raise ValueError(f"starttls must be auto, yes or no, not {starttls!r}")
    folder = unquote(parts.path.lstrip("/")) or "INBOX"
    return ImapSettings(host=parts.hostname, port=parts.port or (993 if tls else 143),
                        user=unquote(parts.username), password=unquote(parts.password),
                        folder=folder, tls=tls, starttls=starttls)


def describe_url(url: str) -> str:
    """The mailbox of an IMAP URL for logs and /healthz: ``host:port/folder``, without the user
    or password (the URL is a setting; one that cannot be read is named as such).

    >>> describe_url("imaps://pbem%40example.org:s3cret@imap.example.org/INBOX")
    'imap.example.org:993/INBOX'
    >>> describe_url("imap.example.org")
    'PBEM_IMAP_URL (not an imap:// or imaps:// URL)'
    """
    try:
        settings = parse_url(url)
    except ValueError:
        return "PBEM_IMAP_URL (not an imap:// or imaps:// URL)"
    return f"{settings.host}:{settings.port}/{settings.folder}"


def url_password(url: str) -> str:
    """The password in an IMAP URL, unquoted ("" when there is none), to keep it out of what
    is shown of an error.

    >>> url_password("imap://u:p%40ss@localhost/INBOX")
    'p@ss'
    """
    try:
        password = urlsplit(url).password
    except ValueError:
        return ""
    return unquote(password) if password else ""


def fetch_pass(url: str, handle: Handle, *, timeout: float = 30,
               ssl_context: ssl.SSLContext | None = None) -> FetchResult:
    """Offer each message in the URL's folder to ``handle`` (its raw bytes); delete those for
    which it returned. Connection and login errors raise (the pass did nothing); a handler's
    exception is logged and counted, and leaves its message for the next pass.

    An exception that is not an ``Exception`` (KeyboardInterrupt, SystemExit) ends the pass at
    once without flagging that message, as a crash would.
    """
    settings = parse_url(url)
    handled = failed = 0
    with _connect(settings, timeout, ssl_context) as client:
        client.login(settings.user, settings.password)
        client.select_folder(settings.folder)
        # UIDs stay valid for the whole session, unlike sequence numbers, which shift when
        # another client expunges; a message expunged meanwhile simply fetches as nothing.
        uids = client.search(["NOT", "DELETED"])
        done: list[int] = []
        try:
            for uid in uids:
                raw = _fetch(client, uid)
                if raw is None:
                    continue  # gone: another fetcher handled it and expunged
                try:
                    handle(raw)
                except Exception:
                    failed += 1
                    log.exception("handling IMAP message %s in %s failed; it stays for the "
                                  "next pass", uid, settings.folder)
                    continue
                # Committed: mark it done at once, so a crash later in this pass does not
                # offer it again.
                client.add_flags([uid], [DELETED], silent=True)
                done.append(uid)
                handled += 1
        finally:
            if done:
                _expunge(client, done)
    return FetchResult(handled=handled, failed=failed)


def check_mailbox(url: str, *, timeout: float = 30,
                  ssl_context: ssl.SSLContext | None = None) -> int:
    """Log in and open the URL's folder as :func:`fetch_pass` would, change nothing, and
    return how many messages wait there (``pbem doctor``). Errors raise as in a pass."""
    settings = parse_url(url)
    with _connect(settings, timeout, ssl_context) as client:
        client.login(settings.user, settings.password)
        client.select_folder(settings.folder, readonly=True)
        return len(client.search(["NOT", "DELETED"]))


def _connect(settings: ImapSettings, timeout: float,
             ssl_context: ssl.SSLContext | None) -> IMAPClient:
    context = ssl_context or ssl.create_default_context()
    client = IMAPClient(settings.host, port=settings.port, ssl=settings.tls,
                        ssl_context=context if settings.tls else None, timeout=timeout)
    if not settings.tls and settings.starttls != "no":
        if client.has_capability("STARTTLS"):
            client.starttls(context)
        elif settings.starttls == "yes":
            client.shutdown()
            raise ConnectionError(f"{settings.host} does not offer STARTTLS")
    return client


def _fetch(client: IMAPClient, uid: int) -> bytes | None:
    """The raw message ``uid`` without setting \\Seen, or None when it is gone."""
    response: dict[int, dict[bytes, Any]] = client.fetch([uid], ["BODY.PEEK[]"])
    data = response.get(uid)
    if not data:
        return None
    raw = data.get(b"BODY[]")
    return bytes(raw) if raw is not None else None


def _expunge(client: IMAPClient, uids: list[int]) -> None:
    """Expunge only the messages this pass handled when the server can (UIDPLUS), so a message
    someone else flagged \\Deleted but means to undelete is left alone; else all of them."""
    try:
        if client.has_capability("UIDPLUS"):
            client.uid_expunge(uids)
        else:
            client.expunge()
    except Exception:  # they stay flagged \Deleted: no pass offers them again, the next expunges
        log.exception("expunging %d handled IMAP messages failed", len(uids))
