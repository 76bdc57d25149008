"""Writing emails into the outbox: invitations, turn notices, updates, game over, notices.

Nothing here talks to a mail server; :mod:`pbem.mail.outbox` sends what is written here, later.
The board picture is only referenced (game, ply, viewer); it is rasterised once per position and
viewer at delivery, however many recipients share it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from email.utils import make_msgid
from typing import Any

from sqlmodel import Session

import engine
from pbem.models import Game, Move, OutboxEmail, Player, Seat
from pbem.services.common import Site
from pbem.templating import render_email

_SIZE = re.compile(r'<svg[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"')


@dataclass(frozen=True)
class BoardRef:
    """A board picture an email shows: which position, as whom, and how big on screen."""

    ply: int
    viewer: int  # -1 for the public view
    last_move: str | None
    alt: str
    width: int
    height: int


def board_viewer(info: engine.GameInfo, seat: int | None) -> int:
    """Only hidden-information games need a picture per seat; others share the public one."""
    return seat if info.hidden_information and seat is not None else -1


def board_ref(
    game: engine.Game, state: Any, ply: int, seat: int | None, last_move: str | None  # type: ignore[type-arg]
) -> BoardRef:
    viewer = board_viewer(game.info, seat)
    svg = game.render_svg(state, None if viewer < 0 else viewer, last_move)
    match = _SIZE.search(svg)
    width, height = (round(float(match[1])), round(float(match[2]))) if match else (400, 400)
    alt = f"The {game.info.name} board. {game.describe(state, None if viewer < 0 else viewer)}"
    if last_move:
        alt += f" Last move: {last_move}."
    return BoardRef(ply, viewer, last_move, alt, width, height)


def subject_of(row: Game, names: list[str]) -> str:
    """The same subject for every email of a game, so mail clients keep them in one thread."""
    info = engine.GAMES.get(row.game_type)
    title = info.name if info else row.game_type
    return f"{title}: {' vs '.join(names)} (game {row.public_id[:6]})"


def enqueue(
    session: Session,
    now: datetime,
    site: Site,
    *,
    row: Game,
    seat: Seat | None,
    player: Player,
    kind: str,
    subject: str,
    context: dict[str, Any],
    board: BoardRef | None = None,
    essential: bool = True,
) -> OutboxEmail:
    """Render ``email/<kind>.txt`` and ``.html`` and add the email to the outbox."""
    assert player.id is not None and row.id is not None
    reply_to, message_id = reply_headers(site, row, seat, kind)
    links = site.links
    context = {
        **context,
        "player": player,
        "subject": subject,
        "board": board,
        "game_url": links.game_url(row.public_id),
        "my_games_url": links.my_games_url(player.id),
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
        text_body=render_email(f"email/{kind}.txt", **context),
        html_body=render_email(f"email/{kind}.html", **context),
        image_ply=board.ply if board else None,
        image_viewer=board.viewer if board else None,
        message_id=message_id,
        in_reply_to=seat.thread_message_id if seat else "",
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


def reply_headers(site: Site, row: Game, seat: Seat | None, kind: str) -> tuple[str, str]:
    """(Reply-To, Message-ID) of an email about ``seat``: with play by reply on, both carry a
    token for the seat at the game's current ply, so a reply finds its game even when a mail
    client drops the plus part of the address (through In-Reply-To and References)."""
    if not site.reply_address or seat is None or row.id is None:
        return "", make_msgid(idstring=kind, domain=site.mail_domain)
    from pbem.reply_addresses import ReplyFields, make_reply_token, message_id, reply_address

    token = make_reply_token(site.links.secret_key,
                             ReplyFields("move", row.id, seat.seat, row.ply, seat.player_id))
    unique = make_msgid(idstring=kind).strip("<>").partition("@")[0]
    return reply_address(site.reply_address, token), message_id(token, site.mail_domain, unique)


def moves_since_last_turn(moves: list[Move], seat: int) -> list[Move]:
    """The moves made after ``seat``'s own most recent move (all of them if it has not moved)."""
    last = max((m.ply for m in moves if m.seat == seat), default=-1)
    return [m for m in moves if m.ply > last]


def game_context(
    row: Game, game: engine.Game, state: Any, seats: list[Seat], players: dict[int, Player]  # type: ignore[type-arg]
) -> dict[str, Any]:
    names = game.seat_names(state)
    return {
        "game": row,
        "info": game.info,
        "options": game.options,
        "lineup": [(names[s.seat] if s.seat < len(names) else f"Seat {s.seat + 1}",
                    players[s.player_id]) for s in seats],
        "describe": game.describe(state),
        "names": names,
    }
