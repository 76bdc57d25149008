"""Moves; resigning is in :mod:`pbem.services.resignation`. Moves are played through
:func:`pbem.services.turns.play_moves` only, whoever plays them; here is what it uses: one move
applied, the moves the server makes itself. The emails they cause are written by the
subscribers to the events a turn publishes (:mod:`pbem.services.turn_mail`)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col

import engine
from engine.text import N_, Text
from pbem.clock.deadlines import clock_of, end_turn, start_turn, stop_clock
from pbem.models import GameRecord, GameStatus, Move, MoveSource, Seat
from pbem.positions import current_state
from pbem.services.common import (
    GameMovedOn,
    GameNotActive,
    NotYourTurn,
    Site,
    audit,
    players_of,
    seats_of,
)
from pbem.services.events import (
    EVENTS,
    GameFinished,
)
from pbem.services.results import (
    end_of_play,
    labels_for,
)

MAX_NOTE = 500
# Notes on the moves the server plays; emails show them in each reader's language (notify).
FORCED_PASS_NOTE = N_("forced pass: the only legal move")
STAND_IN_NOTE = N_("played by the stand-in: this seat forfeited on time")


@dataclass
class Position:
    """A game's rules and its state at the row's current ply, decoded once and carried through
    a turn: each move played replaces ``state`` (so the moves, the automatic moves after them
    and the emails never decode the stored state again)."""

    game: engine.AnyGame
    state: Any
    decoded: bool = True  # ``state`` is as decoded from the row, not played on since

    @classmethod
    def of(cls, row: GameRecord) -> Position:
        game, state = current_state(row)
        return cls(game, state)

    def as_stored(self, row: GameRecord) -> Any:
        """The state as a replay decodes it from ``row``, for a random move: a seed must pick
        the same move whatever order a state played on in memory lists its moves in. Decoded
        again only when a move was played since, and carried on from then."""
        if not self.decoded:
            self.state, self.decoded = self.game.decode(row.state), True
        return self.state


def check_turn(session: Session, row: GameRecord, *, seat: int, ply: int, source: str,
               holder: int | None = None) -> None:
    """Raise the ServiceError that says why ``seat`` may not move now in the locked ``row``,
    if it may not: the game is not running or has moved on since ``ply`` (the ply the player
    saw), it is someone else's turn, ``holder`` (given) no longer holds the seat, the player
    left the game, or the organiser paused it.

    Two submissions for the same ply: the row lock (PostgreSQL) or BEGIN IMMEDIATE (SQLite) makes
    the second wait and then see the new ply; the conditional UPDATE and the unique (game, ply) of
    moves back that up, so exactly one is applied whatever the isolation level."""
    if row.status != GameStatus.ACTIVE:
        if row.status in (GameStatus.FINISHED, GameStatus.ABORTED) and row.ply != ply:
            raise GameMovedOn(row)
        raise GameNotActive(Text("this game is not running") if row.status != GameStatus.INVITED
                            else Text("this game has not started yet"))
    if row.ply != ply:
        raise GameMovedOn(row)
    if row.to_move != seat:
        raise NotYourTurn(Text("it is not your turn"))
    assert row.id is not None
    mine = next(s for s in seats_of(session, row.id) if s.seat == seat)
    if holder is not None and mine.player_id != holder:
        raise NotYourTurn(Text("this seat has a new player"))  # replaced since the turn began
    if source in (MoveSource.LINK, MoveSource.REPLY) and (mine.resigned or mine.forfeited):
        # Only the stand-in (or the organiser) moves for a seat that left the game.
        raise NotYourTurn(Text("you are out of this game: the computer plays your seat now"))
    if clock_of(session, row.id).paused_at is not None:
        raise GameNotActive(Text("the organiser has paused this game; moves wait until it resumes"))


def apply_move(
    session: Session, now: datetime, row: GameRecord, move: Any, *, source: str, note: str = "",
    position: Position,
) -> Move:
    """Apply one move to a locked game row (no emails): state, ply, clock, move record, audit.
    ``position`` is the row's decoded position and becomes the one after. Only
    :func:`pbem.services.turns.play_moves` calls it."""

    assert row.id is not None and row.to_move is not None
    game_id, ply, seat = row.id, row.ply, row.to_move
    game, state = position.game, position.state
    after = game.play(state, move, seat=seat)
    notation = str(move)
    next_seat = game.to_move(after)
    outcome = game.outcome(after)
    values: dict[str, Any] = {"ply": ply + 1, "state": game.encode(after), "to_move": next_seat}
    if outcome is not None:
        out = [s.seat for s in seats_of(session, game_id) if s.resigned or s.forfeited]
        winners, result = end_of_play(game, after, seat_labels(session, game, after, game_id),
                                      out)
        values |= {"status": GameStatus.FINISHED, "finished_at": now, "winners": winners,
                   "result": result}
    done = session.execute(
        update(GameRecord).where(GameRecord.id == game_id, GameRecord.ply == ply).values(**values)  # type: ignore[arg-type]
        .execution_options(synchronize_session=False)
    )
    if done.rowcount != 1:  # type: ignore[attr-defined]
        raise GameMovedOn(row)
    position.state, position.decoded = after, False
    for name, value in values.items():  # what the UPDATE wrote, without reading the row again
        set_committed_value(row, name, value)
    if outcome is not None:
        stop_clock(session, row)
    elif next_seat != seat:
        end_turn(session, row, seat, now)
        start_turn(session, row, now)
    session.add(row)
    _end_one_turn_stand_in(session, game_id, seat)
    record = Move(game_id=game_id, ply=ply, seat=seat, notation=notation,
                  note=" ".join(note.split())[:MAX_NOTE], source=source, made_at=now,
                  state_after=values["state"])
    session.add(record)
    session.flush()
    audit(session, now, "move", game_id=game_id, seat=seat, ply=ply, move=notation, source=source)
    return record


def seat_labels(session: Session, game: engine.AnyGame, state: Any, game_id: int
                ) -> list[str]:
    """"Alice (Light)" per seat: how results and emails name the players."""
    seats = seats_of(session, game_id)
    players = players_of(session, seats)
    return labels_for(game, state, [players[s.player_id].name for s in seats])


def automatic_move(row: GameRecord, seats: list[Seat], position: Position
                   ) -> tuple[Any, str, str] | None:
    """The move the server plays itself for the seat to move, if any: (move, source, note).

    A pass that is the only legal move is played at once rather than asking the player to click
    it; a seat that forfeited on time in a game of three or more is played by a random stand-in
    (seeded by the game's seed and the ply, so the game can be replayed).
    """
    if row.status != GameStatus.ACTIVE or row.to_move is None:
        return None
    game, state = position.game, position.state
    if any(s.seat == row.to_move and s.stand_in for s in seats):
        return None  # the computer plays this seat: the sweep's bot pass, outside any request
    if any(s.seat == row.to_move and s.forfeited for s in seats):
        return (game.random_move(position.as_stored(row), seeded_rng(row)), MoveSource.STAND_IN,
                STAND_IN_NOTE)
    legal = game.legal_moves(state)
    if len(legal) == 1 and str(legal[0]) == "pass":
        return legal[0], MoveSource.FORCED_PASS, FORCED_PASS_NOTE
    return None


def _end_one_turn_stand_in(session: Session, game_id: int, seat: int) -> None:
    """A computer that stood in for one timed-out turn (policy ``bot``) is done once that seat
    has moved, whoever moved it."""
    session.execute(update(Seat).where(col(Seat.game_id) == game_id, col(Seat.seat) == seat,
                                       col(Seat.stand_in) == "turn")
                    .values(stand_in=None).execution_options(synchronize_session="fetch"))


def seeded_rng(row: GameRecord) -> random.Random:
    """The random choices of the server for this game at this ply: reproducible from the seed."""
    return random.Random(f"{row.seed}:{row.ply}")


def publish_game_over(session: Session, now: datetime, site: Site, row: GameRecord,
                      game: engine.AnyGame, state: Any, seats: list[Seat]) -> GameFinished:
    """Tell whoever cares that ``row`` has ended (:class:`~pbem.services.events.GameFinished`):
    the players' game-over emails (:mod:`pbem.services.turn_mail`), ratings, tournaments.

    Every way a game ends (its rules in :func:`apply_move`, a resignation, a forfeit on time,
    an adjudication) comes here in the transaction that ends it, so what the subscribers write
    is written with the game's end, or not at all."""
    finished = GameFinished(session, now, site, row, seats, game, state)
    EVENTS.publish(finished)
    return finished
