"""Operators' commands on a real SQLite file: ``pbem sweep [--now]`` and ``pbem backup``."""

from __future__ import annotations

import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.services import Site
from tests.support import ClockGames, make_database

START = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)


@pytest.fixture
def env(tmp_path: Path, closed_port: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.chdir(tmp_path)  # no stray .env is read
    return {"PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'ops.db'}",
            "PBEM_SECRET_KEY": "ops-secret", "PBEM_BASE_URL": "https://pbem.example",
            "PBEM_SMTP_PORT": str(closed_port), "PBEM_ENV": "development"}


@pytest.fixture
def games(env: dict[str, str], site: Site, tmp_path: Path) -> Any:
    database, remove = make_database("sqlite", tmp_path)  # the schema of pbem.models
    env["PBEM_DATABASE_URL"] = database.url
    yield ClockGames(database, site)
    remove()


def _sweep(env: dict[str, str], *args: str) -> Any:
    return CliRunner().invoke(main, ["sweep", *args], env=env)


def test_sweep_at_a_given_time_applies_the_timeout_that_is_due_then(
    env: dict[str, str], games: ClockGames,
) -> None:
    game_id = games.start("mosey", START, per_move=timedelta(days=3), timeout_policy="random")
    deadline = games.clock(game_id).deadline
    before = _sweep(env, "--now", (deadline - timedelta(minutes=1)).isoformat())
    assert before.exit_code == 0, before.output
    assert games.game(game_id).ply == 0 and "timeouts: none" in before.output
    # In another zone: the same instant.
    later = (deadline + timedelta(minutes=1)).astimezone(
        __import__("zoneinfo").ZoneInfo("Asia/Tokyo")).isoformat()
    after = _sweep(env, "--now", later)
    assert after.exit_code == 0, after.output
    assert "timeouts: random 1" in after.output
    [move] = games.moves(game_id)
    assert move.source == "timeout" and games.game(game_id).ply == 1
    assert games.clock(game_id).turn_started_at == deadline + timedelta(minutes=1)


def test_sweep_without_now_uses_the_current_time(env: dict[str, str], games: ClockGames) -> None:
    started = datetime.now(UTC) - timedelta(days=10)
    overdue = games.start("mosey", started, per_move=timedelta(days=3), timeout_policy="random")
    running = games.start("mosey", datetime.now(UTC), per_move=timedelta(days=3),
                          timeout_policy="random")
    result = _sweep(env)
    assert result.exit_code == 0, result.output
    assert games.game(overdue).ply >= 1 and games.game(running).ply == 0


@pytest.mark.parametrize(("when", "message"), [
    ("2025-03-03T12:00:00", "has no time zone"),
    ("next tuesday", "not an ISO-8601 time"),
    ("2025-13-03T12:00:00Z", "not an ISO-8601 time"),
])
def test_sweep_refuses_a_naive_or_malformed_time(env: dict[str, str], games: ClockGames,
                                                 when: str, message: str) -> None:
    result = _sweep(env, "--now", when)
    assert result.exit_code == 2 and message in result.output


def test_backup_while_another_connection_writes(env: dict[str, str], tmp_path: Path) -> None:
    source = tmp_path / "live.db"
    writer = sqlite3.connect(source, isolation_level=None, check_same_thread=False)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE pairs (n INTEGER, half INTEGER)")
    for n in range(2000):
        writer.execute("INSERT INTO pairs VALUES (?, 0), (?, 1)", (n, n))
    stop = threading.Event()
    written = [0]

    def keep_writing() -> None:
        n = 2000
        while not stop.is_set():
            # Two rows per transaction: a torn copy would show an odd count.
            writer.execute("BEGIN IMMEDIATE")
            writer.execute("INSERT INTO pairs VALUES (?, 0)", (n,))
            writer.execute("INSERT INTO pairs VALUES (?, 1)", (n,))
            writer.execute("COMMIT")
            n += 1
            written[0] = n

    thread = threading.Thread(target=keep_writing)
    thread.start()
    try:
        copies = [tmp_path / f"copy{n}.db" for n in range(3)]
        for copy in copies:
            result = CliRunner().invoke(main, ["backup", str(copy)], env={
                **env, "PBEM_DATABASE_URL": f"sqlite:///{source}"})
            assert result.exit_code == 0, result.output
            assert "integrity_check ok" in result.output
    finally:
        stop.set()
        thread.join()
        writer.close()
    assert written[0] > 2000  # the writer really wrote during the backups
    for copy in copies:
        check = sqlite3.connect(copy)
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert check.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        rows = check.execute("SELECT count(*) FROM pairs").fetchone()[0]
        check.close()
        assert rows >= 4000 and rows % 2 == 0
    assert not list(tmp_path.glob(".*.partial"))


def test_backup_refuses_postgresql_an_existing_file_and_a_missing_database(
    env: dict[str, str], tmp_path: Path,
) -> None:
    runner = CliRunner()
    postgres = runner.invoke(main, ["backup", str(tmp_path / "b.db")], env={
        **env, "PBEM_DATABASE_URL": "postgresql+psycopg://pbem@db.internal/pbem"})
    assert postgres.exit_code == 1 and "pg_dump" in postgres.output
    missing = runner.invoke(main, ["backup", str(tmp_path / "b.db")], env=env)
    assert missing.exit_code == 1 and "no database at" in missing.output
    (tmp_path / "ops.db").write_bytes(b"")
    (tmp_path / "b.db").write_bytes(b"keep me")
    exists = runner.invoke(main, ["backup", str(tmp_path / "b.db")], env=env)
    assert exists.exit_code == 1 and "exists already" in exists.output
    assert (tmp_path / "b.db").read_bytes() == b"keep me"


# -- /healthz and /metrics -----------------------------------------------------------------------

NOW = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)


@pytest.fixture
def monitored(sqlite_database: Any, smtp_server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    from pbem import create_app
    from tests.support import BASE_URL, MAIL_FROM, SECRET

    monkeypatch.setattr("pbem.monitoring.utc_now", lambda: NOW)
    return create_app({
        "ENV": "test", "TESTING": True, "SECRET_KEY": SECRET, "BASE_URL": BASE_URL,
        "DATABASE": sqlite_database, "DATABASE_URL": sqlite_database.url, "METRICS": True,
        "SMTP_HOST": smtp_server.host, "SMTP_PORT": smtp_server.port, "MAIL_FROM": MAIL_FROM,
    }, read_env=False)


def _lease(database: Any, renewed: datetime) -> None:
    from pbem.models import SchedulerLease

    with database.write() as session:
        session.add(SchedulerLease(name="scheduler", holder="host:1:abc", renewed_at=renewed,
                                   expires_at=renewed + timedelta(seconds=90)))


def _mail(database: Any, created: datetime, count: int = 1, **fields: Any) -> None:
    from pbem.models import OutboxEmail

    with database.write() as session:
        for n in range(count):
            session.add(OutboxEmail(kind="turn", to_address=f"m{n}@example.test", subject="s",
                                    text_body="t", html_body="h",
                                    message_id=f"<{created.timestamp()}.{n}@x>",
                                    next_attempt_at=created, created_at=created, **fields))


def test_healthz_is_ok_with_a_fresh_lease_and_recent_mail(monitored: Any,
                                                         sqlite_database: Any) -> None:
    _lease(sqlite_database, NOW - timedelta(seconds=10))
    _mail(sqlite_database, NOW - timedelta(minutes=14), count=3)
    _mail(sqlite_database, NOW - timedelta(hours=5), status="sent")  # done: no age counted
    response = monitored.test_client().get("/healthz")
    assert response.status_code == 200, response.json
    assert response.headers["Cache-Control"] == "no-store"
    body = response.json
    assert body["status"] == "ok" and body["checks"]["database"] == {"ok": True}
    assert body["checks"]["scheduler"]["lease_age_seconds"] == 10
    assert body["checks"]["scheduler"]["holder"] == "host:1:abc"
    assert body["checks"]["outbox"]["backlog"] == 3
    assert body["checks"]["outbox"]["oldest_queued_age_seconds"] == 14 * 60


@pytest.mark.parametrize("problem", ["no lease", "old lease", "old mail", "backlog"])
def test_healthz_is_503_for_each_unhealthy_condition(monitored: Any, sqlite_database: Any,
                                                     problem: str) -> None:
    if problem != "no lease":
        _lease(sqlite_database, NOW - timedelta(seconds=301 if problem == "old lease" else 5))
    _mail(sqlite_database, NOW - timedelta(minutes=16 if problem == "old mail" else 1),
          count=3)
    if problem == "backlog":
        monitored.config["HEALTH_MAX_BACKLOG"] = 2
    response = monitored.test_client().get("/healthz")
    assert response.status_code == 503 and response.json["status"] == "unhealthy"
    failing = {name for name, check in response.json["checks"].items() if not check["ok"]}
    assert failing == ({"scheduler"} if "lease" in problem else {"outbox"})


def test_healthz_is_503_when_the_database_is_unreachable(closed_port: int) -> None:
    from pbem import create_app

    url = f"postgresql+psycopg://nobody@127.0.0.1:{closed_port}/pbem"
    app = create_app({"ENV": "test", "SECRET_KEY": "s", "DATABASE_URL": url}, read_env=False)
    response = app.test_client().get("/healthz")
    assert response.status_code == 503
    assert response.json["checks"]["database"]["ok"] is False
    assert "error" in response.json["checks"]["database"]


def _metric(text: str, name: str) -> float:
    import re

    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert match, f"{name} not in:\n{text}"
    return float(match[1])


def test_metrics_count_moves_and_mail_from_the_database(
    monitored: Any, sqlite_database: Any, site: Site, mailbox: Any,
) -> None:
    import random

    from pbem.models import GameRecord
    from pbem.positions import current_state
    from pbem.scheduler.stats import record_sweep
    from pbem.services import submit_move
    from tests.support import start_a_game

    game_pk = start_a_game(sqlite_database, NOW, site, "mosey")
    rng = random.Random(3)
    for _ in range(3):
        with sqlite_database.write() as session:
            row = session.get(GameRecord, game_pk)
            game, state = current_state(row)
            submit_move(session, NOW, site, game_id=game_pk, seat=game.to_move(state),
                        ply=row.ply, text=str(game.random_move(state, rng)))
    with sqlite_database.session() as session:
        moves = session.get(GameRecord, game_pk).ply
    mailbox.server.refuse = 1  # one email waits for a retry
    sent = len(mailbox.deliver(NOW))
    mailbox.deliver(NOW + timedelta(minutes=5))  # the retry goes through
    _mail(sqlite_database, NOW, count=2)  # two more queued, not yet delivered
    _mail(sqlite_database, NOW, count=1, status="failed", attempts=12)
    record_sweep(sqlite_database, "h", NOW, 0.25)

    text = monitored.test_client().get("/metrics").text
    assert _metric(text, 'pbem_moves_committed_total{source="link"}') == moves >= 3
    assert _metric(text, 'pbem_moves_committed_total{source="timeout"}') == 0
    # The refused email's later ones to the same address waited for it (they keep its order).
    assert _metric(text, "pbem_emails_sent_total") == len(mailbox.server.messages) > sent
    assert _metric(text, "pbem_emails_failed_total") == 1
    assert _metric(text, "pbem_emails_retried_total") == 1 + 11
    assert _metric(text, 'pbem_outbox_backlog{status="queued"}') == 2
    assert _metric(text, 'pbem_outbox_backlog{status="retrying"}') == 0
    assert _metric(text, "pbem_bounces_total") == 0
    assert _metric(text, "pbem_sweep_duration_seconds") == 0.25
    assert _metric(text, "pbem_sweep_last_start_timestamp_seconds") == NOW.timestamp()


def test_metrics_are_off_unless_switched_on(app: Any) -> None:
    assert app.test_client().get("/metrics").status_code == 404


def test_metrics_between_recounts_follow_the_emails_written_and_changed_since(
    monitored: Any, sqlite_database: Any,
) -> None:
    """A scrape counts only the emails after the oldest waiting one again (the rest every ten
    minutes): an email sent after the first scrape and new ones still show at the second."""
    from sqlalchemy import update

    from pbem.models import OutboxEmail

    _mail(sqlite_database, NOW - timedelta(hours=1), count=2, status="sent", attempts=1)
    _mail(sqlite_database, NOW - timedelta(minutes=30), count=1, status="retrying", attempts=2)
    client = monitored.test_client()
    text = client.get("/metrics").text
    assert _metric(text, "pbem_emails_sent_total") == 2
    assert _metric(text, 'pbem_outbox_backlog{status="retrying"}') == 1
    with sqlite_database.write() as session:
        session.execute(update(OutboxEmail).where(OutboxEmail.status == "retrying")
                        .values(status="sent", attempts=3))
    _mail(sqlite_database, NOW, count=3, status="sent", attempts=1)
    _mail(sqlite_database, NOW, count=1)
    text = client.get("/metrics").text
    assert _metric(text, "pbem_emails_sent_total") == 2 + 1 + 3
    assert _metric(text, "pbem_emails_retried_total") == 2
    assert _metric(text, 'pbem_outbox_backlog{status="retrying"}') == 0
    assert _metric(text, 'pbem_outbox_backlog{status="queued"}') == 1
