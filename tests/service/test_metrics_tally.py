"""/metrics' count of the moves: the site's tally in the database (metric_tallies), advanced
incrementally, plus the moves after its mark, on SQLite and PostgreSQL (pbem.monitoring)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import event, func
from sqlalchemy.exc import OperationalError
from sqlmodel import col, select

from pbem.db import Database
from pbem.models import MetricTally, Move
from pbem.monitoring import (
    MOVES,
    Tallies,
    advance_moves,
    settle_moves,
    tally_counts,
)
from pbem.services import Site
from tests.support import start_a_game

NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
LATER = timedelta(seconds=600)


class Moves:
    """Moves written straight into one game's table, at plies of their own."""

    def __init__(self, database: Database, site: Site) -> None:
        self.database = database
        self.game = start_a_game(database, NOW, site, "mosey")
        self.ply = 1000

    def add(self, *sources: str, ids: tuple[int, ...] = ()) -> None:
        with self.database.write() as session:
            for n, source in enumerate(sources):
                self.ply += 1
                session.add(Move(id=ids[n] if ids else None, game_id=self.game, ply=self.ply,
                                 seat=0, notation="x", source=source, made_at=NOW))

    def counted(self) -> dict[str, int]:
        """A direct count of every move by source."""
        with self.database.session() as session:
            return {str(source): int(count) for source, count in session.exec(
                select(Move.source, func.count()).group_by(col(Move.source)))}


@pytest.fixture
def moves(database: Database, site: Site) -> Moves:
    return Moves(database, site)


def _tally(database: Database) -> MetricTally | None:
    with database.session() as session:
        return session.get(MetricTally, MOVES)


def _marks(database: Database) -> tuple[int, int]:
    tally = _tally(database)
    assert tally is not None
    return tally.through, tally.pending


@contextmanager
def _statements(database: Database) -> Iterator[list[str]]:
    """The SQL statements run meanwhile (BEGIN included)."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)
    event.listen(database.engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(database.engine, "before_cursor_execute", record)


def test_the_scrape_counts_every_move_across_advances(database: Database,
                                                      moves: Moves) -> None:
    tallies = Tallies()
    moves.add("link", "link", "bot")
    assert tallies.moves(database, NOW) == moves.counted()  # the site's first count
    first = moves.counted()["link"] + moves.counted()["bot"]
    assert _marks(database)[0] == _marks(database)[1] >= first
    moves.add("timeout", "link")
    expected = moves.counted()
    with _statements(database) as seen:
        assert tallies.moves(database, NOW + LATER / 2) == expected
    assert _marks(database)[1] == _marks(database)[0]  # not due: not advanced
    # Not due: the row, then the moves after its mark (through the primary key), nothing else.
    selects = [s for s in seen if s.lstrip().upper().startswith("SELECT")]
    assert len(selects) == 2 and "FROM metric_tallies" in selects[0]
    assert "moves.id >" in selects[1]
    moves.add("reply")
    assert tallies.moves(database, NOW + LATER) == moves.counted()
    through, pending = _marks(database)
    assert pending > through  # the moves since the first count wait a period to settle
    moves.add("bot", "conditional")
    assert Tallies().moves(database, NOW + 2 * LATER) == moves.counted()  # another process
    assert _marks(database)[0] == pending
    assert tallies.moves(database, NOW + 3 * LATER) == moves.counted()
    through, pending = _marks(database)
    with database.session() as session:
        highest = session.exec(select(func.max(Move.id))).one()
    assert through == pending == highest
    tally = _tally(database)
    assert tally_counts(tally) == moves.counted()
    assert tally is not None and tally.advanced_at == NOW + 3 * LATER


def test_two_processes_advancing_at_once_add_each_move_once(database: Database,
                                                            moves: Moves) -> None:
    moves.add("link", "bot")
    assert settle_moves(database, NOW) is not None
    assert settle_moves(database, NOW) is None  # the row was there: another process's
    moves.add("link", "timeout")
    stale = _tally(database)
    assert stale is not None
    # Both read the same row before either wrote it.
    assert advance_moves(database, stale, NOW + LATER) is not None
    assert advance_moves(database, stale, NOW + LATER) is None
    moves.add("reply")
    stale = _tally(database)
    assert stale is not None
    assert advance_moves(database, stale, NOW + 2 * LATER) is not None
    assert advance_moves(database, stale, NOW + 2 * LATER) is None
    through, _pending = _marks(database)
    with database.session() as session:
        settled = {str(source): int(count) for source, count in session.exec(
            select(Move.source, func.count()).where(col(Move.id) <= through)
            .group_by(col(Move.source)))}
    assert tally_counts(_tally(database)) == settled
    assert sum(settled.values()) == 4
    for tallies in (Tallies(), Tallies()):
        assert tallies.moves(database, NOW + 2 * LATER) == moves.counted()


def test_a_move_committed_late_below_the_pending_mark_is_counted(database: Database,
                                                                 moves: Moves) -> None:
    moves.add("link", "link", ids=(1, 2))
    tallies = Tallies()
    assert tallies.moves(database, NOW) == moves.counted()
    assert _marks(database) == (2, 2)
    moves.add("bot", "link", ids=(10, 12))
    assert tallies.moves(database, NOW + LATER) == moves.counted()
    assert _marks(database) == (2, 12)
    # Its transaction had id 11 before the mark was read, and committed after.
    moves.add("timeout", ids=(11,))
    assert tallies.moves(database, NOW + LATER + timedelta(seconds=1)) == moves.counted()
    assert tallies.moves(database, NOW + 2 * LATER) == moves.counted()
    assert _marks(database) == (12, 12)
    assert tally_counts(_tally(database)) == {"link": 3, "bot": 1, "timeout": 1}


def test_a_scrape_answers_when_the_tally_cannot_be_written(
    database: Database, moves: Moves, monkeypatch: pytest.MonkeyPatch,
) -> None:
    def locked(*_args: Any) -> None:
        raise OperationalError("UPDATE metric_tallies", {}, Exception("database is locked"))

    moves.add("link")
    monkeypatch.setattr("pbem.monitoring.settle_moves", locked)
    assert Tallies().moves(database, NOW) == moves.counted()  # no row: every move counted
    assert _tally(database) is None
    monkeypatch.undo()
    assert Tallies().moves(database, NOW) == moves.counted()
    monkeypatch.setattr("pbem.monitoring.advance_moves", locked)
    moves.add("bot", "link")
    assert Tallies().moves(database, NOW + LATER) == moves.counted()  # the stored row + after
    assert _tally(database) is not None and _marks(database)[0] == _marks(database)[1]


def test_two_processes_scraping_at_once_add_each_move_once(database: Database,
                                                           moves: Moves) -> None:
    """Two workers' scrapes race at each advance (threads with connections of their own)."""
    import threading

    first, second = Tallies(), Tallies()

    def scrape(tallies: Tallies, at: datetime, barrier: threading.Barrier,
               answers: list[dict[str, int]]) -> None:
        barrier.wait()
        answers.append(tallies.moves(database, at))
    moves.add("link")
    for period in range(4):
        moves.add("bot", "link", "reply")
        at = NOW + period * LATER
        barrier = threading.Barrier(2)
        answers: list[dict[str, int]] = []
        threads = [threading.Thread(target=scrape, args=(t, at, barrier, answers))
                   for t in (first, second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert answers == [moves.counted()] * 2
        tally = _tally(database)
        assert tally is not None and tally.advanced_at == at
        with database.session() as session:
            settled = {str(source): int(count) for source, count in session.exec(
                select(Move.source, func.count()).where(col(Move.id) <= tally.through)
                .group_by(col(Move.source)))}
        assert tally_counts(tally) == settled


def test_the_first_count_waits_for_the_moves_being_written(database: Database,
                                                           moves: Moves) -> None:
    """PostgreSQL: a move written by a transaction still open when the first count starts has
    an id below the highest one by then; the count waits for it (the SHARE lock), or gives up
    after two seconds and the scrape counts every move."""
    import threading
    import time

    if database.is_sqlite:
        pytest.skip("SQLite's write lock: no move is ever being written during the count")
    moves.add("link")
    with database.write() as late:
        late.add(Move(game_id=moves.game, ply=1, seat=0, notation="x", source="bot",
                      made_at=NOW))
        late.flush()
        moves.add("link")  # a higher id, committed first
        settled: list[MetricTally | None] = []
        counting = threading.Thread(target=lambda: settled.append(settle_moves(database, NOW)))
        counting.start()
        time.sleep(0.5)
    counting.join()
    assert settled[0] is not None and tally_counts(settled[0]) == moves.counted()
    assert settled[0].through == 3
    with database.write() as stuck:
        stuck.add(Move(game_id=moves.game, ply=2, seat=0, notation="x", source="bot",
                       made_at=NOW))
        stuck.flush()
        with database.write() as session:
            session.delete(session.get(MetricTally, MOVES))
        assert Tallies().moves(database, NOW) == {"link": 2, "bot": 1}  # after 2 s
        assert _tally(database) is None
    assert Tallies().moves(database, NOW) == moves.counted()
