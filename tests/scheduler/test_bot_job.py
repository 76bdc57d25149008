"""The scheduler's computer-players job: a person playing the computer gets its reply within
seconds, not at the next minute's sweep; only the process holding the lease plays, and the
sweep leaves the computers to the job (no search run twice)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from engine.bots import Bot
from pbem.clock.deadlines import clock_of
from pbem.config import ConfigError, check_config, load_config
from pbem.db import Database
from pbem.mail.outbox import SmtpSettings
from pbem.models import AuditEntry, GameStatus, MoveSource, Seat
from pbem.positions import current_state, moves_of
from pbem.scheduler.bots import BotResult, play_bots
from pbem.scheduler.runner import SchedulerJobs, build_scheduler
from pbem.scheduler.search_process import BotSearch, SearchProcess, run_search
from pbem.services import Site, parse_player, respond_to_invitation, submit_move
from pbem.services.computer_games import start_computer_game
from tests.scheduler.test_bot_seats import ANN, game_row, new_game
from tests.service.test_seat_labels import ann_player

NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
NOWHERE = SmtpSettings("127.0.0.1", 9, "pbem@example.test")  # nothing is delivered here


def _started(database: Database, site: Site) -> int:
    """A started game of Ann, to move first, against the computer (easy)."""
    game_id = new_game(database, site, [ANN, parse_player("bot:easy")])
    with database.write() as session:
        respond_to_invitation(session, NOW, site, game_id=game_id, seat=0, accept=True)
    return game_id


def _ann_moves(database: Database, site: Site, game_id: int) -> None:
    row = game_row(database, game_id)
    game, state = current_state(row)
    with database.write() as session:
        submit_move(session, NOW, site, game_id=game_id, seat=0, ply=row.ply,
                    text=str(game.legal_moves(state)[0]))
    assert game_row(database, game_id).to_move == 1


def _bot_moves(database: Database, game_id: int) -> int:
    with database.session() as session:
        return sum(1 for m in moves_of(session, game_id) if m.source == MoveSource.BOT)


def test_only_the_lease_holder_plays_and_the_sweep_leaves_it_to_the_job(
    database: Database, site: Site,
) -> None:
    game_id = _started(database, site)
    _ann_moves(database, site, game_id)
    active = SchedulerJobs(database, site, NOWHERE, holder="active")
    standby = SchedulerJobs(database, site, NOWHERE, holder="standby")
    assert active.sweep_tick(NOW) is not None  # takes the lease
    assert _bot_moves(database, game_id) == 0  # the sweep did not play the computer
    assert standby.bots_tick(NOW) is None and _bot_moves(database, game_id) == 0
    assert active.bots_tick(NOW + timedelta(seconds=2)) == 1
    assert _bot_moves(database, game_id) == 1 and game_row(database, game_id).to_move == 0
    assert active.bots_tick(NOW + timedelta(seconds=4)) == 0  # Ann's turn: nothing to do


def test_the_running_scheduler_answers_a_move_within_seconds(
    sqlite_database: Database, site: Site,
) -> None:
    game_id = _started(sqlite_database, site)
    jobs = SchedulerJobs(sqlite_database, site, NOWHERE)
    # Sweep and delivery run once at the start, then not for an hour: after that only the
    # computer-players job can answer Ann's move.
    scheduler = build_scheduler(jobs, blocking=False, sweep_every=3600, deliver_every=3600,
                                bot_every=1)
    scheduler.start()
    try:
        time.sleep(1.5)  # the scheduler's own thread runs its start-up sweep and delivery
        _ann_moves(sqlite_database, site, game_id)
        waited = 0.0
        while _bot_moves(sqlite_database, game_id) == 0 and waited < 30:
            time.sleep(0.2)  # the bot job runs on the scheduler's thread, every second
            waited += 0.2
    finally:
        scheduler.shutdown(wait=True)
        jobs.stop()
    assert _bot_moves(sqlite_database, game_id) == 1, "no computer move without a sweep"
    row = game_row(sqlite_database, game_id)
    assert row.status == GameStatus.ACTIVE and row.to_move == 0


@pytest.mark.parametrize(("setting", "value", "ok"), [
    ("BOT_EVERY", "2", True), ("BOT_EVERY", "1", True), ("BOT_EVERY", "0", False),
    ("BOT_EVERY", "-3", False), ("BOT_WORKERS", "1", True), ("BOT_WORKERS", "2", True),
    ("BOT_WORKERS", "32", True), ("BOT_WORKERS", "0", False), ("BOT_WORKERS", "33", False)])
def test_the_bot_settings_are_checked(setting: str, value: str, ok: bool) -> None:
    config = load_config({f"PBEM_{setting}": value}, read_dotenv=False)
    if ok:
        check_config(config)
        assert config[setting] == int(value)
    else:
        with pytest.raises(ConfigError, match=f"PBEM_{setting}"):
            check_config(config)


def test_the_search_runs_in_a_worker_process_which_is_replaced_if_it_dies(
    sqlite_database: Database, site: Site, monkeypatch: pytest.MonkeyPatch,
) -> None:
    def not_here(*args: object) -> None:
        raise AssertionError("the search ran in the scheduler's own process")

    monkeypatch.setattr(Bot, "choose", not_here)  # the worker process never sees this
    game_id = _started(sqlite_database, site)
    jobs = SchedulerJobs(sqlite_database, site, NOWHERE, holder="active")
    try:
        assert jobs.is_active(NOW)
        _ann_moves(sqlite_database, site, game_id)
        assert jobs.bots_tick(NOW) == 1 and _bot_moves(sqlite_database, game_id) == 1
        worker = jobs.searches.pid()
        assert worker != os.getpid()
        os.kill(worker, signal.SIGKILL)  # the out-of-memory killer, say
        _ann_moves(sqlite_database, site, game_id)
        assert jobs.bots_tick(NOW) == 1 and _bot_moves(sqlite_database, game_id) == 2
        assert jobs.searches.pid() != worker
    finally:
        jobs.stop()
    with sqlite_database.session() as session:  # a worker's death is no fault of the game's
        assert not session.exec(select(AuditEntry).where(
            AuditEntry.action == "bot failed")).all()


def test_with_two_workers_two_games_search_at_once(database: Database, site: Site) -> None:
    games = [_started(database, site) for _ in range(2)]
    for game_id in games:
        _ann_moves(database, site, game_id)
    together = threading.Barrier(2, timeout=10)

    def side_by_side(search: BotSearch) -> tuple[str, float]:
        together.wait()  # breaks (and the bot fails) unless the other search runs meanwhile
        return run_search(search)

    results: list[BotResult] = []
    play_bots(database, NOW, site, results.append, run=side_by_side, workers=2)
    assert [r.moves for r in results] == [1, 1] and not [r for r in results if r.error]
    assert [_bot_moves(database, game_id) for game_id in games] == [1, 1]


def test_a_move_made_during_a_search_is_answered_by_a_free_worker(
    sqlite_database: Database, site: Site,
) -> None:
    first, second = _started(sqlite_database, site), _started(sqlite_database, site)
    _ann_moves(sqlite_database, site, first)
    second_started = threading.Event()
    searches: list[BotSearch] = []

    def searching(search: BotSearch) -> tuple[str, float]:
        searches.append(search)
        if len(searches) == 1:  # the first game's search: only it was waiting
            _ann_moves(sqlite_database, site, second)  # her email comes in meanwhile
            assert second_started.wait(10), "the free worker did not take up the new move"
        else:
            second_started.set()
        return run_search(search)

    results: list[BotResult] = []
    play_bots(sqlite_database, NOW, site, results.append, run=searching, workers=2)
    assert not [r for r in results if r.error], results
    assert [_bot_moves(sqlite_database, game_id) for game_id in (first, second)] == [1, 1]


def test_searches_under_a_worker_that_dies_are_run_again_and_come_out_the_same() -> None:


    search = BotSearch("stigmergy", {"size": 8, "komi": "none"}, None, seat=0, level="normal",
                       seed=0)
    searches = [replace(search, seed=seed) for seed in (1, 2)]
    pool = SearchProcess(workers=2)
    try:
        with ThreadPoolExecutor(2) as threads:
            running = [threads.submit(pool.run, s) for s in searches]
            time.sleep(0.5)  # the workers are starting or searching (about a second each)
            os.kill(multiprocessing.active_children()[0].pid or 0, signal.SIGKILL)
            answers = [future.result(timeout=60) for future in running]
    finally:
        # Not waiting: Python 3.11's pool sometimes never finishes shutting down after one of
        # its workers was killed (seen in about one run in five); the answers are what counts.
        pool.close(wait=False)
    assert answers == [run_search(s) for s in searches]  # seeded: the same moves as here


def test_a_failing_bot_is_tried_again_a_minute_later_not_at_every_tick(
    sqlite_database: Database, site: Site,
) -> None:
    game_id = _started(sqlite_database, site)
    _ann_moves(sqlite_database, site, game_id)
    tries: list[BotSearch] = []

    class Broken(SearchProcess):
        def run(self, search: BotSearch) -> tuple[str, float]:
            tries.append(search)
            raise RuntimeError("out of ideas")

    jobs = SchedulerJobs(sqlite_database, site, NOWHERE, holder="active", searches=Broken())
    try:
        assert jobs.is_active(NOW)
        for seconds in (0, 2, 4, 30, 58):
            assert jobs.bots_tick(NOW + timedelta(seconds=seconds)) == 0
        assert len(tries) == 1  # failed once, then left alone (the organiser is alerted)
        assert jobs.bots_tick(NOW + timedelta(seconds=61)) == 0 and len(tries) == 2
    finally:
        jobs.stop()
    assert game_row(sqlite_database, game_id).to_move == 1  # the game waits as it was


def test_each_computer_move_is_stamped_when_it_is_made_not_when_the_pass_began(
    database: Database, site: Site,
) -> None:
    """A pass may last minutes (two strong computers in Rifugio, a turn of several steps each):
    its moves were all stamped with the pass's start, before the person's move they answered
    when that came in during the pass, and the next deadline was short by as much."""
    with database.write() as session:
        ann = ann_player(session)
        start_computer_game(session, NOW, site, player=ann, game_type="rifugio",
                            options={"players": 3}, level="easy", starter="computer")
        game_id = session.exec(select(Seat.game_id).where(Seat.player_id == ann.id)).one()
    ticks = iter(NOW + timedelta(seconds=10 * n) for n in range(1000))
    jobs = SchedulerJobs(database, site, NOWHERE, holder="active", clock=lambda: next(ticks))
    assert jobs.sweep_tick(NOW) is not None  # takes the lease
    assert (jobs.bots_tick() or 0) >= 2  # both computers' turns, several steps each
    with database.session() as session:
        stamps = [m.made_at.replace(tzinfo=UTC) for m in moves_of(session, game_id)]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)  # one per move
    assert game_row(database, game_id).to_move == 2
    with database.session() as session:
        deadline = clock_of(session, game_id).deadline
    assert deadline is not None and deadline == stamps[-1] + timedelta(days=3)


def test_a_search_worker_started_by_the_pbem_command_loads_the_engine_alone() -> None:
    """A spawned worker first runs the script of the command that started it, as __mp_main__;
    for `pbem` that used to import the whole web app (80 MB a worker). This does what the
    worker does: the script, then a search, and lists what came with them."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).parent / "pbem"
    assert script.is_file(), "make install writes the pbem command"
    worker = (
        "import runpy, sys\n"
        f"runpy.run_path({str(script)!r}, run_name='__mp_main__')\n"
        "from engine.bots import Bot, choose_stored\n"
        "choose_stored(Bot.at('easy', seed=1), 'mosey', {'order': 4}, None, 0)\n"
        "print(sorted(m for m in ('flask', 'sqlalchemy', 'sqlmodel', 'apscheduler', 'pbem.cli')"
        " if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", worker], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
