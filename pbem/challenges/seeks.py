"""Open seeks: a challenge any signed-in player may join; its game starts when the seats are full.

Two players may press "join" for the last seat at the same moment. The seek's row is locked
first (``FOR UPDATE`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite), so the second request sees
the seat taken; and should anything get past that, the unique (challenge, slot) makes the
database refuse the second row (:class:`SeatTaken`, the same answer).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from engine.text import Text
from pbem.challenges.rules import ChallengeRules, check_game_limit
from pbem.challenges.service import check_waiting, lock_challenge, people_of, start_if_ready
from pbem.challenges.tables import Challenge, ChallengeKind, ChallengePlayer, ChallengeStatus
from pbem.errors import ServiceError
from pbem.models import Player, SeatStatus
from pbem.services.common import Site, audit


class SeatTaken(ServiceError):
    """Someone else took the seek's last seat first."""


def join_seek(session: Session, now: datetime, site: Site, rules: ChallengeRules, *,
              challenge_id: int, player: Player) -> Challenge:
    """Take the next free seat of an open seek; the game starts when it was the last one."""
    assert player.id is not None
    row = lock_challenge(session, challenge_id)
    if row.kind != ChallengeKind.SEEK:
        raise ServiceError(Text("this challenge is not an open seek"))
    if row.status == ChallengeStatus.STARTED:
        raise SeatTaken(Text("every seat of this seek was taken: its game has started"))
    check_waiting(row, now)
    people = people_of(session, challenge_id)
    if any(p.player_id == player.id for p in people):
        raise ServiceError(Text("you have joined this seek already"))
    if len(people) >= row.seats:
        raise SeatTaken(Text("every seat of this seek was taken"))
    check_game_limit(session, rules, player)
    try:
        with session.begin_nested():  # a refused row must not undo the rest
            session.add(ChallengePlayer(challenge_id=challenge_id, player_id=player.id,
                                        slot=len(people), status=SeatStatus.ACCEPTED,
                                        answered_at=now))
            session.flush()
    except IntegrityError:
        raise SeatTaken(Text("someone else took that seat a moment before you")) from None
    audit(session, now, "seek joined", player_id=player.id, challenge=row.public_id)
    start_if_ready(session, now, site, row)
    return row


def open_seeks(session: Session, now: datetime, game_type: str = "") -> list[Challenge]:
    """Seeks still waiting for players, newest first; only ``game_type``'s when given."""
    query = select(Challenge).where(
        Challenge.kind == ChallengeKind.SEEK, Challenge.status == ChallengeStatus.OPEN,
        col(Challenge.expires_at) > now).order_by(col(Challenge.created_at).desc())
    if game_type:
        query = query.where(Challenge.game_type == game_type)
    return list(session.exec(query.limit(200)))
