"""Two real ``pbem scheduler`` processes on one SQLite database: one active, one standing by.

The only scheduler test with real time: it polls for the processes to start, renew and hand over
(never a fixed sleep); the clock logic itself is tested with explicit times.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import create_engine, text

from pbem.migrate import upgrade

ROOT = Path(__file__).resolve().parents[2]


def _wait_for(condition: Callable[[], object], seconds: float = 20) -> object:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)  # the conditions are the scheduler processes' work
    raise AssertionError("timed out waiting")


def test_a_second_process_stands_by_and_takes_over_when_the_first_stops(
    tmp_path: Path, closed_port: int,
) -> None:
    url = f"sqlite:///{tmp_path / 'pbem.db'}"
    upgrade(url)
    env = {**os.environ, "PBEM_DATABASE_URL": url, "PBEM_SMTP_PORT": str(closed_port),
           "PBEM_ENV": "development", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "pbem.cli", "scheduler", "--deliver-every", "1"]
    engine = create_engine(url)

    def holder_pid() -> int | None:
        with engine.connect() as connection:
            row = connection.execute(text(
                "SELECT holder FROM scheduler_leases WHERE name = 'scheduler'")).first()
        return int(row[0].split(":")[1]) if row else None

    processes = [subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) for _ in range(2)]
    try:
        first = _wait_for(holder_pid)
        assert first in {p.pid for p in processes}
        active = next(p for p in processes if p.pid == first)
        standby = next(p for p in processes if p.pid != first)
        # Both tick (every second) while the lease is renewed twice: it stays with the first.
        renewals: set[str] = set()

        def renewed_twice() -> bool:
            with engine.connect() as connection:
                renewals.add(str(connection.execute(text(
                    "SELECT renewed_at FROM scheduler_leases WHERE name = 'scheduler'")).scalar()))
            return len(renewals) >= 3

        _wait_for(renewed_twice)
        assert holder_pid() == first and standby.poll() is None
        active.send_signal(signal.SIGTERM)  # a clean stop releases the lease
        assert active.wait(timeout=20) == 0
        assert _wait_for(lambda: holder_pid() == standby.pid)
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=20)
        engine.dispose()


def test_a_scheduler_told_to_stop_again_and_again_still_releases_its_lease(
    tmp_path: Path, closed_port: int,
) -> None:
    """systemd, or an impatient operator, may send SIGTERM more than once: the scheduler still
    leaves through its clean stop, giving the lease up for the standby, and exits 0."""
    url = f"sqlite:///{tmp_path / 'pbem.db'}"
    upgrade(url)
    env = {**os.environ, "PBEM_DATABASE_URL": url, "PBEM_SMTP_PORT": str(closed_port),
           "PBEM_ENV": "development", "PYTHONPATH": str(ROOT)}
    engine = create_engine(url)

    def holder() -> str | None:
        with engine.connect() as connection:
            row = connection.execute(text(
                "SELECT holder FROM scheduler_leases WHERE name = 'scheduler'")).first()
        return str(row[0]) if row else None

    process = subprocess.Popen([sys.executable, "-m", "pbem.cli", "scheduler"], env=env,
                               cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for(holder)
        while process.poll() is None:
            process.send_signal(signal.SIGTERM)
            time.sleep(0.005)  # the signals' pace: faster than a clean stop takes
        assert process.wait(timeout=20) == 0, process.stderr.read() if process.stderr else ""
        assert holder() is None
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=20)
        engine.dispose()
