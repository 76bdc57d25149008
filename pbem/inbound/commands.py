"""What a reply asks for: a move (one or several steps of a turn) or a command.

Moves go through :func:`pbem.services.turns.play_turn`, exactly as from the move page, so the next
player's turn email goes out as usual. A turn of several steps is applied in one savepoint: all
steps or none. Commands: ``help``, ``board``, ``status``, ``games``, ``pass``, ``resign`` (only a
reply to the confirmation request resigns), ``vacation 5d``, ``notify digest 8`` (and ``all``,
``turns``, ``off``: the holder's mail, pbem.notifications) and ``mute``/``unmute`` (this game's
mail), or their words in Dutch, German or Italian (:data:`pbem.inbound.reading.COMMAND_WORDS`).
Lines that start with ``say:`` are a message to the game's other players, beside any move or
command: published as :class:`~pbem.services.events.ReplySaid` for the conversation (pbem.chat)
to post, and only from the seat holder's own address.

A move is played from whatever address answers the seat's reply address (the address is the
credential, as the links are; the holder's receipt names the other address). Commands that change
the holder's state other than a move (:data:`CONFIRMED`: ``vacation``, and ``resign`` from anybody)
are only asked for: the holder gets a mail whose reply token has that command as its purpose, and
only an answer to that mail with that command carries it out. A stranger can therefore neither
spend the holder's vacation allowance nor resign for them.

Answers other than receipts are limited per hour (:func:`pbem.inbound.answers.why_held_back`);
a command over the limit is still carried out when it changes something, only not answered.

A reply to an invitation (its Reply-To names the seat at ply 0, like any email about a seat)
answers it with ``accept`` or ``decline``, as the invitation link's buttons do
(:func:`pbem.services.respond_to_invitation`); a move, ``pass`` or ``resign`` in a game that has
not started is refused with what to do instead.

Every answer is in the seat holder's language. Refusals say why with a :class:`engine.text.Text`
(the engine's reason for an illegal move among them), translated for the holder; the outcome's
``detail`` keeps the English, for the log and the dashboard.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session

import engine
from engine.text import Text
from pbem.clock.arithmetic import local_date
from pbem.conditional.service import (
    ConditionalRefused,
    allows_conditional_moves,
    clear,
    save,
    shown,
)
from pbem.conditional.tree import is_conditional_line, rows
from pbem.errors import reason_of
from pbem.i18n import Reader
from pbem.inbound.answers import (
    Thread,
    answer,
    example_moves,
    games_of,
    reader_for,
    why_held_back,
)
from pbem.inbound.reading import Reply, command_words
from pbem.inbound.words import CONDITIONAL_WORDS, CommandName, notify_words
from pbem.models import GameRecord, GameStatus, MoveSource, Player, ReplyOutcome, Seat, SeatStatus
from pbem.notifications.service import choose, mute, setting_of
from pbem.notifications.tables import Mode
from pbem.positions import current_state
from pbem.reply_addresses import ReplyFields, ReplyPurpose, make_reply_token, reply_address
from pbem.services import ServiceError, resign, respond_to_invitation
from pbem.services.common import Site
from pbem.services.events import EVENTS, ReplySaid
from pbem.services.moves import Position
from pbem.services.turns import TurnOver, play_turn
from pbem.services.vacations import add_absence


@dataclass(frozen=True)
class Handled:
    """What became of a message: ``kind`` (a :class:`~pbem.models.ReplyOutcome`); ``detail``
    says why (for the log and the dashboard); ``answered``: an email went back (to the sender,
    or to the seat's holder); ``seat``: the seat its reply address named."""

    kind: ReplyOutcome
    detail: str = ""
    game_id: int | None = None
    answered: bool = False
    seat: int | None = None


@dataclass(frozen=True)
class Context:
    """Everything a command needs: the transaction, the message, and the seat it is about."""

    session: Session
    now: datetime
    site: Site
    thread: Thread
    row: GameRecord
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

    def reply_to(self, purpose: ReplyPurpose = "move") -> str:
        """A fresh reply address for this seat at the game's current ply."""
        if not self.site.reply_address or self.row.id is None:
            return ""
        fields = ReplyFields(purpose, self.row.id, self.seat.seat, self.row.ply,
                             self.seat.player_id)
        return reply_address(self.site.reply_address,
                             make_reply_token(self.site.links.secret_key, fields))

    def send(self, kind: str, *, with_board: bool = False, purpose: ReplyPurpose = "move",
             **values: Any) -> None:
        """Write email/<kind> to the seat's holder, whatever the hour's limits (receipts)."""
        values = {"stranger": self.stranger, "stranger_address": self.thread.sender, **values}
        answer(self.session, self.now, self.site, self.thread, kind=kind, row=self.row,
               seat=self.seat, player=self.holder, with_board=with_board,
               reply_to=self.reply_to(purpose), reader=self.reader, **values)

    def held_back(self, *, refusal: bool) -> str | None:
        """Why this message gets no answer this hour, or None (see :func:`why_held_back`)."""
        return why_held_back(self.session, self.now, sender=self.thread.sender, seat=self.seat,
                             holder=self.holder, refusal=refusal)

    def refuse(self, reason: str, text: Text, **values: Any) -> Handled:
        """Refuse with ``text`` (a :class:`Text`, said in the holder's language)."""
        if why := self.held_back(refusal=True):
            return self.done(ReplyOutcome.REFUSED, f"{reason}: {text} (not answered: {why})",
                             answered=False)
        self.send("reply_refused", reason=self.reader.text(text), **values)
        return self.done(ReplyOutcome.REFUSED, f"{reason}: {text}")

    def reply(self, kind: str, detail: str, *, purpose: ReplyPurpose = "move",
              **values: Any) -> Handled:
        """Answer a command with email/<kind>, unless this hour's answers are used up."""
        if why := self.held_back(refusal=False):
            return self.done(ReplyOutcome.COMMAND, f"{detail} (not answered: {why})",
                             answered=False)
        self.send(kind, purpose=purpose, **values)
        return self.done(ReplyOutcome.COMMAND, detail)

    def done(self, kind: ReplyOutcome, detail: str, *, answered: bool = True) -> Handled:
        return Handled(kind, detail, self.row.id, answered=answered, seat=self.seat.seat)


def run(context: Context, reply: Reply) -> Handled:
    """Carry out ``reply`` for the seat of ``context``: its message to the other players first
    (its ``say:`` lines), then the move or command in the rest of it."""
    if not reply.said:
        return carry_out(context, reply)
    refused = say(context, reply.said)
    rest = replace(reply, said="")
    if not rest.steps and rest.command is None:  # a message and nothing else
        if refused is not None:
            return context.refuse("say", refused)
        return context.done(ReplyOutcome.COMMAND, "said", answered=False)
    if refused is not None and not context.held_back(refusal=True):
        context.send("reply_refused", reason=context.reader.text(refused))
    handled = carry_out(context, rest)
    told = "not said" if refused is not None else "said"
    return replace(handled, detail=f"{told}; {handled.detail}")


def say(context: Context, text: str) -> Text | None:
    """Pass ``text`` on to the game's other players (:class:`ReplySaid`: pbem.chat writes it
    and mails it); why not, or None. Only from the seat holder's own address: a forwarded
    email may play a move, as the links do, but nobody writes in another's name."""
    if context.stranger:
        return Text("a message to the other players is sent from the address the game's emails "
                    "go to; it was not sent")
    answers = [answer for answer in EVENTS.publish(ReplySaid(
        context.session, context.now, context.site, context.row, context.seat, text))
        if answer is not None]
    return answers[0] if answers else None


def carry_out(context: Context, reply: Reply) -> Handled:
    """The move or command of ``reply``."""
    if context.fields.purpose != "move":
        return confirmed(context, reply)
    if (asked := conditional_request(reply.steps)) is not None:
        return conditional_moves(context, asked)
    if context.row.status == GameStatus.INVITED and (reply.steps or (
            reply.command is not None and reply.command.name in ("pass", "resign"))):
        return not_started(context)
    if reply.command is not None:
        name = reply.command.name
        if name == "pass":
            return play(context, ("pass",), reply.note)
        if name in CONFIRMED and (context.stranger or name == "resign"):
            return ask_to_confirm(context, reply)
        return COMMANDS[name](context, reply)
    if not reply.steps:
        return send_help(context, reply, detail="help (an empty reply)")
    return play(context, reply.steps, reply.note)


def confirmed(context: Context, reply: Reply) -> Handled:
    """A reply to the mail that asked the holder to confirm a command: that command, or
    nothing (the reply token's purpose names it)."""
    purpose = context.fields.purpose
    if reply.command is not None and reply.command.name == purpose:
        return CARRY_OUT[purpose](context, reply)
    if purpose == "resign":
        return context.refuse("resign", Text(
            "to resign, answer the confirmation with the word %(resign)s; nothing was changed",
            resign=context.words["resign"]))
    return context.refuse(purpose, Text(
        "this email only confirms %(command)s: answer it with that command on the first line; "
        "nothing was changed", command=f'"{context.words[purpose]}"'))


def ask_to_confirm(context: Context, reply: Reply) -> Handled:
    """Ask the seat's holder to confirm a command of :data:`CONFIRMED`: their own resignation,
    or a command that came from another address (which is named, and is not carried out)."""
    assert reply.command is not None
    name = reply.command.name
    purpose = CONFIRMED[name]
    if not context.stranger:  # only a resignation asks the holder who wrote it
        return context.reply("reply_resign", "resign: confirmation asked", purpose=purpose)
    asked = context.words[name]
    if reply.command.days is not None:
        asked = f"{asked} {reply.command.days}d"  # "d" is a day in every language
    return context.reply("reply_confirm", f"{name}: confirmation asked of the holder",
                         purpose=purpose, asked=asked, asker=context.thread.sender,
                         stranger=False)


def play(context: Context, steps: tuple[str, ...], note: str) -> Handled:
    """All ``steps`` of a turn in one savepoint, or none of them."""
    session, row = context.session, context.row
    assert row.id is not None
    if row.ply != context.fields.ply or row.status != GameStatus.ACTIVE:
        return context.refuse("moved-on", Text(
            "this turn is over: the game has moved on since the email you answered; nothing "
            "was played"))
    position = Position.of(row)  # carried through the turn into its receipt
    try:
        with session.begin_nested():
            try:
                play_turn(session, context.now, context.site, game_id=row.id,
                          seat=context.seat.seat, ply=row.ply, steps=steps, note=note,
                          source=MoveSource.REPLY, position=position)
            except TurnOver as over:  # in the reply's own words
                raise ServiceError(Text(
                    "your turn ended after %(played)s, but the reply goes on with %(next)s",
                    played="; ".join(over.played), next=repr(over.next))) from None
    except (ServiceError, engine.IllegalMove) as error:
        session.refresh(row)
        return context.refuse("illegal", Text("%(reason)s; nothing was played",
                                              reason=reason_of(error)),
                              tried="; ".join(steps))
    played = "; ".join(steps)
    context.send("reply_receipt", with_board=True, played=played, note=note,  # never held back
                 position=position)
    return context.done(ReplyOutcome.PLAYED, played)


def conditional_request(steps: tuple[str, ...]) -> str | None:
    """What a reply asks of the seat's conditional moves, or None when it is about something
    else: "show" (``conditional``), "off" (``conditional off``), or the lines to keep (each
    ``if X then Y``, one a line)."""
    if not steps:
        return None
    words = [word.lower() for word in steps[0].rstrip(".!?").split()]
    if words and len(steps) == 1 and words[0] in {w for w, _ in CONDITIONAL_WORDS.values()}:
        if len(words) == 1:
            return "show"
        if len(words) == 2 and words[1] in {off for _, off in CONDITIONAL_WORDS.values()}:
            return "off"
    if is_conditional_line(steps[0]):
        return "\n".join(steps)
    return None


def conditional_moves(context: Context, asked: str) -> Handled:
    """Show, clear or keep the seat's conditional moves (pbem.conditional), and answer with
    what it keeps now, in words."""
    session, row, seat = context.session, context.row, context.seat
    assert row.id is not None
    cleared = False
    try:
        with session.begin_nested():
            if asked == "off":
                cleared = clear(session, context.now, game_id=row.id, seat=seat.seat,
                                holder=seat.player_id)
            elif asked != "show":
                save(session, context.now, game_id=row.id, seat=seat.seat, text=asked,
                     holder=seat.player_id)
    except ConditionalRefused as error:
        session.refresh(row)
        return context.refuse("conditional", Text("%(reason)s; nothing was changed",
                                                  reason=error.text),
                              tried=asked if asked not in ("show", "off") else "")
    session.refresh(row)
    kept = shown(session, row, seat)
    return context.reply("reply_conditional", f"conditional {asked.splitlines()[0]}",
                         branches=rows(kept.tree), cleared=cleared, asked=asked,
                         refusal=context.reader.text(kept.refusal) if kept.refusal else "")


def not_started(context: Context) -> Handled:
    """A move (or ``pass``, ``resign``) for a game still waiting for its players' answers."""
    if context.seat.status == SeatStatus.ACCEPTED:
        return context.refuse("not-started", Text(
            "this game has not started yet: it starts when every player has accepted, and you "
            "will get an email when it is your turn; nothing was played"))
    return context.refuse("not-started", Text(
        "this game has not started yet: answer the invitation with %(accept)s or %(decline)s, "
        "or use the link in it; nothing was played",
        accept=f'"{context.words["accept"]}"', decline=f'"{context.words["decline"]}"'))


def answer_invitation(context: Context, reply: Reply) -> Handled:
    """``accept`` or ``decline``: the invitation link's buttons, by mail, from the invited
    address only (a forwarded invitation is answered with its link)."""
    assert reply.command is not None and context.row.id is not None
    accept = reply.command.name == "accept"
    if context.stranger:
        return context.refuse("invitation", Text(
            "an invitation is answered from the address it was sent to, or with the link in "
            "it; nothing was changed"))
    try:
        with context.session.begin_nested():
            row = respond_to_invitation(context.session, context.now, context.site,
                                        game_id=context.row.id, seat=context.seat.seat,
                                        accept=accept)
    except ServiceError as error:  # the game started or ended meanwhile
        context.session.refresh(context.row)
        return context.refuse("invitation", Text("%(reason)s; nothing was changed",
                                                 reason=reason_of(error)))
    return context.reply("reply_invitation", "invitation " + ("accepted" if accept else
                                                               "declined"),
                         accepted=accept, started=row.status == GameStatus.ACTIVE)


def resign_now(context: Context) -> Handled:
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
    # the resignation's own emails tell everyone
    return context.done(ReplyOutcome.COMMAND, "resigned")


def send_help(context: Context, reply: Reply, *, detail: str = "help") -> Handled:
    game, state = current_state(context.row)
    language = context.reader.language
    return context.reply("reply_help", detail,
                         examples=example_moves(game, state, context.seat.seat),
                         your_turn=context.row.to_move == context.seat.seat,
                         conditional=CONDITIONAL_WORDS.get(language, CONDITIONAL_WORDS["en"])
                         if allows_conditional_moves(game) else None)


def send_board(context: Context, reply: Reply) -> Handled:
    return context.reply("reply_board", "board", with_board=True)


def send_status(context: Context, reply: Reply) -> Handled:
    game, state = current_state(context.row)
    outcome = game.outcome(state)
    return context.reply("reply_status", "status", to_move=context.row.to_move, outcome=outcome,
                         your_turn=context.row.to_move == context.seat.seat)


def send_games(context: Context, reply: Reply) -> Handled:
    assert context.holder.id is not None
    return context.reply("reply_games", "games", games=games_of(
        context.session, context.site, context.holder.id, context.reader))


def take_vacation(context: Context, reply: Reply) -> Handled:
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
    return context.reply("reply_vacation", f"vacation {days}d", start=start, end=end, days=days,
                         first_day=context.reader.day(start), last_day=context.reader.day(end))


def choose_mail(context: Context, reply: Reply) -> Handled:
    """``notify all|turns|digest [hour]|off``: how much mail the holder gets; ``notify`` alone
    says what is set. Only from the holder's own address: nobody else chooses their mail."""
    assert reply.command is not None and context.holder.id is not None
    if context.stranger:
        return context.refuse("notify", Text(
            "mail settings are changed only from your own address; nothing was changed"))
    setting = reply.command.setting
    if setting == "":
        words = notify_words(context.reader.language)
        return context.refuse("notify", Text(
            "after %(notify)s write %(all)s, %(turns)s, %(digest)s (with an hour from 0 to 23) "
            "or %(off)s; nothing was changed", notify=f'"{context.words["notify"]}"',
            **{name: f'"{word}"' for name, word in words.items()}))
    if setting is not None:
        try:
            with context.session.begin_nested():
                choose(context.session, context.now, player_id=context.holder.id,
                       mode=Mode(setting), digest_hour=reply.command.hour)
        except ServiceError as error:
            return context.refuse("notify", Text("%(reason)s; nothing was changed",
                                                 reason=reason_of(error)))
    chosen = setting_of(context.session, context.holder.id)
    return context.reply("reply_notify", f"notify {chosen.mode}", mode=chosen.mode,
                         hour=chosen.digest_hour, changed=setting is not None, muted=None,
                         notify_commands=notify_commands(context))


def mute_game(context: Context, reply: Reply) -> Handled:
    """``mute`` or ``unmute``: this game's mail, for the holder, from their own address."""
    assert reply.command is not None and context.holder.id is not None
    assert context.row.id is not None
    if context.stranger:
        return context.refuse(reply.command.name, Text(
            "mail settings are changed only from your own address; nothing was changed"))
    muted = reply.command.name == "mute"
    mute(context.session, context.now, player_id=context.holder.id, game_id=context.row.id,
         muted=muted)
    chosen = setting_of(context.session, context.holder.id)
    return context.reply("reply_notify", reply.command.name, mode=chosen.mode,
                         hour=chosen.digest_hour, changed=False, muted=muted,
                         notify_commands=notify_commands(context))


def notify_commands(context: Context) -> str:
    """"notify all", "notify turns", "notify digest 8", "notify off" in the holder's words."""
    notify, words = context.words["notify"], notify_words(context.reader.language)
    return ", ".join(f'"{notify} {words[name]}{" 8" if name == "digest" else ""}"'
                     for name in ("all", "turns", "digest", "off"))


Handler = Callable[[Context, Reply], Handled]

COMMANDS: dict[CommandName, Handler] = {
    "help": send_help, "board": send_board, "status": send_status, "games": send_games,
    "vacation": take_vacation, "accept": answer_invitation, "decline": answer_invitation,
    "notify": choose_mail, "mute": mute_game, "unmute": mute_game,
}
# Commands that change the holder's state other than a move, each with the purpose of the reply
# token that confirms it: carried out only by an answer to the mail asking the holder to confirm
# when asked from another address (``resign`` always asks). ``accept`` and ``decline`` are not
# here: from another address they are refused outright (the invitation's link works instead).
CONFIRMED: dict[CommandName, ReplyPurpose] = {"resign": "resign", "vacation": "vacation"}
CARRY_OUT: dict[ReplyPurpose, Handler] = {
    "resign": lambda context, reply: resign_now(context), "vacation": take_vacation}
