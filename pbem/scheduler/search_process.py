"""Computer players' searches, in the scheduler's own worker process.

A search is pure Python that runs for up to seconds. In the process that asked for it, it would
hold the interpreter lock meanwhile: under ``pbem dev`` the web app shares that process, and in
``pbem scheduler`` the delivery and sweep jobs do. :class:`SearchProcess` runs each search in one
spawned worker process instead, kept for the next search. The worker needs only the engine and
:class:`BotSearch`'s plain values, so it never touches the database.

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

import engine
from engine.bots import Bot

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


def run_search(search: BotSearch) -> tuple[str, float]:
    """(the move's notation, the search's confidence in 0..1)."""
    game = engine.new_game(search.game_type, **search.options)
    state = game.start() if search.state is None else game.decode(search.state)
    if search.level == "strong" and search.strong_seconds > 0:
        bot = Bot.at("strong", seed=search.seed,
                     seconds=min(search.strong_seconds, CUTOFF_SECONDS))
    else:
        bot = Bot.at(search.level, seed=search.seed,
                     playouts=PLAYOUTS.get(search.level, PLAYOUTS["normal"]),
                     cutoff=CUTOFF_SECONDS)
    move, confidence = bot.choose(game, state, search.seat)
    return str(move), confidence


@dataclass
class SearchProcess:
    """Runs :func:`run_search` in ``workers`` worker processes of its own (as many searches at
    once), started on first use (spawned, not forked: the scheduler has threads). A worker that
    died (killed, out of memory) is replaced and the search run again, once: that is no fault of
    the game's."""

    workers: int = 1
    _executor: ProcessPoolExecutor | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def run(self, search: BotSearch) -> tuple[str, float]:
        try:
            return self._worker().submit(run_search, search).result()
        except BrokenProcessPool:
            log.warning("the computer players' worker process died; starting another")
            self.close(wait=False)
            return self._worker().submit(run_search, search).result()

    def pid(self) -> int:
        """A worker's process id (starting one if need be): for operators and tests."""
        return self._worker().submit(os.getpid).result()

    def _worker(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    max_workers=max(1, self.workers),
                    mp_context=multiprocessing.get_context("spawn"))
            return self._executor

    def close(self, *, wait: bool = True) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=wait, cancel_futures=True)
