"""A player's channels: adding one (its address checked and sealed), choosing its news,
testing it, removing it. Plain functions of a session and ``now``, as the core's services."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete
from sqlmodel import Session, col, select

from engine.text import Text
from pbem.channels.delivery import TEST, Sender, Unusable, message_words, send
from pbem.channels.messages import FOLLOWED
from pbem.channels.tables import ChannelMessage, PlayerChannel
from pbem.channels.urls import ChannelRefused, ChannelUrl, UnreadableChannel, seal, unseal
from pbem.db import Database
from pbem.errors import ServiceError
from pbem.models import Player
from pbem.services.common import Site, audit

MAX_CHANNELS = 5  # per player: enough for a phone and a chat or two


class TooManyChannels(ChannelRefused):
    def __init__(self) -> None:
        super().__init__(Text("you have %(num)d channels already: remove one first",
                              num=MAX_CHANNELS))


class NoSuchChannel(ServiceError):
    """Not a channel of this player (removed meanwhile, or someone else's)."""

    def __init__(self) -> None:
        super().__init__(Text("there is no such channel"))


@dataclass(frozen=True)
class Tried:
    """What the settings page says after its test button: sent, or why not."""

    sent: bool
    reason: str = ""


def channels_of(session: Session, player_id: int) -> list[PlayerChannel]:
    return list(session.exec(select(PlayerChannel).where(PlayerChannel.player_id == player_id)
                             .order_by(col(PlayerChannel.id))))


def add_channel(session: Session, now: datetime, site: Site, *, player_id: int,
                checked: ChannelUrl, news: Collection[str] = tuple(FOLLOWED)) -> PlayerChannel:
    """A new channel at ``checked`` (:func:`~pbem.channels.urls.check_channel_url`, done before
    the transaction: Apprise takes its time to load) for ``news`` (email kinds: turn,
    reminder, game_over)."""
    if len(channels_of(session, player_id)) >= MAX_CHANNELS:
        raise TooManyChannels()
    channel = PlayerChannel(player_id=player_id, sealed_url=seal(site.links.secret_key,
                                                                 checked.url),
                            service=checked.service, shown=checked.shown, created_at=now,
                            **_settings(news))
    session.add(channel)
    session.flush()
    audit(session, now, "channel added", player_id=player_id, channel=channel.id,
          service=checked.service)
    return channel


def follow(session: Session, now: datetime, *, player_id: int, channel_id: int,
           news: Collection[str]) -> PlayerChannel:
    """Which news goes to the channel from now on."""
    channel = _own(session, player_id, channel_id)
    for name, value in _settings(news).items():
        setattr(channel, name, value)
    session.add(channel)
    audit(session, now, "channel news chosen", player_id=player_id, channel=channel_id,
          news=sorted(n for n in news if n in FOLLOWED))
    return channel


def remove_channel(session: Session, now: datetime, *, player_id: int, channel_id: int) -> None:
    """The channel and whatever was still queued for it."""
    channel = _own(session, player_id, channel_id)
    session.execute(delete(ChannelMessage).where(col(ChannelMessage.channel_id) == channel_id))
    session.delete(channel)
    audit(session, now, "channel removed", player_id=player_id, channel=channel_id)


def try_channel(database: Database, now: datetime, site: Site, *, player_id: int,
                channel_id: int, sender: Sender = send) -> Tried:
    """Send a test message now, outside the outbox (the player waits for the answer) and
    outside any transaction (a service may take seconds to answer); then note it in the
    audit log. NoSuchChannel for another player's channel."""
    with database.session() as session:
        channel = _own(session, player_id, channel_id)
        player = session.get(Player, player_id)
    assert player is not None
    title, body = message_words(ChannelMessage(channel_id=channel_id, kind=TEST, title=""),
                                player, None, site.links)
    try:
        reason = sender(unseal(site.links.secret_key, channel.sealed_url), title, body)
    except (UnreadableChannel, Unusable) as refusal:
        reason = refusal.args[0]  # a Text: the page says it in the player's language
    with database.write() as session:
        audit(session, now, "channel tested", player_id=player_id, channel=channel_id,
              sent=not reason)
    return Tried(not reason, reason)


def _own(session: Session, player_id: int, channel_id: int) -> PlayerChannel:
    channel = session.get(PlayerChannel, channel_id)
    if channel is None or channel.player_id != player_id:
        raise NoSuchChannel()
    return channel


def _settings(news: Collection[str]) -> dict[str, bool]:
    return {setting: kind in news for kind, setting in FOLLOWED.items()}
