"""A game's life outside its moves: creation and invitations, start, abort."""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

import engine
from engine.text import N_, Text
from pbem.clock.controls import PerMove, TimeControl
from pbem.clock.deadlines import check_policy, clock_columns, start_turn
from pbem.clock.tables import GameClock
from pbem.i18n import Reader
from pbem.models import GameRecord, GameStatus, Seat, SeatStatus
from pbem.positions import current_state, last_notation
from pbem.services.common import (
    GameNotActive,
    ServiceError,
    Site,
    audit,
    end_game,
    lock_game,
    players_of,
    seats_of,
    shown_names,
)
from pbem.services.moves import Position
from pbem.services.notify import board_ref, enqueue, game_context, subject_line, title_of
from pbem.services.players import PlayerSpec, player_for
from pbem.services.timeouts import alert_organiser
from pbem.services.turns import play_moves


def options_for_players(
    info: engine.GameInfo, options: dict[str, object], count: int
) -> dict[str, object]:
    """Options for ``count`` seats: when the count is not met, try the values of options left unset.

    Games choose their number of seats through an option (its name is the game's business), so
    this asks the engine rather than knowing any option by name.
    """
    if engine.new_game(info.id, **options).num_players == count:
        return options
    for option in info.options:
        if option.name in options:
            continue
        for choice in option.choices:
            trial = {**options, option.name: choice}
            if engine.new_game(info.id, **trial).num_players == count:
                return trial
    seats = engine.new_game(info.id, **options).num_players
    raise ServiceError(Text("%(game)s with these options has %(seats)d seats, not %(count)d",
                            game=info.name, seats=seats, count=count))


def create_game(
    session: Session,
    now: datetime,
    site: Site,
    *,
    game_type: str,
    players: Sequence[PlayerSpec],
    options: Mapping[str, object] | None = None,
    random_seats: bool = False,
    per_move: timedelta | None = None,
    organiser: PlayerSpec | None = None,
    rng: random.Random | None = None,
    time_control: TimeControl | None = None,
    timeout_policy: str | None = None,
    reminders: Sequence[timedelta] | None = None,
    vacations_allowed: bool = True,
    accepted: Collection[str] = (),
    rated: bool = False,
    listed: bool = True,
    quiet_start: bool = False,
    watching: Collection[str] = (),
) -> GameRecord:
    """Make a game and invite its players (seat order as given, or shuffled).

    The clock: ``time_control`` (default 3 days per move; ``per_move`` is the short form of a
    :class:`~pbem.clock.controls.PerMove`), what happens when it runs out (``timeout_policy``,
    one of :data:`~pbem.clock.deadlines.POLICIES`; None: the game's default), reminders before each
    deadline (default 24 h and 2 h), and whether players' absences stop it. Players whose
    addresses are in ``accepted`` asked for the game themselves: their seats start accepted.
    A ``rated`` game counts for its players' ratings (:mod:`pbem.ratings.service`); a game with
    a computer player never does, so it is made unrated whatever was asked (the dashboard and
    the command line refuse to ask). ``quiet_start``: a game that starts at once (everyone
    accepted) is announced by the caller (a tournament's round email lists each player's new
    games), so its start writes no email. The players whose addresses are in ``watching`` are
    on the game's page as it starts (they started it on the web): their first turn is mailed
    only if they leave it (:func:`pbem.services.turn_mail.hold_turn_email`).
    """
    if time_control is not None and per_move is not None:
        raise ServiceError(Text("give either a time per move or a time control, not both"))
    if per_move is not None:
        if per_move <= timedelta(0):
            raise ServiceError(Text("the time per move must be longer than zero"))
        time_control = PerMove(per_move)
    try:
        info = engine.game_class(game_type).info
        resolved = info.resolve(options_for_players(info, dict(options or {}), len(players)))
    except engine.UnknownGame as error:
        raise ServiceError(str(error)) from None
    people = [p for p in players if p.bot_level is None]  # one bot may play several seats
    if len({p.email.lower() for p in people}) != len(people):
        raise ServiceError(Text("each player needs their own email address"))
    order = list(players)
    if random_seats:
        (rng or random.Random(secrets.randbits(64))).shuffle(order)
    game = engine.new_game(info.id, **resolved)
    seed = secrets.token_hex(16)
    start = game.encode(game.start(seed))
    settings = {"timeout_policy": check_policy(timeout_policy, info.id),
                **clock_columns(time_control, reminders, vacations_allowed)}
    row = GameRecord(
        public_id=secrets.token_urlsafe(12),
        game_type=info.id,
        options=resolved,
        state=start,
        start_state=start,
        seed=seed,
        seed_commitment=hashlib.sha256(seed.encode()).hexdigest(),
        organiser_id=player_for(session, now, organiser, default_language=site.default_language).id
        if organiser else None,
        created_at=now,
        rated=rated and not any(p.bot_level for p in players),
        listed=listed,  # False: left out of the public archive and profiles
    )
    session.add(row)
    session.flush()
    assert row.id is not None
    clock = GameClock(game_id=row.id, **settings)
    session.add(clock)
    seats = []
    watched = {address.lower() for address in watching}
    for number, spec in enumerate(order):
        player = player_for(session, now, spec, default_language=site.default_language)
        assert player.id is not None
        # A bot accepts at once; the game starts when the people have accepted.
        said_yes = player.bot_level or player.email in {a.lower() for a in accepted}
        status = SeatStatus.ACCEPTED if said_yes else SeatStatus.INVITED
        seats.append(Seat(game_id=row.id, seat=number, player_id=player.id, status=status,
                          page_viewed_at=now if player.email in watched else None))
    session.add_all(seats)
    session.flush()
    audit(session, now, "game created", game_id=row.id, game_type=info.id, options=resolved,
          time_control=clock.time_control, timeout_policy=clock.timeout_policy,
          vacations_allowed=clock.vacations_allowed, rated=row.rated)
    # Bots get no invitation (notify.enqueue), nor do players who asked for the game.
    _invite(session, now, site, row, seats)
    if all(s.status == SeatStatus.ACCEPTED for s in seats):  # only bots: nobody to wait for
        return start_game(session, now, site, game_id=row.id, quiet=quiet_start)
    return row


def _invite(session: Session, now: datetime, site: Site, row: GameRecord,
            seats: list[Seat]) -> None:
    game, state = current_state(row)
    players = players_of(session, seats)
    for seat in seats:
        assert row.id is not None
        if seat.status == SeatStatus.ACCEPTED:  # asked for the game: nothing to ask them
            continue
        invite_url = site.links.invite_url(row.id, seat.seat, holder=seat.player_id)

        def context(reader: Reader, seat: Seat = seat, invite_url: str = invite_url
                    ) -> dict[str, object]:
            return {**game_context(row, game, state, seats, players, reader), "seat": seat,
                    "welcome": False, "invite_url": invite_url}

        def subject(reader: Reader, number: int = seat.seat) -> str:
            return subject_line(reader.gettext("Invitation:"),
                                title_of(row, shown_names(seats, players, reader), number, reader))

        enqueue(session, now, site, row=row, seat=seat, player=players[seat.player_id],
                kind="invitation", subject=subject, context=context)


def respond_to_invitation(
    session: Session, now: datetime, site: Site, *, game_id: int, seat: int, accept: bool
) -> GameRecord:
    """Record a yes or no; the game starts once every seat has said yes."""
    row = lock_game(session, game_id)
    if row.status != GameStatus.INVITED:
        raise GameNotActive(Text("this game is no longer waiting for answers"))
    seats = seats_of(session, game_id)
    mine = seats[seat]
    mine.status = SeatStatus.ACCEPTED if accept else SeatStatus.DECLINED
    session.add(mine)
    audit(session, now, "invitation " + mine.status, game_id=game_id, player_id=mine.player_id)
    if accept and all(s.status == SeatStatus.ACCEPTED for s in seats):
        return start_game(session, now, site, game_id=game_id)
    if not accept:
        with session.no_autoflush:
            decliner = players_of(session, [mine])[mine.player_id].name
        _notice_all(session, now, site, row, "declined", {"decliner_name": decliner},
                    skip=frozenset({seat}))
        _tell_organiser_of_decline(session, now, site, row, decliner)
    return row


def _tell_organiser_of_decline(session: Session, now: datetime, site: Site, row: GameRecord,
                               decliner: str) -> None:
    """The organiser decides what happens to a declined game; these are the dashboard's
    actions for a game still waiting for answers (pbem.admin.game_actions), nothing more."""
    alert_organiser(
        session, now, site, row,
        lambda reader: reader.gettext(
            "%(player)s declined the invitation, so the game cannot start as planned. From the "
            "dashboard you can replace the player (the new player gets an invitation for that "
            "seat) or abort the game (everyone is told).", player=decliner),
        event="declined",
        headline=lambda reader: reader.gettext("%(player)s declined:", player=decliner))


def start_game(
    session: Session, now: datetime, site: Site, *, game_id: int, force: bool = False,
    quiet: bool = False,
) -> GameRecord:
    """Start the game: everyone accepted, or the organiser starts it anyway (``force``).
    ``quiet``: the caller tells the players of the start itself (no email from here)."""
    row = lock_game(session, game_id)
    if row.status != GameStatus.INVITED:
        raise GameNotActive(Text("this game has already started or ended"))
    seats = seats_of(session, game_id)
    if not force and any(s.status != SeatStatus.ACCEPTED for s in seats):
        raise ServiceError(Text("not every player has accepted yet"))
    game, state = current_state(row)
    row.status = GameStatus.ACTIVE
    row.started_at = now
    row.to_move = game.to_move(state)
    start_turn(session, row, now)
    session.add(row)
    audit(session, now, "game started", game_id=game_id, forced=force)
    position = Position(game, state)
    # The first seat may only be able to pass; the first turn is the one after such moves.
    # Its email (pbem.services.turn_mail) says the game has started: the first player gets
    # no other, nor does a person playing the computer (their turn comes within seconds).
    play_moves(session, now, site, row, position=position, opening=True, quiet=quiet)
    if not quiet:
        players = players_of(session, seats)
        people = [s.seat for s in seats if players[s.player_id].bot_level is None]
        told = {row.to_move, *(people if len(people) == 1 else ())}
        _notice_all(session, now, site, row, "started", {},
                    skip=frozenset(s for s in told if s is not None))
    return row


def abort_game(
    session: Session, now: datetime, site: Site, *, game_id: int, reason: str = ""
) -> GameRecord:
    row = lock_game(session, game_id)
    if row.status in (GameStatus.FINISHED, GameStatus.ABORTED):
        raise GameNotActive(Text("this game is already over"))
    end_game(session, row, now, result=f"Aborted by the organiser. {reason}".strip(),
             status=GameStatus.ABORTED)
    session.add(row)
    audit(session, now, "game aborted", game_id=game_id, reason=reason)
    _notice_all(session, now, site, row, "aborted", {"reason": reason})
    return row


def _notice_all(
    session: Session, now: datetime, site: Site, row: GameRecord, event: str,
    extra: dict[str, object], *, skip: frozenset[int] = frozenset(),
) -> None:
    """A short essential notice to every seat not in ``skip`` (game started, declined, aborted)."""
    assert row.id is not None
    seats = seats_of(session, row.id)
    game, state = current_state(row)
    players = players_of(session, seats)
    names = [players[s.player_id].name for s in seats]
    english = game_context(row, game, state, seats, players)
    # The last move is a forced pass the start played, if any: the picture marks it.
    board = (board_ref(game, state, row.ply, None, last_notation(session, row.id),
                       english["labels"], player_names=names)
             if event == "started" else None)
    headline = {"started": N_("Game started:"), "aborted": N_("Game aborted:"),
                "declined": N_("%(player)s declined:")}[event]

    def context(reader: Reader, seat: Seat) -> dict[str, object]:
        return {**game_context(row, game, state, seats, players, reader), **extra,
                "seat": seat, "event": event}

    for seat in seats:
        if seat.seat not in skip:
            def subject(reader: Reader, number: int = seat.seat) -> str:
                return subject_line(
                    reader.gettext(headline, player=str(extra.get("decliner_name", ""))),
                    title_of(row, shown_names(seats, players, reader), number, reader))

            def seat_context(reader: Reader, seat: Seat = seat) -> dict[str, Any]:
                return context(reader, seat)

            enqueue(session, now, site, row=row, seat=seat, player=players[seat.player_id],
                    kind="notice", board=board, subject=subject, context=seat_context)
