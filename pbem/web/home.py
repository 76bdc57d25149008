"""A signed-in player's home (``/account``): their games, in the order they need attention.

1. Games where it is their turn, most urgent first, each with the time left ("2 days 4 hours
   left") and a Move button.
2. Challenges and invitations waiting for their answer, each with an Answer button.
3. Games and challenges waiting for others ("waiting for Alice (Light)").
4. Finished games, collapsed (the page shows how many).

Each row names the game and the other players ("Mosey against Bob (Dark)"), never a code.
:func:`shown_clock` is the one place the home reads a game's clock.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from flask import url_for
from sqlalchemy import String, cast
from sqlalchemy import select as select_columns
from sqlalchemy.sql.elements import Label, SQLCoreOperations
from sqlmodel import Session, col, select

import engine
from engine import AnyGame
from pbem.challenges.service import describe, players_by_id
from pbem.challenges.tables import Challenge, ChallengeKind, ChallengePlayer, ChallengeStatus
from pbem.clock.tables import GameClock
from pbem.clock.wording import describe_duration
from pbem.game_options import game_name
from pbem.i18n import Reader
from pbem.models import GameRecord, GameStatus, Player, Seat, SeatStatus
from pbem.services.common import shown_name
from pbem.services.results import join_names, result_in
from pbem.web.support import site
from pbem.web.terms import seat_label, seat_names, status_word

LATEST = datetime.max.replace(tzinfo=UTC)


class GameRow(NamedTuple):
    """One of the player's games as the home reads it: the game's columns it shows, its clock's
    deadline and pause, and the player's seat. Read column by column (:data:`GAME_COLUMNS`, in
    this order), not as ORM objects: a GameRecord and a Seat for each of 200 games, with their
    JSON decoded, cost 8 ms of CPU where these rows cost 3 (issue 36).

    The JSON columns come as their stored text, decoded where read: the home reads each kind
    of game's options once, and the position and winners only of the games that need them
    (seat names that follow the position; results in other languages than English).

    >>> [column.key for column in GAME_COLUMNS] == list(GameRow._fields)
    True
    """

    id: int
    game_type: str
    options_json: str
    status: str
    state_json: str
    ply: int
    to_move: int | None
    winners_json: str | None
    result: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    deadline: datetime | None  # the clock's (GameClock)
    paused_at: datetime | None
    seat: int  # the player's seat (Seat): its number, status, and whether they left it
    seat_status: str
    seat_resigned: bool
    seat_forfeited: bool

    @property
    def options(self) -> dict[str, Any]:
        """The game's options (as GameRecord has them)."""
        options: dict[str, Any] = json.loads(self.options_json)
        return options

    @property
    def state(self) -> dict[str, Any]:
        """The current position, encoded (as GameRecord has it)."""
        state: dict[str, Any] = json.loads(self.state_json)
        return state

    @property
    def winners(self) -> list[int] | None:
        """The winning seats of a finished game (as GameRecord has them)."""
        winners: list[int] | None = json.loads(self.winners_json or "null")
        return winners


def _as_text(column: Any, name: str) -> Label[str]:
    """A JSON column as its stored text (:class:`GameRow`)."""
    return cast(col(column), String).label(name)


GAME_COLUMNS: tuple[SQLCoreOperations[Any], ...] = (
    col(GameRecord.id), col(GameRecord.game_type),
    _as_text(GameRecord.options, "options_json"), col(GameRecord.status),
    _as_text(GameRecord.state, "state_json"), col(GameRecord.ply), col(GameRecord.to_move),
    _as_text(GameRecord.winners, "winners_json"), col(GameRecord.result),
    col(GameRecord.created_at), col(GameRecord.started_at), col(GameRecord.finished_at),
    col(GameClock.deadline), col(GameClock.paused_at),
    col(Seat.seat), col(Seat.status).label("seat_status"),
    col(Seat.resigned).label("seat_resigned"), col(Seat.forfeited).label("seat_forfeited"))


class SeatRow(NamedTuple):
    """A seat of one of the player's games, with what :func:`shown_name` reads of its player:
    the home names every player of every game (and :func:`result_in` reads seats and players
    of this shape). Read as :data:`SEAT_COLUMNS`, in this order.

    >>> [column.key for column in SEAT_COLUMNS] == list(SeatRow._fields)
    True
    """

    game_id: int
    seat: int
    player_id: int
    status: str
    resigned: bool
    forfeited: bool
    name: str  # the player's (Player)
    bot_level: str | None


SEAT_COLUMNS: tuple[SQLCoreOperations[Any], ...] = (
    col(Seat.game_id), col(Seat.seat), col(Seat.player_id), col(Seat.status), col(Seat.resigned),
    col(Seat.forfeited), col(Player.name), col(Player.bot_level))


@dataclass(frozen=True)
class Clock:
    """A running game's clock as the home shows it: when the turn's time runs out (None: no
    clock, or stopped), and whether an organiser stopped it."""

    deadline: datetime | None
    stopped: bool


def shown_clock(game: GameRow) -> Clock:
    """The game's clock (its :class:`GameClock`'s deadline and paused_at) as the home shows
    it: the home's one reading of the game's clock."""
    if game.status != GameStatus.ACTIVE:
        return Clock(None, False)
    return Clock(game.deadline, game.paused_at is not None)


def time_left(clock: Clock, now: datetime, reader: Reader) -> str:
    """"2 days 4 hours left", "clock stopped", or "" for a game without a clock.

    >>> soon = Clock(datetime(2026, 3, 3, 16, 30, tzinfo=UTC), False)
    >>> time_left(soon, datetime(2026, 3, 1, 12, 0, tzinfo=UTC), Reader())
    '2 days 4 hours left'
    """
    if clock.stopped:
        return reader.gettext("clock stopped")
    if clock.deadline is None:
        return ""
    left = clock.deadline - now
    if left < timedelta(minutes=1):
        return reader.gettext("time is up")
    return reader.gettext("%(time)s left", time=describe_duration(left, reader, units=2))


@dataclass(frozen=True)
class Line:
    """One row of the home: a game or a challenge, named, with what it waits for."""

    title: str  # "Mosey against Bob (Dark)"
    url: str  # the game's (or the challenge's) page
    detail: str = ""  # "you play Light", "waiting for Alice (Light)", the result
    time_left: str = ""
    action: str = ""  # the button's words ("Move", "Answer"), where the player acts
    action_url: str = ""
    urgency: datetime = LATEST  # earlier is more urgent
    at: datetime = LATEST  # when it started or finished, for ordering within a section


@dataclass
class Home:
    """The home's sections in the order the page shows them."""

    your_turn: list[Line] = field(default_factory=list)
    answers: list[Line] = field(default_factory=list)  # challenges and invitations to answer
    waiting: list[Line] = field(default_factory=list)
    finished: list[Line] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.your_turn or self.answers or self.waiting or self.finished)


def home_of(session: Session, player_id: int, now: datetime, reader: Reader) -> Home:
    """Everything ``player_id`` plays or is asked to play, sorted into the home's sections."""
    home = Home()
    seats = _seats_of_games(session, player_id)
    colours = _Colours(reader)
    for game in _games_of(session, player_id):
        view = _GameView(game, seats.get(game.id, []), player_id, colours(game), reader)
        _sort_game(home, view, now)
    for challenge, mine in _challenges_of(session, player_id, now):
        _sort_challenge(home, session, challenge, mine, player_id, reader)
    home.your_turn.sort(key=lambda line: (line.urgency, line.at))
    home.finished.sort(key=lambda line: line.at, reverse=True)
    return home


def _games_of(session: Session, player_id: int) -> list[GameRow]:
    """The player's games (a game once for each of their seats), newest first, with only the
    clock's two columns the home shows and no starting position (issue 36)."""
    rows = session.execute(
        select_columns(*GAME_COLUMNS)
        .join(GameClock, col(GameClock.game_id) == col(GameRecord.id))
        .join(Seat, col(Seat.game_id) == col(GameRecord.id))
        .where(col(Seat.player_id) == player_id).order_by(col(GameRecord.created_at).desc()))
    return [GameRow._make(row) for row in rows]


def _seats_of_games(session: Session, player_id: int) -> dict[int, list[SeatRow]]:
    """The seats of every game the player sits in, by game, in seat order, with their players'
    names: one query and no ORM objects, where a Seat and a Player object per seat, read by a
    list of 200 game ids (which psycopg parses anew for each length), cost 10 ms of CPU of the
    home's 48 (issue 36)."""
    games = select(Seat.game_id).where(Seat.player_id == player_id)
    found: dict[int, list[SeatRow]] = {}
    for row in session.execute(
            select_columns(*SEAT_COLUMNS).join(Player, col(Player.id) == col(Seat.player_id))
            .where(col(Seat.game_id).in_(games)).order_by(col(Seat.game_id), col(Seat.seat))):
        seat = SeatRow._make(row)
        found.setdefault(seat.game_id, []).append(seat)
    return found


class _GameView:
    """One of the player's games as the home names it."""

    def __init__(self, game: GameRow, seats: list[SeatRow], player_id: int, colours: list[str],
                 reader: Reader) -> None:
        self.game, self.player_id, self.reader = game, player_id, reader
        self.seats = seats
        self.colours = colours
        self.clock = shown_clock(game)
        self.labels = {s.seat: seat_label(shown_name(s, reader), self._colour(s.seat))
                       for s in seats}

    def _colour(self, seat: int) -> str:
        return self.colours[seat] if seat < len(self.colours) else ""

    @property
    def title(self) -> str:
        others = [self.labels[s.seat] for s in self.seats if s.seat != self.game.seat]
        return self.reader.gettext("%(game)s against %(players)s",
                                   game=game_name(self.game.game_type, self.reader),
                                   players=join_names(others, self.reader))

    @property
    def you_play(self) -> str:
        colour = self._colour(self.game.seat)
        return self.reader.gettext("you play %(seat)s", seat=colour) if colour else ""

    @property
    def url(self) -> str:
        return site().links.seat_view_url(self.game.id, self.game.seat, holder=self.player_id)

    def result(self) -> str:
        # Each SeatRow stands for its player too: it has the name and level shown_name reads.
        return result_in(self.game, self.seats, {s.player_id: s for s in self.seats},
                         self.reader)


class _Colours:
    """The seats' colour names of each game in ``reader``'s words (Stigmergy's change once
    sides are chosen); none for a game the engine can no longer read.

    Read once for each kind of game (its id and options): only a game whose seat names follow
    the position is decoded, where a home of 200 games decoded every one (issue 36)."""

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.kinds: dict[tuple[str, str], tuple[AnyGame | None, list[str] | None]] = {}

    def __call__(self, game: GameRow) -> list[str]:
        kind = (game.game_type, game.options_json)  # the same options stored alike
        if kind not in self.kinds:
            self.kinds[kind] = self._read(game)
        engine_game, fixed = self.kinds[kind]
        if fixed is not None or engine_game is None:
            return fixed or []
        try:
            state = engine_game.decode(game.state)
            return seat_names(game.game_type, engine_game.seat_names(state), reader=self.reader)
        except Exception:  # a list of games must not fail on one unreadable stored game
            return []

    def _read(self, game: GameRow) -> tuple[AnyGame | None, list[str] | None]:
        """The kind's engine game, and its seat names when no position changes them."""
        try:
            engine_game = engine.new_game(game.game_type, **game.options)
        except Exception:  # an unknown game or options: its seats have no colours
            return None, None
        names = engine_game.fixed_seat_names()
        if names is None:
            return engine_game, None
        return engine_game, seat_names(game.game_type, names, reader=self.reader)


def _sort_game(home: Home, view: _GameView, now: datetime) -> None:
    game, reader = view.game, view.reader
    started = game.started_at or game.created_at
    if game.status in (GameStatus.FINISHED, GameStatus.ABORTED):
        detail = view.result() or status_word(game.status, reader=reader)
        home.finished.append(Line(view.title, view.url, detail,
                                  at=game.finished_at or started))
        return
    if game.status == GameStatus.INVITED:
        _sort_invitation(home, view)
        return
    out = game.seat_resigned or game.seat_forfeited  # the computer plays it: nothing to do
    if out:
        home.waiting.append(Line(view.title, view.url, reader.gettext(
            "you are out of this game; the computer plays your seat"), at=started))
        return
    clock = view.clock
    if game.to_move == game.seat:
        home.your_turn.append(Line(
            view.title, view.url, view.you_play, time_left(clock, now, reader),
            reader.gettext("Move"),
            site().links.move_url(game.id, game.seat, game.ply, holder=view.player_id),
            urgency=clock.deadline or LATEST, at=started))
        return
    waiting_for = view.labels.get(game.to_move, "") if game.to_move is not None else ""
    detail = reader.gettext("waiting for %(name)s", name=waiting_for) if waiting_for else ""
    home.waiting.append(Line(view.title, view.url, detail, at=started))


def _sort_invitation(home: Home, view: _GameView) -> None:
    """A game an organiser made: the player's answer is awaited, or the others' are."""
    game, reader = view.game, view.reader
    if game.seat_status == SeatStatus.DECLINED:
        return
    if game.seat_status == SeatStatus.INVITED:
        home.answers.append(Line(
            view.title, view.url, reader.gettext("an invitation to a game"),
            action=reader.gettext("Answer"),
            action_url=site().links.invite_url(game.id, game.seat, holder=view.player_id),
            at=game.created_at))
        return
    undecided = [view.labels[s.seat] for s in view.seats
                 if s.status == SeatStatus.INVITED and s.seat != game.seat]
    home.waiting.append(Line(view.title, view.url, reader.gettext(
        "waiting for %(names)s to answer", names=join_names(undecided, reader)),
        at=game.created_at))


def _challenges_of(session: Session, player_id: int, now: datetime
                   ) -> list[tuple[Challenge, ChallengePlayer]]:
    """The open challenges the player is in (made, invited to, accepted or joined)."""
    return list(session.exec(
        select(Challenge, ChallengePlayer)
        .join(ChallengePlayer, col(ChallengePlayer.challenge_id) == col(Challenge.id))
        .where(ChallengePlayer.player_id == player_id,
               Challenge.status == ChallengeStatus.OPEN, col(Challenge.expires_at) > now,
               ChallengePlayer.status != SeatStatus.DECLINED)
        .order_by(col(Challenge.created_at).desc())).all())


def _sort_challenge(home: Home, session: Session, challenge: Challenge, mine: ChallengePlayer,
                    player_id: int, reader: Reader) -> None:
    assert challenge.id is not None
    people = list(session.exec(select(ChallengePlayer).where(
        ChallengePlayer.challenge_id == challenge.id).order_by(col(ChallengePlayer.slot))))
    players = players_by_id(session, [p.player_id for p in people] + [challenge.creator_id])
    facts: dict[str, Any] = describe(challenge, reader)
    name = str(facts["game_name"])
    others = [shown_name(players[p.player_id], reader) for p in people
              if p.player_id != player_id]
    title = (reader.gettext("%(game)s against %(players)s", game=name,
                            players=join_names(others, reader)) if others
             else reader.gettext("%(game)s: your open seek", game=name))
    url = url_for("challenges.challenge_page", public_id=challenge.public_id)
    if mine.status == SeatStatus.INVITED:
        creator = shown_name(players[challenge.creator_id], reader)
        home.answers.append(Line(
            title, url, reader.gettext("a challenge from %(name)s; %(clock)s", name=creator,
                                       clock=facts["clock"]),
            action=reader.gettext("Answer"), action_url=url, at=challenge.created_at))
        return
    undecided = [shown_name(players[p.player_id], reader) for p in people
                 if p.status == SeatStatus.INVITED]
    if undecided:
        detail = reader.gettext("waiting for %(names)s to answer",
                                names=join_names(undecided, reader))
    elif challenge.kind == ChallengeKind.SEEK:
        detail = reader.ngettext("waiting for %(num)d more player to join",
                                 "waiting for %(num)d more players to join",
                                 challenge.seats - len(people), num=challenge.seats - len(people))
    else:
        detail = ""
    home.waiting.append(Line(title, url, detail, at=challenge.created_at))

