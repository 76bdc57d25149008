"""Sending the messages queued for players' channels: one pass over those that are due, run by
the scheduler's delivery job after the emails (and by ``pbem deliver``).

The outbox's rules hold (:mod:`pbem.mail.outbox`): rows are claimed so that two processes never
send one twice, and each attempt is recorded by :func:`~pbem.mail.outbox.record_attempt`, so a
service that is down or refuses only delays the message (1, 2, 4, ... minutes) until it is given
up after the last attempt. An address that can no longer be used (the site's secret changed, or
the service left Apprise) fails at once. Nothing here writes a channel's address to a log or a
row: an error keeps what the service said, with the address's parts masked.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from apprise import Apprise

from engine.text import Text
from pbem.channels.messages import GAME_OVER, REMINDER, TURN
from pbem.channels.tables import ChannelMessage, PlayerChannel
from pbem.channels.urls import MASK, UnreadableChannel, apprise_asset, notifier, unseal
from pbem.db import Database
from pbem.i18n import Reader
from pbem.links import Links
from pbem.mail.outbox import (
    CLAIM_FOR,
    MAX_ATTEMPTS,
    DeliveryReport,
    claim_due,
    default_holder,
    hold_claim,
    holds,
    record_attempt,
)
from pbem.models import GameRecord, MailStatus, Player
from pbem.services.common import Site

log = logging.getLogger(__name__)
TEST = "test"  # the kind of the message the settings page's button sends
# A pass claims a few messages at a time and claims no more once it has taken PASS_SECONDS: each
# message may wait for a slow service (urls.TIMEOUT), and the emails of the next tick wait for it.
BATCH = 5
PASS_LIMIT = 100
PASS_SECONDS = 30.0

Sender = Callable[[str, str, str], str]
"""(address, title, body) -> "" when the service took the message, else why not."""


class Unusable(ValueError):
    """A channel's address that can never be sent to: the message fails without retries."""

    def __init__(self) -> None:
        super().__init__(Text("the address is no longer one we can send to"))


def send(url: str, title: str, body: str) -> str:
    """Post one message through Apprise; "" when the service accepted it, else its reason
    (masked: it may quote the address)."""
    service = notifier(url)
    if service is None:
        raise Unusable()
    said: list[str] = []
    sender = Apprise(asset=apprise_asset())
    sender.add(service)
    result = sender.notify(body=body, title=title,
                           log_callback=lambda entry, _service: said.append(entry.message),
                           log_level=logging.WARNING)
    if result:
        return ""
    return masked(" ".join(said) or "the service did not accept the message", url)


def masked(text: str, url: str) -> str:
    """``text`` without any part of ``url`` long enough to be a secret (users, passwords,
    tokens in the host or the path, query values).

    >>> masked("401 for bot 123456:ABCDEF at /hook/s3cr3t", "tgram://123456:ABCDEF/s3cr3t")
    '401 for bot …:… at /hook/…'
    """
    rest = url.partition("://")[2]
    for part in sorted(set(re.split(r"[/:@?&=#,+]", rest)), key=len, reverse=True):
        if len(part) >= 4:
            text = text.replace(part, MASK)
    return text[:500]


def message_words(message: ChannelMessage, player: Player, row: GameRecord | None,
                  links: Links) -> tuple[str, str]:
    """(title, body) of ``message`` in ``player``'s language: the email's subject, and one line
    with the link to act on (the turn's move link, or the game's page)."""
    reader = Reader.of(player)
    if message.kind == TEST:
        return (reader.gettext("Test message from pbem"),
                reader.gettext("This channel works: your turn notices can come here."))
    if message.kind in (TURN, REMINDER) and message.game_id is not None \
            and message.seat is not None and message.ply is not None:
        url = links.move_url(message.game_id, message.seat, message.ply, holder=player.id)
        return message.title, reader.gettext("Make your move: %(url)s", url=url)
    if message.kind == GAME_OVER and row is not None:
        return message.title, reader.gettext("See the game: %(url)s", url=links.game_url(
            row.public_id))
    return message.title, message.title


def deliver_channels(
    database: Database, site: Site, now: datetime, *, limit: int = PASS_LIMIT,
    holder: str | None = None, max_attempts: int = MAX_ATTEMPTS, sender: Sender = send,
    seconds: float = PASS_SECONDS, claim_for: timedelta = CLAIM_FOR,
) -> DeliveryReport:
    """Send the channel messages that are due, up to ``limit`` of them or for about
    ``seconds``; see the module docstring for failures."""
    report = DeliveryReport()
    began, holder = time.monotonic(), holder or default_holder()
    while report.attempted < limit and time.monotonic() - began < seconds:
        claimed = claim_due(database, now, min(BATCH, limit - report.attempted), holder,
                            ChannelMessage, claim_for)
        if not claimed:
            break
        for message_id in claimed:
            if hold_claim(database, message_id, holder, now, claim_for, ChannelMessage):
                _deliver(database, site, now, message_id, sender, max_attempts, report, holder)
    if report.attempted:
        log.info("channels: sent %s, deferred %s, failed %s", report.sent, report.deferred,
                 report.failed)
    return report


def _deliver(database: Database, site: Site, now: datetime, message_id: int, sender: Sender,
             max_attempts: int, report: DeliveryReport, holder: str) -> None:
    """One claimed message: tried, and the attempt recorded by the outbox's policy while
    ``holder`` still holds the claim."""
    outcome = _attempt(database, site, message_id, sender)
    if outcome is None:  # its channel was removed meanwhile
        return
    sent, error, permanent = outcome
    with database.write() as session:
        message = session.get(ChannelMessage, message_id, with_for_update=True)
        if message is None or not holds(message, holder):
            return
        status = record_attempt(message, now, sent=sent, error=error, permanent=permanent,
                                max_attempts=max_attempts)
        session.add(message)
    report.count(status)
    if error:
        report.errors.append(f"channel message {message_id}: {error}")


def _attempt(database: Database, site: Site, message_id: int,
             sender: Sender) -> tuple[bool, str, bool] | None:
    """(sent, error, permanent) of one try at a claimed message; None when it is gone."""
    with database.session() as session:
        message = session.get(ChannelMessage, message_id)
        if message is None or message.status != MailStatus.SENDING:
            return None
        channel = session.get(PlayerChannel, message.channel_id)
        player = session.get(Player, channel.player_id) if channel is not None else None
        row = session.get(GameRecord, message.game_id) if message.game_id is not None else None
    if channel is None or player is None:
        return None
    try:
        url = unseal(site.links.secret_key, channel.sealed_url)
        title, body = message_words(message, player, row, site.links)
        error = sender(url, title, body)
    except (UnreadableChannel, Unusable) as refusal:
        return False, str(refusal), True
    except Exception as failure:  # a bug in a service's plugin must not stop everybody's news
        # Its name only: a plugin's exception may quote the address.
        log.error("channels: message %s could not be sent: %s", message_id,
                  type(failure).__name__)
        return False, f"could not be sent: {type(failure).__name__}", False
    return not error, error, False
