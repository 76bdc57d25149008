"""What a reply asks for: a move (one or several steps of a turn) or a command.

Moves go through :func:`pbem.services.submit_move`, exactly as from the move page, so the next
player's turn email goes out as usual. A turn of several steps is applied in one savepoint: all
steps or none. Commands: ``help``, ``board``, ``status``, ``games``, ``pass``, ``resign`` (only a
reply to the confirmation request resigns) and ``vacation 5d``, or their words in Dutch, German or
Italian (:data:`pbem.inbound.reading.COMMAND_WORDS`).

Every answer is in the seat holder's language. Refusals say why with a :class:`engine.text.Text`
(the engine's reason for an illegal move among them), translated for the holder; the outcome's
``detail`` keeps the English, for the log and the dashboard.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from babel.dates import format_date
from sqlmodel import Session

import engine
from engine.text import Text
from pbem.clock.arithmetic import local_date
from pbem.i18n import Reader
from pbem.inbound.answers import (
    Thread,
    answer,
    example_moves,
    games_of,
    reader_for,
    refusals_left,
)
from pbem.inbound.reading import Reply, command_words
from pbem.models import Game, GameStatus, MoveSource, Player, Seat
from pbem.positions import current_state
from pbem.reply_addresses import ReplyFields, make_reply_token, reply_address
from pbem.services import ServiceError, resign, submit_move
from pbem.services.common import Site
from pbem.services.vacations import add_absence


@dataclass(frozen=True)
class Outcome:
    """What became of a message: ``kind`` is played, command, refused, ignored, bounce or
    duplicate; ``detail`` says why (for the log and the dashboard); ``answered``: an email went
    back to the sender."""

    kind: str
    detail: str = ""
    game_id: int | None = None
    answered: bool = False


@dataclass(frozen=True)
class Context:
    """Everything a command needs: the transaction, the message, and the seat it is about."""

    session: Session
    now: datetime
    site: Site
    thread: Thread
    row: Game
    seat: Seat
    holder: Player
    fields: ReplyFields
    stranger: bool  # the reply came from another address than the holder's

    @property
    def reader(self) -> Reader:
        """The seat holder, who gets every answer (also to a reply from another address)."""
        return reader_for(self.site, self.holder)

    @property
    def words(self) -> dict[str, str]:
        """The command words of the holder's language."""
        return command_words(self.reader.language)

    def reply_to(self, purpose: str = "move") -> str:
        """A fresh reply address for this seat at the game's current ply."""
        if not self.site.reply_address or self.row.id is None:
            return ""
        fields = ReplyFields(purpose, self.row.id, self.seat.seat, self.row.ply,
                             self.seat.player_id)
        return reply_address(self.site.reply_address,
                             make_reply_token(self.site.links.secret_key, fields))

    def send(self, kind: str, *, with_board: bool = False, purpose: str = "move",
             **values: Any) -> None:
        answer(self.session, self.now, self.site, self.thread, kind=kind, row=self.row,
               seat=self.seat, player=self.holder, with_board=with_board,
               reply_to=self.reply_to(purpose), stranger=self.stranger,
               stranger_address=self.thread.sender, reader=self.reader, **values)

    def refuse(self, reason: str, text: str, **values: Any) -> Outcome:
        """Refuse with ``text`` (a :class:`Text`, said in the holder's language)."""
        if not refusals_left(self.session, self.now, self.thread.sender):
            return Outcome("refused", f"{reason}: {text}", self.row.id)
        self.send("reply_refused", reason=self.reader.text(text), **values)
        return Outcome("refused", f"{reason}: {text}", self.row.id, answered=True)

    def done(self, kind: str, detail: str) -> Outcome:
        return Outcome(kind, detail, self.row.id, answered=True)


def reason_of(error: Exception) -> str:
    """Why a move or a service was refused: the engine's :class:`Text` for an illegal move, the
    message a service raised (a Text where the service wrote one) otherwise."""
    if isinstance(error, engine.IllegalMove):
        return error.text
    found = getattr(error, "text", None) or (error.args[0] if error.args else "")
    return found if isinstance(found, str) else str(error)


def run(context: Context, reply: Reply) -> Outcome:
    """Carry out ``reply`` for the seat of ``context``."""
    if context.fields.purpose == "resign":
        if reply.command is not None and reply.command.name == "resign":
            return resign_now(context)
        return context.refuse("resign", Text(
            "to resign, answer the confirmation with the word %(resign)s; nothing was changed",
            resign=context.words["resign"]))
    if reply.command is not None:
        handler = COMMANDS.get(reply.command.name)
        if reply.command.name == "pass":
            return play(context, ("pass",), reply.note)
        assert handler is not None
        return handler(context, reply)
    if not reply.steps:
        send_help(context, reply)
        return context.done("command", "help (an empty reply)")
    return play(context, reply.steps, reply.note)


def play(context: Context, steps: tuple[str, ...], note: str) -> Outcome:
    """All ``steps`` of a turn in one savepoint, or none of them."""
    session, row = context.session, context.row
    assert row.id is not None
    if row.ply != context.fields.ply or row.status != GameStatus.ACTIVE:
        return context.refuse("moved-on", Text(
            "this turn is over: the game has moved on since the email you answered; nothing "
            "was played"))
    try:
        with session.begin_nested():
            ply = row.ply
            for number, step in enumerate(steps):
                last = number == len(steps) - 1
                submit_move(session, context.now, context.site, game_id=row.id,
                            seat=context.seat.seat, ply=ply, text=step,
                            note=note if last else "", source=MoveSource.REPLY)
                ply += 1
                if row.to_move != context.seat.seat and not last:
                    raise ServiceError(Text(
                        "your turn ended after %(played)s, but the reply goes on with %(next)s",
                        played="; ".join(steps[:number + 1]), next=repr(steps[number + 1])))
    except (ServiceError, engine.IllegalMove) as error:
        session.refresh(row)
        return context.refuse("illegal", Text("%(reason)s; nothing was played",
                                              reason=reason_of(error)),
                              tried="; ".join(steps))
    played = "; ".join(steps)
    context.send("reply_receipt", with_board=True, played=played, note=note)
    return context.done("played", played)


def resign_now(context: Context) -> Outcome:
    assert context.row.id is not None
    if context.row.status != GameStatus.ACTIVE:
        return context.refuse("moved-on", Text("this game is over; nothing was changed"))
    try:
        with context.session.begin_nested():
            resign(context.session, context.now, context.site, game_id=context.row.id,
                   seat=context.seat.seat)
    except ServiceError as error:  # already out of the game (resigned or forfeited)
        return context.refuse("resign", Text("%(reason)s; nothing was changed",
                                             reason=reason_of(error)))
    return Outcome("command", "resigned", context.row.id, answered=True)


def ask_to_resign(context: Context, reply: Reply) -> Outcome:
    context.send("reply_resign", purpose="resign")
    return context.done("command", "resign: confirmation asked")


def send_help(context: Context, reply: Reply) -> Outcome:
    game, state = current_state(context.row)
    context.send("reply_help", examples=example_moves(game, state, context.seat.seat),
                 your_turn=context.row.to_move == context.seat.seat)
    return context.done("command", "help")


def send_board(context: Context, reply: Reply) -> Outcome:
    context.send("reply_board", with_board=True)
    return context.done("command", "board")


def send_status(context: Context, reply: Reply) -> Outcome:
    game, state = current_state(context.row)
    outcome = game.outcome(state)
    context.send("reply_status", to_move=context.row.to_move, outcome=outcome,
                 your_turn=context.row.to_move == context.seat.seat)
    return context.done("command", "status")


def send_games(context: Context, reply: Reply) -> Outcome:
    assert context.holder.id is not None
    context.send("reply_games", games=games_of(context.session, context.site,
                                               context.holder.id, context.reader))
    return context.done("command", "games")


def take_vacation(context: Context, reply: Reply) -> Outcome:
    assert reply.command is not None and context.holder.id is not None
    days = reply.command.days or 1
    start = local_date(context.now, context.holder.time_zone)
    try:
        with context.session.begin_nested():
            add_absence(context.session, context.now, player_id=context.holder.id,
                        start=start, end=start + timedelta(days=days - 1))
    except ServiceError as error:
        return context.refuse("vacation", Text("%(reason)s; nothing was changed",
                                               reason=reason_of(error)))
    end = start + timedelta(days=days - 1)
    context.send("reply_vacation", start=start, end=end, days=days,
                 first_day=format_date(start, "medium", locale=context.reader.locale),
                 last_day=format_date(end, "medium", locale=context.reader.locale))
    return context.done("command", f"vacation {days}d")


COMMANDS = {
    "help": send_help, "board": send_board, "status": send_status, "games": send_games,
    "resign": ask_to_resign, "vacation": take_vacation,
}
