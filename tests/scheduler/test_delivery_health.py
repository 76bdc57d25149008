"""A relay outage is visible: the scheduler logs the reason and the relay's address once when
delivery starts failing and once when it works again, and /healthz and /metrics report the oldest
retrying email and the last delivery error, unhealthy past PBEM_HEALTH_MAX_MAIL_AGE.

Real parts: the test SMTP server (aiosmtpd) on loopback, and a loopback port nothing listens on
for the relay that is down; SQLite and PostgreSQL. Times are passed in, never slept.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask

from pbem.db import Database
from pbem.mail.outbox import SmtpSettings
from pbem.models import JobState, OutboxEmail, SchedulerLease
from pbem.scheduler.runner import SchedulerJobs
from tests.support import BASE_URL, MAIL_FROM, SECRET, ClockGames, SmtpServer

T0 = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
RELAY_PASSWORD = "relay-pa55word"


def monitored_app(database: Database, monkeypatch: pytest.MonkeyPatch, relay_port: int,
                  **settings: Any) -> tuple[Flask, Callable[[datetime], None]]:
    """The web app (another process than the scheduler, in production) reading ``database``,
    and a function that sets the time it answers at."""
    from pbem import create_app

    moment = [T0]
    monkeypatch.setattr("pbem.monitoring.utc_now", lambda: moment[0])
    app = create_app({
        "ENV": "test", "TESTING": True, "SECRET_KEY": SECRET, "BASE_URL": BASE_URL,
        "DATABASE": database, "DATABASE_URL": database.url, "METRICS": True,
        "SMTP_HOST": "127.0.0.1", "SMTP_PORT": relay_port, "MAIL_FROM": MAIL_FROM, **settings,
    }, read_env=False)

    def at(when: datetime) -> None:
        moment[0] = when
        with database.write() as session:  # a live scheduler: only the outbox is in question
            lease = session.get(SchedulerLease, "scheduler")
            if lease is not None:
                lease.renewed_at, lease.expires_at = when, when + timedelta(seconds=90)
                session.add(lease)
    return app, at


def _queue(database: Database, when: datetime, count: int = 2) -> None:
    with database.write() as session:
        for n in range(count):
            session.add(OutboxEmail(kind="turn", to_address=f"p{n}@example.test", subject="s",
                                    text_body="t", html_body="h",
                                    message_id=f"<{when.timestamp()}.{n}@pbem.test>",
                                    reply_to="play+abcdefghijklmnopqrstuvwxyz234567abcd@x.test",
                                    next_attempt_at=when, created_at=when))


def _lines(caplog: pytest.LogCaptureFixture, needle: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if needle in r.getMessage()]


def test_a_relay_outage_is_logged_once_and_shown_until_the_relay_is_back(
    clock_games: ClockGames, smtp_server: SmtpServer, closed_port: int,
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    database = clock_games.database
    down = SmtpSettings(host="127.0.0.1", port=closed_port, mail_from=MAIL_FROM, user="pbem",
                        password=RELAY_PASSWORD, timeout=5)
    jobs = SchedulerJobs(database, clock_games.site, down, holder="sched-1")
    app, at = monitored_app(database, monkeypatch, closed_port)
    client: Any = app.test_client()
    _queue(database, T0)
    caplog.set_level(logging.INFO, logger="pbem")

    # Every pass over the next minutes finds the relay down: one warning, with the reason and
    # the relay's address, not one per pass.
    for minute in (0, 1, 3, 7):
        report = jobs.delivery_tick(T0 + minute * MINUTE)
        assert report is not None and report.sent == 0
    failing = _lines(caplog, "fails")
    assert len(failing) == 1, [r.getMessage() for r in caplog.records]
    line = failing[0].getMessage()
    assert f"127.0.0.1:{closed_port}" in line and "Connection refused" in line
    assert failing[0].levelno == logging.WARNING and failing[0].exc_info is None
    assert RELAY_PASSWORD not in caplog.text

    # /healthz (a web process) sees the outage in the database: the oldest retrying email and
    # the reason, healthy while the mail is younger than PBEM_HEALTH_MAX_MAIL_AGE (900 s).
    at(T0 + 10 * MINUTE)
    response = client.get("/healthz")
    assert response.status_code == 200, response.json
    outbox = response.json["checks"]["outbox"]
    assert outbox["retrying"] == 2 and outbox["oldest_retrying_age_seconds"] == 600
    assert outbox["relay"] == f"127.0.0.1:{closed_port}"
    assert outbox["last_error"].startswith("cannot reach the mail server:")
    assert "Connection refused" in outbox["last_error"]
    assert outbox["failing_since"] == T0.isoformat()
    at(T0 + 16 * MINUTE)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert {n for n, c in response.json["checks"].items() if not c["ok"]} == {"outbox"}
    assert RELAY_PASSWORD not in response.text and "play+" not in response.text

    metrics = client.get("/metrics").text
    assert _metric(metrics, 'pbem_outbox_oldest_age_seconds{status="retrying"}') == 16 * 60
    assert _metric(metrics, 'pbem_job_up{job="deliver"}') == 0
    assert _metric(metrics, 'pbem_job_failures{job="deliver"}') == 4
    info = re.search(r'^pbem_job_last_error_info\{error="([^"]*)",job="deliver"\} 1\.0$',
                     metrics, re.MULTILINE) or re.search(
        r'^pbem_job_last_error_info\{job="deliver",error="([^"]*)"\} 1\.0$', metrics,
        re.MULTILINE)
    assert info and "cannot reach the mail server" in info[1], metrics

    # The relay is back: the retry goes through, one line says so, and all is well again.
    caplog.clear()
    jobs.smtp = smtp_server.settings()
    report = jobs.delivery_tick(T0 + 20 * MINUTE)
    assert report is not None and report.sent == 2 and len(smtp_server.messages) == 2
    back = _lines(caplog, "works again")
    assert len(back) == 1 and f"via {smtp_server.host}:{smtp_server.port}" in back[0].getMessage()
    at(T0 + 21 * MINUTE)
    response = client.get("/healthz")
    assert response.status_code == 200, response.json
    outbox = response.json["checks"]["outbox"]
    assert outbox["retrying"] == 0 and outbox["oldest_retrying_age_seconds"] is None
    assert outbox["failing_since"] is None
    # The last error stays on record, with its time, for whoever looks afterwards.
    assert "Connection refused" in outbox["last_error"]
    assert outbox["last_error_at"] == (T0 + 7 * MINUTE).isoformat()
    assert _metric(client.get("/metrics").text, 'pbem_job_up{job="deliver"}') == 1


def test_a_relay_that_defers_everything_is_failing_too(
    clock_games: ClockGames, smtp_server: SmtpServer, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """It answers, but "451 try again later" to every email: nothing goes out."""
    database = clock_games.database
    jobs = SchedulerJobs(database, clock_games.site, smtp_server.settings(), holder="sched-1")
    _queue(database, T0)
    smtp_server.refuse = 4
    caplog.set_level(logging.INFO, logger="pbem")
    assert jobs.delivery_tick(T0).deferred == 2  # type: ignore[union-attr]
    assert jobs.delivery_tick(T0 + 2 * MINUTE).deferred == 2  # type: ignore[union-attr]
    failing = _lines(caplog, "fails")
    assert len(failing) == 1 and "451" in failing[0].getMessage()
    with database.session() as session:
        state = session.get(JobState, "deliver")
    assert state is not None and state.failing_since == T0 and state.failures == 2
    assert "451" in state.last_error
    assert jobs.delivery_tick(T0 + 6 * MINUTE).sent == 2  # type: ignore[union-attr]
    assert len(_lines(caplog, "works again")) == 1


def test_one_refused_recipient_is_no_relay_outage(
    clock_games: ClockGames, smtp_server: SmtpServer, caplog: pytest.LogCaptureFixture,
) -> None:
    """A 5xx for one email is that email's problem: logged with its reason, the job works."""
    database = clock_games.database
    jobs = SchedulerJobs(database, clock_games.site, smtp_server.settings(), holder="sched-1")
    _queue(database, T0)
    smtp_server.refuse, smtp_server.refuse_reply = 1, "550 5.1.1 <p0@example.test> unknown"
    caplog.set_level(logging.INFO, logger="pbem")
    report = jobs.delivery_tick(T0)
    assert report is not None and (report.sent, report.failed) == (1, 1)
    assert not _lines(caplog, "fails")
    summary = _lines(caplog, "sent 1, deferred 0, failed 1")
    assert len(summary) == 1 and "550" in summary[0].getMessage()
    assert "p0@example.test" not in caplog.text  # addresses are shortened
    with database.session() as session:
        state = session.get(JobState, "deliver")
    assert state is not None and state.failing_since is None and "550" in state.last_error


def _metric(text: str, name: str) -> float:
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    assert match, f"{name} not in:\n{text}"
    return float(match[1])
