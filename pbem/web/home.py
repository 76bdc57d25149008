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
from typing import Any, cast

from flask import url_for
from sqlalchemy.orm import QueryableAttribute, defer
from sqlmodel import Session, col, select

from engine import AnyGame
from pbem.challenges.service import describe, players_by_id
from pbem.challenges.tables import Challenge, ChallengeKind, ChallengePlayer, ChallengeStatus
from pbem.clock.tables import GameClock
from pbem.clock.wording import describe_duration
from pbem.game_options import game_name
from pbem.i18n import Reader
from pbem.models import GameRecord, GameStatus, Player, Seat, SeatStatus
from pbem.positions import engine_game as engine_game_of
from pbem.services.common import players_of, seats_by_game, shown_name, shown_names
from pbem.services.results import join_names, result_in
from pbem.web.support import site
from pbem.web.terms import label_seats, seat_names, status_word

LATEST = datetime.max.replace(tzinfo=UTC)
# As a mapped attribute for loader options (SQLModel types it as its Python value).
START_STATE = cast(QueryableAttribute[Any], GameRecord.start_state)


@dataclass(frozen=True)
class Clock:
    """A running game's clock as the home shows it: when the turn's time runs out (None: no
    clock, or stopped), and whether an organiser stopped it."""

    deadline: datetime | None
    stopped: bool


def shown_clock(game: GameRecord, deadline: datetime | None, paused_at: datetime | None
                ) -> Clock:
    """The game's clock (its :class:`GameClock`'s deadline and paused_at) as the home shows
    it: the home's one reading of the game's clock."""
    if game.status != GameStatus.ACTIVE:
        return Clock(None, False)
    return Clock(deadline, paused_at is not None)


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
    # Only the clock's two columns the home shows, and no game's starting position: a home of
    # 200 games decoded 1,600 JSON values, most of them never shown (issue 36).
    rows = session.exec(
        select(GameRecord, GameClock.deadline, GameClock.paused_at, Seat)
        .join(GameClock, col(GameClock.game_id) == col(GameRecord.id))
        .join(Seat, col(Seat.game_id) == col(GameRecord.id))
        .where(Seat.player_id == player_id).order_by(col(GameRecord.created_at).desc())
        .options(defer(START_STATE, raiseload=True))
    ).all()
    # Every game's seats and players in two queries, not two per game (issue 36: a home of 200
    # games made 400 queries).
    seats = seats_by_game(session, [game.id for game, _, _, _ in rows if game.id is not None])
    players = players_of(session, [s for found in seats.values() for s in found])
    colours = _Colours(reader)
    for game, deadline, paused_at, seat in rows:
        assert game.id is not None
        view = _GameView(game, shown_clock(game, deadline, paused_at), seat,
                         seats.get(game.id, []), players, player_id, colours(game), reader)
        _sort_game(home, view, now)
    for challenge, mine in _challenges_of(session, player_id, now):
        _sort_challenge(home, session, challenge, mine, player_id, reader)
    home.your_turn.sort(key=lambda line: (line.urgency, line.at))
    home.finished.sort(key=lambda line: line.at, reverse=True)
    return home


class _GameView:
    """One of the player's games as the home names it."""

    def __init__(self, game: GameRecord, clock: Clock, seat: Seat, seats: list[Seat],
                 players: dict[int, Player], player_id: int, colours: list[str],
                 reader: Reader) -> None:
        self.game, self.seat, self.player_id, self.reader = game, seat, player_id, reader
        self.seats, self.players = seats, players
        self.colours = colours
        self.clock = clock
        people = shown_names(self.seats, self.players, reader)
        self.labels = dict(zip([s.seat for s in self.seats],
                               label_seats(self.seats, people, self.colours), strict=True))

    @property
    def title(self) -> str:
        others = [self.labels[s.seat] for s in self.seats if s.seat != self.seat.seat]
        return self.reader.gettext("%(game)s against %(players)s",
                                   game=game_name(self.game.game_type, self.reader),
                                   players=join_names(others, self.reader))

    @property
    def you_play(self) -> str:
        colour = self.colours[self.seat.seat] if self.seat.seat < len(self.colours) else ""
        return self.reader.gettext("you play %(seat)s", seat=colour) if colour else ""

    @property
    def url(self) -> str:
        assert self.game.id is not None
        return site().links.seat_view_url(self.game.id, self.seat.seat, holder=self.player_id)

    def result(self) -> str:
        return result_in(self.game, self.seats, self.players, self.reader)


class _Colours:
    """The seats' colour names of each game in ``reader``'s words (Stigmergy's change once
    sides are chosen); none for a game the engine can no longer read.

    Read once for each kind of game (its id and options): only a game whose seat names follow
    the position is decoded, where a home of 200 games decoded every one (issue 36)."""

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.kinds: dict[str, tuple[AnyGame | None, list[str] | None]] = {}

    def __call__(self, game: GameRecord) -> list[str]:
        kind = json.dumps([game.game_type, game.options], sort_keys=True)
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

    def _read(self, game: GameRecord) -> tuple[AnyGame | None, list[str] | None]:
        """The kind's engine game, and its seat names when no position changes them."""
        try:
            engine_game = engine_game_of(game)
        except Exception:  # an unknown game or options: its seats have no colours
            return None, None
        names = engine_game.fixed_seat_names()
        if names is None:
            return engine_game, None
        return engine_game, seat_names(game.game_type, names, reader=self.reader)


def _sort_game(home: Home, view: _GameView, now: datetime) -> None:
    game, seat, reader = view.game, view.seat, view.reader
    started = game.started_at or game.created_at
    if game.status in (GameStatus.FINISHED, GameStatus.ABORTED):
        detail = view.result() or status_word(game.status, reader=reader)
        home.finished.append(Line(view.title, view.url, detail,
                                  at=game.finished_at or started))
        return
    if game.status == GameStatus.INVITED:
        _sort_invitation(home, view)
        return
    out = seat.resigned or seat.forfeited  # the computer plays the seat: nothing to do
    if out:
        home.waiting.append(Line(view.title, view.url, reader.gettext(
            "you are out of this game; the computer plays your seat"), at=started))
        return
    clock = view.clock
    if game.to_move == seat.seat:
        assert game.id is not None
        home.your_turn.append(Line(
            view.title, view.url, view.you_play, time_left(clock, now, reader),
            reader.gettext("Move"),
            site().links.move_url(game.id, seat.seat, game.ply, holder=view.player_id),
            urgency=clock.deadline or LATEST, at=started))
        return
    waiting_for = view.labels.get(game.to_move, "") if game.to_move is not None else ""
    detail = reader.gettext("waiting for %(name)s", name=waiting_for) if waiting_for else ""
    home.waiting.append(Line(view.title, view.url, detail, at=started))


def _sort_invitation(home: Home, view: _GameView) -> None:
    """A game an organiser made: the player's answer is awaited, or the others' are."""
    game, seat, reader = view.game, view.seat, view.reader
    assert game.id is not None
    if seat.status == SeatStatus.DECLINED:
        return
    if seat.status == SeatStatus.INVITED:
        home.answers.append(Line(
            view.title, view.url, reader.gettext("an invitation to a game"),
            action=reader.gettext("Answer"),
            action_url=site().links.invite_url(game.id, seat.seat, holder=view.player_id),
            at=game.created_at))
        return
    undecided = [view.labels[s.seat] for s in view.seats
                 if s.status == SeatStatus.INVITED and s.seat != seat.seat]
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

