"""The hosts of bench/hosts: Linux network namespaces on one bridge, the processes on them, the
site's database, and the measures that drive them (bench/hosts/run.py prints them; the suite's
tests/capacity/test_hosts.py asserts on a small site).

The hosts are namespaces ``pbem-<host>`` on one bridge ``pbem-br0`` (10.77.0.0/24, the root
namespace is 10.77.0.1), each with a veth pair whose outer end is ``pbv-<host>``; nothing is
routed off the machine (no forwarding, no NAT). PostgreSQL and Redis listen on loopback only
and are left alone: socat in the root namespace forwards 10.77.0.1:5432 and :6379 to them. A
DNAT to 127.0.0.1 would need ``route_localnet`` and netfilter rules, machine-wide state that a
crashed run would leave behind; a socat process is ours and ends by its id. It costs one more
copy per database packet, the same for every host, so it is in every number measured.
"""

from __future__ import annotations

import fcntl
import http.client
import json
import os
import random
import re
import shutil
import signal
import smtplib
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from flask import Flask  # noqa: E402
from flask.sessions import SecureCookieSessionInterface  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402

from bench.capacity import (  # noqa: E402
    NOW,
    SWISS_PLAYERS,
    build_site,
    samples,
    site_url,
    swiss_slug,
)
from bench.inbound import next_reply, start_games  # noqa: E402
from pbem.db import Database  # noqa: E402
from pbem.links import Links, seat_holder_for  # noqa: E402
from pbem.models import GameRecord  # noqa: E402
from pbem.positions import current_state  # noqa: E402
from pbem.services import Site  # noqa: E402

PREFIX = "pbem-"
BRIDGE = "pbem-br0"
SUBNET = "10.77.0"
GATEWAY = f"{SUBNET}.1"
STATE = Path(tempfile.gettempdir()) / "pbem-hosts"  # the pids of a run, for the next to clean
SECRET = "hosts bench secret, long enough to sign links with"
MAIL_FROM = "pbem <pbem@pbem.test>"
REPLY = "play@pbem.test"
SINK_PORT = 2525
INBOUND_PORT = 2525
WEB_PORT = 8000
SLOW = 0.200  # a page's p95 over this: past capacity
HOSTS = [
    "nginx",
    "web1",
    "web2",
    "sched1",
    "sched2",
    "deliver1",
    "deliver2",
    "deliver3",
    "deliver4",
    "inbound1",
    "inbound2",
]
ADDRESS = {name: f"{SUBNET}.{10 + n}" for n, name in enumerate(HOSTS)}
PYTHON = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
NGINX = "/usr/sbin/nginx"
SOCAT = "/usr/bin/socat"
HERE = Path(__file__).resolve().parent


def sh(*command: str, check: bool = True) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {done.stderr.strip()}")
    return done.stdout


def prerequisites() -> str:
    """Why this cannot run here, or ''."""
    if os.geteuid() != 0:
        return "needs root (ip netns)"
    for tool in ("/usr/sbin/ip", NGINX, SOCAT, GUNICORN):
        if not Path(tool).exists():
            return f"{tool} is missing"
    # Root in a container may still lack CAP_NET_ADMIN: try one namespace.
    probe = f"{PREFIX}probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if made.returncode != 0:
        return f"cannot make a network namespace: {made.stderr.strip()}"
    sh("ip", "netns", "del", probe, check=False)
    return ""


# -- the network --------------------------------------------------------------------------------


def clean_network() -> None:
    """Remove what this script makes, also what a crashed run left: its processes (by the ids
    it wrote down, or found in its namespaces), the namespaces, the veths and the bridge."""
    pids = STATE / "pids"
    if pids.exists():
        for line in pids.read_text().split():
            stop_group(int(line))
        pids.unlink()
    for line in sh("ip", "netns", "list", check=False).splitlines():
        name = line.split()[0] if line.split() else ""
        if not name.startswith(PREFIX):
            continue
        for pid in sh("ip", "netns", "pids", name, check=False).split():
            with suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
        sh("ip", "netns", "del", name, check=False)
    for line in sh("ip", "-o", "link", "show", check=False).splitlines():
        found = re.match(r"\d+: (pbv-[\w-]+)[@:]", line)
        if found:
            sh("ip", "link", "del", found[1], check=False)
    sh("ip", "link", "del", BRIDGE, check=False)


def make_network() -> None:
    sh("ip", "link", "add", BRIDGE, "type", "bridge")
    sh("ip", "addr", "add", f"{GATEWAY}/24", "dev", BRIDGE)
    sh("ip", "link", "set", BRIDGE, "up")
    for host in HOSTS:
        space, outside, inside = f"{PREFIX}{host}", f"pbv-{host}", f"pbp-{host}"
        sh("ip", "netns", "add", space)
        sh("ip", "link", "add", outside, "type", "veth", "peer", "name", inside)
        sh("ip", "link", "set", inside, "netns", space)
        sh("ip", "link", "set", outside, "master", BRIDGE, "up")
        inns = ("ip", "netns", "exec", space)
        sh(*inns, "ip", "link", "set", "lo", "up")
        sh(*inns, "ip", "link", "set", inside, "name", "eth0")
        sh(*inns, "ip", "addr", "add", f"{ADDRESS[host]}/24", "dev", "eth0")
        sh(*inns, "ip", "link", "set", "eth0", "up")


def cut(host: str, up: bool = False) -> None:
    """The host's cable pulled (or put back): ``ip link set ... down``."""
    sh("ip", "link", "set", f"pbv-{host}", "up" if up else "down")


def stop_group(pid: int, *, at_once: bool = False) -> None:
    """Stop the process group led by ``pid`` (a process this script started): asked to end
    first, or ``at_once`` killed."""
    steps = ((signal.SIGTERM, 3.0), (signal.SIGKILL, 2.0))
    for sig, wait in steps[1:] if at_once else steps:
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not group_alive(pid):
                return
            time.sleep(0.05)


def group_alive(group: int) -> bool:
    """Whether a process of ``group`` still runs. Its zombies do not count: a gunicorn worker
    whose master was killed is reaped by PID 1, which in a container may never do it."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        state, _, pgrp = stat.rpartition(")")[2].split()[:3]
        if int(pgrp) == group and state != "Z":
            return True
    return False


# -- the processes ------------------------------------------------------------------------------


@dataclass
class Cluster:
    """The hosts and their processes for one database."""

    database_url: str  # as the root namespace reaches it
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="pbem-hosts-")))
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # Short, so that a cut-off deliverer's emails go out through another within the fault's wait;
    # a site keeps the default (minutes), sized to its relay's timeouts.
    claim_seconds: int = 8
    # PostgreSQL ends the session of a host cut off mid-transaction after this long, and so
    # frees the rows it locked (a site's default is a minute); no longer than the claims, so that
    # the deliverer taking a cut-off one's emails over is not held up by its open transaction.
    idle_transaction_seconds: int = 4

    @property
    def base_url(self) -> str:
        return f"http://{ADDRESS['nginx']}"

    @property
    def host_database_url(self) -> str:
        return self.database_url.replace("127.0.0.1:5432", f"{GATEWAY}:5432")

    def env(self) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONPATH": str(ROOT),
            "HOME": str(self.folder),
            "PBEM_ENV": "development",
            "PBEM_SECRET_KEY": SECRET,
            "PBEM_BASE_URL": self.base_url,
            "PBEM_DATABASE_URL": self.host_database_url,
            "PBEM_SMTP_HOST": GATEWAY,
            "PBEM_SMTP_PORT": str(SINK_PORT),
            "PBEM_MAIL_FROM": MAIL_FROM,
            "PBEM_REPLY_ADDRESS": REPLY,
            "PBEM_REDIS_URL": f"redis://{GATEWAY}:6379/7",
            "PBEM_TRUSTED_PROXIES": "1",
            "PBEM_METRICS": "on",
            "PBEM_SWEEP_EVERY": "5",
            "PBEM_DELIVER_EVERY": "1",
            "PBEM_DELIVER_CLAIM_SECONDS": str(self.claim_seconds),
            "PBEM_DATABASE_IDLE_TRANSACTION_SECONDS": str(self.idle_transaction_seconds),
        }

    def start(self, name: str, command: list[str], host: str | None = None) -> None:
        if host is not None:
            command = ["ip", "netns", "exec", f"{PREFIX}{host}", *command]
        log = (self.folder / f"{name}.log").open("wb")
        self.processes[name] = subprocess.Popen(
            command,
            env=self.env(),
            cwd=self.folder,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        STATE.mkdir(exist_ok=True)
        with (STATE / "pids").open("a") as pids:
            pids.write(f"{self.processes[name].pid}\n")

    def stop(self, name: str, *, dead: bool = False) -> None:
        """Stop process ``name``: asked to end (SIGTERM, SIGKILL after 3 s), or, ``dead``, a host
        that is gone anyway (cut off), killed at once."""
        process = self.processes.pop(name, None)
        if process is None:
            return
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL if dead else signal.SIGTERM)
        # Waited for as our child: until reaped, it would keep its group alive for stop_group.
        try:
            process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        stop_group(process.pid, at_once=dead)  # whatever of its group outlived it

    def stop_all(self) -> None:
        """Every process group killed at once: the run is over, nothing of theirs is measured
        any more (a graceful stop would only add the slowest one's shutdown)."""
        for process in self.processes.values():
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        for name in list(self.processes):
            self.stop(name, dead=True)

    def log(self, name: str) -> str:
        path = self.folder / f"{name}.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def wait_for(self, what: str, ready: Any, name: str, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while not ready():
            process = self.processes.get(name)
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"{name} exited: {self.log(name)}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} not ready in {seconds:.0f} s: {self.log(name)}")
            time.sleep(0.1)

    # -- each kind of host --

    def start_forwarders(self) -> None:
        for port in (5432, 6379):
            self.start(
                f"socat-{port}",
                [
                    SOCAT,
                    # nodelay: without it Nagle's algorithm held a query's last small packet
                    # for the other side's delayed ACK, up to 40 ms a statement (the Swiss's
                    # standings page took 460 ms through socat against 75 ms without it)
                    f"TCP-LISTEN:{port},bind={GATEWAY},fork,reuseaddr,nodelay",
                    f"TCP:127.0.0.1:{port},nodelay",
                ],
            )
        self.wait_for(
            "socat", lambda: answers(GATEWAY, 5432) and answers(GATEWAY, 6379), "socat-5432"
        )

    def start_sink(self) -> Path:
        out = self.folder / "received.txt"
        out.touch()
        self.start(
            "sink",
            [
                PYTHON,
                str(HERE / "sink.py"),
                "--host",
                GATEWAY,
                "--port",
                str(SINK_PORT),
                "--out",
                str(out),
                "--hold",
                str(self.folder / "hold"),
            ],
        )
        self.wait_for("the SMTP sink", lambda: answers(GATEWAY, SINK_PORT), "sink")
        return out

    def start_web(self, workers: int = 2) -> None:
        for host in ("web1", "web2"):
            self.start(
                host,
                [
                    GUNICORN,
                    "--preload",  # the app is made once, its workers forked from it
                    "--workers",
                    str(workers),
                    "--bind",
                    f"{ADDRESS[host]}:{WEB_PORT}",
                    "--timeout",
                    "60",
                    "--graceful-timeout",
                    "5",
                    "pbem.wsgi:app",
                ],
                host,
            )
        config = self.folder / "nginx.conf"
        servers = "".join(f"server {ADDRESS[h]}:{WEB_PORT};" for h in ("web1", "web2"))
        config.write_text(f"""
user root;
worker_processes 1;
pid {self.folder}/nginx.pid;
events {{ worker_connections 4096; }}
http {{
  access_log off;
  client_body_temp_path {self.folder}/body; proxy_temp_path {self.folder}/proxy;
  fastcgi_temp_path {self.folder}/fcgi; uwsgi_temp_path {self.folder}/uwsgi;
  scgi_temp_path {self.folder}/scgi;
  upstream pbem {{ {servers} keepalive 32; }}
  server {{
    listen {ADDRESS["nginx"]}:80;
    location / {{
      proxy_pass http://pbem; proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_set_header Host $host; proxy_set_header X-Forwarded-Proto $scheme;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }}
  }}
}}
""")
        self.start(
            "nginx",
            [
                NGINX,
                "-p",
                str(self.folder),
                "-e",
                str(self.folder / "error.log"),
                "-c",
                str(config),
                "-g",
                "daemon off;",
            ],
            "nginx",
        )

    def wait_ready(self) -> None:
        """Until both web hosts and nginx answer, and /healthz says 200: a scheduler holds the
        lease and has run its jobs. (The processes start together: their imports overlap.)"""
        for host in ("web1", "web2"):
            self.wait_for(host, lambda h=host: http_ok(ADDRESS[h], WEB_PORT, "/healthz"), host)
        self.wait_for("nginx", lambda: http_ok(ADDRESS["nginx"], 80, "/healthz"), "nginx")
        self.wait_for(
            "a healthy site (/healthz 200)",
            lambda: http_ok(ADDRESS["nginx"], 80, "/healthz", answered=(200,)),
            "sched1",
        )

    def start_schedulers(self, count: int = 2) -> None:
        """``count`` scheduler hosts: the first to take the lease runs the jobs, the other
        stands by."""
        help_text = pbem_help("scheduler")
        extra = ["--no-deliver"] if "--no-deliver" in help_text else []
        if not extra:
            self.notes.append(
                "pbem scheduler has no --no-deliver here: the lease holder also delivers"
            )
        for host in ("sched1", "sched2")[:count]:
            self.start(host, [PYTHON, "-m", "pbem.cli", "scheduler", *extra], host)

    def start_deliverers(self, count: int, every: float = 0.5) -> None:
        loop = "--loop" in pbem_help("deliver")
        if not loop and not any("shell loop" in n for n in self.notes):
            self.notes.append(
                "pbem deliver has no --loop here: each deliverer host runs "
                "`pbem deliver` in a shell loop (a new process per pass)"
            )
        for n in range(1, count + 1):
            host = f"deliver{n}"
            if loop:
                command = [
                    PYTHON,
                    "-m",
                    "pbem.cli",
                    "deliver",
                    "--loop",
                    "--every",
                    str(max(1, round(every))),
                ]
            else:
                command = [
                    "/bin/sh",
                    "-c",
                    f"while true; do {PYTHON} -m pbem.cli deliver >/dev/null; sleep {every}; done",
                ]
            self.start(host, command, host)

    def start_inbound(self) -> None:
        for host in ("inbound1", "inbound2"):
            self.start(
                host,
                [
                    PYTHON,
                    "-m",
                    "pbem.cli",
                    "inbound",
                    "--host",
                    ADDRESS[host],
                    "--port",
                    str(INBOUND_PORT),
                ],
                host,
            )
        for host in ("inbound1", "inbound2"):
            self.wait_for(host, lambda h=host: answers(ADDRESS[h], INBOUND_PORT), host)


def answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def http_ok(host: str, port: int, path: str, *, answered: tuple[int, ...] = (200, 503)) -> bool:
    """Whether ``path`` answers with one of ``answered`` (/healthz: 503 is an answer too).

    Blocking, not asyncio: the caller's thread may run an event loop already (a test process
    whose Playwright browser is open)."""
    connection = http.client.HTTPConnection(host, port, timeout=2)
    try:
        connection.request("GET", path)
        status = connection.getresponse().status
    except (TimeoutError, OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()
    return status in answered


@cache
def pbem_help(command: str) -> str:
    """The options ``pbem <command> --help`` would list, read from the decorators above the
    command's function (running it imports pbem: seconds of CPU)."""
    source = (ROOT / "pbem" / "cli" / "__init__.py").read_text()
    end = source.find(f"\ndef {command}(")
    if end < 0:
        return ""
    decorators = source[source.rfind("\ndef ", 0, end) : end]
    return " ".join(re.findall(r"@click\.option\(\s*\"(--[\w-]+)", decorators))


@contextmanager
def hosts(database_url: str, claim_seconds: int = 8) -> Iterator[Cluster]:
    """The network and a cluster on it; everything removed after (Ctrl-C included). One run at
    a time: the namespaces' names are the machine's, so a second run waits for the first (the
    lock is a file lock, let go when its process ends, however it ends)."""
    STATE.mkdir(exist_ok=True)
    lock = (STATE / "lock").open("w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print("bench/hosts: another run holds the namespaces; waiting for it", flush=True)
        fcntl.flock(lock, fcntl.LOCK_EX)
    clean_network()
    cluster = Cluster(database_url, claim_seconds=claim_seconds)
    try:
        make_network()
        cluster.start_forwarders()
        yield cluster
    finally:
        cluster.stop_all()
        clean_network()
        shutil.rmtree(cluster.folder, ignore_errors=True)
        lock.close()


# -- the site's database --------------------------------------------------------------------------


def copy_site(template_url: str, name: str) -> str:
    """A fresh copy of a built site, its clocks moved from capacity.py's NOW to now and its
    outbox empty; the copy's URL."""
    server, _, template = template_url.rpartition("/")
    admin = create_engine(f"{server}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    admin.dispose()
    url = f"{server}/{name}"
    shift = datetime.now(UTC) - NOW
    with create_engine(url).begin() as connection:
        connection.execute(
            text(
                "UPDATE game_clocks SET deadline = deadline + :s, next_due_at = next_due_at + :s, "
                "turn_started_at = turn_started_at + :s"
            ),
            {"s": shift},
        )
        connection.execute(text("DELETE FROM outbox_images"))
        connection.execute(text("DELETE FROM outbox_emails"))
    return url


def drop_site(url: str, *, background: bool = False) -> None:
    """Drop a copy; ``background``: in a process of its own that outlives this one, as DROP
    DATABASE waits for a checkpoint of the whole server (seconds to tens of seconds)."""
    server, _, name = url.rpartition("/")
    if background:
        script = (
            "import sys; from sqlalchemy import create_engine, text\n"
            "with create_engine(sys.argv[1], isolation_level='AUTOCOMMIT').connect() as c:\n"
            "    c.execute(text(f'DROP DATABASE IF EXISTS \"{sys.argv[2]}\" WITH (FORCE)'))\n"
        )
        subprocess.Popen(
            [PYTHON, "-c", script, f"{server}/postgres", name],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        return
    admin = create_engine(f"{server}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def built_site(games: int, finished: int, players: int, keep: bool, *,
               prefix: str = "pbem_capacity", swiss: int = SWISS_PLAYERS) -> str:
    """capacity.py's site of this size (its Swiss of ``swiss`` players), built now or
    (``keep``) as an earlier run left it."""
    url = site_url(games, prefix)
    admin = create_engine(url.rpartition("/")[0] + "/postgres")
    with admin.connect() as connection:
        exists = connection.execute(
            text("SELECT 1 FROM pg_database WHERE datname = :n"),
            {"n": url.rpartition("/")[2]},
        ).first()
    admin.dispose()
    kinds = [] if exists and keep else samples()
    build_site(games, finished, players, kinds, keep, prefix, swiss).dispose()
    return url


# -- what the load does ---------------------------------------------------------------------------


def signed_in_cookie(player: int) -> str:
    """The session cookie of a browser signed in as ``player`` (as Flask signs it)."""
    app = Flask("cookie")
    app.secret_key = SECRET
    serializer = SecureCookieSessionInterface().get_signing_serializer(app)
    assert serializer is not None
    return "session=" + serializer.dumps({"_user_id": f"player:{player}:0", "_fresh": True})


def confirmable(database_url: str, count: int, base_url: str) -> list[tuple[int, int, str, str]]:
    """(game, ply, move link, a legal move) for ``count`` games waiting for a person's move,
    none of them due within the hour (the scheduler would play its timeout during the run, and
    the confirm would rightly answer that the game moved on)."""
    database = Database(database_url)
    links = Links(SECRET, base_url, seat_holder=seat_holder_for(database))
    found = []
    with database.session() as session:
        rows = (
            session.execute(
                text(
                    "SELECT g.id FROM games g "
                    "JOIN seats s ON s.game_id = g.id AND s.seat = g.to_move "
                    "JOIN players p ON p.id = s.player_id "
                    "JOIN game_clocks c ON c.game_id = g.id WHERE g.status = 'active' "
                    "AND p.bot_level IS NULL AND p.id > 10 "
                    "AND (c.deadline IS NULL OR c.deadline > now() + interval '1 hour') "
                    "ORDER BY g.id DESC LIMIT :n"
                ),
                {"n": count},
            )
            .scalars()
            .all()
        )
        for game_id in rows:
            row = session.get(GameRecord, game_id)
            assert row is not None and row.to_move is not None
            game, state = current_state(row)
            move = str(game.random_move(state, random.Random(game_id)))
            found.append((game_id, row.ply, links.move_url(game_id, row.to_move, row.ply), move))
    database.dispose()
    return found


def swiss_page(database_url: str) -> str:
    """The standings page of the site's Swiss tournament (bench/capacity.py's add_swiss)."""
    database = Database(database_url)
    slug = swiss_slug(database)
    database.dispose()
    assert slug is not None, f"{database_url} has no Swiss tournament"
    return f"/tournaments/{slug}"


PAGES = {
    "/healthz": ["/healthz"],
    "/metrics": ["/metrics"],
    "home, 200 games": ["/account"],
    "archive": ["/archive", "/archive?page=50"],
    "archive filters": [
        "/archive?game=stigmergy",
        "/archive?player=player+123",
        "/archive?from=2025-10-01&to=2025-10-07",
    ],
}


def load_plan(
    database_url: str,
    base_url: str,
    rate: float,
    seconds: float,
    confirm_share: float,
    used: set[int],
) -> dict[str, Any]:
    """A plan for the load process: ``rate`` requests a second for ``seconds``, a share of them
    move pages followed by a confirm (each game once), the rest spread over PAGES and the
    standings page of the site's 200-player Swiss (its slug is the site's own)."""
    total = int(rate * seconds)
    confirms = max(2, int(total * confirm_share))
    pool = [
        c for c in confirmable(database_url, confirms + len(used), base_url) if c[0] not in used
    ][:confirms]
    used.update(c[0] for c in pool)
    return {
        "base": base_url,
        "rate": rate,
        "seconds": seconds,
        "pages": {**PAGES, "swiss standings": [swiss_page(database_url)]},
        "confirms": pool,
        "cookie": signed_in_cookie(1),
    }


def run_load(plan: dict[str, Any], folder: Path) -> dict[str, Any]:
    """Run the load as a separate process; its results."""
    plan_file, out = folder / "plan.json", folder / "result.json"
    plan_file.write_text(json.dumps(plan))
    subprocess.run(
        [PYTHON, str(HERE / "load.py"), "--plan", str(plan_file), "--out", str(out)],
        check=True,
        cwd=ROOT,
    )
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def applied_once(database_url: str, before: dict[int, int], applied: list[int]) -> list[str]:
    """Problems with the confirms: a game whose confirm was answered but not played, or played
    more than once. The game may have gone on past the confirmed ply: a computer's answer or a
    forced pass that the scheduler played at once."""
    problems = []
    with create_engine(database_url).connect() as connection:
        for game_id in applied:
            moves = connection.execute(
                text("SELECT count(*) FROM moves WHERE game_id = :g AND ply = :p"),
                {"g": game_id, "p": before[game_id]},
            ).scalar()
            ply = connection.execute(
                text("SELECT ply FROM games WHERE id = :g"), {"g": game_id}
            ).scalar()
            if moves != 1 or ply is None or ply <= before[game_id]:
                problems.append(
                    f"game {game_id}: {moves} moves at ply {before[game_id]}, now at ply {ply}"
                )
    return problems


# -- mail ---------------------------------------------------------------------------------------


def received(sink_file: Path) -> Counter[str]:
    return Counter(line for line in sink_file.read_text().splitlines() if line)


def queue_emails(database_url: str, count: int, tag: str, boards: int = 0,
                 first: int = 0) -> list[str]:
    """``count`` turn-like emails to as many addresses, each with the board of a game (as the
    public sees it now): of a different game each, or of ``boards`` games in turn (a board is
    drawn once, then read from its cache), queued at once; their Message-IDs. The games are the
    active ones in id order from the ``first``-th: a measure of new boards needs games whose
    boards no earlier measure drew."""
    ids = [f"<{tag}.{n}@hosts.pbem.test>" for n in range(count)]
    with create_engine(database_url).begin() as connection:
        connection.execute(
            text(
                "WITH chosen AS (SELECT id, ply FROM games WHERE status = 'active' "
                "ORDER BY id OFFSET :first LIMIT :boards), "
                "g AS (SELECT id, ply, row_number() OVER (ORDER BY id) - 1 AS k FROM chosen) "
                "INSERT INTO outbox_emails (game_id, kind, to_address, to_name, subject, "
                "text_body, html_body, image_ply, image_viewer, image_language, message_id, "
                "essential, status, attempts, next_attempt_at, created_at, in_reply_to, "
                "reply_to, unsubscribe_url, "
                "last_error, claimed_by) "
                "SELECT g.id, 'turn', 'p' || n || '.' || :tag || '@example.test', '', "
                "'Your move', "
                "'Your move.', "
                "'<p>Your move.</p><img src=\"cid:board\">', g.ply, -1, 'en', "
                "'<' || :tag || '.' || n || '@hosts.pbem.test>', true, 'queued', 0, now(), "
                "now(), '', '', '', '', '' "
                "FROM generate_series(0, :n - 1) AS n "
                "JOIN g ON g.k = n % (SELECT count(*) FROM g) ORDER BY n"
            ),
            {"tag": tag, "n": count, "boards": boards or count, "first": first},
        )
    return ids


def wait_sent(sink_file: Path, ids: list[str], seconds: float) -> float:
    """Seconds until every one of ``ids`` reached the sink (or ``seconds`` passed)."""
    began = time.monotonic()
    wanted = set(ids)
    while time.monotonic() - began < seconds:
        if wanted <= set(received(sink_file)):
            break
        time.sleep(0.05)
    return time.monotonic() - began


def marked(database_url: str, ids: list[str], seconds: float) -> None:
    """Wait (bounded) until the outbox says "sent" for each of ``ids``: a deliverer stopped
    between the relay's 250 and its mark would leave a claim, and the email would be sent again
    when the claim expires (that window is the fault test's, not this measure's)."""
    deadline = time.monotonic() + seconds
    with create_engine(database_url).connect() as connection:
        while time.monotonic() < deadline:
            left = connection.execute(
                text(
                    "SELECT count(*) FROM outbox_emails WHERE message_id = ANY(:ids) "
                    "AND status <> 'sent'"
                ),
                {"ids": ids},
            ).scalar()
            connection.rollback()
            if not left:
                return
            time.sleep(0.05)


def outbox_waiting(database_url: str) -> int:
    with create_engine(database_url).connect() as connection:
        return int(
            connection.execute(
                text(
                    "SELECT count(*) FROM outbox_emails WHERE status IN ('queued', 'retrying', "
                    "'sending')"
                )
            ).scalar()
            or 0
        )


def mail_problems(sink_file: Path, ids: list[str]) -> tuple[int, int]:
    """(doubles, losses) of ``ids`` at the sink."""
    seen = received(sink_file)
    return (sum(1 for i in ids if seen[i] > 1), sum(1 for i in ids if seen[i] == 0))


def measure_delivery(
    cluster: Cluster, url: str, sink: Path, deliverers: int, emails: int, tag: str,
    first: int = 0,
) -> tuple[float, int, int]:
    """(emails per second, doubles, losses) with ``deliverers`` hosts; the clock starts when the
    batch is queued (the deliverers are already running and idle). The boards are of the games
    from the ``first``-th (:func:`queue_emails`)."""
    cluster.start_deliverers(deliverers)
    time.sleep(3)  # each deliverer's first (empty) pass
    try:
        ids = queue_emails(url, emails, tag, first=first)
        took = wait_sent(sink, ids, 600)
        doubles, losses = mail_problems(sink, ids)
        marked(url, ids, 60)
        return len(ids) / took, doubles, losses
    finally:
        for n in range(1, deliverers + 1):
            cluster.stop(f"deliver{n}")


def delivery_fault(
    cluster: Cluster, url: str, sink: Path, emails: int, takeover_seconds: float, boards: int = 0
) -> dict[str, Any]:
    """Two deliverers (the running ones, or started here); deliver1's link goes down mid-batch,
    once a fifth of the emails has arrived, while it waits for the relay's answer to an email
    (the sink holds it): the batch must still arrive, each email once (deliver2 takes deliver1's
    claims over when they expire). Cut after the relay's 250 and before the marking, that one
    email would go twice, as the outbox says it may: not what this checks. ``boards``: as
    :func:`queue_emails`."""
    if "deliver1" not in cluster.processes or "deliver2" not in cluster.processes:
        cluster.start_deliverers(2)
    hold = cluster.folder / "hold"
    held = hold.with_name(hold.name + ".held")
    try:
        ids = queue_emails(url, emails, "fault", boards)
        began = time.monotonic()
        while sum(received(sink)[i] for i in ids) < emails // 5:
            if time.monotonic() - began > 60:
                break
            time.sleep(0.01)
        hold.write_text(ADDRESS["deliver1"])
        while not held.exists() and time.monotonic() - began < 60:
            time.sleep(0.01)
        cut("deliver1")
        hold.unlink()
        cut_at = time.monotonic() - began
        took = wait_sent(sink, ids, takeover_seconds)
        doubles, losses = mail_problems(sink, ids)
        # The host is dead: it never comes back with what it held.
        cluster.stop("deliver1", dead=True)
        cut("deliver1", up=True)
        return {
            "cut_at": cut_at,
            "seconds": took + cut_at,
            "doubles": doubles,
            "losses": losses,
            "emails": len(ids),
        }
    finally:
        hold.unlink(missing_ok=True)
        cluster.stop("deliver1", dead=True)
        cluster.stop("deliver2", dead=True)  # measured: nothing more to wait for


# -- replies ------------------------------------------------------------------------------------


def measure_replies(cluster: Cluster, url: str, games: int, replies: int) -> tuple[float, int]:
    """(replies per second, replies not applied): replies to turn emails sent over SMTP by 4
    senders, two to each inbound host; the host answers 250 once the move is committed, and the
    games' plies are checked against the replies sent at the end."""
    database = Database(url)
    site = Site(
        Links(SECRET, cluster.base_url, seat_holder=seat_holder_for(database)),
        MAIL_FROM,
        reply_address=REPLY,
    )
    ids = start_games(database, site, games)
    lock = threading.Lock()
    sent = [0]
    failed = [0]

    def sender(mine: list[int], index: int) -> None:
        host = ADDRESS["inbound1" if index % 2 == 0 else "inbound2"]
        for number in range(replies // games):
            for game_id in mine:
                reply = next_reply(database, game_id, number)
                if reply is None:
                    continue
                address, raw = reply
                try:
                    with smtplib.SMTP(host, INBOUND_PORT, timeout=60) as client:
                        client.sendmail(f"player@{address.rpartition('@')[2]}", [address], raw)
                    with lock:
                        sent[0] += 1
                except (OSError, smtplib.SMTPException):
                    with lock:
                        failed[0] += 1

    began = time.monotonic()
    threads = [threading.Thread(target=sender, args=(ids[n::4], n)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    took = time.monotonic() - began
    with database.session() as session:
        plies = session.execute(
            text("SELECT coalesce(sum(ply), 0) FROM games WHERE id = ANY(:i)"), {"i": ids}
        ).scalar()
    database.dispose()
    return sent[0] / took, sent[0] + failed[0] - int(plies or 0)
