"""The sweep: all due work of all games, one game at a time, each in its own short transaction.

Each game's clock row has ``next_due_at`` (``game_clocks``, indexed): the earlier of the deadline
and the next unsent reminder, so finding the due games costs what is due, not the number of games.
Each unit of work (:func:`pbem.services.timeouts.handle_due_game`) re-checks its game under a write
lock, so running the sweep twice, concurrently, or again after a crash half way sends no reminder
twice and applies no timeout twice.

The turn emails held while a person playing the computer was on the game's page are written
for those who left it (:func:`pbem.services.turn_mail.send_held_turn_emails`).

Computer players move first (:mod:`pbem.scheduler.bots`), each move chosen outside any write
transaction, so a bot's clock never runs out while the scheduler is up. ``pbem sweep`` plays
them here; ``pbem scheduler`` in a job of its own every two seconds, so that a person playing the
computer gets its reply within seconds rather than at the next sweep.

>>> from datetime import UTC, datetime
>>> from pbem.db import Database
>>> from pbem.links import Links
>>> from pbem.services import Site
>>> from sqlmodel import SQLModel
>>> database = Database("sqlite://")
>>> SQLModel.metadata.create_all(database.engine)
>>> sweep(database, datetime(2025, 1, 1, tzinfo=UTC), Site(Links("k", "http://x"), "a@b.c"))
SweepSummary(reminders=0, timeouts={}, skipped=0, errors=[], bot_moves=0, held_turn_emails=0,
             digests=0)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import col, select
from sqlmodel.sql.expression import Select

from pbem.challenges.service import expire_stale
from pbem.clock.tables import GameClock
from pbem.db import Database
from pbem.models import GameRecord
from pbem.notifications.digest import send_digests
from pbem.scheduler.bots import BotResult, play_bots
from pbem.services.common import Site
from pbem.services.timeouts import handle_due_game
from pbem.services.turn_mail import send_held_turn_emails

log = logging.getLogger(__name__)
BATCH = 500


@dataclass
class SweepSummary:
    """What one sweep did."""

    reminders: int = 0
    timeouts: dict[str, int] = field(default_factory=dict)  # policy -> games
    skipped: int = 0  # found due, but already handled (or moved) by the time it was locked
    errors: list[str] = field(default_factory=list)
    bot_moves: int = 0
    held_turn_emails: int = 0  # written for players who left a game against the computer
    digests: int = 0

    @property
    def work_done(self) -> int:
        return (self.reminders + sum(self.timeouts.values()) + self.bot_moves
                + self.held_turn_emails + self.digests)

    def add_bot_result(self, result: BotResult) -> None:
        self.bot_moves += result.moves
        if result.error is not None:
            self.errors.append(result.error)


def due_query(now: datetime, limit: int,
              exclude: frozenset[int] = frozenset()) -> Select[int, int]:
    """The one query that finds the due games: through the clocks' index, joined to each game
    by its key for the ply."""
    query = (select(GameClock.game_id, GameRecord.ply)
             .join(GameRecord, col(GameRecord.id) == col(GameClock.game_id))
             .where(col(GameClock.next_due_at) <= now)
             .order_by(col(GameClock.next_due_at)).limit(limit))
    if exclude:
        query = query.where(col(GameClock.game_id).not_in(exclude))
    return query


def due_games(database: Database, now: datetime, limit: int,
              exclude: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
    """(game id, ply) of games with work due at ``now``, most overdue first (through the index)."""
    with database.session() as session:
        return [(game_id, ply) for game_id, ply in session.exec(due_query(now, limit, exclude))]


def sweep(
    database: Database, now: datetime, site: Site, *, batch: int = BATCH,
    after_each: Callable[[int, str], None] | None = None, bots: bool = True,
    moment: Callable[[], datetime] | None = None,
) -> SweepSummary:
    """Do all the work due at ``now``; see the module docstring.

    A game whose unit fails (a bug, a broken engine state) is logged, counted in ``errors`` and
    left for the next sweep, so one bad game cannot stop the others' clocks. ``after_each`` is
    called after each unit's commit with the game id and what was done (tests use it to crash
    a sweep half way). ``bots=False`` leaves the computer players to the scheduler's own job;
    ``moment`` (the clock) stamps each computer move when it is made, else ``now`` does.
    """
    summary = SweepSummary()
    if bots:
        play_bots(database, now, site, summary.add_bot_result, moment=moment)
    expire_stale(database, now, site)  # challenges nobody took up in time
    try:
        summary.held_turn_emails = send_held_turn_emails(database, now, site)
    except Exception as error:  # the games' own work below must go on
        log.exception("sweep: held turn emails failed")
        summary.errors.append(f"held turn emails: {error}")
    # Games not to pick again in this sweep: failed, or found with nothing to do (a game that
    # is due again at a new ply, such as the second step of a timed-out turn, is picked again).
    left_alone: set[int] = set()
    while True:
        due = due_games(database, now, batch, frozenset(left_alone))
        for game_id, ply in due:
            try:
                with database.write() as session:
                    done = handle_due_game(session, now, site, game_id, ply)
            except Exception as error:  # one broken game must not stop the sweep
                log.exception("sweep: game %s failed", game_id)
                left_alone.add(game_id)
                summary.errors.append(f"game {game_id}: {error}")
                continue
            if done == "reminder":
                summary.reminders += 1
            elif done == "skipped":
                summary.skipped += 1
                left_alone.add(game_id)
            else:
                summary.timeouts[done] = summary.timeouts.get(done, 0) + 1
            if after_each is not None:
                after_each(game_id, done)
        if len(due) < batch:
            # A timeout may have handed a seat to the computer (policies bot, forfeit-bot):
            # it plays now rather than a sweep later.
            if bots and any(kind in summary.timeouts for kind in ("bot", "forfeit")):
                play_bots(database, now, site, summary.add_bot_result, moment=moment)
            # After the games: a digest lists the turns this sweep's timeouts handed on.
            summary.digests = send_digests(database, now, site)
            return summary
