"""Writing emails into the outbox: invitations, turn notices, updates, game over, notices.

Nothing here talks to a mail server; :mod:`pbem.mail.outbox` sends what is written here, later.
The board picture is only referenced (game, ply, viewer); it is rasterised once per position and
viewer at delivery, however many recipients share it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email.utils import make_msgid
from typing import Any

from sqlmodel import Session

import engine
from pbem.models import Game, Move, OutboxEmail, Player, Seat
from pbem.services.common import Site
from pbem.services.results import (
    join_names,
    labels_for,
    name_generic_seats,
    outcome_for,
    seat_role,
    with_labels,
)
from pbem.templating import render_email

_SIZE = re.compile(r'<svg[^>]*?\swidth="([\d.]+)"[^>]*?\sheight="([\d.]+)"')
# Characters a subject must not carry: controls, and line and paragraph separators.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
MAX_SUBJECT = 200


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
    game: engine.Game, state: Any, ply: int, seat: int | None, last_move: str | None,  # type: ignore[type-arg]
    labels: Sequence[str] = (),
) -> BoardRef:
    """The picture for ``seat``; its alt text names the players where ``labels`` are given."""
    viewer = board_viewer(game.info, seat)
    svg = game.render_svg(state, None if viewer < 0 else viewer, last_move)
    match = _SIZE.search(svg)
    width, height = (round(float(match[1])), round(float(match[2]))) if match else (400, 400)
    position = with_labels(game.describe(state, None if viewer < 0 else viewer),
                           game.seat_names(state), labels)
    alt = f"The {game.info.name} board. {position}"
    if last_move:
        alt += f" Last move: {last_move}."
    return BoardRef(ply, viewer, last_move, alt, width, height)


def title_of(row: Game, player_names: Sequence[str], seat: int | None) -> str:
    """The game as a recipient knows it: "Mosey vs Bob (wVDOGE)" for a player (the others by
    name), "Mosey: Alice vs Bob (wVDOGE)" for anyone else (organisers)."""
    info = engine.GAMES.get(row.game_type)
    name = info.name if info else row.game_type
    if seat is None:
        return f"{name}: {' vs '.join(player_names)} ({row.public_id[:6]})"
    others = [n for number, n in enumerate(player_names) if number != seat]
    return f"{name} vs {join_names(others)} ({row.public_id[:6]})"


def subject_of(row: Game, names: list[str]) -> str:
    """The game's title for someone who plays no seat in it ("Mosey: Alice vs Bob (wVDOGE)")."""
    return title_of(row, names, None)


def subject_line(event: str, title: str) -> str:
    """``"Your turn: Mosey vs Bob (wVDOGE)"``: what happened first, so an inbox shows it. One
    line without control characters whatever the names hold; threading does not depend on it
    (In-Reply-To and References do that)."""
    text = _CONTROL.sub(" ", f"{event} {title}")
    return " ".join(text.split())[:MAX_SUBJECT]


def game_over_event(winners: Sequence[int] | None, seat: int, player_names: Sequence[str]
                    ) -> str:
    """The start of a game-over subject from ``seat``'s point of view: "Game over: you won"."""
    mine = outcome_for(winners, seat)
    if mine == "won":
        return "Game over: you won"
    if mine == "shared":
        return "Game over: you share the win in"
    if mine == "draw":
        return "Game over: a draw in"
    if len(player_names) == 2:
        return "Game over: you lost"
    return f"Game over: {join_names([player_names[w] for w in winners or []])} won"


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
    thread: str | None = None,
) -> OutboxEmail | None:
    """Render ``email/<kind>.txt`` and ``.html`` and add the email to the outbox. ``thread``
    is the Message-ID to answer when the email is not about the recipient's seat (any more).

    Computer players get nothing (None): every email of the game passes here, so this one
    check keeps invitations, turns, updates, reminders, game over and notices from bots."""
    assert player.id is not None and row.id is not None
    if player.bot_level is not None:
        return None
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


def text_board(game: engine.Game, state: Any, seat: int | None,  # type: ignore[type-arg]
               player_names: Sequence[str]) -> str:
    """The engine's text diagram as ``seat`` sees it (hidden information stays hidden), with
    made-up seat names ("Player 1") replaced by the players' names."""
    return name_generic_seats(game.render_text(state, seat), game.seat_names(state),
                              player_names)


def game_context(
    row: Game, game: engine.Game, state: Any, seats: list[Seat], players: dict[int, Player]  # type: ignore[type-arg]
) -> dict[str, Any]:
    """What every email about this game may show. Seats are named by player and colour
    (``labels``: "Alice (Light)"); ``names`` are the engine's own seat names, kept for the
    text the engine wrote."""
    names = game.seat_names(state)
    player_names = [players[s.player_id].name for s in seats]
    labels = labels_for(game, state, player_names)
    return {
        "game": row,
        "info": game.info,
        "options": game.options,
        "lineup": [(names[s.seat] if s.seat < len(names) else "", players[s.player_id])
                   for s in seats],
        "describe": with_labels(game.describe(state), names, labels),
        "names": names,
        "labels": labels,
        "roles": [seat_role(names[s.seat] if s.seat < len(names) else "") for s in seats],
        "player_names": player_names,
        # A callable, so that only the emails that show a text board pay for drawing one.
        "text_board_for": lambda viewer: text_board(game, state, viewer, player_names),
    }
