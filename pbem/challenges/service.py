"""Players start their own games: challenges, open seeks and rematches (issue 19).

A challenge waits (status open) until every slot holds a player who said yes; then its game is
made with every seat accepted, so it starts at once and the usual turn emails follow. A "no"
closes it (it cannot start as planned), as do the creator's or an organiser's cancel and the
scheduler's sweep once ``expires_at`` has passed. Seeks are joined in
:mod:`pbem.challenges.seeks`, rematches asked for in :mod:`pbem.challenges.rematch`.

Every function here works in the caller's write transaction and locks the challenge's row first
(``FOR UPDATE`` on PostgreSQL; SQLite's writes are serial under ``BEGIN IMMEDIATE``), so two
answers at once are taken one after the other.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

import engine
from engine.text import Text
from pbem.challenges.rules import (
    ChallengeRules,
    challenge_url,
    check_challenge_limit,
    check_game_limit,
    mail_player,
    make_rematch_url,
)
from pbem.challenges.tables import (
    Challenge,
    ChallengeKind,
    ChallengePlayer,
    ChallengeStatus,
    SeatOrder,
)
from pbem.clock.controls import TimeControl, parse_time_control
from pbem.clock.deadlines import check_policy
from pbem.clock.wording import describe_control
from pbem.db import Database
from pbem.errors import ServiceError
from pbem.game_options import game_name, options_in_words
from pbem.i18n import Reader
from pbem.models import GameRecord, GameStatus, Player, Seat, SeatStatus
from pbem.services.common import Site, audit
from pbem.services.events import GameOverEmail
from pbem.services.games import create_game, options_for_players
from pbem.services.players import PlayerSpec, player_for

log = logging.getLogger(__name__)


def rematch_url(site: Site, row: GameRecord, seat: Seat) -> str | None:
    """The link in the game-over email that offers ``seat``'s player a rematch, if any: for a
    game that ended by its rules or a resignation (not an aborted one)."""
    if row.id is None or row.status != GameStatus.FINISHED:
        return None
    return make_rematch_url(site, row.id, seat.seat, seat.player_id)


def lock_challenge(session: Session, challenge_id: int) -> Challenge:
    row = session.exec(select(Challenge).where(Challenge.id == challenge_id)
                       .with_for_update()).one_or_none()
    if row is None:
        raise ServiceError(Text("there is no such challenge"))
    return row


def people_of(session: Session, challenge_id: int) -> list[ChallengePlayer]:
    """The challenge's players in slot order."""
    return list(session.exec(select(ChallengePlayer).where(
        ChallengePlayer.challenge_id == challenge_id).order_by(col(ChallengePlayer.slot))))


def players_by_id(session: Session, ids: Sequence[int]) -> dict[int, Player]:
    rows = session.exec(select(Player).where(col(Player.id).in_(list(ids))))
    return {p.id: p for p in rows if p.id is not None}


def check_waiting(row: Challenge, now: datetime) -> None:
    """Refuse to act on a challenge that no longer waits for answers."""
    if row.status == ChallengeStatus.OPEN and row.expires_at <= now:
        raise ServiceError(Text("this challenge has expired"))
    if row.status != ChallengeStatus.OPEN:
        closed: dict[str, Text] = {
            ChallengeStatus.STARTED: Text("this challenge has become a game already"),
            ChallengeStatus.DECLINED: Text("this challenge was declined"),
            ChallengeStatus.EXPIRED: Text("this challenge has expired"),
            ChallengeStatus.CANCELLED: Text("this challenge was cancelled"),
        }
        raise ServiceError(closed.get(row.status, Text("this challenge is closed")))


def describe(row: Challenge, reader: Reader, names: Sequence[str] = ()) -> dict[str, object]:
    """What an email or page says about a challenge, in ``reader``'s language: ``choices`` is
    its options as the form words them, ``rated`` whether the game will count for ratings."""
    return {"challenge": row, "game_name": game_name(row.game_type, reader),
            "options": row.options or {},
            "choices": options_in_words(row.game_type, row.options or {}, reader),
            "rated": row.rated, "listed": row.listed, "clock": describe_control(
                parse_time_control(row.time_control), reader), "names": list(names)}


# -- making one --------------------------------------------------------------------------------

def create_challenge(
    session: Session, now: datetime, site: Site, rules: ChallengeRules, *,
    creator: Player, game_type: str, options: Mapping[str, object], time_control: str,
    timeout_policy: str, seat_order: str = SeatOrder.FIRST,
    invitees: Sequence[PlayerSpec] = (), seek: bool = False, rated: bool = True,
    listed: bool = True,
) -> Challenge:
    """A challenge to ``invitees`` (by address, or computer players), or with ``seek`` an open
    seek for the seats the options make. Invitees get an email with accept and decline links;
    addresses new to the site become players unless sign-up is closed."""
    assert creator.id is not None
    rules.time_control(time_control)  # refuses anything the site did not approve
    policy = rules.policy(timeout_policy)
    if seat_order not in tuple(SeatOrder):
        raise ServiceError(Text("choose who sits first: %(choices)s",
                                choices=", ".join(tuple(SeatOrder))))
    # Before the seat count: a name listed twice is the mistake to name, not "2 seats, not 3".
    addresses = [spec.email.lower() for spec in invitees if spec.bot_level is None]
    if creator.email in addresses:
        raise ServiceError(Text("you are in the game already: invite the others"))
    twice = next((a for n, a in enumerate(addresses) if a in addresses[:n]), None)
    if twice is not None:
        raise ServiceError(Text("%(address)s is listed twice", address=twice))
    try:
        info = engine.game_class(game_type).info
        resolved = info.resolve(dict(options))
        if seek:
            if invitees:
                raise ServiceError(Text("an open seek invites nobody by name"))
            seats = engine.new_game(info.id, **resolved).num_players
        else:
            if not invitees:
                raise ServiceError(Text("invite at least one player, or make an open seek"))
            seats = len(invitees) + 1
            resolved = info.resolve(options_for_players(info, dict(resolved), seats))
    except (engine.UnknownGame, ValueError) as error:
        raise ServiceError(str(error)) from None
    if policy:
        check_policy(policy, info.id)
    check_challenge_limit(session, rules, creator)
    check_game_limit(session, rules, creator)
    people: list[Player] = []
    for spec in invitees:
        known = session.exec(select(Player).where(Player.email == spec.email.lower())).first()
        if known is None and spec.bot_level is None and rules.signup == "closed":
            raise ServiceError(Text("%(address)s does not play here, and this site takes no "
                                    "new players", address=spec.email))
        player = known or player_for(session, now, spec, default_language=site.default_language)
        check_game_limit(session, rules, player)
        people.append(player)
    row = Challenge(public_id=secrets.token_urlsafe(12), creator_id=creator.id,
                    game_type=info.id, options=resolved, seats=seats, time_control=time_control,
                    timeout_policy=policy, seat_order=seat_order,
                    # a computer player's game is never rated (create_game): say so from the start
                    rated=rated and not any(s.bot_level for s in invitees), listed=listed,
                    kind=ChallengeKind.SEEK if seek else ChallengeKind.INVITE,
                    created_at=now, expires_at=now + timedelta(days=rules.days))
    session.add(row)
    session.flush()
    assert row.id is not None
    session.add(ChallengePlayer(challenge_id=row.id, player_id=creator.id, slot=0,
                                status=SeatStatus.ACCEPTED, answered_at=now))
    for slot, player in enumerate(people, start=1):
        assert player.id is not None
        session.add(ChallengePlayer(
            challenge_id=row.id, player_id=player.id, slot=slot,
            status=SeatStatus.ACCEPTED if player.bot_level else SeatStatus.INVITED,
            answered_at=now if player.bot_level else None))
    session.flush()
    audit(session, now, "challenge created", player_id=creator.id, challenge=row.public_id,
          kind=row.kind, game_type=info.id, invitees=[p.id for p in people])
    names = [creator.name, *(p.name for p in people)]
    for player in people:
        assert player.id is not None
        url = challenge_url(site, row.id, player.id)
        mail_player(session, now, site, player, kind="challenge_invitation",
                    subject=lambda reader: reader.gettext(
                        "%(name)s challenges you to %(game)s", name=creator.name,
                        game=describe(row, reader)["game_name"]),
                    creator=creator, challenge_url=url, days=rules.days,
                    **{k: v for k, v in describe(row, site.reader_for(player), names).items()})
    start_if_ready(session, now, site, row)
    return row


# -- answers -----------------------------------------------------------------------------------

def answer_challenge(
    session: Session, now: datetime, site: Site, rules: ChallengeRules, *,
    challenge_id: int, player_id: int, accept: bool,
) -> Challenge:
    """An invitee's yes or no. Yes: the game starts once everyone has said it. No: the
    challenge closes, and those who said yes are told."""
    row = lock_challenge(session, challenge_id)
    check_waiting(row, now)
    mine = next((p for p in people_of(session, challenge_id) if p.player_id == player_id), None)
    if mine is None:
        raise ServiceError(Text("you are not invited to this challenge"))
    player = session.get(Player, player_id)
    assert player is not None
    if mine.status == SeatStatus.ACCEPTED and accept:
        return row  # a second press of the button
    if accept:
        check_game_limit(session, rules, player)
    mine.status = SeatStatus.ACCEPTED if accept else SeatStatus.DECLINED
    mine.answered_at = now
    session.add(mine)
    audit(session, now, "challenge " + mine.status, player_id=player_id,
          challenge=row.public_id)
    if accept:
        start_if_ready(session, now, site, row)
    else:
        close(session, now, site, row, ChallengeStatus.DECLINED, by=player)
    return row


def start_if_ready(session: Session, now: datetime, site: Site, row: Challenge,
                   rng: random.Random | None = None) -> GameRecord | None:
    """Make the game when every slot holds a player who said yes; None while waiting."""
    assert row.id is not None
    people = people_of(session, row.id)
    if len(people) < row.seats or any(p.status != SeatStatus.ACCEPTED for p in people):
        return None
    players = players_by_id(session, [p.player_id for p in people])
    order = [players[p.player_id] for p in people]  # the creator first (slot 0)
    if row.seat_order == SeatOrder.SECOND and len(order) > 1:
        order[0], order[1] = order[1], order[0]
    elif row.seat_order == SeatOrder.RANDOM:
        (rng or random.Random(secrets.randbits(64))).shuffle(order)
    specs = [PlayerSpec(p.name, p.email, bot_level=p.bot_level) for p in order]
    game = create_game(session, now, site, game_type=row.game_type, options=row.options,
                       players=specs, time_control=_clock(row.time_control),
                       timeout_policy=row.timeout_policy or None, rated=row.rated,
                       listed=row.listed, accepted=[p.email for p in order])
    row.status = ChallengeStatus.STARTED
    row.game_id = game.id
    row.closed_at = now
    session.add(row)
    audit(session, now, "challenge started", game_id=game.id, challenge=row.public_id)
    return game


def _clock(text: str) -> TimeControl:
    return parse_time_control(text)


def close(session: Session, now: datetime, site: Site, row: Challenge, status: ChallengeStatus, *,
          by: Player | None) -> None:
    """Close ``row`` (declined, expired or cancelled) and tell everyone in it but ``by``."""
    assert row.id is not None
    row.status = status
    row.closed_at = now
    session.add(row)
    people = people_of(session, row.id)
    players = players_by_id(session, [p.player_id for p in people])
    creator = players.get(row.creator_id) or session.get(Player, row.creator_id)
    assert creator is not None
    for person in people:
        player = players[person.player_id]
        if (by is not None and player.id == by.id) or person.status == SeatStatus.DECLINED:
            continue
        if status == ChallengeStatus.EXPIRED and player.id != row.creator_id:
            continue  # only its creator waited for it
        mail_player(session, now, site, player, kind="challenge_closed",
                    subject=lambda reader: {
                        ChallengeStatus.DECLINED: reader.gettext("Rematch declined")
                        if row.kind == ChallengeKind.REMATCH
                        else reader.gettext("Challenge declined"),
                        ChallengeStatus.EXPIRED: reader.gettext("Challenge expired"),
                    }.get(status, reader.gettext("Challenge cancelled")),
                    status=status, by_name=by.name if by is not None else "",
                    creator=creator, **describe(row, site.reader_for(player)))


def cancel_challenge(session: Session, now: datetime, site: Site, *, challenge_id: int,
                     player_id: int | None, admin: str = "") -> Challenge:
    """Cancel a challenge: by its creator (``player_id``), or by an organiser (``player_id``
    None, ``admin`` their address for the audit log). The others in it are told."""
    row = lock_challenge(session, challenge_id)
    if player_id is not None and row.creator_id != player_id:
        raise ServiceError(Text("only the player who made this challenge can cancel it"))
    if row.status != ChallengeStatus.OPEN:
        check_waiting(row, now)
    by = session.get(Player, player_id) if player_id is not None else None
    close(session, now, site, row, ChallengeStatus.CANCELLED, by=by)
    audit(session, now, "challenge cancelled", player_id=player_id, challenge=row.public_id,
          admin=admin)
    return row


# -- the sweep ---------------------------------------------------------------------------------

def expire_challenges(session: Session, now: datetime, site: Site) -> int:
    """Close every open challenge whose time is up; its creator is told. Returns how many."""
    due = session.exec(select(Challenge).where(
        Challenge.status == ChallengeStatus.OPEN, col(Challenge.expires_at) <= now)
        .with_for_update()).all()
    for row in due:
        close(session, now, site, row, ChallengeStatus.EXPIRED, by=None)
        audit(session, now, "challenge expired", challenge=row.public_id)
    return len(due)


def expire_stale(database: Database, now: datetime, site: Site) -> int:
    """The scheduler's sweep: expire what is due in one short transaction. A failure is logged
    and left for the next sweep (it must never stop the games' clocks)."""
    try:
        with database.write() as session:
            return expire_challenges(session, now, site)
    except Exception:
        log.exception("sweep: expiring challenges failed")
        return 0


def rematch_link(event: GameOverEmail) -> dict[str, str | None]:
    """Subscribed to :class:`~pbem.services.events.GameOverEmail`: the rematch button."""
    return {"rematch_url": rematch_url(event.site, event.row, event.seat)}
