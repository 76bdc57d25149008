"""Read-only questions the dashboard asks: games by filter, their flags, mail, players, audit."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from flask_babel import gettext as _
from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from pbem.clock.deadlines import with_clocks
from pbem.clock.tables import GameClock
from pbem.models import (
    AuditEntry,
    GameRecord,
    GameStatus,
    MailStatus,
    OutboxEmail,
    Player,
    PlayerAbsence,
    Seat,
    SeatReplacement,
)

STATUSES = (GameStatus.INVITED, GameStatus.ACTIVE, GameStatus.FINISHED, GameStatus.ABORTED)
OPEN = (GameStatus.INVITED, GameStatus.ACTIVE)
FAILED = MailStatus.FAILED
BOUNCED = "bounced"  # the games list's filter for open games whose mail bounced or that are held

# Players know a game by the start of its public id: their emails' subjects end "(wVDOGE)"
# (pbem.services.notify; older mail says "(game wVDOGE)") and its page is /g/<public id>. The
# organiser reads and types the same; templates/admin/_pages.html shows it.
CODE_LENGTH = 6
# secrets.token_urlsafe makes public ids (pbem.services.games), so they use these characters.
_CODE = re.compile(rf"[A-Za-z0-9_-]{{{CODE_LENGTH},}}")
_IN_SUBJECT = re.compile(rf"\((?:game )?([A-Za-z0-9_-]{{{CODE_LENGTH}}})\)\s*$")


def code_in(text: str) -> str | None:
    """The game id in what an organiser typed or pasted: the code from an email ("wVDOGE",
    "(wVDOGE)", "(game wVDOGE)", or the whole subject line), a full public id, or the game
    page's URL; None when it cannot be one.
    Case is kept: public ids are case-sensitive, so "wvdoge" is another game."""
    subject = _IN_SUBJECT.search(text)
    if subject:  # a whole subject line pasted: "Your turn: Mosey vs Bob (wVDOGE)"
        return subject[1]
    words = text.strip().rstrip("/").rsplit("/g/", 1)[-1].strip("()").split()
    if len(words) == 2 and words[0].lower() == "game":  # as the subject line says it
        words = words[1:]
    return words[0] if len(words) == 1 and _CODE.fullmatch(words[0]) else None


@dataclass(frozen=True)
class GameFilter:
    status: str = ""  # one of STATUSES, "overdue", BOUNCED, or "" for all
    game_type: str = ""
    player: str = ""  # a game id as players see it, or part of a player's name or address
    page: int = 1


@dataclass(frozen=True)
class GameRow:
    game: GameRecord
    clock: GameClock
    players: list[Player]
    overdue: bool
    failed_mail: int
    bounced: list[Player] = dataclasses.field(default_factory=list)  # holders whose mail bounced


@dataclass(frozen=True)
class Page:
    rows: list[Any]
    page: int
    pages: int
    total: int


def paginate(session: Session, query: Any, order: tuple[Any, ...], page: int,
             page_size: int) -> Page:
    """Page ``page`` (clamped to the pages there are) of ``query``'s rows in ``order``."""
    total = session.exec(select(func.count()).select_from(query.subquery())).one()
    pages = max(1, -(-total // page_size))
    page = min(max(1, page), pages)
    rows = list(session.exec(query.order_by(*order).offset((page - 1) * page_size)
                             .limit(page_size)))
    return Page(rows, page, pages, total)


def is_overdue(game: GameRecord, clock: GameClock, now: datetime) -> bool:
    return (game.status == GameStatus.ACTIVE and clock.paused_at is None
            and clock.deadline is not None and clock.deadline < now)


def bounced_condition() -> Any:
    """Open games that wait on the organiser because mail did not arrive: a seat holder's mail
    bounced (play by reply flags the player), or the game is held (a bounce to the player to
    move, or the timeout policy "hold"). Finished games are left out: nothing is to be done.
    A condition on games joined with their clocks (:func:`pbem.clock.deadlines.with_clocks`)."""
    bounced = select(Seat.game_id).join(Player, col(Player.id) == col(Seat.player_id)).where(
        col(Player.bounced_at).is_not(None))
    return (col(GameRecord.status).in_(OPEN)
            & (col(GameRecord.id).in_(bounced) | col(GameClock.held_since).is_not(None)))


def count_bounced(session: Session) -> int:
    """How many games :func:`bounced_condition` finds (the games list's summary says it)."""
    query = (select(func.count()).select_from(GameRecord)
             .join(GameClock, col(GameClock.game_id) == col(GameRecord.id))
             .where(bounced_condition()))
    return session.exec(query).one()


def search_condition(text: str) -> Any:
    """Games whose id (as players see it) is ``text``, or with a player whose name or address
    contains it."""
    pattern = f"%{text.strip().lower()}%"
    seated = select(Seat.game_id).join(Player, col(Player.id) == col(Seat.player_id)).where(
        or_(func.lower(Player.name).like(pattern), col(Player.email).like(pattern)))
    condition: Any = col(GameRecord.id).in_(seated)
    code = code_in(text)
    if code is not None:
        # A prefix by substr, not LIKE: LIKE ignores case in SQLite, and "_" (which public ids
        # contain) is one of its wildcards.
        condition = condition | (func.substr(col(GameRecord.public_id), 1, len(code)) == code)
    return condition


def list_games(session: Session, now: datetime, wanted: GameFilter, page_size: int) -> Page:
    """Games matching ``wanted``, soonest deadline first (games without one last, newest first)."""
    query = with_clocks()
    if wanted.status == "overdue":
        query = query.where(GameRecord.status == GameStatus.ACTIVE, col(GameClock.deadline) < now,
                            col(GameClock.paused_at).is_(None))
    elif wanted.status == BOUNCED:
        query = query.where(bounced_condition())
    elif wanted.status in STATUSES:
        query = query.where(GameRecord.status == wanted.status)
    if wanted.game_type:
        query = query.where(GameRecord.game_type == wanted.game_type)
    if wanted.player.strip():
        query = query.where(search_condition(wanted.player))
    found = paginate(session, query, (col(GameClock.deadline).is_(None), col(GameClock.deadline),
                                      col(GameRecord.id).desc()), wanted.page, page_size)
    games: list[tuple[GameRecord, GameClock]] = found.rows
    ids = [g.id for g, _clock in games]
    failures = dict(session.exec(
        select(OutboxEmail.game_id, func.count()).where(
            col(OutboxEmail.game_id).in_(ids), OutboxEmail.status == FAILED)
        .group_by(col(OutboxEmail.game_id))).all())
    seated_players: dict[int, list[Player]] = {}
    for seat, player in session.exec(
            select(Seat, Player).join(Player, col(Player.id) == col(Seat.player_id))
            .where(col(Seat.game_id).in_(ids)).order_by(col(Seat.seat))):
        seated_players.setdefault(seat.game_id, []).append(player)
    rows = [_game_row(g, clock, seated_players.get(g.id or 0, []), now, failures.get(g.id, 0))
            for g, clock in games]
    return dataclasses.replace(found, rows=rows)


def _game_row(game: GameRecord, clock: GameClock, players: list[Player], now: datetime,
              failed_mail: int) -> GameRow:
    # A bounce is flagged only while there is something to do about it (as bounced_condition).
    bounced = [p for p in players if p.bounced_at is not None] if game.status in OPEN else []
    return GameRow(game, clock, players, is_overdue(game, clock, now), failed_mail, bounced)


def game_codes(session: Session, ids: set[int]) -> dict[int, str]:
    """game id -> its public id, for pages that list games by their row id (mail, audit)."""
    if not ids:
        return {}
    found = session.exec(select(GameRecord.id,
                                GameRecord.public_id).where(col(GameRecord.id).in_(ids)))
    return {game_id: public_id for game_id, public_id in found if game_id is not None}


def mail_page(session: Session, page: int, page_size: int, *, game_id: int | None = None,
              status: str = "") -> Page:
    query = select(OutboxEmail)
    if game_id is not None:
        query = query.where(OutboxEmail.game_id == game_id)
    if status:
        query = query.where(OutboxEmail.status == status)
    return paginate(session, query, (col(OutboxEmail.id).desc(),), page, page_size)


def audit_page(session: Session, page: int, page_size: int, *,
               game_id: int | None = None) -> Page:
    query = select(AuditEntry)
    if game_id is not None:
        query = query.where(AuditEntry.game_id == game_id)
    return paginate(session, query, (col(AuditEntry.id).desc(),), page, page_size)


@dataclass(frozen=True)
class PlayerRow:
    player: Player
    games: list[tuple[GameRecord, Seat]]
    bounces: list[OutboxEmail]
    absences: list[Any]
    replaced_in: list[int]  # games whose organiser gave this player's seat to someone else


def player_rows(session: Session, search: str, page: int, page_size: int) -> Page:
    """Players with their games, failed mail (bounces) and vacations."""
    query = select(Player)
    if search.strip():
        pattern = f"%{search.strip().lower()}%"
        query = query.where(or_(func.lower(Player.name).like(pattern),
                                col(Player.email).like(pattern)))
    found = paginate(session, query, (col(Player.email),), page, page_size)
    players: list[Player] = found.rows
    ids = [p.id for p in players]
    games: dict[int, list[tuple[GameRecord, Seat]]] = {}
    for seat, game in session.exec(select(Seat, GameRecord)
                                   .join(GameRecord, col(GameRecord.id) == col(Seat.game_id))
                                   .where(col(Seat.player_id).in_(ids))
                                   .order_by(col(GameRecord.id).desc())):
        games.setdefault(seat.player_id, []).append((game, seat))
    bounces: dict[int, list[OutboxEmail]] = {}
    for mail in session.exec(select(OutboxEmail).where(
            col(OutboxEmail.player_id).in_(ids),
            col(OutboxEmail.status).in_((FAILED, MailStatus.BOUNCED)))
            .order_by(col(OutboxEmail.id).desc())):
        bounces.setdefault(mail.player_id or 0, []).append(mail)
    absences: dict[int, list[Any]] = {}
    for absence in session.exec(select(PlayerAbsence).where(
            col(PlayerAbsence.player_id).in_(ids)).order_by(col(PlayerAbsence.start))):
        absences.setdefault(absence.player_id, []).append(absence)
    replaced: dict[int, list[int]] = {}
    for old_player, game_id in session.exec(
            select(SeatReplacement.old_player_id, SeatReplacement.game_id)
            .where(col(SeatReplacement.old_player_id).in_(ids))):
        replaced.setdefault(old_player, []).append(game_id)
    rows = [PlayerRow(p, games.get(p.id or 0, []), bounces.get(p.id or 0, []),
                      absences.get(p.id or 0, []), replaced.get(p.id or 0, []))
            for p in players]
    return dataclasses.replace(found, rows=rows)


# Moves the scheduler plays for a player (pbem.models.MoveSource), as opposed to their own.
AUTOMATIC_SOURCES = ("timeout", "forced-pass", "stand-in")


def audit_actors(session: Session, entries: list[AuditEntry]) -> list[tuple[AuditEntry, str]]:
    """Each entry with who did it: an organiser, a player (by address), the scheduler, or the
    system (what followed by itself, such as a game starting once all accepted)."""
    ids = {e.player_id for e in entries if e.player_id is not None}
    emails = dict(session.exec(select(Player.id, Player.email)
                               .where(col(Player.id).in_(ids))).all()) if ids else {}
    described = []
    for entry in entries:
        detail = entry.detail or {}
        if detail.get("actor"):
            who = str(detail["actor"])
        elif entry.player_id in emails:
            who = emails[entry.player_id]
        elif entry.action == "move" and detail.get("source") in AUTOMATIC_SOURCES:
            who = _("scheduler")
        elif entry.action == "move":
            who = _("the player of seat %(number)d", number=int(detail.get("seat", 0)) + 1)
        else:
            who = _("system")
        described.append((entry, who))
    return described
