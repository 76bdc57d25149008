"""The daily digest: one email at the hour a player chose, in their time zone, listing every game
that waits for them (a board thumbnail and the move link of each) and what happened since the
last digest (the emails their setting kept back).

The scheduler's sweep calls :func:`send_digests` every minute; a digest is due when the player's
local clock shows their hour or later and none went on that local day yet (``digest_day``). So it
goes once a local day whatever daylight saving time does: on the spring day that skips 02:00 a
digest chosen for 2 o'clock goes at 03:00, and on the autumn day that has 02:00 twice it goes
the first time. A day on which nothing waits and nothing happened sends nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime
from email.utils import make_msgid

from sqlmodel import Session, col, select

from pbem.clock.deadlines import clock_of
from pbem.db import Database
from pbem.i18n import Reader
from pbem.models import (
    GameRecord,
    GameStatus,
    MailStatus,
    OutboxEmail,
    OutboxImage,
    Player,
    Seat,
    SeatStatus,
)
from pbem.notifications.service import local_time
from pbem.notifications.tables import GameMute, Mode, NotificationSetting
from pbem.positions import current_state, last_notation
from pbem.services.common import Site, players_of, seats_of, shown_names
from pbem.services.notify import BoardRef, board_for, board_ref, title_of
from pbem.templating import render_email

log = logging.getLogger(__name__)
THUMBNAIL = 0.5  # of the size a turn email shows the board at
MAX_HAPPENED = 50  # lines of "what happened"; more are counted
# Withheld kinds the digest does not repeat under "what happened": it lists those games itself.
LISTED_ELSEWHERE = frozenset({"turn", "reminder", "invitation"})


@dataclass(frozen=True)
class Waiting:
    """A game that waits for the player: to move, or to answer an invitation."""

    game_id: int
    title: str
    url: str  # the move link, or the invitation's
    invitation: bool
    deadline: datetime | None
    board: BoardRef | None  # its ``width`` and ``height`` the thumbnail's
    image: str  # the board's name in the email's HTML (cid:...)


@dataclass(frozen=True)
class Happened:
    at: datetime
    subject: str


def is_due(setting: NotificationSetting, zone: str, now: datetime) -> bool:
    """Whether the player's digest is due at ``now``: their hour has come today, on their clock,
    and today's digest has not gone."""
    local = local_time(now, zone)
    return (setting.mode == Mode.DIGEST and local.hour >= setting.digest_hour
            and (setting.digest_day is None or setting.digest_day < local.date()))


def send_digests(database: Database, now: datetime, site: Site) -> int:
    """Write every digest due at ``now``, each player in a transaction of their own (one that
    fails is logged and tried again at the next sweep); how many were written."""
    with database.session() as session:
        candidates = [(setting.player_id, zone) for setting, zone in session.exec(
            select(NotificationSetting, Player.time_zone)
            .join(Player, col(Player.id) == col(NotificationSetting.player_id))
            .where(NotificationSetting.mode == Mode.DIGEST))
            if is_due(setting, zone, now)]
    written = 0
    for player_id, _zone in candidates:
        try:
            with database.write() as session:
                setting = session.get(NotificationSetting, player_id)
                player = session.get(Player, player_id)
                if setting is None or player is None or not is_due(setting, player.time_zone,
                                                                   now):
                    continue  # changed meanwhile
                written += write_digest(session, now, site, player, setting) is not None
        except Exception:  # one player's broken game must not stop everybody's digest
            log.exception("digest for player %s failed", player_id)
    return written


def write_digest(session: Session, now: datetime, site: Site, player: Player,
                 setting: NotificationSetting) -> OutboxEmail | None:
    """The player's digest into the outbox (None when nothing waits and nothing happened), and
    today marked as done."""
    assert player.id is not None
    reader = site.reader_for(player)
    since = setting.digest_at
    waiting = waiting_games(session, site, player, reader)
    happened = happened_since(session, player.id, since)
    setting.digest_day = local_time(now, player.time_zone).date()
    setting.digest_at = now
    session.add(setting)
    if (not waiting and not happened) or player.bot_level is not None:
        return None
    subject = reader.ngettext("Your daily digest: %(num)d game waits for you",
                              "Your daily digest: %(num)d games wait for you",
                              len(waiting), num=len(waiting))
    context = {"player": player, "subject": subject, "waiting": waiting,
               "happened": happened[:MAX_HAPPENED],
               "more": max(len(happened) - MAX_HAPPENED, 0), "since": since,
               "my_games_url": site.links.my_games_url(player.id)}
    email = OutboxEmail(
        player_id=player.id, kind="digest", to_address=player.email, to_name=player.name,
        subject=subject, text_body=render_email("email/digest.txt", reader, **context),
        html_body=render_email("email/digest.html", reader, **context),
        message_id=make_msgid(idstring="digest", domain=site.mail_domain),
        image_language=reader.language,  # no one-click unsubscribe: the digest was chosen
        next_attempt_at=now, created_at=now)
    session.add(email)
    session.flush()
    assert email.id is not None
    for game in waiting:
        if game.board is not None:
            session.add(OutboxImage(email_id=email.id, name=game.image,
                                    game_id=game.game_id, ply=game.board.ply,
                                    viewer=game.board.viewer, language=reader.language))
    return email


def waiting_games(session: Session, site: Site, player: Player, reader: Reader
                  ) -> list[Waiting]:
    """Every game waiting for ``player`` and not muted: their turn (most urgent first), then
    invitations to answer."""
    assert player.id is not None
    muted = set(session.exec(select(GameMute.game_id).where(GameMute.player_id == player.id)))
    rows = session.exec(
        select(GameRecord, Seat).join(Seat, col(Seat.game_id) == col(GameRecord.id))
        .where(Seat.player_id == player.id, col(GameRecord.id).not_in(muted or {-1}),
               col(GameRecord.status).in_((GameStatus.ACTIVE, GameStatus.INVITED)))
        .order_by(col(GameRecord.id))).all()
    turns: list[Waiting] = []
    invitations: list[Waiting] = []
    for row, seat in rows:
        assert row.id is not None
        if row.status == GameStatus.INVITED:
            if seat.status == SeatStatus.INVITED:
                invitations.append(_waiting(session, site, row, seat, reader, invitation=True))
        elif (row.to_move == seat.seat and not seat.resigned and not seat.forfeited
              and seat.stand_in is None):
            turns.append(_waiting(session, site, row, seat, reader, invitation=False))
    turns.sort(key=lambda game: (game.deadline is None, game.deadline or datetime.max))
    return turns + invitations


def _waiting(session: Session, site: Site, row: GameRecord, seat: Seat, reader: Reader, *,
             invitation: bool) -> Waiting:
    assert row.id is not None
    seats = seats_of(session, row.id)
    names = shown_names(seats, players_of(session, seats), reader)
    title = title_of(row, names, seat.seat, reader)
    links = site.links
    if invitation:
        return Waiting(row.id, title, links.invite_url(row.id, seat.seat, holder=seat.player_id),
                       True, None, None, "")
    game, state = current_state(row)
    board = board_for(session, row, board_ref(game, state, row.ply, seat.seat,
                                              last_notation(session, row.id)), reader)
    assert board.width is not None and board.height is not None
    thumbnail = replace(board, width=round(board.width * THUMBNAIL),
                        height=round(board.height * THUMBNAIL))
    return Waiting(row.id, title, links.move_url(row.id, seat.seat, row.ply, holder=seat.player_id),
                   False, clock_of(session, row.id).deadline, thumbnail, f"board-{row.id}")


def happened_since(session: Session, player_id: int, since: datetime | None) -> list[Happened]:
    """What the player's setting kept back since ``since``, oldest first, in the words of each
    email's subject (already in their language); not what the digest lists as waiting, nor news
    of games they muted."""
    muted = set(session.exec(select(GameMute.game_id).where(GameMute.player_id == player_id)))
    query = (select(OutboxEmail.created_at, OutboxEmail.subject, OutboxEmail.game_id)
             .where(OutboxEmail.player_id == player_id,
                    OutboxEmail.status == MailStatus.WITHHELD,
                    col(OutboxEmail.kind).not_in(LISTED_ELSEWHERE))
             .order_by(col(OutboxEmail.created_at), col(OutboxEmail.id)))
    if since is not None:
        query = query.where(col(OutboxEmail.created_at) > since)
    return [Happened(at, subject) for at, subject, game_id in session.exec(query)
            if game_id not in muted]
