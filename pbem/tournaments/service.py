"""Tournaments in the service: their games, rounds, withdrawals and standings (issue 20).

A tournament is made by an organiser (:func:`create_tournament`, which tells every player they
are in) and started by them (:func:`start_tournament`). It makes and starts its games itself;
the players have said yes by entering, so nobody is asked to accept a game:

- a round robin (single or double) makes every round's games at the start, seats balanced;
- a Swiss tournament, and one of multi-player tables (Rifugio), makes one round at a time: the
  next round is paired when the last game of the round ends (:func:`tournament_game_ended`,
  called in the transaction that ends the game) or when the organiser closes the round
  (:func:`close_round`; the games still running then go on and count when they end).

A player who withdraws (:func:`withdraw_player`) resigns every game of theirs still running (a
forfeit: the others win it) and is left out of later rounds; the games they played keep counting.
Every function runs in the caller's transaction, one per action (``Database.write()``). Locks are
taken games first, then the tournament, the order of a move that ends a game: two actions may
wait for each other but never deadlock, and the second sees what the first wrote.
docs/tournaments.md explains the rules to organisers.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from datetime import datetime

from sqlmodel import Session, col, select

import engine
from engine.text import Text
from pbem.clock.controls import TimeControl, time_control_from_dict
from pbem.clock.deadlines import check_policy
from pbem.models import GameRecord, GameStatus, Player, Seat
from pbem.services.common import ServiceError, Site, audit, lock_game
from pbem.services.events import GameFinished
from pbem.services.games import abort_game, create_game
from pbem.services.players import PlayerSpec, player_for
from pbem.services.resignation import resign
from pbem.tournaments.mail import send_rounds, send_standings, send_welcome, send_withdrawn
from pbem.tournaments.pairing import PairingImpossible, Round, round_robin, swiss_round, table_round
from pbem.tournaments.pairing import table_sizes as table_sizes_for
from pbem.tournaments.queries import (
    all_byes,
    entries_of,
    games_of,
    games_running,
    pairs_played,
    seat_balance,
    table_of,
)
from pbem.tournaments.tables import (
    Tournament,
    TournamentEntry,
    TournamentFormat,
    TournamentGame,
    TournamentStatus,
)

MAX_NAME = 100
MAX_ROUNDS = 50
SMALLEST_TABLE = 3  # a multi-player table has at least three players (pairing.table_sizes)
ROUND_ROBINS = (TournamentFormat.ROUND_ROBIN, TournamentFormat.DOUBLE_ROUND_ROBIN)


def seat_count_options(info: engine.GameInfo) -> set[str]:
    """The options that decide how many seats a game has (their names are the game's business,
    so ask the engine): each table's game gets the value for its own number of players."""
    base = info.resolve({})
    return {o.name for o in info.options
            if len({engine.new_game(info.id, **{**base, o.name: c}).num_players
                    for c in o.choices}) > 1}


def _check_shape(info: engine.GameInfo, fmt: str, count: int, rounds: int,
                 table_size: int) -> int:
    """The number of rounds, or a ServiceError saying what does not fit."""
    if fmt not in tuple(TournamentFormat):
        raise ServiceError(Text("choose one of %(choices)s",
                                choices=", ".join(tuple(TournamentFormat))))
    if table_size == 2:
        if not info.min_players <= 2 <= info.max_players:
            raise ServiceError(Text("%(game)s is not played by two: choose a table size of "
                                    "%(min)d to %(max)d", game=info.name,
                                    min=max(info.min_players, SMALLEST_TABLE),
                                    max=info.max_players))
        if count < 2:
            raise ServiceError(Text("a tournament needs at least two players"))
        if fmt in ROUND_ROBINS:
            return len(round_robin(list(range(count)), double=fmt != TournamentFormat.ROUND_ROBIN))
        if not 1 <= rounds <= count - 1:
            raise ServiceError(Text("with %(count)d players a Swiss tournament has 1 to %(most)d "
                                    "rounds (nobody meets anyone twice)", count=count,
                                    most=count - 1))
        return rounds
    if info.max_players < SMALLEST_TABLE:
        raise ServiceError(Text("%(game)s is played by two: the table size must be 2",
                                game=info.name))
    if not SMALLEST_TABLE <= table_size <= info.max_players:
        raise ServiceError(Text("the table size must be 2, or %(min)d to %(max)d for tables of "
                                "several players", min=SMALLEST_TABLE, max=info.max_players))
    if fmt != TournamentFormat.SWISS:
        raise ServiceError(Text("tables of more than two players play Swiss rounds: choose the "
                                "Swiss format"))
    try:
        table_sizes_for(count, SMALLEST_TABLE, table_size)
    except PairingImpossible:
        raise ServiceError(Text("%(count)d players cannot sit at tables of %(min)d to %(max)d",
                                count=count, min=SMALLEST_TABLE, max=table_size)) from None
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ServiceError(Text("choose 1 to %(most)d rounds", most=MAX_ROUNDS))
    return rounds


def create_tournament(
    session: Session, now: datetime, site: Site, *, name: str, game_type: str,
    players: Sequence[PlayerSpec], fmt: str, options: Mapping[str, object] | None = None,
    rounds: int = 0, table_size: int = 2, time_control: TimeControl | None = None,
    timeout_policy: str | None = None, listed: bool = True, rated: bool = False,
    created_by: str = "", language: str | None = None,
) -> Tournament:
    """Make the tournament and its entries (players new to pbem are made, in ``language``),
    and tell each player they are in. No game yet: :func:`start_tournament` makes them."""
    name = " ".join(name.split())
    if not 1 <= len(name) <= MAX_NAME:
        raise ServiceError(Text("give the tournament a name of 1 to %(most)d characters",
                                most=MAX_NAME))
    try:
        info = engine.game_class(game_type).info
        resolved = info.resolve(dict(options or {}))
    except engine.UnknownGame as error:
        raise ServiceError(str(error)) from None
    if any(p.bot_level for p in players):
        raise ServiceError(Text("tournaments are for people: computer players cannot enter"))
    if len({p.email.lower() for p in players}) != len(players):
        raise ServiceError(Text("each player needs their own email address"))
    rounds = _check_shape(info, fmt, len(players), rounds, table_size)
    seat_options = seat_count_options(info)
    tournament = Tournament(
        slug=secrets.token_urlsafe(12), name=name, game_type=info.id,
        options={k: v for k, v in resolved.items() if k not in seat_options},
        time_control=time_control.to_dict() if time_control else None,
        timeout_policy=check_policy(timeout_policy, info.id), format=fmt, rounds=rounds,
        table_size=table_size, listed=listed, rated=rated, byes={}, created_by=created_by,
        created_at=now)
    session.add(tournament)
    session.flush()
    assert tournament.id is not None
    for position, spec in enumerate(players):
        player = player_for(session, now, spec,
                            default_language=language or site.default_language)
        assert player.id is not None
        session.add(TournamentEntry(tournament_id=tournament.id, player_id=player.id,
                                    position=position, joined_at=now))
    session.flush()
    audit(session, now, "tournament created", tournament_id=tournament.id, actor=created_by,
          game_type=info.id, format=fmt, rounds=rounds, table_size=table_size,
          players=len(players), rated=rated, listed=listed)
    send_welcome(session, now, site, tournament)
    return tournament


def lock_tournament(session: Session, tournament_id: int) -> Tournament:
    """The tournament row, locked for this transaction on PostgreSQL (SQLite: BEGIN IMMEDIATE)."""
    tournament = session.exec(select(Tournament).where(Tournament.id == tournament_id)
                              .with_for_update()).one_or_none()
    if tournament is None:
        raise ServiceError(Text("there is no such tournament"))
    return tournament


def start_tournament(session: Session, now: datetime, site: Site, *, tournament_id: int,
                     actor: str = "") -> Tournament:
    """Make and start the games: every round of a round robin, or a Swiss tournament's first."""
    tournament = lock_tournament(session, tournament_id)
    if tournament.status != TournamentStatus.PENDING:
        raise ServiceError(Text("this tournament has already started or ended"))
    active = [e.player_id for e in entries_of(session, tournament_id) if e.withdrawn_at is None]
    info = engine.game_class(tournament.game_type).info
    # Withdrawals before the start may have changed what fits: check again with who is left.
    rounds = _check_shape(info, tournament.format, len(active), tournament.rounds,
                          tournament.table_size)
    tournament.status, tournament.started_at, tournament.rounds = (
        TournamentStatus.RUNNING, now, rounds)
    session.add(tournament)
    audit(session, now, "tournament started", tournament_id=tournament_id, actor=actor)
    if tournament.format in ROUND_ROBINS:
        schedule = round_robin(active, double=tournament.format != TournamentFormat.ROUND_ROBIN)
        for number, paired in enumerate(schedule, start=1):
            _make_round(session, now, site, tournament, number, paired)
        send_rounds(session, now, site, tournament, list(range(1, len(schedule) + 1)))
    else:
        _pair_next(session, now, site, tournament)
    return tournament


def _make_round(session: Session, now: datetime, site: Site, tournament: Tournament,
                number: int, paired: Round) -> None:
    """Create and start round ``number``'s games (everyone has accepted by entering)."""
    assert tournament.id is not None
    ids = [p for table in paired.tables for p in table]
    players = {p.id: p for p in session.exec(select(Player).where(col(Player.id).in_(ids)))}
    control = time_control_from_dict(tournament.time_control) if tournament.time_control else None
    for table_number, table in enumerate(paired.tables):
        specs = [PlayerSpec(players[p].name, players[p].email) for p in table]
        row = create_game(session, now, site, game_type=tournament.game_type, players=specs,
                          options=tournament.options, time_control=control,
                          timeout_policy=tournament.timeout_policy,
                          accepted=[s.email for s in specs], rated=tournament.rated,
                          quiet_start=True)  # the round's email lists each player's games
        assert row.id is not None
        session.add(TournamentGame(tournament_id=tournament.id, game_id=row.id, round=number,
                                   table=table_number))
    if paired.bye is not None:
        # A new dict, so that the JSON column is seen to change.
        tournament.byes = {**(tournament.byes or {}), str(number): [paired.bye]}
    tournament.current_round = max(tournament.current_round, number)
    session.add(tournament)
    session.flush()


def _pair_next(session: Session, now: datetime, site: Site, tournament: Tournament) -> None:
    """Pair and start the next Swiss round (or the next round of tables) from the standings,
    or end the tournament when no round is left or none can be paired."""
    assert tournament.id is not None
    if tournament.current_round >= tournament.rounds:
        _finish_if_over(session, now, site, tournament)
        return
    entries = entries_of(session, tournament.id)
    games = games_of(session, tournament.id)
    active = {e.player_id for e in entries if e.withdrawn_at is None}
    table = table_of(session, tournament, entries, games)
    ranking = [s.player for s in table if s.player in active]
    number = tournament.current_round + 1
    try:
        if tournament.table_size == 2:
            if len(ranking) < 2:
                raise PairingImpossible("fewer than two players left")
            paired = swiss_round(ranking, scores={s.player: s.points for s in table},
                                 played=set(pairs_played(games)), byes=all_byes(tournament),
                                 balance=seat_balance(games))
        else:
            paired = table_round(ranking, met=pairs_played(games), smallest=SMALLEST_TABLE,
                                 largest=tournament.table_size, round_number=number - 1)
    except PairingImpossible as why:
        # Too few players left (withdrawals) to pair another round: the tournament ends early.
        audit(session, now, "tournament ends early", tournament_id=tournament.id,
              round=number, reason=str(why))
        tournament.rounds = tournament.current_round
        session.add(tournament)
        _finish_if_over(session, now, site, tournament)
        return
    _make_round(session, now, site, tournament, number, paired)
    audit(session, now, "tournament round paired", tournament_id=tournament.id, round=number)
    send_rounds(session, now, site, tournament, [number])


def _finish_if_over(session: Session, now: datetime, site: Site, tournament: Tournament) -> None:
    """Finished once the last round is made and every game has ended; the standings are mailed."""
    assert tournament.id is not None
    if tournament.current_round < tournament.rounds:
        return
    if games_running(session, tournament.id):
        return
    tournament.status, tournament.finished_at = TournamentStatus.FINISHED, now
    session.add(tournament)
    audit(session, now, "tournament finished", tournament_id=tournament.id)
    send_standings(session, now, site, tournament)


def tournament_game_ended(session: Session, now: datetime, site: Site, row: GameRecord) -> None:
    """Called in the transaction that ends ``row``: a tournament game's end may finish its round
    (the next Swiss round is paired) or the tournament (the final standings are mailed)."""
    link = session.exec(select(TournamentGame).where(TournamentGame.game_id == row.id)
                        ).one_or_none()
    if link is None:
        return
    session.flush()  # the game's end, for the queries below
    tournament = lock_tournament(session, link.tournament_id)
    if tournament.status != TournamentStatus.RUNNING:
        return
    if tournament.format in ROUND_ROBINS:
        _finish_if_over(session, now, site, tournament)
        return
    if not games_running(session, link.tournament_id, tournament.current_round):
        _pair_next(session, now, site, tournament)
    else:
        _finish_if_over(session, now, site, tournament)


def close_round(session: Session, now: datetime, site: Site, *, tournament_id: int,
                round_number: int, actor: str) -> Tournament:
    """The organiser pairs the next Swiss round now: the current round's games still running go
    on (their players have two games at once) and count when they end; the pairing treats those
    players as having met. The last round cannot be closed: it ends with its games.
    ``round_number`` is the round the organiser saw: a form sent twice must not close the next."""
    tournament = lock_tournament(session, tournament_id)
    if tournament.status != TournamentStatus.RUNNING or tournament.format in ROUND_ROBINS:
        raise ServiceError(Text("only a running Swiss tournament has rounds to close"))
    if round_number != tournament.current_round:
        raise ServiceError(Text("Round %(round)d is closed already.", round=round_number))
    if tournament.current_round >= tournament.rounds:
        raise ServiceError(Text("this is the last round: the tournament ends when its games "
                                "end (an organiser can adjudicate a game from its page)"))
    audit(session, now, "tournament round closed", tournament_id=tournament_id, actor=actor,
          round=tournament.current_round)
    _pair_next(session, now, site, tournament)
    return tournament


def _running_games_of(session: Session, tournament_id: int,
                      player_id: int | None = None) -> list[tuple[GameRecord, list[Seat]]]:
    """The tournament's games not yet over (of ``player_id`` only, when given), each locked,
    in id order so that two actions lock them in the same order."""
    query = (select(TournamentGame.game_id)
             .join(GameRecord, col(GameRecord.id) == col(TournamentGame.game_id))
             .where(TournamentGame.tournament_id == tournament_id,
                    col(GameRecord.status).in_((GameStatus.ACTIVE, GameStatus.INVITED))))
    if player_id is not None:
        query = query.join(Seat, col(Seat.game_id) == col(TournamentGame.game_id)).where(
            Seat.player_id == player_id)
    found = []
    for game_id in sorted(set(session.exec(query))):
        row = lock_game(session, game_id)
        if row.status not in (GameStatus.ACTIVE, GameStatus.INVITED):
            continue  # it ended while we waited for its lock
        seats = list(session.exec(select(Seat).where(Seat.game_id == game_id)
                                  .order_by(col(Seat.seat))))
        found.append((row, seats))
    return found


def withdraw_player(session: Session, now: datetime, site: Site, *, tournament_id: int,
                    player_id: int, actor: str) -> Tournament:
    """The player leaves: each of their games still running is forfeited (they resign it, the
    others win; rated games count as any resignation), and later rounds are paired without them.
    Their finished games keep counting, so their opponents' points and tie-breaks stay right."""
    running = _running_games_of(session, tournament_id, player_id)
    tournament = lock_tournament(session, tournament_id)
    if tournament.status not in (TournamentStatus.PENDING, TournamentStatus.RUNNING):
        raise ServiceError(Text("this tournament is over"))
    entry = session.exec(select(TournamentEntry).where(
        TournamentEntry.tournament_id == tournament_id,
        TournamentEntry.player_id == player_id)).one_or_none()
    if entry is None:
        raise ServiceError(Text("that player is not in this tournament"))
    if entry.withdrawn_at is not None:
        raise ServiceError(Text("that player has already withdrawn"))
    entry.withdrawn_at = now
    session.add(entry)
    session.flush()  # before the resignations: the next round is paired without them
    audit(session, now, "tournament withdrawal", tournament_id=tournament_id,
          player_id=player_id, actor=actor, forfeited=[row.id for row, _ in running])
    # Before the forfeits: the last one may end the tournament, whose standings come last.
    send_withdrawn(session, now, site, tournament, entry)
    for row, seats in running:
        assert row.id is not None
        seat = next(s for s in seats if s.player_id == player_id)
        if seat.resigned or seat.forfeited:
            continue  # already out of that game (a table of three or more plays on)
        if row.status == GameStatus.ACTIVE:
            resign(session, now, site, game_id=row.id, seat=seat.seat)
        else:  # never started (not made by a tournament today): nothing to forfeit
            abort_game(session, now, site, game_id=row.id, reason="withdrawn from the tournament")
    return tournament


def cancel_tournament(session: Session, now: datetime, site: Site, *, tournament_id: int,
                      actor: str, reason: str = "") -> Tournament:
    """Stop the tournament: its running games are aborted (they count for nothing, like any
    aborted game) and every player gets the standings as they were, marked cancelled."""
    running = _running_games_of(session, tournament_id)
    tournament = lock_tournament(session, tournament_id)
    if tournament.status not in (TournamentStatus.PENDING, TournamentStatus.RUNNING):
        raise ServiceError(Text("this tournament is already over"))
    tournament.status, tournament.finished_at = TournamentStatus.CANCELLED, now
    session.add(tournament)
    audit(session, now, "tournament cancelled", tournament_id=tournament_id, actor=actor,
          reason=reason)
    for row, _ in running:
        assert row.id is not None
        abort_game(session, now, site, game_id=row.id,
                   reason=reason or "The tournament was cancelled.")
    send_standings(session, now, site, tournament, cancelled=True)
    return tournament


def tournament_by_slug(session: Session, slug: str) -> Tournament | None:
    return session.exec(select(Tournament).where(Tournament.slug == slug)).one_or_none()


def listed_tournaments(session: Session) -> list[Tournament]:
    """The listed tournaments that have started, newest first (pending ones are not news)."""
    return list(session.exec(select(Tournament).where(
        col(Tournament.listed).is_(True), Tournament.status != TournamentStatus.PENDING)
        .order_by(col(Tournament.created_at).desc(), col(Tournament.id).desc())))


def all_tournaments(session: Session) -> list[Tournament]:
    """Every tournament, newest first: the dashboard's list."""
    return list(session.exec(select(Tournament).order_by(col(Tournament.created_at).desc(),
                                                          col(Tournament.id).desc())))


def on_game_finished(event: GameFinished) -> None:
    """Subscribed to :class:`~pbem.services.events.GameFinished`: see
    :func:`tournament_game_ended`."""
    tournament_game_ended(event.session, event.now, event.site, event.row)
