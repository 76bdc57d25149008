"""Commands for operators: checking a site, one sweep at a chosen time, an online SQLite backup,
a search worker.

    pbem doctor
    pbem sweep [--now 2025-03-01T12:00:00Z]
    pbem backup /var/backups/pbem/pbem.db
    pbem worker                 # with PBEM_TASKS: one per core, on any machine

Imports that only one command needs are made when it runs: see :mod:`pbem.cli` (start-up).
"""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import click
from sqlalchemy.engine import make_url

from pbem.cli.common import checked_config, open_database
from pbem.config import load_config
from pbem.logs import mask_secrets
from pbem.services.common import site_from_config

BUSY_TIMEOUT_MS = 15_000  # as pbem itself waits for a writer (pbem.db)


@click.command("doctor")
@click.option("--timeout", default=5.0, show_default=True, type=float,
              help="Seconds to wait for each server that is asked.")
def doctor_command(timeout: float) -> None:
    """Check the settings and every part the site needs, one line each; exit 1 on a failure.

    Run it as the user the services run as (sudo -u pbem pbem doctor), after installing and
    after every change.
    """
    from pbem.doctor import run

    raise SystemExit(run(load_config, click.echo, timeout=timeout))


def parse_now(text: str) -> datetime:
    """An aware ISO-8601 time, in UTC; a naive or malformed one is a usage error.

    >>> parse_now("2025-03-01T13:00:00+01:00")
    datetime.datetime(2025, 3, 1, 12, 0, tzinfo=datetime.timezone.utc)
    """
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise click.BadParameter(f"{text!r} is not an ISO-8601 time such as"
                                 " 2025-03-01T12:00:00Z", param_hint="--now") from None
    if when.tzinfo is None or when.utcoffset() is None:
        # A naive time would be read in some zone or other: clocks need to know which.
        raise click.BadParameter(f"{text!r} has no time zone: add Z or an offset such as +01:00",
                                 param_hint="--now")
    return when.astimezone(UTC)


@click.command("sweep")
@click.option("--now", "at", default=None, metavar="ISO-8601",
              help="Sweep as if it were this time (aware, e.g. 2025-03-01T12:00:00Z); "
                   "default: the current time.")
def sweep_command(at: str | None) -> None:
    """One pass of the scheduler's sweep: bot moves, reminders, timeouts and forced
    passes that are due.

    Safe beside a running scheduler: each game's work re-checks it under a write lock.
    """
    from pbem.scheduler import sweep

    now = parse_now(at) if at is not None else datetime.now(UTC)
    config = checked_config()
    database = open_database(config)
    try:
        # With PBEM_TASKS the workers search: the sweep queues what no job waits for.
        summary = sweep(database, now, site_from_config(database, config),
                        moment=None if at is not None else lambda: datetime.now(UTC),
                        bots=not config["TASKS"])
        if config["TASKS"]:
            from pbem.tasks.queueing import requeue

            click.echo(f"computer players: {requeue(database)}")
    finally:
        database.dispose()
    timeouts = ", ".join(f"{policy} {count}" for policy, count in sorted(summary.timeouts.items()))
    click.echo(f"sweep at {now.isoformat()}: {summary.reminders} reminders, timeouts:"
               f" {timeouts or 'none'}, {summary.bot_moves} bot moves, {summary.skipped} skipped,"
               f" {len(summary.errors)} errors")
    for error in summary.errors:
        click.echo(f"  {error}", err=True)
    if summary.errors:
        raise SystemExit(1)


@click.command("worker")
def worker_command() -> None:
    """Run the computer players' searches queued in the database (PBEM_TASKS), one at a time,
    until stopped (SIGTERM waits for the search under way). Start one per core, on any machine
    that reaches the database and has the site's settings."""
    from pbem.tasks.jobs import has_job_tables
    from pbem.tasks.worker import run_worker, worker_app, worker_name

    config = checked_config()
    if not config["TASKS"]:
        raise click.ClickException(
            "PBEM_TASKS is empty: the scheduler runs the searches itself; set "
            "PBEM_TASKS=procrastinate (docs/bots.md) for pbem worker to run them")
    database = open_database(config)
    if not has_job_tables(database):
        raise click.ClickException("PBEM_TASKS: the database has no job tables yet: run "
                                   "pbem db upgrade")
    name = worker_name()
    click.echo(f"pbem worker {name}: computer players' searches from "
               f"{mask_secrets(config['DATABASE_URL'])}, one at a time")
    try:
        run_worker(worker_app(database, site_from_config(database, config)), name, database,
                   search_path=config.get("DATABASE_SEARCH_PATH"))
    finally:
        database.dispose()


def sqlite_file(url: str) -> Path:
    """The database file of a SQLite URL; a clear refusal for anything else."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        raise click.ClickException(
            "pbem backup copies SQLite databases only; back up PostgreSQL with"
            " `pg_dump --format=custom` (see docs/deploy.md, Backups)")
    if not parsed.database or parsed.database == ":memory:":
        raise click.ClickException("PBEM_DATABASE_URL names no database file")
    path = Path(parsed.database)
    if not path.is_file():
        # sqlite3 would quietly create an empty database here and back that up.
        raise click.ClickException(f"there is no database at {path}")
    return path


def backup_sqlite(source: Path, destination: Path) -> int:
    """Copy ``source`` into ``destination`` (a new file) with SQLite's online backup API and
    check the copy; returns its page count. Safe while other processes write."""
    partial = destination.with_name(f".{destination.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        check, pages = _copy(source, partial)
        if check != "ok":
            raise click.ClickException(f"the copy of {source} fails integrity_check: {check}")
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    os.replace(partial, destination)  # whole or not at all under its final name
    return pages


def _copy(source: Path, destination: Path) -> tuple[str, int]:
    """(integrity_check's answer, page count) of a fresh copy of ``source``."""
    src = sqlite3.connect(source, timeout=BUSY_TIMEOUT_MS / 1000)
    dst = sqlite3.connect(destination)
    try:
        # pages=-1: one step under one read transaction, so the copy is a single snapshot (in
        # steps, a write by another connection would restart the copy).
        src.backup(dst, pages=-1)
        # A self-contained file: no -wal beside it to lose when it is compressed or moved.
        dst.execute("PRAGMA journal_mode=DELETE")
        check = str(dst.execute("PRAGMA integrity_check").fetchone()[0])
        return check, int(dst.execute("PRAGMA page_count").fetchone()[0])
    finally:
        dst.close()
        src.close()


@click.command("backup")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
def backup_command(path: Path) -> None:
    """Copy the SQLite database to PATH while pbem runs (consistent, checked); refuses to
    overwrite a file. For PostgreSQL use pg_dump."""
    config = checked_config()
    source = sqlite_file(config["DATABASE_URL"])
    if path.exists():
        raise click.ClickException(f"{path} exists already; give a new file name")
    if not path.parent.is_dir():
        raise click.ClickException(f"there is no directory {path.parent}")
    pages = backup_sqlite(source, path)
    click.echo(f"backed up {source} to {path}: {pages} pages, integrity_check ok")
