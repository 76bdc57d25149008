"""Moves and the emails they cause (written in the same transaction); resigning is in
:mod:`pbem.services.resignation`. Moves are played through :func:`pbem.services.turns.play_moves`
only, whoever plays them; here is what it uses: one move applied, the moves the server makes
itself, the emails after a turn."""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col

import engine
from engine.text import N_, Text
from pbem.clock.deadlines import clock_of, end_turn, start_turn, stop_clock
from pbem.i18n import ENGLISH, Reader
from pbem.models import GameRecord, GameStatus, Move, MoveSource, Player, Seat
from pbem.positions import current_state, moves_of
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
    GameOverEmail,
    SeatEmail,
    TurnEvent,
    TurnStarted,
)
from pbem.services.notify import (
    BoardRef,
    board_ref,
    board_viewer,
    enqueue,
    game_context,
    game_over_event,
    moves_for,
    moves_since_last_turn,
    subject_line,
    title_of,
)
from pbem.services.results import (
    end_of_play,
    ending_of,
    in_words,
    labels_for,
    outcome_for,
    shown_result,
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
    session.refresh(row)
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


def send_move_emails(
    session: Session, now: datetime, site: Site, row: GameRecord, *, mover: int, automatic: bool,
    position: Position, played: Sequence[Move] = (),
) -> list[TurnEvent]:
    """After a move (and the automatic moves it caused): game over, or turn notice and updates.
    A seat whose conditional move was among ``played`` (the turn's moves) is told so instead
    of the update. The game that ended or the turn that started, as an event."""
    assert row.id is not None
    game, after = position.game, position.state
    seats = seats_of(session, row.id)
    mail = _Mailing.of(session, row, game, after, seats)  # one context for all the emails
    if row.status == GameStatus.FINISHED:
        finished = send_game_over(session, now, site, row, game, after, seats, mail=mail)
        return [finished] if finished else []
    if row.to_move != mover or automatic:
        send_turn_notice(session, now, site, row, game, after, seats, mail=mail)
        answered = {m.seat for m in played if m.source == MoveSource.CONDITIONAL}
        send_updates(session, now, site, row, game, after, seats, mover=mover, mail=mail,
                     skip=answered)
        for seat in answered - {row.to_move}:
            send_conditional_played(session, now, site, row, seats[seat], played, mail)
        assert row.to_move is not None
        return [TurnStarted(row.id, row.to_move, row.ply)]
    return []


def send_conditional_played(session: Session, now: datetime, site: Site, row: GameRecord,
                            seat: Seat, played: Sequence[Move], mail: _Mailing) -> None:
    """The email to the player whose conditional move answered another's: which move it
    answered, what was played for them, and the board after. Only they get it; the others
    read the move as any other (see docs/conditional.md)."""
    answers = [m for m in played if m.source == MoveSource.CONDITIONAL and m.seat == seat.seat]
    pairs = [(next((m for m in played if m.ply == a.ply - 1), None), a) for a in answers]
    # The notice of the move that was answered, and of the answer, each as the move list shows it
    exchanges = [(before.seat, before.notation, after.notation)
                 for before, after in pairs if before is not None]
    seat_url = site.links.seat_view_url(row.id or 0, seat.seat, holder=seat.player_id)
    extras = seat_email_extras(session, row, seat, "conditional_played")
    enqueue(
        session, now, site, row=row, seat=seat, player=mail.players[seat.player_id],
        kind="conditional_played",
        subject=lambda reader: mail.subject(N_("Played by your conditional move:"), seat.seat,
                                            reader),
        board=mail.board(seat.seat),
        context=lambda reader: mail.context_for(seat, reader, exchanges=exchanges,
                                                seat_url=seat_url,
                                                since=moves_for(played, reader), **extras),
    )


def seat_email_extras(session: Session, row: GameRecord, seat: Seat, kind: str
                      ) -> dict[str, Any]:
    """What the features add to the email ``kind`` to ``seat`` (:class:`SeatEmail`)."""
    return {key: value for answer in EVENTS.publish(SeatEmail(session, row, seat, kind))
            for key, value in answer.items()}


@dataclass(frozen=True)
class _Mailing:
    """What every email about one position shares: the players, the moves, the subject, and the
    template context; each seat then gets its own board view and "since your last turn", and
    each reader their own language."""

    row: GameRecord
    game: engine.AnyGame
    state: Any
    players: dict[int, Player]
    moves: list[Move]
    context: dict[str, Any]
    seats: list[Seat] = field(default_factory=list, compare=False)
    # Board pictures by viewer (and whether drawn as over): a game without hidden information
    # has one for everybody.
    boards: dict[tuple[int, bool], BoardRef] = field(default_factory=dict, compare=False)
    # The context in each language a recipient reads (English is ``context``).
    contexts: dict[Reader, dict[str, Any]] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, session: Session, row: GameRecord, game: engine.AnyGame,
           state: Any, seats: list[Seat]) -> _Mailing:
        players = players_of(session, seats)
        context = game_context(row, game, state, seats, players)
        return cls(row, game, state, players, moves_of(session, row.id or 0, positions=False),
                   context, seats)

    def context_in(self, reader: Reader) -> dict[str, Any]:
        """The shared context in ``reader``'s language."""
        if reader == ENGLISH or not self.seats:
            return self.context
        if reader not in self.contexts:
            self.contexts[reader] = game_context(self.row, self.game, self.state, self.seats,
                                                 self.players, reader)
        return self.contexts[reader]

    def subject(self, event: str, seat: int, reader: Reader = ENGLISH, **values: Any) -> str:
        """``event`` (a message, with ``values``) first, then the game as ``seat`` knows it,
        in ``reader``'s language: "Your turn: Mosey vs Bob"."""
        return subject_line(reader.gettext(event, **values),
                            title_of(self.row, self.context_in(reader)["player_names"], seat,
                                     reader))

    def describe(self, seat: int, reader: Reader = ENGLISH) -> str:
        """The engine's line about the position as ``seat`` sees it, naming the players; for
        the seat to move, how to choose a number the move asks for (Stigmergy's komi)."""
        line = in_words(self.game.describe(self.state, seat), self.context["names"],
                        self.context_in(reader)["labels"], reader)
        if self.game.to_move(self.state) == seat:
            numbers = self.game.move_choices(self.state)[1]
            hints = [reader.gettext(numbers.hint)] if numbers and numbers.hint else []
            line = " ".join([line, *hints])
        return line

    def board(self, seat: int, *, over: bool = False) -> BoardRef:
        """The picture for ``seat``; ``over`` for the game-over email, whose game may have
        ended off the board (its alt text then says so rather than who is to move)."""
        key = (board_viewer(self.game.info, seat), over)
        if key not in self.boards:
            last = self.moves[-1].notation if self.moves else None
            self.boards[key] = board_ref(
                self.game, self.state, self.row.ply, seat, last, self.context["labels"],
                player_names=self.context["player_names"],
                ending=ending_of(self.row, self.seats, self.game, self.state) if over else None)
        return self.boards[key]

    def context_for(self, seat: Seat, reader: Reader = ENGLISH, **extra: Any) -> dict[str, Any]:
        """The seat's own context: its moves since its last turn and its own text board (a
        game with hidden information shows each seat only what it may know)."""
        return {**self.context_in(reader), "seat": seat,
                "describe": self.describe(seat.seat, reader),
                "since": moves_for(moves_since_last_turn(self.moves, seat.seat), reader),
                "text_board": self.context_in(reader)["text_board_for"](seat.seat), **extra}

    def result(self, reader: Reader) -> str:
        """The game's result in ``reader``'s language where the server wrote it."""
        return shown_result(self.row.result or "", self.game, self.state,
                            list(self.row.winners or []),
                            [s.seat for s in self.seats if s.resigned],
                            [s.seat for s in self.seats if s.forfeited],
                            lambda r: self.context_in(r)["labels"], reader)


def send_turn_notice(
    session: Session, now: datetime, site: Site, row: GameRecord,
    game: engine.AnyGame, state: Any, seats: list[Seat],
    mail: _Mailing | None = None, *, welcome: bool = False,
) -> None:
    """The essential email: it is your turn, here is the board and your move link. A player
    who has just been given the seat gets the rules with it (``welcome``)."""
    seat_number = game.to_move(state)
    if seat_number is None or row.id is None:
        return
    seat = seats[seat_number]
    if seat.stand_in:  # the computer plays this seat now: nothing to ask its player
        return
    mail = mail or _Mailing.of(session, row, game, state, seats)
    event = N_("Welcome, your turn:") if welcome else N_("Your turn:")
    move_url = site.links.move_url(row.id, seat_number, row.ply, holder=seat.player_id)
    resign_url = site.links.resign_url(row.id, seat_number, holder=seat.player_id)
    extras = seat_email_extras(session, row, seat, "turn")
    enqueue(
        session, now, site, row=row, seat=seat, player=mail.players[seat.player_id], kind="turn",
        subject=lambda reader: mail.subject(event, seat_number, reader),
        board=mail.board(seat_number),
        context=lambda reader: mail.context_for(seat, reader, welcome=welcome,
                                                move_url=move_url, resign_url=resign_url,
                                                **extras),
    )


def send_updates(
    session: Session, now: datetime, site: Site, row: GameRecord,
    game: engine.AnyGame, state: Any, seats: list[Seat], *, mover: int,
    mail: _Mailing | None = None, skip: Collection[int] = (),
) -> None:
    """Short, non-essential news for the players who neither moved nor move next. None while
    the computer moves next: it answers within seconds, and the next person's email (a turn,
    or this news after the computer's move) lists every move since, so a player facing two
    computers got a "moved" email for each before every "Your turn"."""
    if row.id is None:
        return
    mail = mail or _Mailing.of(session, row, game, state, seats)
    if row.to_move is not None and 0 <= row.to_move < len(seats):
        following = seats[row.to_move]
        if following.stand_in or mail.players[following.player_id].bot_level is not None:
            return
    for seat in seats:
        player = mail.players[seat.player_id]
        if seat.seat in (mover, row.to_move) or seat.seat in skip or not player.notify_updates:
            continue
        def subject(reader: Reader, number: int = seat.seat) -> str:
            return mail.subject(N_("%(player)s moved:"), number, reader,
                                player=mail.context_in(reader)["player_names"][mover])

        def context(reader: Reader, seat: Seat = seat) -> dict[str, Any]:
            return mail.context_for(seat, reader)

        enqueue(
            session, now, site, row=row, seat=seat, player=player, kind="update",
            subject=subject, essential=False, board=mail.board(seat.seat), context=context,
        )


def send_game_over(
    session: Session, now: datetime, site: Site, row: GameRecord,
    game: engine.AnyGame, state: Any, seats: list[Seat],
    mail: _Mailing | None = None,
) -> GameFinished | None:
    """Everyone learns the result, as it is for them: won, lost, shared or a draw.

    Every way a game ends (its rules in :func:`apply_move`, :func:`resign`, a forfeit on time,
    an adjudication) comes here in the transaction that ends it, and tells the features
    (:class:`~pbem.services.events.GameFinished`: ratings, tournaments) first, so what they
    write is written with the game's end, or not at all."""
    if row.id is None:
        return None
    finished = GameFinished(session, now, site, row, seats)
    EVENTS.publish(finished)
    mail = mail or _Mailing.of(session, row, game, state, seats)
    def names(reader: Reader) -> list[str]:
        return list(mail.context_in(reader)["player_names"])

    extras = {seat.seat: {key: value for answer in EVENTS.publish(GameOverEmail(site, row, seat))
                          for key, value in answer.items()} for seat in seats}

    for seat in seats:
        def subject(reader: Reader, number: int = seat.seat) -> str:
            return subject_line(game_over_event(row.winners, number, names(reader), reader),
                                title_of(row, names(reader), number, reader))

        def context(reader: Reader, seat: Seat = seat) -> dict[str, Any]:
            return mail.context_for(seat, reader, mine=outcome_for(row.winners, seat.seat),
                                    result=mail.result(reader), **extras[seat.seat])

        enqueue(
            session, now, site, row=row, seat=seat, player=mail.players[seat.player_id],
            kind="game_over", subject=subject, board=mail.board(seat.seat, over=True),
            context=context,
        )
    return finished
