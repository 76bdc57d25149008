"""The small version of bench/hosts/run.py: a site of 1,000 games on hosts of their own (Linux
network namespaces), two web hosts behind one nginx, a scheduler and two deliverers, under
real pages and confirms. Nothing may fail, every confirm is played once, every email arrives
once; also when a deliverer's link goes down mid-batch, while it waits for the relay's answer
(the other takes its claims over when they expire). About 20 s on two busy cores: the hosts start
together, the load is 45 requests, the fault 100 emails with claims of 4 s, no fixed sleeps.

Needs root, nginx, socat and the machine's PostgreSQL; skipped with the reason otherwise. The
1,000-game site (pbem_capacity_test_1000) is built once by bench/capacity.py (and kept); each run
copies it and drops the copy in the background (DROP DATABASE waits for a checkpoint).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text

from bench.hosts.cluster import (
    applied_once,
    built_site,
    copy_site,
    delivery_fault,
    drop_site,
    hosts,
    load_plan,
    outbox_waiting,
    prerequisites,
    received,
    run_load,
)
from tests.support import postgres_url

GAMES = 1_000
SWISS = 20  # players


@pytest.fixture
def site_copy() -> Iterator[str]:
    why = prerequisites()
    if why:
        pytest.skip(why)
    url, why = postgres_url()
    if url is None or "127.0.0.1:5432" not in url:
        pytest.skip(why or "the machine's PostgreSQL is not on 127.0.0.1:5432")
    # Its own template, with a Swiss of 20 (the bench's 200 take a minute to play through the
    # services); the bench's sites stay as the bench builds them.
    template = built_site(GAMES, GAMES * 10, GAMES * 2, keep=True, prefix="pbem_capacity_test",
                          swiss=SWISS)
    # A name of its own: the last run's copy may still be being dropped.
    copy = copy_site(template, f"pbem_hosts_test_{os.getpid()}")
    yield copy
    drop_site(copy, background=True)


@pytest.mark.early
def test_two_web_hosts_and_two_deliverers_lose_and_double_nothing(site_copy: str) -> None:
    # Claims of 4 s: deliver2 takes a cut-off deliver1's emails over within seconds.
    with hosts(site_copy, claim_seconds=4) as cluster:
        sink = cluster.start_sink()
        cluster.start_web(workers=1)
        cluster.start_schedulers(1)  # for /healthz: a scheduler holds the lease
        # Planned while the hosts start; 12 confirms (three requests each) and 9 other pages.
        plan = load_plan(
            site_copy, cluster.base_url, rate=30, seconds=1.5, confirm_share=0.27, used=set()
        )
        cluster.wait_ready()
        # Started now, they get ready while the load runs (its mail waits for them meanwhile).
        cluster.start_deliverers(2)
        before = {game: ply for game, ply, _, _ in plan["confirms"]}
        assert len(before) >= 10

        result = run_load(plan, cluster.folder)

        assert result["errors"] == []
        assert sorted(result["applied"]) == sorted(before)
        assert applied_once(site_copy, before, result["applied"]) == []
        assert {
            "/healthz",
            "/metrics",
            "home, 200 games",
            "archive",
            "swiss standings",
            "confirm",
        } <= set(result["took"])
        deadline = time.monotonic() + 20
        while outbox_waiting(site_copy) and time.monotonic() < deadline:
            time.sleep(0.2)
        with create_engine(site_copy).connect() as connection:
            written = connection.execute(text("SELECT message_id FROM outbox_emails")).scalars()
            queued = list(written)
        assert queued  # the moves mailed the next players
        seen = received(sink)
        assert {m: seen[m] for m in queued if seen[m] != 1} == {}

        # 100 emails to 100 addresses, on 20 boards: fewer drawings, more contention for the
        # boards' cache between the deliverers.
        fault = delivery_fault(cluster, site_copy, sink, 100, takeover_seconds=30, boards=20)
    assert (fault["doubles"], fault["losses"]) == (0, 0), fault
