"""Writing emails into the outbox: invitations, turn notices, updates, game over, notices.

Nothing here talks to a mail server; :mod:`pbem.mail.outbox` sends what is written here, later.
The board picture an email shows is drawn once per (game, ply, viewer, language), when the first
email that shows it is written (:func:`board_for`): the drawing and its size are kept
(:class:`~pbem.models.BoardImage`), every email showing it takes its size from there, and delivery
rasterises that drawing (:mod:`pbem.mail.boards`), however many recipients share it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from email.utils import make_msgid
from typing import Any
from xml.sax.saxutils import escape

from sqlalchemy import update
from sqlmodel import Session, col, select

import engine
from engine.text import N_, Text
from pbem.clock.deadlines import clock_of
from pbem.db import conflict_insert
from pbem.game_options import game_name, options_in_words
from pbem.i18n import ENGLISH, Reader, translations
from pbem.models import (
    BoardImage,
    GameRecord,
    GameStatus,
    Move,
    MoveSource,
    OutboxEmail,
    Player,
    Seat,
)
from pbem.reply_addresses import ReplyFields, make_reply_token, message_id, reply_address
from pbem.services.common import Site, players_of, seats_of, shown_names
from pbem.services.results import (
    ending_of,
    in_words,
    join_names,
    labels_for,
    name_generic_seats,
    outcome_for,
    seat_role,
    told_apart,
)
from pbem.templating import render_email

# What an email says for one reader: a subject or a template context made in their language.
ForReader = Callable[[Reader], Any]

_SIZE = re.compile(r'<svg[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"')
# Characters a subject must not carry: controls, and line and paragraph separators.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
MAX_SUBJECT = 200


@dataclass(frozen=True)
class BoardRef:
    """A board picture an email shows: which position, as whom; how big on screen once drawn
    for a reader (:func:`board_for`)."""

    ply: int
    viewer: int  # -1 for the public view
    last_move: str | None
    alt: str
    # The position drawn: the game's rules and its state at ``ply``.
    game: engine.AnyGame = field(compare=False, repr=False)
    state: Any = field(compare=False, repr=False)
    # The alt text for another reader (the English one is ``alt``).
    alt_for: Callable[[Reader], str] | None = field(default=None, compare=False, repr=False)
    # The seats' labels in a reader's language, where the email's writer has them at hand
    # (otherwise :func:`board_for` reads the seats and players for them).
    labels_in: Callable[[Reader], Sequence[str]] | None = field(default=None, compare=False,
                                                               repr=False)
    width: int | None = None
    height: int | None = None

    def for_reader(self, reader: Reader) -> BoardRef:
        """This picture with its alt text in ``reader``'s language."""
        if self.alt_for is None or reader == ENGLISH:
            return self
        return replace(self, alt=self.alt_for(reader))


def board_viewer(info: engine.GameInfo, seat: int | None) -> int:
    """Only hidden-information games need a picture per seat; others share the public one."""
    return seat if info.hidden_information and seat is not None else -1


def board_ref(
    game: engine.AnyGame, state: Any, ply: int, seat: int | None, last_move: str | None,
    labels: Sequence[str] = (), *, player_names: Sequence[str] | None = None,
    ending: engine.Ending | None = None,
    labels_in: Callable[[Reader], Sequence[str]] | None = None,
) -> BoardRef:
    """The picture for ``seat``; its alt text names the players where ``labels`` are given
    (``player_names`` lets other languages name the colours their own way). ``ending``: how the
    game ended (None: it runs); where it ended off the board in this position (resigned,
    forfeited, adjudicated), the alt text says "Game over." where it would say who is to move,
    as the picture does (:mod:`pbem.mail.boards`). Nothing is drawn yet: :func:`board_for`
    draws it for a reader."""
    viewer = board_viewer(game.info, seat)
    over = game.ended_off_board(state, ending)
    described = (Text("Game over.") if over
                 else game.describe(state, None if viewer < 0 else viewer))
    if player_names is None:
        player_names = [label.split(" (")[0] for label in labels]

    def alt_for(reader: Reader) -> str:
        names = (list(labels) if reader == ENGLISH or not labels
                 else labels_for(game, state, player_names, reader))
        position = in_words(described, game.seat_names(state), names, reader)
        if last_move:
            return reader.gettext("The %(game)s board. %(position)s Last move: %(move)s.",
                                  game=reader.gettext(game.info.name), position=position,
                                  move=last_move)
        return reader.gettext("The %(game)s board. %(position)s",
                              game=reader.gettext(game.info.name), position=position)

    return BoardRef(ply, viewer, last_move, alt_for(ENGLISH), game, state, alt_for, labels_in)


def drawn_over(row: GameRecord, ply: int, game: engine.AnyGame, state: Any) -> bool:
    """Whether the picture of ``row`` after ``ply`` moves is drawn as over: the game ended off
    the board right there (resigned, forfeited, adjudicated), the rules still having someone to
    move."""
    return (row.status in (GameStatus.FINISHED, GameStatus.ABORTED) and ply == row.ply
            and game.to_move(state) is not None)


def draw_board(game: engine.AnyGame, state: Any, viewer: int, last_move: str | None,
               labels: Sequence[str], reader: Reader, *, ending: engine.Ending | None) -> str:
    """The SVG an email's picture is made from: the board as ``viewer`` (-1: the public) sees
    it, its words in ``reader``'s language, the seats the engine calls "Player 1" named by
    ``labels`` ("Alice (Red)", as the email's text names them); ``ending``: how the game ended
    where it ended off the board in this position (:func:`drawn_ending`), else None."""
    svg = game.render_svg(state, None if viewer < 0 else viewer, last_move,
                          translator=translations(reader.language), ending=ending)
    return name_generic_seats(svg, game.seat_names(state), [escape(label) for label in labels],
                              reader)


def svg_size(svg: str) -> tuple[int, int]:
    """The size a drawing is shown at in an email: its own width and height, rounded."""
    match = _SIZE.search(svg)
    return (round(float(match[1])), round(float(match[2]))) if match else (400, 400)


def drawn_ending(session: Session, row: GameRecord, game: engine.AnyGame, state: Any,
                 over: bool) -> engine.Ending | None:
    """How the game ended, for a picture :func:`drawn_over` says is drawn as over; else None."""
    return ending_of(row, seats_of(session, row.id or 0), game, state) if over else None


def board_labels(session: Session, game_id: int, game: engine.AnyGame, state: Any,
                 reader: Reader) -> list[str]:
    """The seats as a board picture in ``reader``'s language names them: "Alice (Red)"."""
    seats = seats_of(session, game_id)
    return labels_for(game, state, shown_names(seats, players_of(session, seats), reader), reader)


def board_for(session: Session, row: GameRecord, board: BoardRef, reader: Reader) -> BoardRef:
    """``board`` as ``reader``'s email shows it: the alt text in their language, the size of the
    picture drawn in their language. The first email showing that picture draws it, here, and
    keeps the drawing with its size for delivery to rasterise; the others find it kept."""
    assert row.id is not None
    language = reader.language
    over = drawn_over(row, board.ply, board.game, board.state)
    key = (col(BoardImage.game_id) == row.id, col(BoardImage.ply) == board.ply,
           col(BoardImage.viewer) == board.viewer, col(BoardImage.language) == language,
           col(BoardImage.over) == over)
    image_id, width, height = session.exec(
        select(BoardImage.id, BoardImage.width, BoardImage.height).where(*key)
    ).one_or_none() or (None, None, None)
    if width is not None and height is not None:
        return replace(board.for_reader(reader), width=width, height=height)
    labels = (board.labels_in(reader) if board.labels_in is not None
              else board_labels(session, row.id, board.game, board.state, reader))
    svg = draw_board(board.game, board.state, board.viewer, board.last_move, labels, reader,
                     ending=drawn_ending(session, row, board.game, board.state, over))
    width, height = svg_size(svg)
    table = BoardImage.__table__  # type: ignore[attr-defined]
    if image_id is not None:  # kept from before sizes were stored: only measured
        session.execute(update(table).where(table.c.id == image_id)
                        .values(width=width, height=height))
    elif session.execute(conflict_insert(session, table).values(
            game_id=row.id, ply=board.ply, viewer=board.viewer, language=language, over=over,
            svg=svg, width=width, height=height).on_conflict_do_nothing()
            .returning(table.c.id)).first() is None:
        # A deliverer drew it for an older email meanwhile: its row stays, and the email says
        # its size. (ON CONFLICT takes one statement where a savepoint took three.)
        width, height = session.exec(select(BoardImage.width, BoardImage.height)
                                     .where(*key)).one()
    assert width is not None and height is not None
    return replace(board.for_reader(reader), width=width, height=height)


def title_of(row: GameRecord, player_names: Sequence[str], seat: int | None,
             reader: Reader = ENGLISH) -> str:
    """The game as a recipient knows it: "Mosey vs Bob (wVDOGE)" for a player (the others by
    name), "Mosey: Alice vs Bob (wVDOGE)" for anyone else (organisers)."""
    name = game_name(row.game_type, reader)
    player_names = told_apart(player_names, row.game_type, reader)
    if seat is None:
        return reader.gettext("%(game)s: %(players)s (%(id)s)", game=name,
                              players=reader.gettext(" vs ").join(player_names),
                              id=row.public_id[:6])
    others = [n for number, n in enumerate(player_names) if number != seat]
    return reader.gettext("%(game)s vs %(others)s (%(id)s)", game=name,
                          others=join_names(others, reader), id=row.public_id[:6])


def subject_of(row: GameRecord, names: list[str], reader: Reader = ENGLISH) -> str:
    """The game's title for someone who plays no seat in it ("Mosey: Alice vs Bob (wVDOGE)")."""
    return title_of(row, names, None, reader)


def subject_line(event: str, title: str) -> str:
    """``"Your turn: Mosey vs Bob (wVDOGE)"``: what happened first, so an inbox shows it. One
    line without control characters whatever the names hold; threading does not depend on it
    (In-Reply-To and References do that)."""
    text = _CONTROL.sub(" ", f"{event} {title}")
    return " ".join(text.split())[:MAX_SUBJECT]


def game_over_event(winners: Sequence[int] | None, seat: int, player_names: Sequence[str],
                    reader: Reader = ENGLISH) -> str:
    """The start of a game-over subject from ``seat``'s point of view: "Game over: you won"."""
    mine = outcome_for(winners, seat)
    if mine == "won":
        return reader.gettext("Game over: you won")
    if mine == "shared":
        return reader.gettext("Game over: you share the win in")
    if mine == "draw":
        return reader.gettext("Game over: a draw in")
    if len(player_names) == 2:
        return reader.gettext("Game over: you lost")
    return reader.gettext("Game over: %(winners)s won",
                          winners=join_names([player_names[w] for w in winners or []], reader))


def enqueue(
    session: Session,
    now: datetime,
    site: Site,
    *,
    row: GameRecord,
    seat: Seat | None,
    player: Player,
    kind: str,
    subject: str | ForReader,
    context: dict[str, Any] | ForReader,
    board: BoardRef | None = None,
    essential: bool = True,
    thread: str | None = None,
    reader: Reader | None = None,
) -> OutboxEmail | None:
    """Render ``email/<kind>.txt`` and ``.html`` and add the email to the outbox. ``thread``
    is the Message-ID to answer when the email is not about the recipient's seat (any more).

    The email is in the recipient's language and time zone (``reader``, by default the
    player's own): ``subject`` and ``context`` may be functions of that reader, which is how
    one move mails a Dutch and an Italian player each in their own words.

    Computer players get nothing (None): every email of the game passes here, so this one
    check keeps invitations, turns, updates, reminders, game over and notices from bots."""
    assert player.id is not None and row.id is not None
    if player.bot_level is not None:
        return None
    reply_to, message_id = reply_headers(site, row, seat, kind)
    links = site.links
    reader = reader or site.reader_for(player)
    if callable(subject):
        subject = str(subject(reader))
    if callable(context):
        context = dict(context(reader))
    board = board_for(session, row, board, reader) if board is not None else None
    context = {
        **context,
        "player": player,
        "subject": subject,
        "board": board,
        "deadline": clock_of(session, row.id).deadline,
        "game_url": links.game_url(row.public_id),
        "my_games_url": links.my_games_url(player.id, version=player.links_version),
        "unsubscribe_url": links.unsubscribe_url(player.id),
        "seat_view_url": links.seat_view_url(row.id, seat.seat, holder=seat.player_id)
        if seat else None,
    }
    email = OutboxEmail(
        game_id=row.id,
        player_id=player.id,
        kind=kind,
        to_address=player.email,
        to_name=player.name,
        subject=subject,
        text_body=render_email(f"email/{kind}.txt", reader, **context),
        html_body=render_email(f"email/{kind}.html", reader, **context),
        image_ply=board.ply if board else None,
        image_viewer=board.viewer if board else None,
        image_language=reader.language,
        message_id=message_id,
        in_reply_to=seat.thread_message_id if seat else (thread or ""),
        reply_to=reply_to,
        unsubscribe_url=links.unsubscribe_url(player.id),
        essential=essential,
        next_attempt_at=now,
        created_at=now,
    )
    if seat is not None and not seat.thread_message_id:
        seat.thread_message_id = message_id  # the first email of the game starts the thread
        session.add(seat)
    session.add(email)
    return email


def reply_headers(site: Site, row: GameRecord, seat: Seat | None, kind: str) -> tuple[str, str]:
    """(Reply-To, Message-ID) of an email about ``seat``: with play by reply on, both carry a
    token for the seat at the game's current ply, so a reply finds its game even when a mail
    client drops the plus part of the address (through In-Reply-To and References)."""
    if not site.reply_address or seat is None or row.id is None:
        return "", make_msgid(idstring=kind, domain=site.mail_domain)
    token = make_reply_token(site.links.secret_key,
                             ReplyFields("move", row.id, seat.seat, row.ply, seat.player_id))
    unique = make_msgid(idstring=kind).strip("<>").partition("@")[0]
    return reply_address(site.reply_address, token), message_id(token, site.mail_domain, unique)


def moves_since_last_turn(moves: list[Move], seat: int) -> list[Move]:
    """The moves made after ``seat``'s own most recent move (all of them if it has not moved)."""
    last = max((m.ply for m in moves if m.seat == seat), default=-1)
    return [m for m in moves if m.ply > last]


# The notes the server writes on the moves it plays itself (pbem.services.moves and timeouts);
# a player's own note is shown as they wrote it.
SERVER_NOTES = (
    N_("forced pass: the only legal move"),
    N_("played by the stand-in: this seat forfeited on time"),
    N_("timed out: the server passed for them"),
    N_("timed out: the server played a random legal move for them"),
    N_("I expect to win"),  # a computer player's notes (pbem.scheduler.bots)
    N_("This looks bad for me"),
    N_("timed out: the computer played this turn for them"),  # timeout policies bot and
    N_("played by the computer: this seat forfeited on time"),  # forfeit-bot
    N_("played by the computer: this player resigned"),  # a game of three or more
)
# The computer player's notes speak for it, as a person's would: quoted, not told as remarks.
_COMPUTER_TALK = frozenset({N_("I expect to win"), N_("This looks bad for me")})
_SERVER_SOURCES = frozenset({MoveSource.FORCED_PASS, MoveSource.STAND_IN, MoveSource.TIMEOUT,
                             MoveSource.BOT})


@dataclass(frozen=True)
class ShownMove:
    """A move as an email lists it for one reader: the server's notes in their language."""

    ply: int
    seat: int
    notation: str
    note: str
    by_server: bool = False  # the note is the server's ("forced pass"), not the player's words


def _servers(move: Move) -> bool:
    """Whether the server wrote ``move``'s note (it reads it in each reader's language)."""
    return move.note in SERVER_NOTES and move.source in _SERVER_SOURCES


def is_server_note(move: Move) -> bool:
    """Whether ``move``'s note is a remark of the server's about the move ("forced pass"),
    shown as such rather than quoted as words the player wrote."""
    return _servers(move) and move.note not in _COMPUTER_TALK


def shown_note(move: Move, reader: Reader = ENGLISH) -> str:
    """A move's note for ``reader``: the server's own in their language, a player's as written."""
    return reader.gettext(move.note) if _servers(move) else move.note


def moves_for(moves: Sequence[Move], reader: Reader = ENGLISH) -> list[ShownMove]:
    """``moves`` for the "since your last turn" lines in ``reader``'s language (notation and
    players' notes stay as written)."""
    return [ShownMove(m.ply, m.seat, m.notation, shown_note(m, reader), is_server_note(m))
            for m in moves]


def text_board(game: engine.AnyGame, state: Any, seat: int | None,
               labels: Sequence[str], reader: Reader = ENGLISH) -> str:
    """The engine's text diagram as ``seat`` sees it (hidden information stays hidden), with
    made-up seat names ("Player 1") replaced by the seats' labels ("Alice (Red)", so that two
    computers of one level are told apart); its words in ``reader``'s language where the engine
    gives them as a Text."""
    return name_generic_seats(reader.text(game.render_text(state, seat)),
                              game.seat_names(state), labels, reader)


def game_context(
    row: GameRecord, game: engine.AnyGame, state: Any, seats: list[Seat],
    players: dict[int, Player], reader: Reader = ENGLISH,
) -> dict[str, Any]:
    """What every email about this game may show, in ``reader``'s language. Seats are named by
    player and colour (``labels``: "Alice (Light)"); ``names`` are the engine's own seat names,
    kept for the text the engine wrote (``shown_names``: as the reader reads them)."""
    names = game.seat_names(state)
    player_names = shown_names(seats, players, reader)
    labels = labels_for(game, state, player_names, reader)
    return {
        "game": row,
        "info": game.info,
        "game_name": reader.gettext(game.info.name),
        "summary": reader.gettext(game.info.summary),
        "options": game.options,
        # "Board size 4" rather than the stored "order 4": the option's label in the language.
        "options_words": options_in_words(row.game_type, game.options, reader),
        "lineup": [(names[s.seat] if s.seat < len(names) else "", players[s.player_id])
                   for s in seats],
        "describe": in_words(game.describe(state), names, labels, reader),
        "names": names,
        "shown_names": [reader.text(name) for name in names],
        "labels": labels,
        "roles": [seat_role(names[s.seat] if s.seat < len(names) else "", reader)
                  for s in seats],
        "player_names": player_names,
        # A callable, so that only the emails that show a text board pay for drawing one.
        "text_board_for": lambda viewer: text_board(game, state, viewer, labels, reader),
    }
