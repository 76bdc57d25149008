"""What every service shares: errors a person can cause, the site settings, and small lookups."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import parseaddr
from typing import Any, Protocol

from sqlmodel import Session, col, select

from engine.text import N_, Text
from pbem.addresses import check_address
from pbem.clock.deadlines import stop_clock
from pbem.config import strong_seconds
from pbem.db import Database
from pbem.errors import GameMovedOn, GameNotActive, NotYourTurn, ServiceError
from pbem.i18n import ENGLISH, Reader, supported
from pbem.links import Links, links_version_for, seat_holder_for
from pbem.models import AuditEntry, GameRecord, GameStatus, Player, Seat


@dataclass(frozen=True)
class Site:
    """What services need to know about this installation to write emails."""

    links: Links
    mail_from: str
    # Addresses told whenever a game needs an organiser's decision (a bounce, the timeout policy
    # "hold", a declined invitation, a computer player that failed), besides the game's own
    # organiser: the only ones told about a game without one. From PBEM_ALERT_EMAILS; see
    # pbem.services.timeouts.alert_recipients.
    alert_emails: tuple[str, ...] = ()
    # Play by reply (pbem.inbound): the address replies go to, play@example.org; "" for off.
    reply_address: str = ""
    # The language of new players nobody chose one for, and of organiser alerts: en, nl, de, it.
    default_language: str = "en"
    # Seconds the computer at "strong" thinks a move in the sweep (PBEM_BOT_STRONG_SECONDS);
    # 0: a fixed number of playouts instead, the same move for the same position.
    strong_seconds: float = 0.0
    # Messages a player may write per hour in games' conversations (PBEM_CHAT_PER_HOUR;
    # pbem.chat.service).
    chat_per_hour: int = 20
    # A person playing the computer is mailed a turn only once they have not viewed the game's
    # pages for this long (PBEM_TURN_EMAIL_HOLD_MINUTES; pbem.services.turn_mail).
    turn_email_hold: timedelta = timedelta(minutes=10)

    def reader_for(self, player: Any) -> Reader:
        """The reader a player is (their language and time zone); the site's default language
        where the player has none we speak."""
        return Reader.of(player, supported(self.default_language))

    @property
    def mail_domain(self) -> str:
        address = parseaddr(self.mail_from)[1]
        return address.rpartition("@")[2] or "localhost"


def audit(
    session: Session,
    now: datetime,
    action: str,
    *,
    game_id: int | None = None,
    player_id: int | None = None,
    **detail: Any,
) -> None:
    session.add(AuditEntry(at=now, game_id=game_id, player_id=player_id, action=action,
                           detail=detail))


BOT_LEVEL_WORDS = {"easy": N_("easy"), "normal": N_("normal"), "strong": N_("strong")}


class Named(Protocol):
    """What :func:`shown_name` reads of a player: a :class:`Player`, or the two columns of one
    that a page read alone (pbem.web.home)."""

    @property
    def name(self) -> str: ...

    @property
    def bot_level(self) -> str | None: ...


def shown_name(player: Named, reader: Reader = ENGLISH) -> str:
    """A player's name as ``reader`` reads it: a person's as they wrote it, a computer's in the
    reader's language (its stored name, "Computer (easy)", is English).

    >>> shown_name(Player(name="Computer (easy)", email="x", bot_level="easy"), Reader("de"))
    'Computer (leicht)'
    """
    if player.bot_level is None:
        return player.name
    level = BOT_LEVEL_WORDS.get(player.bot_level)
    return reader.gettext("Computer (%(level)s)",
                          level=reader.gettext(level) if level else player.bot_level)


def shown_names(seats: Sequence[Seat], players: Mapping[int, Player],
                reader: Reader = ENGLISH) -> list[str]:
    """:func:`shown_name` of each seat's player, in seat order."""
    return [shown_name(players[s.player_id], reader) for s in seats]


def seats_of(session: Session, game_id: int) -> list[Seat]:
    return list(session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))))


def seats_by_game(session: Session, game_ids: list[int]) -> dict[int, list[Seat]]:
    """The seats of many games in one query (a list of games would otherwise ask per game),
    each game's in seat order."""
    found: dict[int, list[Seat]] = {}
    if not game_ids:
        return found
    for seat in session.exec(select(Seat).where(col(Seat.game_id).in_(game_ids))
                             .order_by(col(Seat.game_id), col(Seat.seat))):
        found.setdefault(seat.game_id, []).append(seat)
    return found


def players_of(session: Session, seats: list[Seat]) -> dict[int, Player]:
    ids = [seat.player_id for seat in seats]
    players = session.exec(select(Player).where(col(Player.id).in_(ids)))
    return {player.id: player for player in players if player.id is not None}


def end_game(session: Session, row: GameRecord, now: datetime, *, result: str,
             winners: list[int] | None = None, status: str = GameStatus.FINISHED) -> None:
    """Mark ``row`` over: nobody to move, and nothing left for the scheduler to do (no deadline,
    reminder, pause or hold). ``winners`` is kept as it was when None (an aborted game)."""
    row.status = status
    if winners is not None:
        row.winners = list(winners)
    row.result = result
    row.to_move = None
    stop_clock(session, row)
    row.finished_at = now


def lock_game(session: Session, game_id: int) -> GameRecord:
    """The game row, locked for this transaction on PostgreSQL (SQLite: at BEGIN IMMEDIATE)."""
    query = select(GameRecord).where(GameRecord.id == game_id).with_for_update()
    row = session.exec(query).one_or_none()
    if row is None:
        raise ServiceError(Text("there is no such game"))
    return row


def site_from_config(database: Database, config: Mapping[str, Any]) -> Site:
    """The same Site the web app builds: links bound to the seat's holder, as the app checks."""
    links = Links(config["SECRET_KEY"], config["BASE_URL"], seat_holder=seat_holder_for(database),
                  links_version=links_version_for(database))
    alerts = tuple(check_address(a) for a in str(config.get("ALERT_EMAILS", "")).split(",")
                   if a.strip())
    reply = str(config.get("REPLY_ADDRESS", "") or "")
    return Site(links, config["MAIL_FROM"], alerts, check_address(reply) if reply else "",
                default_language=str(config.get("DEFAULT_LANGUAGE") or "en"),
                strong_seconds=max(0.0, strong_seconds(config)),
                chat_per_hour=int(config.get("CHAT_PER_HOUR") or 20),
                turn_email_hold=timedelta(minutes=int(config.get("TURN_EMAIL_HOLD_MINUTES", 10))))


def in_play(seats: Sequence[Seat]) -> list[Seat]:
    """The seats still playing for themselves: not resigned, not forfeited on time."""
    return [s for s in seats if not s.resigned and not s.forfeited]


def others_in_play(seats: Sequence[Seat], seat: int) -> list[Seat]:
    """The seats still in play other than ``seat`` (the one leaving, or the one asking)."""
    return [s for s in in_play(seats) if s.seat != seat]


def plays_on(others: Sequence[Seat], players: dict[int, Player]) -> bool:
    """Whether the game goes on without a seat that leaves: two or more seats stay in play,
    and a person among them (computers alone would only play it out for nobody)."""
    return len(others) >= 2 and any(players[s.player_id].bot_level is None for s in others)


__all__ = ["GameMovedOn", "GameNotActive", "NotYourTurn", "ServiceError", "Site", "audit",
           "end_game", "in_play", "lock_game", "others_in_play", "players_of", "plays_on",
           "seats_of", "site_from_config"]
