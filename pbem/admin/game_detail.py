"""One game as the organiser sees it: board, moves, seats, clock, mail and audit entries."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import abort, render_template
from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem.admin.queries import audit_actors, audit_page, is_overdue, mail_page
from pbem.admin.support import admin_blueprint
from pbem.chat.service import Said, conversation, who_said
from pbem.clock.deadlines import clock_of, time_control_of
from pbem.clock.tables import GameClock
from pbem.clock.wall import utc_now
from pbem.models import (
    AuditEntry,
    GameRecord,
    GameStatus,
    Move,
    MoveSource,
    Player,
    Seat,
    SeatStatus,
)
from pbem.positions import current_state, moves_of
from pbem.services.common import players_of, seats_of, shown_names
from pbem.services.records import is_over
from pbem.services.results import result_in
from pbem.web.language import current_reader
from pbem.web.support import board_svg, database, site

bp = admin_blueprint("admin_game")


def load_game(game_id: int) -> GameRecord:
    with database().session() as session:
        row = session.get(GameRecord, game_id)
    if row is None:
        abort(404)
    return row


def clock_facts(clock: GameClock) -> dict[str, Any]:
    """What the clock shows (:mod:`pbem.clock.deadlines` keeps it in the game's clock row)."""
    control = time_control_of(clock)
    return {
        "deadline": clock.deadline,
        "time_control": str(control) if control else "none",
        "timeout_policy": clock.timeout_policy,
        "paused_at": clock.paused_at,
        "held_since": clock.held_since,
        "vacations_allowed": clock.vacations_allowed,
    }


# What a player does themselves (automatic moves on timeout are the scheduler's, not theirs).
PLAYER_ACTIONS = ("invitation accepted", "invitation declined", "resigned")


def _last_acted(session: Session, game_id: int, holders: dict[int, int]) -> dict[int, datetime]:
    """seat -> when its current player last moved, answered the invitation or resigned."""
    last: dict[int, datetime] = dict(session.exec(
        select(Move.seat, func.max(Move.made_at))
        .where(Move.game_id == game_id, Move.source == MoveSource.LINK)
        .group_by(col(Move.seat))).all())
    seat_of = {player: seat for seat, player in holders.items()}
    for player_id, at in session.exec(
            select(AuditEntry.player_id, func.max(AuditEntry.at))
            .where(AuditEntry.game_id == game_id, col(AuditEntry.action).in_(PLAYER_ACTIONS))
            .group_by(col(AuditEntry.player_id))).all():
        seat = seat_of.get(player_id or -1)
        if seat is not None and (seat not in last or last[seat] < at):
            last[seat] = at
    return last


def declined(row: GameRecord, seats: list[Seat], players: dict[int, Player]) -> list[Player]:
    """Who declined the invitation to a game still waiting for answers.

    Such a game cannot just be started: ``start_game(force=True)`` would seat a player who said
    no and send them turn emails, and no engine can drop a seat once the game is set up. So the
    page offers what can be done instead: replace them (a new invitation) or abort the game.
    """
    if row.status != GameStatus.INVITED:
        return []
    return [players[s.player_id] for s in seats if s.status == SeatStatus.DECLINED]


def conversation_rows(session: Session, game_id: int) -> list[tuple[str, Said]]:
    """(who, said) of the game's whole conversation, hidden messages too, oldest first."""
    reader = current_reader()
    seats = seats_of(session, game_id)
    names = shown_names(seats, players_of(session, seats), reader)
    return [(who_said(s, names, reader), s) for s in conversation(session, game_id, hidden=True)]


@bp.get("/games/<int:game_id>")
def game_detail(game_id: int) -> str:
    row = load_game(game_id)
    now = utc_now()
    with database().session() as session:
        moves = moves_of(session, game_id)
        seats = seats_of(session, game_id)
        players = players_of(session, seats)
        last_acted = _last_acted(session, game_id, {s.seat: s.player_id for s in seats})
        mail = mail_page(session, 1, 200, game_id=game_id)
        audit = audit_actors(session, audit_page(session, 1, 200, game_id=game_id).rows)
        clock = clock_of(session, game_id)
        said = conversation_rows(session, game_id)
    game, state = current_state(row)
    names = game.seat_names(state)
    last = moves[-1].notation if moves else None
    return render_template(
        "admin/game.html", row=row, info=game.info, options=game.options, moves=moves,
        names=names, seats=[(s, players[s.player_id], last_acted.get(s.seat)) for s in seats],
        board=board_svg(game, state, None, last),
        # An ended game's result is in the status line; the engine's "Light to move" would be
        # wrong after a resignation, forfeit or adjudication.
        describe=None if is_over(row) else game.describe(state),
        clock=clock_facts(clock), overdue=is_overdue(row, clock, now), mail=mail.rows,
        audit=audit, conversation=said,
        running=row.status == GameStatus.ACTIVE,
        open=row.status in (GameStatus.INVITED, GameStatus.ACTIVE),
        declined=declined(row, seats, players),
        public_url=site().links.game_url(row.public_id),
        result=result_in(row, seats, players, current_reader()),
    )
