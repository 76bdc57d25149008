"""Rematches: at a game's end every player's game-over email offers one (same players and
options, seats rotated); it starts when all of them have accepted.

The first player to accept makes the rematch (a challenge of kind "rematch", one per finished
game: ``rematch_of`` is unique) and the others get an offer by email whose link is their own
game-over link again; a computer player accepts at once.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlmodel import Session, select

from engine.text import Text
from pbem.challenges.rules import ChallengeRules, check_game_limit, mail_player
from pbem.challenges.service import (
    check_waiting,
    close,
    describe,
    people_of,
    players_by_id,
    rematch_url,
    start_if_ready,
)
from pbem.challenges.tables import (
    Challenge,
    ChallengeKind,
    ChallengePlayer,
    ChallengeStatus,
    SeatOrder,
)
from pbem.clock.deadlines import clock_of, time_control_of
from pbem.errors import ServiceError
from pbem.models import GameRecord, GameStatus, Player, Seat, SeatStatus
from pbem.services.common import Site, audit, lock_game, seats_of


def rematch_of(session: Session, game_id: int) -> Challenge | None:
    return session.exec(select(Challenge).where(Challenge.rematch_of == game_id)).first()


def answer_rematch(
    session: Session, now: datetime, site: Site, rules: ChallengeRules, *,
    game_id: int, seat: int, player_id: int, accept: bool = True,
) -> Challenge | None:
    """``seat``'s player says yes (making the rematch if nobody has) or no (closing it).
    Returns the rematch; None when a "no" came before anyone asked."""
    row = lock_game(session, game_id)  # two first answers at once: one makes it
    seats = seats_of(session, game_id)
    if row.status != GameStatus.FINISHED:
        raise ServiceError(Text("this game did not end by its rules, so it has no rematch"))
    if not any(s.seat == seat and s.player_id == player_id for s in seats):
        raise ServiceError(Text("this link was for a player who no longer plays this seat"))
    player = session.get(Player, player_id)
    assert player is not None
    challenge = rematch_of(session, game_id)
    if challenge is None:
        if not accept:
            return None
        check_game_limit(session, rules, player)
        challenge = _make(session, now, site, rules, row, seats, player)
        start_if_ready(session, now, site, challenge)
        return challenge
    check_waiting(challenge, now)
    assert challenge.id is not None
    mine = next((p for p in people_of(session, challenge.id) if p.player_id == player_id), None)
    if mine is None:  # the seat changed hands after the rematch was made
        raise ServiceError(Text("this link was for a player who no longer plays this seat"))
    if accept and mine.status == SeatStatus.ACCEPTED:
        return challenge
    if accept:
        check_game_limit(session, rules, player)
    mine.status = SeatStatus.ACCEPTED if accept else SeatStatus.DECLINED
    mine.answered_at = now
    session.add(mine)
    audit(session, now, "rematch " + mine.status, game_id=game_id, player_id=player_id)
    if accept:
        start_if_ready(session, now, site, challenge)
    else:
        close(session, now, site, challenge, ChallengeStatus.DECLINED, by=player)
    return challenge


def _make(session: Session, now: datetime, site: Site, rules: ChallengeRules, row: GameRecord,
          seats: list[Seat], asker: Player) -> Challenge:
    """The rematch challenge: seats rotated by one (the first player sits last), the asker's
    and computer players' answers yes, the others asked by email."""
    assert row.id is not None and asker.id is not None
    clock = clock_of(session, row.id)
    control = time_control_of(clock)
    players = players_by_id(session, [s.player_id for s in seats])
    rotated = seats[1:] + seats[:1]
    challenge = Challenge(
        public_id=secrets.token_urlsafe(12), creator_id=asker.id, game_type=row.game_type,
        options=row.options, seats=len(seats),
        time_control=str(control) if control is not None else rules.time_controls[0],
        timeout_policy=clock.timeout_policy, seat_order=SeatOrder.FIRST, rated=row.rated,
        listed=row.listed,
        kind=ChallengeKind.REMATCH, created_at=now,
        expires_at=now + timedelta(days=rules.days), rematch_of=row.id)
    session.add(challenge)
    session.flush()
    assert challenge.id is not None
    for slot, seat in enumerate(rotated):
        player = players[seat.player_id]
        yes = player.id == asker.id or player.bot_level is not None
        session.add(ChallengePlayer(challenge_id=challenge.id, player_id=seat.player_id,
                                    slot=slot, status=SeatStatus.ACCEPTED if yes
                                    else SeatStatus.INVITED, answered_at=now if yes else None))
    session.flush()
    audit(session, now, "rematch offered", game_id=row.id, player_id=asker.id,
          challenge=challenge.public_id)
    names = [players[s.player_id].name for s in rotated]
    for seat in seats:
        player = players[seat.player_id]
        if player.id == asker.id:
            continue
        mail_player(session, now, site, player, kind="rematch_offer",
                    subject=lambda reader: reader.gettext(
                        "%(name)s offers a rematch", name=asker.name),
                    asker=asker, rematch_url=rematch_url(site, row, seat), days=rules.days,
                    **describe(challenge, site.reader_for(player), names))
    return challenge
