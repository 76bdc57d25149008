"""Capacity on several hosts of one machine: Linux network namespaces, real processes, real load.

    sudo nice -n 10 .venv/bin/python bench/hosts.py [--games 100000] [--finished 1000000]
        [--players 20000] [--keep] [--rates 5,10,20,40,80] [--confirm-rates 5,10,20,40]
        [--seconds 10] [--emails 2000] [--replies 200] [--phases pages,confirms,mail,replies]

Needs root (``ip netns``), nginx (/usr/sbin/nginx), socat, and the machine's PostgreSQL
(127.0.0.1:5432) and Redis (127.0.0.1:6379). The site is built by bench/capacity.py's
``build_site`` (kept with --keep) and copied for the run (``CREATE DATABASE ... TEMPLATE``), so
the built site stays as built; the copy's clocks are moved to now.

The hosts are namespaces ``pbem-<host>`` on one bridge ``pbem-br0`` (10.77.0.0/24, the root
namespace is 10.77.0.1); nothing is routed off the machine. PostgreSQL and Redis listen on
loopback only and are left alone: socat in the root namespace forwards 10.77.0.1:5432 and :6379
to them. (A DNAT to 127.0.0.1 needs ``route_localnet`` and netfilter rules, machine-wide state
that a crashed run would leave behind; a socat process dies with its id. It costs one more copy
per database packet, the same on every host, so it is in every number below.) Then:

- web1, web2: gunicorn (2 workers each); nginx: one nginx in front of both, on 10.77.0.10:80;
- sched1, sched2: ``pbem scheduler`` (one holds the lease; ``--no-deliver`` when it has it);
- deliver1..4: ``pbem deliver --loop`` when it exists, else ``pbem deliver`` in a shell loop
  (said in the output); inbound1, inbound2: ``pbem inbound`` (SMTP);
- the root namespace: an aiosmtpd sink process writing each Message-ID it accepts to a file, and
  the load generator (a separate process, raw asyncio HTTP/1.1, open loop: each request is sent
  at its planned time whatever the earlier ones do; latency counts from the planned time).

It prints: each page's p50/p95/p99 at rising rates until a p95 passes 200 ms (the rate before is
the capacity), confirms applied once each; confirms alone at rising
confirms (POSTs) per second, each player's pages fetched before, until the POST's p95 passes
200 ms; emails per second with 1, 2 and 4 deliverers (boards cold, then warm) and the count of
doubles and losses, also when a deliverer's link is set down mid-batch; replies per second
through the two inbound hosts. Everything made is removed on exit (Ctrl-C too), and what a
crashed run left behind is removed at the start.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sqlalchemy import create_engine, text

from bench.hosts import statements
from bench.hosts.cluster import (
    ADDRESS,
    SLOW,
    applied_once,
    built_site,
    copy_site,
    delivery_fault,
    drop_site,
    hosts,
    load_plan,
    measure_delivery,
    measure_replies,
    prerequisites,
    run_load,
)
from bench.hosts.load import quantiles
from pbem.features import connect
from pbem.migrate import upgrade


def print_pages(rate: float, result: dict[str, Any]) -> dict[str, float]:
    """Print a rate's line per page; each page's p95."""
    worst: dict[str, float] = {}
    for label, values in sorted(result["took"].items()):
        p50, p95, p99 = quantiles(values)
        worst[label] = p95
        print(
            f"  {rate:6.0f}/s  {label:18} {p50 * 1000:8.1f} {p95 * 1000:8.1f} "
            f"{p99 * 1000:8.1f} {len(values):6d}"
        )
    if result["errors"]:
        print(f"  {rate:6.0f}/s  {len(result['errors'])} errors, e.g. {result['errors'][:3]}")
    return worst


def confirm_capacity(args: argparse.Namespace, url: str, base_url: str, folder: Path,
                     used: set[int]) -> None:
    """Confirms at rising rates, nothing else: the POSTs alone at ``rate`` a second, each
    player's move page and confirm page fetched before (players look, think, then confirm).
    No deliverer runs meanwhile (the emails the confirms queue wait)."""
    print("\nconfirms only (ms; the POSTs at the rate, their pages fetched before)")
    for rate in (float(r) for r in args.confirm_rates.split(",")):
        plan = load_plan(url, base_url, rate, args.seconds, 1.0, used) | {"confirms_only": True}
        before = {c[0]: c[1] for c in plan["confirms"]}
        result = run_load(plan, folder)
        took = result["took"].get("confirm", [])
        p50, p95, p99 = quantiles(took) if took else (0.0, 0.0, 0.0)
        wrong = applied_once(url, before, result["applied"])
        print(f"  {rate:6.0f} confirms/s  p50 {p50 * 1000:7.1f}  p95 {p95 * 1000:7.1f}  "
              f"p99 {p99 * 1000:7.1f}  confirms {len(took)}, errors {len(result['errors'])}, "
              f"applied once {len(result['applied']) - len(wrong)}, wrong {wrong[:3]}")
        if result["errors"]:
            print(f"  {rate:6.0f} confirms/s  e.g. {result['errors'][:3]}")
        if p95 > SLOW:
            break


def bench(args: argparse.Namespace) -> None:
    why = prerequisites()
    if why:
        sys.exit(f"bench/hosts/run.py {why}")
    connect()
    template = built_site(args.games, args.finished, args.players, args.keep)
    url = copy_site(template, "pbem_hosts_bench")
    upgrade(url)
    try:
        with hosts(url) as cluster:
            sink = cluster.start_sink()
            cluster.start_web()
            cluster.start_schedulers()
            cluster.wait_ready()
            print(
                f"site: {args.games:,} active + {args.finished:,} finished games; hosts: "
                + ", ".join(f"{h} {a}" for h, a in ADDRESS.items())
            )
            print("\npages (ms; latency from each request's planned time)")
            print(f"  {'rate':>8}  {'page':18} {'p50':>8} {'p95':>8} {'p99':>8} {'n':>6}")
            phases = set(args.phases.split(","))
            capacity = 0.0
            used: set[int] = set()
            cluster.start_deliverers(2)
            # Unmeasured: each gunicorn worker's first requests compile templates and queries.
            run_load(load_plan(url, cluster.base_url, 4, 5, 0.1, used), cluster.folder)
            counting = statements.loaded(url)
            if counting:
                statements.reset(url)
            for rate in (float(r) for r in args.rates.split(",") if "pages" in phases):
                print(
                    f"  {rate:6.0f}/s  (machine load average {os.getloadavg()[0]:.1f} "
                    f"on {os.cpu_count()} cores)"
                )
                plan = load_plan(url, cluster.base_url, rate, args.seconds, 0.05, used)
                before = {c[0]: c[1] for c in plan["confirms"]}
                result = run_load(plan, cluster.folder)
                held = statements.connections(url)  # the pools, right after the load
                worst = print_pages(rate, result)
                print(f"  {rate:6.0f}/s  database connections held: {sum(held.values())} "
                      f"({', '.join(f'{n} {state}' for state, n in sorted(held.items()))})")
                wrong = applied_once(url, before, result["applied"])
                print(
                    f"  {rate:6.0f}/s  confirms {len(plan['confirms'])}, applied once "
                    f"{len(result['applied']) - len(wrong)}, wrong {wrong[:3]}"
                )
                if max(worst.values(), default=0.0) > SLOW:
                    break
                capacity = rate
            if "pages" in phases:
                print(f"  capacity (every page's p95 <= {SLOW * 1000:.0f} ms): "
                      f"{capacity:.0f} requests/s")
                print("\nslowest statements during the pages (pg_stat_statements, by total time)")
                for line in statements.slowest(url) if counting else [statements.ENABLE]:
                    print(f"  {line}")
            # The confirms' turn emails wait for the deliverers: on a site of several machines
            # they draw their boards on hosts of their own, not on the web hosts' two cores.
            for n in (1, 2):
                cluster.stop(f"deliver{n}")
            if "confirms" in phases:
                confirm_capacity(args, url, cluster.base_url, cluster.folder, used)
            if not phases & {"mail", "replies"}:
                return
            cluster.stop("sched1")
            cluster.stop("sched2")  # the schedulers could deliver too: not during the counts
            time.sleep(1)
            with create_engine(url).begin() as connection:
                connection.execute(
                    text(
                        "UPDATE outbox_emails SET status = 'sent' "
                        "WHERE status IN ('queued', 'retrying', 'sending')"
                    )
                )
            print(f"\nmail: {args.emails} emails, a board picture in each")
            for n, count in enumerate((1, 2, 4) if "mail" in phases else ()):
                # New boards are of games no earlier measure drew; then the same ones again.
                first = n * args.emails
                cold = measure_delivery(cluster, url, sink, count, args.emails, f"c{count}",
                                        first)
                warm = measure_delivery(cluster, url, sink, count, args.emails, f"w{count}",
                                        first)
                print(
                    f"  {count} deliverer(s): {cold[0]:7.1f} emails/s (new boards), "
                    f"{warm[0]:7.1f} (same boards again); doubles {cold[1] + warm[1]}, "
                    f"lost {cold[2] + warm[2]}"
                )
            if "mail" in phases:
                fault = delivery_fault(cluster, url, sink, args.emails, args.takeover_seconds)
                print(
                    f"  deliver1 cut off after {fault['cut_at']:.1f} s: all in "
                    f"{fault['seconds']:.1f} s, doubles {fault['doubles']}, lost "
                    f"{fault['losses']} of {fault['emails']}"
                )
            if "replies" not in phases:
                return
            cluster.start_inbound()
            rate_replies, unapplied = measure_replies(cluster, url, args.reply_games, args.replies)
            print(
                f"\nreplies: {rate_replies:.1f}/s through inbound1 and inbound2 "
                f"({args.replies} replies, {unapplied} not applied)"
            )
            for note in cluster.notes:
                print(f"note: {note}")
    finally:
        drop_site(url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--finished", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--keep", action="store_true", help="reuse the site an earlier run built")
    parser.add_argument("--rates", default="5,10,20,40,80,160", help="requests/s, rising")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--phases", default="pages,confirms,mail,replies",
                        help="what to measure, of pages,confirms,mail,replies")
    parser.add_argument("--confirm-rates", default="5,10,20,40",
                        help="confirms (POSTs) per second, rising")
    parser.add_argument("--emails", type=int, default=1000)
    parser.add_argument("--takeover-seconds", type=float, default=900)
    parser.add_argument("--reply-games", type=int, default=40)
    parser.add_argument("--replies", type=int, default=200)
    args = parser.parse_args()
    # Ctrl-C and SIGTERM both leave through the clean-up, also when started in the background
    # (where a shell starts Python with SIGINT ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, interrupted)
    bench(args)


def interrupted(*_: object) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
