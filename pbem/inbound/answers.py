"""What pbem writes back to a reply: receipts, refusals, and the answers to commands.

Every answer goes to the outbox like any other email, in the thread of the message it answers
(``In-Reply-To`` its Message-ID), and carries a fresh reply address, so the conversation can go on
by mail. Answers other than receipts are limited per hour, counted in ``inbound_mail`` (what was
answered, from whom, about which seat): refusals per sender, so that two robots answering each
other stop quickly; answers to commands per sender and per seat; and answers to messages from
another address than the seat holder's (which go to the holder) to one an hour per seat, so that
nobody can fill a player's mailbox from a reply address they got hold of.

Answers are written in the language of the player they go to (:func:`reader_for`); a player
whose language pbem does not write gets the site's default language (``PBEM_DEFAULT_LANGUAGE``).
Every answer goes to a player: the seat's holder, or (for mail that names no seat) a player pbem
has mailed before, never to an address somebody merely wrote in From.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import make_msgid
from typing import Any

from sqlalchemy import ColumnElement, func
from sqlmodel import Session, col, select

import engine
from engine.text import N_
from pbem.clock.deadlines import clock_of
from pbem.clock.tables import GameClock
from pbem.game_options import game_name
from pbem.i18n import ENGLISH, Reader, supported
from pbem.inbound.reading import command_words
from pbem.inbound.words import notify_words
from pbem.models import GameRecord, GameStatus, InboundMail, OutboxEmail, Player, ReplyOutcome, Seat
from pbem.positions import last_notation
from pbem.reply_addresses import message_id, token_in_address
from pbem.services.common import Site, players_of, seats_of
from pbem.services.moves import Position
from pbem.services.notify import board_for, board_ref, game_context
from pbem.services.results import shown_result
from pbem.templating import render_email

REFUSALS_PER_HOUR = 5  # to one sender
ANSWERS_PER_HOUR = 5  # answers to commands, to one sender and about one seat
STRANGER_ANSWERS_PER_HOUR = 1  # about one seat, to messages from other addresses than its holder's
EXAMPLES = 6  # legal moves shown in help and refusals


@dataclass(frozen=True)
class Thread:
    """The message being answered: who wrote it, its Message-ID, and its subject."""

    sender: str
    message_id: str
    subject: str

    @property
    def answer_subject(self) -> str:
        """"Re: " and the subject of the message answered (in whatever language it was)."""
        subject = " ".join(self.subject.split())
        return subject if subject.lower().startswith("re:") else f"Re: {subject}".strip()

    def subject_for(self, reader: Reader, kind: str) -> str:
        """The answer's subject: :attr:`answer_subject`, or where the message had no subject,
        what the answer is, in ``reader``'s language."""
        if " ".join(self.subject.split()) or kind not in SUBJECTS:
            return self.answer_subject
        return reader.gettext(SUBJECTS[kind])


# The subjects of answers to messages that had none ("Re:" alone says nothing).
SUBJECTS = {
    "reply_receipt": N_("Your move was played"),
    "reply_refused": N_("Your message was not carried out"),
    "reply_help": N_("How to play by mail"),
    "reply_board": N_("The board now"),
    "reply_status": N_("Where your game stands"),
    "reply_conditional": N_("Your conditional moves"),
    "reply_games": N_("Your running games"),
    "reply_resign": N_("Do you want to resign?"),
    "reply_vacation": N_("Your vacation is recorded"),
    "reply_invitation": N_("Your answer to the invitation is recorded"),
    "reply_confirm": N_("Please confirm what was asked from another address"),
    "reply_notify": N_("Your mail settings"),
}

# A game's status as the status answer names it (a game that is not running).
STATUS_WORDS = {GameStatus.INVITED: N_("not started yet"), GameStatus.ACTIVE: N_("running"),
                GameStatus.FINISHED: N_("finished"), GameStatus.ABORTED: N_("aborted")}


def reader_for(site: Site, player: Player | None) -> Reader:
    """Whom an answer is for: the player's language and time zone, or for a sender we do not
    know (or a player without a language we speak) the site's default language."""
    default = supported(getattr(site, "default_language", None), "en")
    return Reader.of(player, default) if player is not None else Reader(default)


def answered_this_hour(session: Session, now: datetime, outcomes: tuple[str, ...],
                       *where: ColumnElement[bool]) -> int:
    """How many messages with one of ``outcomes`` (and matching ``where``) were answered in the
    hour before ``now``."""
    count = session.exec(select(func.count()).select_from(InboundMail).where(
        col(InboundMail.answered).is_(True), col(InboundMail.outcome).in_(outcomes),
        col(InboundMail.received_at) > now - timedelta(hours=1), *where)).one()
    return int(count)


def refusals_left(session: Session, now: datetime, sender: str) -> bool:
    """Whether ``sender`` may still get a refusal this hour (robots must not loop)."""
    return answered_this_hour(session, now, (ReplyOutcome.REFUSED,),
                              col(InboundMail.sender) == sender) < REFUSALS_PER_HOUR


def why_held_back(session: Session, now: datetime, *, sender: str, seat: Seat,
                  holder: Player, refusal: bool) -> str | None:
    """Why a message about ``seat`` from ``sender`` gets no answer (a refusal when
    ``refusal``, else the answer to a command) this hour, or None when it may get one.

    Receipts of moves are never held back: a move is what the reply address is for, and the game
    itself limits how often one can be played.
    """
    this_seat = (col(InboundMail.game_id) == seat.game_id, col(InboundMail.seat) == seat.seat)
    holder_address = holder.email.lower()
    if sender != holder_address and answered_this_hour(
            session, now, (ReplyOutcome.COMMAND, ReplyOutcome.REFUSED), *this_seat,
            col(InboundMail.sender) != holder_address) >= STRANGER_ANSWERS_PER_HOUR:
        return "the holder was told of a message from another address this hour"
    if refusal:
        return None if refusals_left(session, now, sender) else \
            f"{REFUSALS_PER_HOUR} refusals to this sender this hour"
    if answered_this_hour(session, now, (ReplyOutcome.COMMAND,),
                          col(InboundMail.sender) == sender) >= ANSWERS_PER_HOUR:
        return f"{ANSWERS_PER_HOUR} answers to this sender's commands this hour"
    if answered_this_hour(session, now, (ReplyOutcome.COMMAND,), *this_seat) >= ANSWERS_PER_HOUR:
        return f"{ANSWERS_PER_HOUR} answers to commands about this seat this hour"
    return None


def example_moves(game: engine.AnyGame, state: Any, seat: int) -> list[str]:
    """A few legal moves for ``seat`` now, as a player would type them (none if not its turn)."""
    if game.to_move(state) != seat:
        return []
    return [str(move) for move in list(game.legal_moves(state))[:EXAMPLES]]


def answer(
    session: Session, now: datetime, site: Site, thread: Thread, *, kind: str,
    row: GameRecord | None = None, seat: Seat | None = None, player: Player | None = None,
    with_board: bool = False, reply_to: str = "", reader: Reader | None = None,
    position: Position | None = None, **context: Any,
) -> OutboxEmail:
    """Write ``email/<kind>.txt`` and ``.html`` to ``thread.sender`` (or ``player``), in the
    thread of the message being answered; with the seat's board when ``with_board``. The
    answer is in ``reader``'s language (by default :func:`reader_for` the player).
    ``position``: the game's, when the caller has it decoded (the turn a reply played)."""
    reader = reader or reader_for(site, player)
    game_context_values: dict[str, Any] = {}
    board = None
    if row is not None and row.id is not None:
        position = position or Position.of(row)
        game, state = position.game, position.state
        seats = seats_of(session, row.id)
        players = players_of(session, seats)
        game_context_values = game_context(row, game, state, seats, players, reader=reader)
        game_context_values["deadline"] = clock_of(session, row.id).deadline
        labels = {reader: game_context_values["labels"]}
        game_context_values["result"] = shown_result(
            row.result or "", game, state, list(row.winners or []),
            [s.seat for s in seats if s.resigned], [s.seat for s in seats if s.forfeited],
            lambda r: labels.get(r) or game_context(row, game, state, seats, players, r)["labels"],
            reader)
        if seat is not None:
            # A game waiting for its players' answers has no moves to make yet.
            game_context_values["examples"] = example_moves(game, state, seat.seat) \
                if row.status == GameStatus.ACTIVE else []
            if with_board:
                last = last_notation(session, row.id)
                board = board_for(session, row, board_ref(game, state, row.ply, seat.seat, last),
                                  reader)
    subject = thread.subject_for(reader, kind)
    values = {**game_context_values, "player": player, "seat": seat, "board": board,
              "subject": subject, "links": site.links, "reply_address": reply_to,
              "words": command_words(reader.language), "status_words": STATUS_WORDS,
              "notify_words": notify_words(reader.language),
              **context}
    email = OutboxEmail(
        game_id=row.id if row is not None else None,
        player_id=player.id if player is not None else None,
        kind=kind,
        to_address=player.email if player is not None else thread.sender,
        to_name=player.name if player is not None else "",
        subject=subject,
        text_body=render_email(f"email/{kind}.txt", reader, **values),
        html_body=render_email(f"email/{kind}.html", reader, **values),
        image_ply=board.ply if board else None,
        image_viewer=board.viewer if board else None,
        image_language=reader.language,
        message_id=answer_message_id(site, kind, reply_to),
        in_reply_to=thread.message_id,
        reply_to=reply_to,
        next_attempt_at=now,
        created_at=now,
    )
    session.add(email)
    return email


def answer_message_id(site: Site, kind: str, reply_to: str) -> str:
    """A Message-ID that carries the reply token too, so an answer to this answer that reaches
    the plain reply address is still matched through In-Reply-To."""
    unique = make_msgid(idstring=kind).strip("<>").partition("@")[0]
    token = token_in_address(reply_to, site.reply_address) if reply_to else None
    if token is None:
        return make_msgid(idstring=kind, domain=site.mail_domain)
    return message_id(token, site.mail_domain, unique)


def games_of(session: Session, site: Site, player_id: int, reader: Reader = ENGLISH
             ) -> list[dict[str, Any]]:
    """The player's running games with what to do in each, for the ``games`` command (the
    games' names in ``reader``'s language)."""
    rows = session.exec(select(GameRecord, GameClock, Seat)
                        .join(GameClock, col(GameClock.game_id) == col(GameRecord.id))
                        .join(Seat, col(Seat.game_id) == col(GameRecord.id))
                        .where(Seat.player_id == player_id, GameRecord.status == "active")
                        .order_by(col(GameRecord.id))).all()
    found = []
    for row, clock, seat in rows:
        assert row.id is not None
        out = seat.resigned or seat.forfeited  # the computer plays it now
        mine = row.to_move == seat.seat and not out
        found.append({
            "title": game_name(row.game_type, reader),
            "public_id": row.public_id,
            "your_turn": mine, "out": out, "deadline": clock.deadline,
            "url": site.links.move_url(row.id, seat.seat, row.ply, holder=player_id) if mine
            else site.links.seat_view_url(row.id, seat.seat, holder=player_id)})
    return found
