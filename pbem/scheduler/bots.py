"""Computer players' moves, made by the sweep (never in a web request).

For each active, unpaused, unheld game whose seat to move is a bot, the move is chosen outside
any write transaction (a search can take seconds; a write lock on SQLite stops every other
writer meanwhile), then submitted in a short write transaction at the ply it was chosen for:
if someone else moved meanwhile (the organiser, a timeout), the choice is dropped. Easy and
normal count playouts, so their moves are deterministic; strong thinks for a time
(PBEM_BOT_STRONG_SECONDS, 5 s) or, set to 0, plays a fixed 2000 playouts too. No search runs past
CUTOFF_SECONDS. The search itself is :func:`pbem.scheduler.search_process.run_search`: here in
this process (``pbem sweep``, tests), or in the scheduler's worker process (``run=``).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Collection
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from engine.text import N_
from pbem.clock.tables import GameClock
from pbem.db import Database
from pbem.models import AuditEntry, GameRecord, GameStatus, MoveSource, Player, Seat
from pbem.scheduler.search_process import BotSearch, run_search
from pbem.services.common import (
    GameMovedOn,
    GameNotActive,
    NotYourTurn,
    Site,
    audit,
    lock_game,
)
from pbem.services.timeouts import alert_organiser
from pbem.services.turns import submit_move

log = logging.getLogger(__name__)

Runner = Callable[[BotSearch], tuple[str, float]]
"""Runs a search: :func:`run_search` itself, or a worker process's ``SearchProcess.run``."""
Moment = Callable[[], datetime]
"""The time now, read when a move is made (a bot pass can last minutes)."""
MAX_MOVES_PER_GAME = 200  # bot against bot: a sweep must end; the next sweep goes on
PASS_SECONDS = 120.0  # after this, a sweep's bot pass only makes games' first moves
LOOK_AGAIN_SECONDS = 0.5  # a pass with a search to spare looks for new games this often
CONFIDENT, DOUBTFUL = 0.8, 0.2
# Shown in the players' emails in their language (pbem.services.notify.SERVER_NOTES).
WIN_NOTE, LOSS_NOTE = N_("I expect to win"), N_("This looks bad for me")
# A timed-out seat is played at this level (timeout policies bot and forfeit-bot), with a note.
STAND_IN_LEVEL = "normal"
STAND_IN_NOTES = {"turn": N_("timed out: the computer played this turn for them"),
                  "game": N_("played by the computer: this seat forfeited on time"),
                  "resigned": N_("played by the computer: this player resigned")}
FAILED = "bot failed"  # the audit action that marks an alerted (game, ply)


@dataclass(frozen=True)
class BotTurn:
    """A bot to move: the game, the ply it saw, its seat and level."""

    game_id: int
    ply: int
    seat: int
    level: str
    stand_in: str | None = None  # "turn", "game" or "resigned": the computer plays for them
    player_id: int | None = None  # the seat's player when found: a replaced seat is not played


@dataclass(frozen=True)
class BotResult:
    """What a bot's move came to in a sweep."""

    moves: int = 0
    error: str | None = None
    failed: BotTurn | None = None  # the turn whose bot failed, when one did


def bot_turns(database: Database, game_id: int | None = None) -> list[BotTurn]:
    """Games (or the one game) waiting for a bot's move: one query, seat to move -> player."""
    with database.session() as session:
        return waiting_turns(session, None if game_id is None else [game_id])


def waiting_turns(session: Session, game_ids: Collection[int] | None = None) -> list[BotTurn]:
    """:func:`bot_turns` in ``session``'s transaction (which sees its own writes), among
    ``game_ids`` when given.

    Two queries in one (a union), each starting from the few seats a computer plays (a bot
    player's, through ``ix_players_bot_level``; a stand-in's, through ``ix_seats_stand_in``):
    one query with an OR of the two walked every active game, every two seconds (issue 36)."""
    def seats_where(computer: Any) -> Any:
        # SQLAlchemy's select: SQLModel's is typed for at most four columns.
        query = (
            sa.select(col(GameRecord.id), col(GameRecord.ply), col(GameRecord.to_move),
                      col(Player.bot_level), col(Seat.stand_in), col(Seat.player_id))
            .select_from(Seat)
            .join(GameRecord, (col(Seat.game_id) == col(GameRecord.id))
                  & (col(Seat.seat) == col(GameRecord.to_move)))
            .join(Player, col(Player.id) == col(Seat.player_id))
            .join(GameClock, col(GameClock.game_id) == col(GameRecord.id))
            .where(computer, col(GameRecord.status) == GameStatus.ACTIVE,
                   col(GameClock.paused_at).is_(None), col(GameClock.held_since).is_(None))
        )
        if game_ids is not None:
            query = query.where(col(GameRecord.id).in_(list(game_ids)))
        return query

    both = sa.union(seats_where(col(Player.bot_level).is_not(None)),
                    seats_where(col(Seat.stand_in).is_not(None))).subquery()
    return [BotTurn(gid, ply, seat, level or STAND_IN_LEVEL, stand_in, player_id)
            for gid, ply, seat, level, stand_in, player_id
            in session.execute(sa.select(both).order_by(both.c.id))
            if gid is not None and seat is not None]


SOURCES = {"turn": MoveSource.TIMEOUT, "game": MoveSource.STAND_IN,
           "resigned": MoveSource.STAND_IN}


def bot_seed(game_seed: str, ply: int) -> int:
    """A seed per game and ply: the same position in the same game gets the same move."""
    digest = hashlib.sha256(f"{game_seed}:{ply}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def note_for(confidence: float) -> str:
    """A short note only when the search is sure either way."""
    if confidence >= CONFIDENT:
        return WIN_NOTE
    if confidence <= DOUBTFUL:
        return LOSS_NOTE
    return ""


def choose(database: Database, turn: BotTurn, strong_seconds: float = 0.0,
           run: Runner = run_search) -> tuple[str, str] | None:
    """(move notation, note) for ``turn``, computed with no transaction open; None if the game
    has moved on since it was found. ``strong_seconds`` (the site's setting): how long strong
    thinks a move; 0 for its fixed playouts."""
    with database.session() as session:
        row = session.get(GameRecord, turn.game_id)
        if row is None or row.ply != turn.ply or row.to_move != turn.seat:
            return None
        search = BotSearch(row.game_type, dict(row.options), row.state, turn.seat, turn.level,
                           bot_seed(row.seed, row.ply), strong_seconds)
    move, confidence = run(search)
    if turn.stand_in:  # the computer speaks for itself only when it is the player
        return move, STAND_IN_NOTES.get(turn.stand_in, "")
    return move, note_for(confidence)


def play_turn(database: Database, now: datetime, site: Site, turn: BotTurn,
              run: Runner = run_search, *, moment: Moment | None = None) -> bool:
    """Choose and submit one bot move; False if the game moved on meanwhile. The move is made
    at ``moment()`` when given (the time after the search), else at ``now``."""
    chosen = choose(database, turn, site.strong_seconds, run)
    if chosen is None:
        return False
    text, note = chosen
    try:
        with database.write() as session:
            submit_move(session, moment() if moment else now, site, game_id=turn.game_id,
                        seat=turn.seat, ply=turn.ply, text=text, note=note,
                        source=SOURCES.get(turn.stand_in or "", MoveSource.BOT),
                        holder=turn.player_id)
    except (GameMovedOn, NotYourTurn, GameNotActive) as why:
        # Someone else moved, the seat changed hands, the game was paused or ended: not an
        # error, but an operator tracing a stuck game wants to see it.
        log.info("sweep: the computer's move in game %s at ply %s was dropped: %s",
                 turn.game_id, turn.ply, type(why).__name__)
        return False
    return True


def play_one_move(database: Database, now: datetime, site: Site, turn: BotTurn,
                  run: Runner = run_search, *, moment: Moment | None = None) -> BotResult:
    """One bot move in ``turn``'s game: no move when the game moved on meanwhile, or when the
    bot failed (logged, the organiser alerted, the game left as it was)."""
    try:
        if not play_turn(database, now, site, turn, run, moment=moment):
            return BotResult(0)
    except Exception as error:  # a broken bot must leave the game as it was
        log.exception("sweep: the bot of game %s failed at ply %s", turn.game_id, turn.ply)
        report_failure(database, moment() if moment else now, site, turn, error)
        return BotResult(0, f"game {turn.game_id}: bot failed: {error}", turn)
    return BotResult(1)


def report_failure(database: Database, now: datetime, site: Site, turn: BotTurn,
                   error: Exception) -> None:
    """Alert the organiser, once per game and ply (the audit log remembers across sweeps)."""
    try:
        with database.write() as session:
            row = lock_game(session, turn.game_id)
            if row.ply != turn.ply or already_reported(session, turn):
                return
            audit(session, now, FAILED, game_id=turn.game_id, ply=turn.ply, seat=turn.seat,
                  error=str(error)[:500])
            alert_organiser(
                session, now, site, row,
                lambda reader: reader.gettext(
                    "The computer player (%(level)s) could not choose a move at ply %(ply)d: "
                    "%(error)s. The game waits; the sweep tries again each time. From the "
                    "dashboard you can replace the player or abort the game.",
                    level=turn.level, ply=turn.ply, error=error),
                event="bot",
                headline=lambda reader: reader.gettext("The computer player failed:"))
    except Exception:  # the alert must not stop the sweep either
        log.exception("sweep: could not report the bot failure of game %s", turn.game_id)


def already_reported(session: Session, turn: BotTurn) -> bool:
    """Whether this game's bot failure at this ply was already alerted."""
    entries = session.exec(select(AuditEntry).where(AuditEntry.game_id == turn.game_id,
                                                    AuditEntry.action == FAILED))
    return any((entry.detail or {}).get("ply") == turn.ply for entry in entries)


def play_bots(database: Database, now: datetime, site: Site,
              on_result: Callable[[BotResult], None], *,
              clock: Callable[[], float] = time.monotonic, run: Runner = run_search,
              workers: int = 1, skip: Callable[[BotTurn], bool] | None = None,
              moment: Moment | None = None) -> None:
    """Every game waiting for a bot, one move at a time each, reported through ``on_result``.

    Whenever a search can start, the waiting game with the fewest moves in this pass goes first
    (then the oldest game): every game's first move comes before any game's second, so a person
    waiting for the computer is never held up behind a long game between computers, and a move
    made meanwhile is answered in the same pass. A game rests until the next pass after
    :data:`MAX_MOVES_PER_GAME` moves, a failure or a move dropped because the game moved on;
    after :data:`PASS_SECONDS` (read on ``clock``) only games without a move in this pass are
    played, so games between computers cannot hold up the reminders and timeouts. ``run`` runs
    each search (in this process by default); ``workers`` searches run at once (``run`` must
    then take them in parallel, as the scheduler's worker processes do). Turns for which
    ``skip`` says so wait for a later pass. Each move is made at ``moment()`` when given (the
    scheduler's clock: a pass can last minutes, and a move stamped with its start would seem
    older than the person's move it answers), else at ``now``.
    """
    played: dict[int, int] = {}
    resting: set[int] = set()
    deadline = clock() + PASS_SECONDS
    width = max(1, workers)
    with ThreadPoolExecutor(width, thread_name_prefix="bots") as pool:
        running: dict[Future[BotResult], BotTurn] = {}
        while True:
            if len(running) < width:
                busy = {turn.game_id for turn in running.values()}
                waiting = []
                for turn in bot_turns(database):
                    if turn.game_id in resting or turn.game_id in busy or (
                            skip is not None and skip(turn)):
                        continue
                    if turn.game_id in played and clock() > deadline:
                        resting.add(turn.game_id)
                    else:
                        waiting.append(turn)
                waiting.sort(key=lambda turn: (played.get(turn.game_id, 0), turn.game_id))
                for turn in waiting[:width - len(running)]:
                    running[pool.submit(play_one_move, database, now, site, turn, run,
                                        moment=moment)] = turn
            if not running:
                return
            # With a search free, look again soon for games that came in meanwhile.
            done, _ = wait(running, return_when=FIRST_COMPLETED,
                           timeout=LOOK_AGAIN_SECONDS if len(running) < width else None)
            for future in done:
                turn = running.pop(future)
                result = future.result()
                on_result(result)
                played[turn.game_id] = played.get(turn.game_id, 0) + result.moves
                if (result.error is not None or result.moves == 0
                        or played[turn.game_id] >= MAX_MOVES_PER_GAME):
                    resting.add(turn.game_id)
