"""The emails about a turn and a game's end, written by subscribers to the events the turn
service publishes (:mod:`pbem.services.events`), in the transaction that played the moves.

The turn service (:mod:`pbem.services.turns`) knows nothing of mail: it publishes each move, then
the turn that started (:class:`~pbem.services.events.TurnStarted`) or the game that ended
(:class:`~pbem.services.events.GameFinished`); :func:`on_turn_started` writes the turn email and
the other players' news, :func:`on_game_finished` everyone's game-over email. Both are
subscribed first (:func:`pbem.features.connect`), so a game's own emails are written, and
delivered (:mod:`pbem.mail.outbox` keeps each recipient's emails in order), before what the
features write about the same event, such as a tournament's next round.

A person playing the computer on the web is not mailed about a turn while they are on the game's
pages (:func:`hold_turn_email`): the email is held, and the sweep writes it only if they leave
(:func:`send_held_turn_emails`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, select

import engine
from engine.text import N_
from pbem.db import Database
from pbem.i18n import ENGLISH, Reader
from pbem.models import GameRecord, GameStatus, Move, MoveSource, Player, Seat
from pbem.positions import current_state, moves_of
from pbem.services.common import Site, lock_game, players_of, seats_of
from pbem.services.events import EVENTS, GameFinished, GameOverEmail, SeatEmail, TurnStarted
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
from pbem.services.results import ending_of, in_words, outcome_for, shown_result

# The moves a person made (the others: a computer's, a stand-in's, the server's own passes).
_PEOPLES_MOVES = frozenset({MoveSource.LINK, MoveSource.REPLY, MoveSource.ADMIN,
                            MoveSource.TIMEOUT})


def on_turn_started(event: TurnStarted) -> None:
    """Subscribed to :class:`TurnStarted`: the turn email to the seat to move (held while a
    person playing the computer is on the game's page), and the short news to the others after
    a move (not after the game's first turn, which the start told them)."""
    if event.quiet:
        return
    row = event.row
    assert row.id is not None
    seats = seats_of(event.session, row.id)
    mail = _Mailing.of(event.session, row, event.game, event.state, seats)
    if not hold_turn_email(event.session, event.now, event.site, row, seats, mail.players):
        send_turn_notice(event.session, event.now, event.site, row, event.game, event.state,
                         seats, mail=mail)
    if event.mover is not None:
        # A seat whose conditional move answered in this turn is told so instead of the update.
        answered = {m.seat for m in event.played if m.source == MoveSource.CONDITIONAL}
        send_updates(event.session, event.now, event.site, row, event.game, event.state, seats,
                     mover=event.mover, mail=mail, skip=answered)
        for seat in answered - {row.to_move}:
            send_conditional_played(event.session, event.now, event.site, row, seats[seat],
                                    event.played, mail)


def on_game_finished(event: GameFinished) -> None:
    """Subscribed to :class:`GameFinished`: everyone's game-over email."""
    send_game_over(event.session, event.now, event.site, event.row, event.game, event.state,
                   event.seats)


def only_person(seats: list[Seat], players: dict[int, Player]) -> Seat | None:
    """The one seat a person plays in a game against the computer; None in any other game."""
    people = [s for s in seats if players[s.player_id].bot_level is None]
    return people[0] if len(people) == 1 else None


def hold_turn_email(session: Session, now: datetime, site: Site, row: GameRecord,
                    seats: list[Seat], players: dict[int, Player]) -> bool:
    """Whether the turn email now due is held: the game is against the computer and its person,
    to move, viewed one of its pages less than :attr:`Site.turn_email_hold` ago (they watch the
    computer's reply come in on the page). The seat keeps the ply held, for the sweep."""
    person = only_person(seats, players)
    if (person is None or person.seat != row.to_move or person.page_viewed_at is None
            or person.stand_in or now - person.page_viewed_at >= site.turn_email_hold):
        return False
    person.turn_email_held = row.ply
    session.add(person)
    return True


def send_held_turn_emails(database: Database, now: datetime, site: Site) -> int:
    """The sweep's part: the held turn emails of the players who left the game's pages (no view
    for :attr:`Site.turn_email_hold`) and still have that turn, written now; the holds of turns
    that are over are let go. Returns how many emails were written."""
    cutoff = now - site.turn_email_hold
    with database.session() as session:
        held = [(seat_id, game_id) for seat_id, game_id in session.exec(
            select(Seat.id, Seat.game_id).where(col(Seat.turn_email_held).is_not(None),
                                                col(Seat.page_viewed_at) <= cutoff))]
    written = 0
    for seat_id, game_id in held:
        with database.write() as session:
            row = lock_game(session, game_id)
            seat = session.get(Seat, seat_id)
            if seat is None or seat.turn_email_held is None:
                continue  # written by another sweep meanwhile
            if seat.page_viewed_at is not None and seat.page_viewed_at > cutoff:
                continue  # back on the page meanwhile
            still = (row.status == GameStatus.ACTIVE and row.to_move == seat.seat
                     and row.ply == seat.turn_email_held)
            seat.turn_email_held = None
            session.add(seat)
            if still:
                game, state = current_state(row)
                send_turn_notice(session, now, site, row, game, state, seats_of(session, game_id))
                written += 1
    return written


def record_page_view(session: Session, now: datetime, game_id: int, seat: int) -> None:
    """The player of ``seat`` is looking at game ``game_id``'s page now (one UPDATE): while
    they are, a game against the computer mails them no turn (:func:`hold_turn_email`)."""
    session.execute(update(Seat).where(col(Seat.game_id) == game_id, col(Seat.seat) == seat)
                    .values(page_viewed_at=now).execution_options(synchronize_session=False))


def reply_example(game: engine.AnyGame, state: Any) -> str:
    """A legal move of the position in the game's notation, for "Reply with your move, for
    example ...": one that is not a word (such as ``pass``) where there is one."""
    legal = [str(move) for move in game.legal_moves(state)]
    words = set(game.move_words)
    return next((m for m in legal if m not in words), legal[0] if legal else "")


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
                ending=ending_of(self.row, self.seats, self.game, self.state) if over else None,
                labels_in=lambda reader: self.context_in(reader)["labels"])
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


def send_turn_notice(
    session: Session, now: datetime, site: Site, row: GameRecord,
    game: engine.AnyGame, state: Any, seats: list[Seat],
    mail: _Mailing | None = None, *, welcome: bool = False,
) -> None:
    """The essential email: it is your turn, here is the board and your move link. A player
    who has just been given the seat gets the rules with it (``welcome``). Until a person has
    moved, it also says the game has started (the first player gets no other email about the
    start, nor does a person whose computer opponents move first). With play by reply on, its
    text starts by saying so, with a legal move of the position as the example."""
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
    started = not any(move.source in _PEOPLES_MOVES for move in mail.moves)
    example = reply_example(game, state) if site.reply_address else ""
    extras = seat_email_extras(session, row, seat, "turn")
    enqueue(
        session, now, site, row=row, seat=seat, player=mail.players[seat.player_id], kind="turn",
        subject=lambda reader: mail.subject(event, seat_number, reader),
        board=mail.board(seat_number),
        context=lambda reader: mail.context_for(seat, reader, welcome=welcome,
                                                started=started, reply_example=example,
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
) -> None:
    """Everyone learns the result, as it is for them: won, lost, shared or a draw."""
    if row.id is None:
        return
    mail = _Mailing.of(session, row, game, state, seats)

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
