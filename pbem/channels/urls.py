"""What a channel's address may be, and how it is kept: checked by Apprise, encrypted at rest
with a key derived from the site's secret, and shown back masked (scheme and host at most).

An Apprise address carries the service's credentials (a bot's token, a webhook's secret path, a
private ntfy topic): whoever reads it can post as the player's channel. So it is sealed before it
is stored, never logged, and a page shows only what names the service:

>>> shown_url("tgram://123456789:AAHabc/12345")
'tgram://…'
>>> shown_url("ntfys://ntfy.example.org/secret-topic")
'ntfys://ntfy.example.org/…'
>>> unseal("site secret", seal("site secret", "json://example.org/hook"))
'json://example.org/hook'

Only services that post to a chat or a phone are offered (:data:`SERVICES`): not the ones that
act on the server itself (desktop pop-ups, syslog, a USB light) nor email, which pbem sends
already. A self-hosted service's address must not point at this machine or a private network,
where a player could make the server knock on doors they cannot reach themselves
(``private_hosts`` allows it, for development and tests).
"""

from __future__ import annotations

import base64
import ipaddress
import logging
import socket
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from apprise import Apprise, AppriseAsset
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from engine.text import Text

if TYPE_CHECKING:  # Apprise loads in a second: only where a channel is checked or sent to
    from apprise import AppriseAsset
    from apprise.plugins.base import NotifyBase

MAX_URL = 2000
# Seconds a service may take to answer: delivery goes on to the next message after that (an
# address may ask for longer, or for retries of its own; the outbox's retries are the ones kept).
TIMEOUT = 10.0
MASK = "…"
# Apprise's schemes (both the plain and the TLS one where a service has two) of the chat and push
# services offered; tests/channels/test_channel_urls.py checks that Apprise knows each.
SERVICES = frozenset({
    "apprise", "apprises", "bsky", "dingtalk", "discord", "feishu", "flock", "gchat", "gotify",
    "gotifys", "guilded", "join", "json", "jsons", "lark", "line", "mastodon", "mastodons",
    "matrix", "matrixs", "mmost", "mmosts", "nctalk", "nctalks", "ntfy", "ntfys", "pbul",
    "pjet", "pjets", "pover", "prowl", "revolt", "rocket", "rockets", "ryver", "schan",
    "signal", "signals", "simplepush", "slack", "spush", "tgram", "threema", "wecombot",
    "workflow", "workflows", "wxteams", "xmpp", "xmpps", "zulip",
})
_LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".lan", ".home.arpa")


class ChannelRefused(ValueError):
    """An address that cannot be a channel; the message says why, for the player."""


class UnreadableChannel(ValueError):
    """A sealed address this site's secret cannot open (the secret was changed since)."""


@dataclass(frozen=True)
class ChannelUrl:
    """A checked address: as given, the service's name, and what pages show of it."""

    url: str
    service: str
    shown: str


def check_channel_url(text: str, *, private_hosts: bool = False) -> ChannelUrl:
    """``text`` as a channel's address, or :class:`ChannelRefused`.

    >>> check_channel_url("ntfys://ntfy.example.org/pbem-ann").service
    'ntfy'
    >>> check_channel_url("json://127.0.0.1:8080/hook")
    Traceback (most recent call last):
    ...
    pbem.channels.urls.ChannelRefused: this address points at a private network
    """
    url = text.strip()
    if not url:
        raise ChannelRefused(Text("the address is empty"))
    if len(url) > MAX_URL:
        raise ChannelRefused(Text("the address is longer than %(num)d characters", num=MAX_URL))
    if any(c.isspace() for c in url):
        raise ChannelRefused(Text("an address has no spaces: give one address at a time"))
    scheme = url.partition("://")[0].lower() if "://" in url else ""
    if scheme not in SERVICES:
        raise ChannelRefused(Text("this is not the address of a service we can send to"))
    service = notifier(url)
    if service is None:
        raise ChannelRefused(Text("this address is incomplete or mistyped for its service"))
    host = _network_host(service)
    if host and not private_hosts and is_private_host(host):
        raise ChannelRefused(Text("this address points at a private network"))
    return ChannelUrl(url, str(service.service_name), shown_url(url, service))


def notifier(url: str) -> NotifyBase | None:
    """Apprise's sender for ``url`` (None: not a valid address of a known service), held to
    :data:`TIMEOUT` and to no retries of its own."""
    service = Apprise.instantiate(url, asset=apprise_asset())
    if service is None:
        return None
    service.retry = 0
    service.socket_connect_timeout = min(service.socket_connect_timeout, TIMEOUT)
    service.socket_read_timeout = min(service.socket_read_timeout, TIMEOUT)
    return service


@cache
def apprise_asset() -> AppriseAsset:
    """Apprise as a library: nothing kept on disk (no persistent store in the home folder),
    no plugins or configuration files loaded from it (only its command line reads those).
    Its log lines stay out of pbem's log, where whoever reads it would see what it says of an
    address (its debug lines quote whole URLs): delivery records each failure, masked."""
    quiet = logging.getLogger("apprise")
    quiet.propagate = False
    quiet.addHandler(logging.NullHandler())  # not even Python's last-resort stderr
    return AppriseAsset(storage_mode="memory", secure_logging=True)


def _network_host(service: NotifyBase) -> str:
    """The host a self-hosted service's address connects to; "" for a service at a fixed
    address (Telegram, Discord, Slack), whose "host" is a token, not a place."""
    if getattr(service, "protocol", None) is None:
        return ""
    return str(getattr(service, "host", "") or "")


def is_private_host(host: str) -> bool:
    """This machine, a private or reserved network, or a name only a local network knows.

    >>> [is_private_host(h) for h in ("localhost", "10.1.2.3", "[::1]", "2130706433",
    ...                               "ntfy.example.org", "203.0.113.9", "printer.local")]
    [True, True, True, True, False, True, True]
    """
    name = host.strip().strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(_LOCAL_SUFFIXES):
        return True
    try:
        return not ipaddress.ip_address(name).is_global
    except ValueError:
        pass
    try:  # what inet_aton reads as an address: "2130706433", "0x7f.1", "127.1"
        return not ipaddress.IPv4Address(socket.inet_aton(name)).is_global
    except OSError:
        return False


def shown_url(url: str, service: NotifyBase | None = None) -> str:
    """The scheme, and the host where it is a place rather than a token; never a path, a
    user, a password or a query."""
    scheme = url.partition("://")[0].lower()
    service = service if service is not None else notifier(url)
    host = _network_host(service) if service is not None else ""
    return f"{scheme}://{host}/{MASK}" if host else f"{scheme}://{MASK}"


def _fernet(secret: str) -> Fernet:
    key = HKDF(algorithm=SHA256(), length=32, salt=None,
               info=b"pbem channel addresses").derive(secret.encode())
    return Fernet(base64.urlsafe_b64encode(key))


def seal(secret: str, url: str) -> str:
    """``url`` encrypted and authenticated with a key derived from the site's ``secret``."""
    return _fernet(secret).encrypt(url.encode()).decode("ascii")


def unseal(secret: str, sealed: str) -> str:
    """The address :func:`seal` made; :class:`UnreadableChannel` under another secret."""
    try:
        return _fernet(secret).decrypt(sealed.encode("ascii")).decode()
    except (InvalidToken, ValueError):
        raise UnreadableChannel(Text("this channel's address can no longer be read")) from None
