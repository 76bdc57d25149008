"""Computer players' searches, in the scheduler's own worker processes.

A search is pure Python that runs for up to seconds. In the process that asked for it, it would
hold the interpreter lock meanwhile: under ``pbem dev`` the web app shares that process, and in
``pbem scheduler`` the delivery and sweep jobs do. :class:`SearchProcess` runs each search in
spawned worker processes instead, kept for the next search. A worker runs
:func:`engine.bots.choose_stored` on plain values: it never touches the database.

>>> search = BotSearch("mosey", {"order": 4}, None, seat=0, level="easy", seed=7)
>>> move, confidence = run_search(search)
>>> run_search(search) == (move, confidence)   # seeded: the same move in any process
True
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from engine.bots import Bot, choose_stored

log = logging.getLogger(__name__)

# Playouts per move at each level; strong thinks for the site's strong_seconds instead
# (PBEM_BOT_STRONG_SECONDS, 5 s by default) unless that is 0.
PLAYOUTS = {"easy": 50, "normal": 400, "strong": 2000}
# A search still running after this many seconds (a loaded machine) plays its best move so far.
CUTOFF_SECONDS = 20.0


@dataclass(frozen=True)
class BotSearch:
    """One search, as plain values that pickle: the game, its stored state (None: the start),
    the seat to move, the level, the seed and the site's strong seconds."""

    game_type: str
    options: dict[str, Any]
    state: Any
    seat: int
    level: str
    seed: int
    strong_seconds: float = 0.0


def bot_for(search: BotSearch) -> Bot:
    """The bot of the search's level and budget, seeded for its game and ply."""
    if search.level == "strong" and search.strong_seconds > 0:
        return Bot.at("strong", seed=search.seed,
                      seconds=min(search.strong_seconds, CUTOFF_SECONDS))
    return Bot.at(search.level, seed=search.seed,
                  playouts=PLAYOUTS.get(search.level, PLAYOUTS["normal"]), cutoff=CUTOFF_SECONDS)


def run_search(search: BotSearch) -> tuple[str, float]:
    """(the move's notation, the search's confidence in 0..1), in this process."""
    return choose_stored(bot_for(search), *_stored(search))


def _stored(search: BotSearch) -> tuple[str, dict[str, Any], Any, int]:
    return search.game_type, search.options, search.state, search.seat


def _worker_context() -> multiprocessing.context.BaseContext:
    """Spawned workers: forking the scheduler, which has threads, could copy a lock held by one
    of them. A spawned worker imports the caller's main module again: for the pbem command that
    is pbem.entry, light on purpose, so that a worker holds the engine alone."""
    return multiprocessing.get_context("spawn")


@dataclass
class SearchProcess:
    """Runs :func:`run_search` in ``workers`` worker processes of its own (as many searches at
    once), started on first use (see :func:`_worker_context`). When a worker dies (killed, out
    of memory), the workers are replaced and each search they were running is run again, once:
    that is no fault of the games'."""

    workers: int = 1
    _executor: ProcessPoolExecutor | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def run(self, search: BotSearch) -> tuple[str, float]:
        """:func:`run_search` in a worker process."""
        bot = bot_for(search)
        executor = self._worker()
        try:
            return executor.submit(choose_stored, bot, *_stored(search)).result()
        except BrokenProcessPool:
            log.warning("a computer players' worker process died; starting others")
            with self._lock:  # only the broken pool: another search may have replaced it
                if self._executor is executor:
                    self._executor = None
            executor.shutdown(wait=False, cancel_futures=True)
            return self._worker().submit(choose_stored, bot, *_stored(search)).result()

    def pid(self) -> int:
        """A worker's process id (starting one if need be): for operators and tests."""
        return self._worker().submit(os.getpid).result()

    def _worker(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(max_workers=max(1, self.workers),
                                                     mp_context=_worker_context())
            return self._executor

    def close(self, *, wait: bool = True) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=wait, cancel_futures=True)
