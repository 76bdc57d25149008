"""A failing IMAP fetch under the scheduler is visible: one log line (no traceback) when it starts
failing, one when it works again, and /healthz and /metrics (web processes, which learn it from
the database) report it, unhealthy once it has failed for longer than PBEM_HEALTH_MAX_MAIL_AGE.
The URL's password is never logged nor shown.

Real parts: Debian's Dovecot (tests/inbound/dovecot.py; skipped with the reason when it is not
installed) and a loopback port nothing listens on; SQLite and PostgreSQL.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from pbem.db import Database
from pbem.models import JobState
from pbem.scheduler.runner import SchedulerJobs
from pbem.services import Site
from tests.support import BASE_URL, MAIL_FROM, SECRET, SmtpServer

T0 = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
MINUTE = timedelta(minutes=1)
PASSWORD = "imap-s3cret/pw"
Mailbox = tuple[str, Callable[[bytes], None]]


def _fetch_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if "fetching mail" in r.getMessage()]


def test_a_failing_fetch_is_logged_once_and_shown_until_it_works_again(
    database: Database, site: Site, smtp_server: SmtpServer, closed_port: int, dovecot: Mailbox,
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
) -> None:
    from pbem import create_app

    down = f"imap://pbem%40example.org:{quote(PASSWORD, safe='')}@127.0.0.1:{closed_port}/INBOX"
    jobs = SchedulerJobs(database, site, smtp_server.settings(), holder="sched-1", imap_url=down)
    moment = [T0]
    monkeypatch.setattr("pbem.monitoring.utc_now", lambda: moment[0])
    app = create_app({
        "ENV": "test", "TESTING": True, "SECRET_KEY": SECRET, "BASE_URL": BASE_URL,
        "DATABASE": database, "DATABASE_URL": database.url, "METRICS": True,
        "SMTP_HOST": smtp_server.host, "SMTP_PORT": smtp_server.port, "MAIL_FROM": MAIL_FROM,
        "REPLY_ADDRESS": "play@pbem.example.org", "IMAP_URL": down, "FETCH_EVERY": 60,
    }, read_env=False)
    client: Any = app.test_client()
    # Before the scheduler's first fetch, nothing is known and nothing is wrong.
    fetch = client.get("/healthz").json["checks"]["fetch"]
    assert fetch["ok"] and fetch["last_run_at"] is None
    assert fetch["mailbox"] == f"127.0.0.1:{closed_port}/INBOX"
    caplog.set_level(logging.INFO, logger="pbem")

    for minute in range(5):  # a tick a minute, every one failing
        assert jobs.fetch_tick(T0 + minute * MINUTE) is None
    failing = _fetch_lines(caplog)
    assert len(failing) == 1, [r.getMessage() for r in caplog.records]
    assert failing[0].levelno == logging.WARNING and failing[0].exc_info is None
    assert f"127.0.0.1:{closed_port}/INBOX" in failing[0].getMessage()
    assert "Connection refused" in failing[0].getMessage()
    assert "Traceback" not in caplog.text and PASSWORD not in caplog.text
    assert quote(PASSWORD, safe="") not in caplog.text

    moment[0] = T0 + 10 * MINUTE
    response = client.get("/healthz")
    fetch = response.json["checks"]["fetch"]
    assert fetch["ok"] and fetch["failing_for_seconds"] == 600 and fetch["failures"] == 5
    assert "Connection refused" in fetch["last_error"]
    assert fetch["failing_since"] == T0.isoformat() and fetch["last_success_at"] is None
    moment[0] = T0 + 16 * MINUTE
    response = client.get("/healthz")
    assert response.status_code == 503 and not response.json["checks"]["fetch"]["ok"]
    assert PASSWORD not in response.text and quote(PASSWORD, safe="") not in response.text
    metrics = client.get("/metrics").text
    assert re.search(r'^pbem_job_up\{job="fetch"\} 0\.0$', metrics, re.MULTILINE), metrics
    assert re.search(r'^pbem_job_failures\{job="fetch"\} 5\.0$', metrics, re.MULTILINE)
    assert PASSWORD not in metrics

    # The mailbox answers again (here: the right one): one line, and the check is ok.
    caplog.clear()
    jobs.imap_url = dovecot[0]
    assert jobs.fetch_tick(T0 + 17 * MINUTE) == 0
    assert jobs.fetch_tick(T0 + 18 * MINUTE) == 0
    back = _fetch_lines(caplog)
    assert len(back) == 1 and "works again" in back[0].getMessage()
    fetch = client.get("/healthz").json["checks"]["fetch"]
    assert fetch["ok"] and fetch["failing_since"] is None and fetch["failures"] == 0
    assert fetch["last_success_at"] == (T0 + 18 * MINUTE).isoformat()
    assert re.search(r'^pbem_job_up\{job="fetch"\} 1\.0$', client.get("/metrics").text,
                     re.MULTILINE)


def test_a_wrong_imap_password_is_reported_without_it(
    sqlite_database: Database, site: Site, smtp_server: SmtpServer, tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A Dovecot of its own: after a wrong password it makes that address wait a few seconds.
    from tests.inbound import dovecot as dovecot_server

    if (reason := dovecot_server.available()) is not None:
        pytest.skip(reason)
    server = dovecot_server.start(tmp_path)
    try:
        server.password = "the-wrong-pa55word"
        jobs = SchedulerJobs(sqlite_database, site, smtp_server.settings(), holder="sched-1",
                             imap_url=server.url())
        caplog.set_level(logging.INFO, logger="pbem")
        assert jobs.fetch_tick(T0) is None
        assert jobs.fetch_tick(T0 + MINUTE) is None
    finally:
        server.stop()
    failing = _fetch_lines(caplog)
    assert len(failing) == 1 and "LoginError" in failing[0].getMessage()
    assert "the-wrong-pa55word" not in caplog.text and "Traceback" not in caplog.text
    with sqlite_database.session() as session:
        state = session.get(JobState, "fetch")
    assert state is not None and "LoginError" in state.last_error
    assert "the-wrong-pa55word" not in state.last_error and state.failures == 2


def test_a_fetch_switched_off_is_no_longer_reported(
    database: Database, smtp_server: SmtpServer, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The scheduler fetched (and failed) until PBEM_FETCH_EVERY was switched off: once that is
    longer ago than PBEM_HEALTH_MAX_MAIL_AGE, the old failure makes nothing unhealthy."""
    from pbem import create_app
    from pbem.models import SchedulerLease
    from pbem.scheduler.job_states import record_run

    record_run(database, "fetch", "sched-1", T0, "ConnectionRefusedError: refused")
    moment = [T0 + 5 * MINUTE]
    monkeypatch.setattr("pbem.monitoring.utc_now", lambda: moment[0])
    app = create_app({
        "ENV": "test", "TESTING": True, "SECRET_KEY": SECRET, "BASE_URL": BASE_URL,
        "DATABASE": database, "DATABASE_URL": database.url,
        "SMTP_HOST": smtp_server.host, "SMTP_PORT": smtp_server.port, "MAIL_FROM": MAIL_FROM,
    }, read_env=False)
    with database.write() as session:
        session.add(SchedulerLease(name="scheduler", holder="sched-1", renewed_at=T0 + 20 * MINUTE,
                                   expires_at=T0 + 22 * MINUTE))
    client: Any = app.test_client()
    assert "fetch" in client.get("/healthz").json["checks"]
    moment[0] = T0 + 20 * MINUTE
    response = client.get("/healthz")
    assert response.status_code == 200 and "fetch" not in response.json["checks"]
