"""Posting, hiding and muting a game's messages, and the conversation as pages show it: plain
functions of a session and ``now``, as the core's services.

A message is text as its author wrote it, kept as written and escaped wherever it is shown
(Jinja's autoescaping on pages and in HTML mail; plain text mail carries it as text). Line breaks
are kept (at most two in a row); every other control or formatting character (escapes, direction
overrides, zero-width marks) is refused rather than silently cleaned, as notes are.

A player writes at most :attr:`~pbem.services.common.Site.chat_per_hour` messages an hour, all
their games together (PBEM_CHAT_PER_HOUR), counted in the database, so the pages and the replies
of every process share one count. Organisers have no limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from engine.text import Text
from pbem.addresses import has_control_characters
from pbem.chat.mail import ORGANISER, send_message
from pbem.chat.tables import ChatMessage, ChatMute
from pbem.errors import ServiceError
from pbem.i18n import Reader
from pbem.models import Move, Player, Seat
from pbem.positions import STATE_AFTER
from pbem.services.common import Site, audit, lock_game, shown_name
from pbem.services.notify import is_server_note

MAX_MESSAGE = 2000  # characters: a few paragraphs
HOUR = timedelta(hours=1)
WEB, REPLY, DASHBOARD = "web", "reply", "dashboard"  # where a message was written
_BLANK_LINES = re.compile(r"\n{3,}")


class ChatRefused(ServiceError):
    """A message that was not posted; the text says why, for its author."""


class NotAPlayer(ChatRefused):
    def __init__(self) -> None:
        super().__init__(Text("only the players of this game can write in its conversation"))


class EmptyMessage(ChatRefused):
    def __init__(self) -> None:
        super().__init__(Text("the message is empty"))


class MessageTooLong(ChatRefused):
    def __init__(self) -> None:
        super().__init__(Text("a message can be at most %(count)d characters long",
                              count=MAX_MESSAGE))


class UnreadableCharacters(ChatRefused):
    def __init__(self) -> None:
        super().__init__(Text("a message may have line breaks, but no other control characters"))


class TooManyMessages(ChatRefused):
    def __init__(self, limit: int, minutes: int) -> None:
        super().__init__(Text("you have written %(limit)d messages in the last hour, as many as "
                              "an hour allows: try again in %(minutes)d minutes",
                              limit=limit, minutes=minutes))


class NoSuchMessage(ServiceError):
    def __init__(self) -> None:
        super().__init__(Text("there is no such message in this game"))


def checked_message(text: str) -> str:
    """``text`` as a message is kept: Unix line ends, no blanks around it, at most one empty
    line in a row; :class:`ChatRefused` says what is wrong with it.

    >>> checked_message("  Hello,\\r\\n\\r\\n\\r\\n\\r\\nwell played!  ")
    'Hello,\\n\\nwell played!'
    """
    body = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not body:
        raise EmptyMessage()
    if any(has_control_characters(line) for line in body.split("\n")):
        raise UnreadableCharacters()
    body = _BLANK_LINES.sub("\n\n", "\n".join(line.rstrip() for line in body.split("\n")))
    if len(body) > MAX_MESSAGE:
        raise MessageTooLong()
    return body


def written_this_hour(session: Session, now: datetime, player_id: int) -> list[datetime]:
    """When ``player_id`` wrote each of their messages of the last hour, oldest first."""
    return list(session.exec(select(ChatMessage.created_at).where(
        ChatMessage.player_id == player_id, col(ChatMessage.created_at) > now - HOUR)
        .order_by(col(ChatMessage.created_at))))


def _check_limit(session: Session, now: datetime, player_id: int, limit: int) -> None:
    written = written_this_hour(session, now, player_id)
    if len(written) >= limit:
        # The oldest of the hour's messages leaves the count first.
        wait = written[len(written) - limit] + HOUR - now
        raise TooManyMessages(limit, max(1, -(-int(wait.total_seconds()) // 60)))


def post_message(session: Session, now: datetime, site: Site, *, game_id: int, seat: int,
                 text: str, source: str = WEB) -> ChatMessage:
    """``text`` from the player holding ``seat``, kept and mailed to the game's other players
    (:func:`pbem.chat.mail.send_message`); :class:`ChatRefused` says why not."""
    row = lock_game(session, game_id)
    holder = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.seat == seat)).first()
    if holder is None:
        raise NotAPlayer()
    # Locked: two messages at once from one player count one after the other.
    player = session.exec(select(Player).where(Player.id == holder.player_id)
                          .with_for_update()).one()
    if player.bot_level is not None:
        raise NotAPlayer()
    body = checked_message(text)
    assert player.id is not None
    _check_limit(session, now, player.id, site.chat_per_hour)
    message = ChatMessage(game_id=game_id, seat=seat, player_id=player.id, body=body,
                          source=source, created_at=now)
    session.add(message)
    session.flush()
    send_message(session, now, site, row, message)
    return message


def post_as_organiser(session: Session, now: datetime, site: Site, *, game_id: int,
                      organiser: str, text: str) -> ChatMessage:
    """``text`` from an organiser (the dashboard), mailed to every player of the game."""
    row = lock_game(session, game_id)
    message = ChatMessage(game_id=game_id, organiser=organiser, body=checked_message(text),
                          source=DASHBOARD, created_at=now)
    session.add(message)
    session.flush()
    audit(session, now, "chat message written", game_id=game_id, actor=organiser,
          message=message.id)
    send_message(session, now, site, row, message)
    return message


def hide_message(session: Session, now: datetime, *, game_id: int, message_id: int,
                 organiser: str) -> ChatMessage:
    """Hide a message from the players' pages (its emails are gone already); the audit log
    keeps who hid which, and the dashboard still shows it, marked hidden."""
    message = session.get(ChatMessage, message_id)
    if message is None or message.game_id != game_id:
        raise NoSuchMessage()
    if message.hidden_at is None:
        message.hidden_at, message.hidden_by = now, organiser
        session.add(message)
        audit(session, now, "chat message hidden", game_id=game_id,
              player_id=message.player_id, actor=organiser, message=message_id,
              seat=message.seat)
    return message


def set_muted(session: Session, now: datetime, *, game_id: int, player_id: int,
              muted: bool) -> None:
    """Whether ``player_id`` gets this game's messages by email (the pages show them anyway)."""
    if not muted:
        session.execute(delete(ChatMute).where(col(ChatMute.game_id) == game_id,
                                               col(ChatMute.player_id) == player_id))
    elif not is_muted(session, game_id, player_id):
        session.add(ChatMute(game_id=game_id, player_id=player_id, created_at=now))


def is_muted(session: Session, game_id: int, player_id: int) -> bool:
    return session.exec(select(func.count()).select_from(ChatMute).where(
        ChatMute.game_id == game_id, ChatMute.player_id == player_id)).one() > 0


@dataclass(frozen=True)
class Said:
    """One line of a game's conversation: a move's note (``move``, by whoever holds its seat)
    or a message (``message``, by ``player``, who keeps their name on it when the organiser
    gives the seat to someone else; None for an organiser's), at ``at``."""

    at: datetime
    seat: int | None
    move: Move | None = None
    message: ChatMessage | None = None
    player: Player | None = None
    number: int = 0  # the move's number, from 1, for a note


def who_said(said: Said, seat_names: list[str], reader: Reader) -> str:
    """Who wrote ``said``, for ``reader``: a message's author by name, "The organiser", or the
    player of a note's seat (``seat_names``: the seats' players, as :func:`shown_names`)."""
    if said.player is not None:
        return shown_name(said.player, reader)
    if said.message is not None or said.seat is None or said.seat >= len(seat_names):
        return reader.gettext(ORGANISER)
    return seat_names[said.seat]


def conversation(session: Session, game_id: int, *, hidden: bool = False) -> list[Said]:
    """The moves' notes and the messages of a game in the order they were written (a note
    before a message of the same moment: the move came first); ``hidden``: also the messages an
    organiser hid (the dashboard)."""
    notes = session.exec(select(Move).where(Move.game_id == game_id, col(Move.note) != "")
                         .options(defer(STATE_AFTER)))
    # The server's remarks on the moves it played itself (a forced pass) are nobody's words.
    said = [Said(move.made_at, move.seat, move=move, number=move.ply + 1)
            for move in notes if not is_server_note(move)]
    query = select(ChatMessage).where(ChatMessage.game_id == game_id)
    if not hidden:
        query = query.where(col(ChatMessage.hidden_at).is_(None))
    messages = list(session.exec(query))
    ids = {m.player_id for m in messages if m.player_id is not None}
    authors = {p.id: p for p in session.exec(select(Player).where(col(Player.id).in_(ids)))}
    said += (Said(message.created_at, message.seat, message=message,
                  player=authors.get(message.player_id or -1)) for message in messages)
    return sorted(said, key=lambda s: (s.at, s.message is not None,
                                       s.message.id if s.message else s.number))
