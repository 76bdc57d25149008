"""Choosing how much mail to get, and muting a game: plain functions of a session and ``now``,
as the core's services. The account page, a game's page and the reply commands all call these."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Session, select

from engine.text import Text
from pbem.clock.arithmetic import UnknownTimeZone, zone_info
from pbem.errors import ServiceError
from pbem.models import Player, Seat
from pbem.notifications.policy import is_muted
from pbem.notifications.tables import GameMute, Mode, NotificationSetting
from pbem.services.common import audit


class BadDigestHour(ServiceError):
    def __init__(self) -> None:
        super().__init__(Text("the hour of the digest is a whole hour from 0 to 23"))


class UnknownMode(ServiceError):
    def __init__(self) -> None:
        super().__init__(Text("choose every event, your turns and game ends, a daily digest, "
                              "or off"))


class NotYourGame(ServiceError):
    """Muting a game the player holds no seat in."""

    def __init__(self) -> None:
        super().__init__(Text("you do not play in this game"))


def local_time(now: datetime, zone: str) -> datetime:
    """``now`` on the player's clock (UTC where their zone is unknown to this server)."""
    try:
        return now.astimezone(zone_info(zone))
    except UnknownTimeZone:
        return now.astimezone(UTC)


def setting_of(session: Session, player_id: int) -> NotificationSetting:
    """The player's setting; for one who never chose, the default (not stored)."""
    found = session.get(NotificationSetting, player_id)
    return found if found is not None else NotificationSetting(player_id=player_id)


def checked_mode(text: str) -> Mode:
    try:
        return Mode(text.strip().lower())
    except ValueError:
        raise UnknownMode() from None


def checked_hour(text: str | int) -> int:
    """A digest hour from a form or a reply: 0 to 23."""
    try:
        hour = int(str(text).strip())
    except ValueError:
        raise BadDigestHour() from None
    if not 0 <= hour <= 23:
        raise BadDigestHour()
    return hour


def choose(session: Session, now: datetime, *, player_id: int, mode: Mode,
           digest_hour: int | None = None) -> NotificationSetting:
    """The player's new setting (``digest_hour``: None keeps the one they had).

    The first digest comes at the chosen hour: where that hour has already passed today (in the
    player's time zone), tomorrow, so that choosing never sends a second digest on one day."""
    if digest_hour is not None:
        digest_hour = checked_hour(digest_hour)
    player = session.get(Player, player_id)
    assert player is not None
    setting = session.get(NotificationSetting, player_id)
    if setting is None:
        setting = NotificationSetting(player_id=player_id)
    starts_digest = mode == Mode.DIGEST and setting.mode != Mode.DIGEST
    setting.mode = mode
    if digest_hour is not None:
        setting.digest_hour = digest_hour
    if starts_digest:
        setting.digest_at = now  # the first digest tells what happened from now on
        local = local_time(now, player.time_zone)
        if local.hour >= setting.digest_hour:
            setting.digest_day = local.date()
    session.add(setting)
    # The older switch: without it the senders write no "update" email at all, which every
    # event needs sent and the digest needs kept back (it lists them).
    player.notify_updates = mode in (Mode.ALL, Mode.DIGEST)
    session.add(player)
    audit(session, now, "notifications chosen", player_id=player_id, mode=str(mode),
          digest_hour=setting.digest_hour)
    return setting


def mute(session: Session, now: datetime, *, player_id: int, game_id: int,
         muted: bool) -> bool:
    """Mute the game for the player (or unmute it); whether anything changed. NotYourGame for
    a game they hold no seat in."""
    if session.exec(select(Seat.id).where(Seat.game_id == game_id,
                                          Seat.player_id == player_id)).first() is None:
        raise NotYourGame()
    if is_muted(session, player_id, game_id) == muted:
        return False
    if muted:
        session.add(GameMute(player_id=player_id, game_id=game_id, created_at=now))
    else:
        for row in session.exec(select(GameMute).where(GameMute.player_id == player_id,
                                                       GameMute.game_id == game_id)):
            session.delete(row)
    audit(session, now, "game muted" if muted else "game unmuted", player_id=player_id,
          game_id=game_id)
    return True


def unsubscribed(session: Session, now: datetime, *, player_id: int) -> None:
    """The one-click unsubscribe of every email (RFC 8058): "every event" becomes "your turns
    and game ends"; a quieter choice stays as it is."""
    if setting_of(session, player_id).mode == Mode.ALL:
        choose(session, now, player_id=player_id, mode=Mode.TURNS)
