"""``pbem doctor``: each check passes on a site set up right and fails, by name and with a fix,
on the broken setting that an operator really made (issue 30). Every part is real: SQLite and
PostgreSQL, an SMTP relay with and without AUTH (aiosmtpd), a DNS server, Dovecot, Redis and
``pbem inbound``.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

import pbem.config
import pbem.doctor
import pbem.i18n
from pbem.config import load_config
from pbem.doctor import Finding, diagnose, run, system_dns_lookup
from pbem.mail.dkim import generate_key
from tests.dns_server import dns_server
from tests.support import SECRET, SmtpHandler, SmtpServer, free_port, make_database

REPLY = "play@pbem.example.org"


@pytest.fixture(scope="module")
def dkim_keys() -> tuple[bytes, str, bytes, str]:
    """Two keys: (private, its TXT value) twice (making one takes a moment)."""
    first, second = generate_key(), generate_key()
    return first[0], first[1], second[0], second[1]


_PARSED: dict[Path, Finding] = {}


@pytest.fixture(autouse=True)
def _templates_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The templates check parses all 150-odd templates (a third of a second) and finds the same
    in every test of this module that does not move ``TEMPLATES``: each folder is parsed once."""
    parse = pbem.doctor._templates

    def remembered() -> Finding:
        folder = pbem.doctor.TEMPLATES
        if folder not in _PARSED:
            _PARSED[folder] = parse()
        return _PARSED[folder]

    monkeypatch.setattr(pbem.doctor, "_templates", remembered)


@pytest.fixture
def migrated(tmp_path: Path) -> Iterator[str]:
    database, remove = make_database("sqlite", tmp_path, migrate=True)
    yield database.url
    database.dispose()
    remove()


def _config(database_url: str, smtp: SmtpServer | None = None, **settings: str
            ) -> dict[str, Any]:
    environ = {"PBEM_DATABASE_URL": database_url, "PBEM_SECRET_KEY": SECRET,
               "PBEM_SMTP_HOST": "127.0.0.1",
               "PBEM_SMTP_PORT": str(smtp.port if smtp else free_port()),
               **{f"PBEM_{key}": value for key, value in settings.items()}}
    return load_config(environ, read_dotenv=False)


def _findings(config: dict[str, Any], **options: Any) -> dict[str, Finding]:
    """What doctor finds; DNS, unless a test serves some, is a port where nobody answers."""
    options.setdefault("dns_lookup", system_dns_lookup(0.3, ("127.0.0.1", free_port())))
    return {finding.check: finding for finding in diagnose(config, timeout=3, **options)}


def _status(findings: dict[str, Finding]) -> dict[str, str]:
    return {check: finding.status for check, finding in findings.items()}


def test_a_site_set_up_right_passes_every_check(migrated: str, smtp_server: SmtpServer) -> None:
    findings = _findings(_config(migrated, smtp_server))
    failed = [f.line() for f in findings.values() if f.status == "fail"]
    assert failed == []
    assert findings["database"].status == "ok"
    assert findings["mail relay"].status == "ok"
    assert findings["catalogs"].status == "ok" and findings["templates"].status == "ok"
    assert {findings[name].status for name in ("DKIM", "IMAP mailbox", "Redis",
                                               "reply address")} == {"skip"}


def test_the_command_prints_one_line_per_check_and_exits_1_on_a_failure(
        migrated: str, smtp_server: SmtpServer, closed_port: int) -> None:
    lines: list[str] = []
    good = _config(migrated, smtp_server)
    assert run(lambda: good, lines.append, timeout=3) == 0
    assert lines[-1] == "all checks passed"
    assert all(line.split()[0] in ("ok", "skip") for line in lines[:-1]), lines
    lines.clear()
    broken = _config(migrated, None, SMTP_PORT=str(closed_port))
    assert run(lambda: broken, lines.append, timeout=3) == 1
    assert lines[-1] == "some checks failed"
    [relay] = [line for line in lines if line.startswith("FAIL")]
    assert relay.startswith(f"FAIL  mail relay: 127.0.0.1:{closed_port} does not answer")
    assert "fix: check PBEM_SMTP_HOST, PBEM_SMTP_PORT" in relay


def test_a_number_that_is_not_one_is_one_line_from_the_real_command(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "pbem.cli", "doctor"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120,
                            env={"PATH": "/usr/bin:/bin", "PBEM_SMTP_PORT": "25x",
                                 "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "FAIL  settings: PBEM_SMTP_PORT must be a whole number, not '25x'"]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("settings", "check", "words"), [
    ({"BASE_URL": "pbem.example.org"}, "settings PBEM_BASE_URL", "absolute http(s) address"),
    ({"ENV": "production", "SECRET_KEY": "x" * 40, "BASE_URL": "http://pbem.example.org"},
     "settings PBEM_BASE_URL", "must start with https:// in production"),
    ({"ENV": "production", "SECRET_KEY": "", "BASE_URL": "https://pbem.example.org"},
     "settings PBEM_SECRET_KEY", "must be set to a long random value"),
    ({"SMTP_USER": "pbem"}, "settings PBEM_SMTP_*", "PBEM_SMTP_PASSWORD must be set too"),
    ({"DKIM_SELECTOR": "pbem"}, "settings PBEM_DKIM_*",
     "PBEM_DKIM_DOMAIN, PBEM_DKIM_KEY_FILE must be set too"),
    ({"REPLY_ADDRESS": "play+x@pbem.example.org"}, "settings addresses", "no '+'"),
    ({"ALERT_EMAILS": "ops@example.org, nobody"}, "settings addresses", "'nobody' is not one"),
    ({"IMAP_URL": "https://imap.example.org"}, "settings PBEM_IMAP_URL, PBEM_REDIS_URL, "
     "PBEM_INBOUND_URL", "PBEM_IMAP_URL must be like imaps://"),
    ({"INBOUND_URL": "lmtp://127.0.0.1", "REPLY_ADDRESS": REPLY}, "settings PBEM_IMAP_URL, "
     "PBEM_REDIS_URL, PBEM_INBOUND_URL", "PBEM_INBOUND_URL must be like lmtp://"),
    ({"SWEEP_EVERY": "0"}, "settings numbers", "PBEM_SWEEP_EVERY must be 1 or more"),
    ({"TASKS": "celery"}, "settings PBEM_TASKS", "must be empty"),
    ({"TASKS": "procrastinate"}, "settings PBEM_TASKS", "needs PostgreSQL"),  # on SQLite
])
def test_each_setting_is_checked_by_name(migrated: str, smtp_server: SmtpServer,
                                         settings: dict[str, str], check: str,
                                         words: str) -> None:
    finding = _findings(_config(migrated, smtp_server, **settings))[check]
    assert finding.status == "fail" and words in finding.detail, finding.line()


def test_a_database_url_that_is_not_one_never_shows_its_password(
        migrated: str, smtp_server: SmtpServer) -> None:
    findings = _findings(_config(migrated, smtp_server,
                                 DATABASE_URL="postgres ql://pbem:s3cret@db/pbem"))
    assert findings["settings PBEM_DATABASE_URL"].status == "fail"
    assert findings["database"].status == "skip"
    assert "s3cret" not in "\n".join(f.line() for f in findings.values())


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_database_must_be_at_the_latest_migration(tmp_path: Path, backend: str,
                                                      smtp_server: SmtpServer) -> None:
    """New code installed, `pbem db upgrade` forgotten: the database is one migration behind."""
    from sqlalchemy import text

    from pbem.migrate import downgrade, upgrade

    database, remove = make_database(backend, tmp_path, migrate=True)
    try:
        with database.engine.connect() as connection:
            schema = None if database.is_sqlite else \
                connection.execute(text("SHOW search_path")).scalar_one()
        config = _config(database.url, smtp_server)
        config.update(DATABASE=database, DATABASE_SEARCH_PATH=schema)
        assert _findings(config)["database"].status == "ok"
        downgrade(database.url, "-1", search_path=schema)
        behind = _findings(config)["database"]
        assert behind.status == "fail" and behind.fix == "pbem db upgrade", behind.line()
        assert "the code needs" in behind.detail
        upgrade(database.url, search_path=schema)
        assert _findings(config)["database"].status == "ok"
    finally:
        remove()


def test_an_empty_database_needs_its_migrations(tmp_path: Path,
                                                smtp_server: SmtpServer) -> None:
    finding = _findings(_config(f"sqlite:///{tmp_path / 'new.db'}", smtp_server))["database"]
    assert finding.status == "fail" and "no migration applied" in finding.detail
    assert finding.fix == "pbem db upgrade"


def test_a_database_that_is_down_is_named(smtp_server: SmtpServer, closed_port: int) -> None:
    url = f"postgresql+psycopg://pbem:s3cret@127.0.0.1:{closed_port}/pbem"
    finding = _findings(_config(url, smtp_server))["database"]
    assert finding.status == "fail" and "cannot connect" in finding.detail
    assert "s3cret" not in finding.line()


@pytest.fixture
def relay_with_auth() -> Iterator[SmtpServer]:
    """A relay that wants AUTH (PLAIN, LOGIN) even without TLS: user pbem, password right."""
    server = SmtpServer("127.0.0.1", free_port())

    def authenticate(_server: Any, _session: Any, _envelope: Any, _mechanism: str,
                     data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and data.login == b"pbem" and \
            data.password == b"right"
        return AuthResult(success=ok)

    controller = Controller(SmtpHandler(server), hostname=server.host, port=server.port,
                            authenticator=authenticate, auth_require_tls=False)
    controller.start()
    yield server
    controller.stop()


def test_a_user_against_a_relay_without_auth_is_a_mistake(migrated: str,
                                                           smtp_server: SmtpServer) -> None:
    finding = _findings(_config(migrated, smtp_server, SMTP_USER="pbem",
                                SMTP_PASSWORD="right"))["mail relay"]
    assert finding.status == "fail"
    assert "PBEM_SMTP_USER is set but" in finding.detail and "offers no AUTH" in finding.detail
    assert "PBEM_SMTP_TLS=starttls" in finding.fix
    assert "right" not in finding.line()


def test_the_relay_login_is_tried(migrated: str, relay_with_auth: SmtpServer) -> None:
    good = _findings(_config(migrated, relay_with_auth, SMTP_USER="pbem",
                             SMTP_PASSWORD="right"))["mail relay"]
    assert good.status == "ok" and "logged in as pbem" in good.detail
    bad = _findings(_config(migrated, relay_with_auth, SMTP_USER="pbem",
                            SMTP_PASSWORD="wrong"))["mail relay"]
    assert bad.status == "fail" and "refused the login of pbem" in bad.detail
    assert "wrong" not in bad.line().replace("the login", "")


def test_dkim_key_must_match_the_published_record(migrated: str, smtp_server: SmtpServer,
                                                  tmp_path: Path,
                                                  dkim_keys: tuple[bytes, str, bytes, str]
                                                  ) -> None:
    private, public, _other_private, other_public = dkim_keys
    key = tmp_path / "dkim.pem"
    key.write_bytes(private)
    config = _config(migrated, smtp_server, DKIM_SELECTOR="pbem", DKIM_DOMAIN="example.org",
                     DKIM_KEY_FILE=str(key))
    name = "pbem._domainkey.example.org"
    # A long record comes back as several strings of at most 255 characters.
    for published, status in ((public, "ok"), (other_public, "fail")):
        chunks = " ".join(f'"{published[i:i + 255]}"' for i in range(0, len(published), 255))
        with dns_server({(name, "TXT"): [chunks]}) as nameserver:
            finding = _findings(config, dns_lookup=system_dns_lookup(2, nameserver))["DKIM"]
        assert finding.status == status, finding.line()
    with dns_server({}) as nameserver:
        missing = _findings(config, dns_lookup=system_dns_lookup(2, nameserver))["DKIM"]
    assert missing.status == "fail" and f"no TXT record at {name}" in missing.detail
    silent = _findings(config, dns_lookup=system_dns_lookup(0.5, ("127.0.0.1", free_port())))
    assert silent["DKIM"].status == "warn"


def test_an_unreadable_dkim_key_is_one_line_naming_the_setting(
        migrated: str, smtp_server: SmtpServer, tmp_path: Path) -> None:
    config = _config(migrated, smtp_server, DKIM_SELECTOR="pbem", DKIM_DOMAIN="example.org",
                     DKIM_KEY_FILE=str(tmp_path / "missing.pem"))
    finding = _findings(config)["settings PBEM_DKIM_*"]
    assert finding.status == "fail"
    assert finding.detail.startswith(f"PBEM_DKIM_KEY_FILE {tmp_path / 'missing.pem'} cannot be")
    (tmp_path / "not-a-key.pem").write_text("hello")
    config["DKIM_KEY_FILE"] = str(tmp_path / "not-a-key.pem")
    assert "holds no PEM private key" in _findings(config)["settings PBEM_DKIM_*"].detail


@pytest.fixture
def refusing_bounces() -> Iterator[SmtpServer]:
    """A mail server that knows play@ but not bounce+…@ (Postfix without a recipient map for
    the bounce address: 550 User unknown)."""

    class Handler(SmtpHandler):
        async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                              options: list[str]) -> str:
            if address.startswith("bounce+"):
                return "550 5.1.1 User unknown"
            envelope.rcpt_tos.append(address)
            return "250 OK"

    server = SmtpServer("127.0.0.1", free_port())
    controller = Controller(Handler(server), hostname=server.host, port=server.port)
    controller.start()
    yield server
    controller.stop()


def test_both_the_reply_and_the_bounce_address_must_be_accepted(
        migrated: str, smtp_server: SmtpServer, refusing_bounces: SmtpServer) -> None:
    config = _config(migrated, smtp_server, REPLY_ADDRESS=REPLY,
                     INBOUND_URL=f"smtp://127.0.0.1:{refusing_bounces.port}")
    finding = _findings(config)["reply address"]
    assert finding.status == "fail"
    assert "the bounce address refused: 550 5.1.1 User unknown" in finding.detail
    assert "the reply address refused" not in finding.detail
    assert "bounce+" in finding.fix
    assert refusing_bounces.messages == []  # asked, never sent


def test_pbem_inbound_accepts_both_addresses(migrated: str, smtp_server: SmtpServer) -> None:
    from pbem.inbound.service import accepts_recipient
    from pbem.inbound.smtp import InboundServer
    from pbem.services.common import site_from_config

    port = free_port()
    config = _config(migrated, smtp_server, REPLY_ADDRESS=REPLY,
                     INBOUND_URL=f"lmtp://127.0.0.1:{port}")
    from pbem.db import Database

    site = site_from_config(Database(migrated), config)
    server = InboundServer("127.0.0.1", port, lmtp=True, hostname="127.0.0.1",
                           accept_recipient=lambda address: accepts_recipient(site, address),
                           deliver=lambda raw, sender, recipients: None)
    server.start()
    try:
        finding = _findings(config)["reply address"]
    finally:
        server.stop()
    assert finding.status == "ok", finding.line()
    assert f"pbem inbound at 127.0.0.1:{port} (LMTP)" in finding.detail
    down = _findings(config)["reply address"]
    assert down.status == "fail" and "does not answer" in down.detail
    assert "pbem-inbound.service" in down.fix


def test_a_reply_address_with_nothing_receiving_it(migrated: str,
                                                   smtp_server: SmtpServer) -> None:
    finding = _findings(_config(migrated, smtp_server, REPLY_ADDRESS=REPLY))["reply address"]
    assert finding.status == "fail" and "nothing receives its mail" in finding.detail


def test_redis_must_answer(migrated: str, smtp_server: SmtpServer, closed_port: int) -> None:
    import redis

    try:
        redis.Redis(host="127.0.0.1", port=6379, socket_connect_timeout=1).ping()
    except redis.RedisError:
        pytest.skip("no Redis on 127.0.0.1:6379")
    good = _findings(_config(migrated, smtp_server, REDIS_URL="redis://127.0.0.1:6379/5"))
    assert good["Redis"].status == "ok"
    down = _findings(_config(migrated, smtp_server,
                             REDIS_URL=f"redis://:pw-123@127.0.0.1:{closed_port}/0"))
    assert down["Redis"].status == "fail" and "start Redis" in down["Redis"].fix
    assert "pw-123" not in down["Redis"].line()


def test_missing_templates_fail(migrated: str, smtp_server: SmtpServer, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pbem.doctor, "TEMPLATES", tmp_path / "nowhere")
    finding = _findings(_config(migrated, smtp_server))["templates"]
    assert finding.status == "fail" and "reinstall" in finding.fix


def test_the_reply_domain_needs_an_mx_record(migrated: str, smtp_server: SmtpServer) -> None:
    config = _config(migrated, smtp_server, REPLY_ADDRESS=REPLY)
    domain = "pbem.example.org"
    answers = {
        "ok": {(domain, "MX"): ["10 mail.example.org."]},
        "fail": {(domain, "A"): ["192.0.2.1"]},  # the name exists, without an MX record
    }
    for status, records in answers.items():
        with dns_server(records) as nameserver:
            finding = _findings(config, dns_lookup=system_dns_lookup(2, nameserver))
        assert finding["reply domain"].status == status, finding["reply domain"].line()
    assert "publish an MX record for pbem.example.org" in finding["reply domain"].fix
    with dns_server({(domain, "MX"): ["0 ."]}) as nameserver:
        null = _findings(config, dns_lookup=system_dns_lookup(2, nameserver))["reply domain"]
    assert null.status == "fail" and "null MX" in null.detail


def test_a_missing_catalog_fails(migrated: str, smtp_server: SmtpServer, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A documented install that never compiled the catalogs (Dutch players got English)."""
    copy = tmp_path / "translations"
    shutil.copytree(pbem.i18n.TRANSLATIONS, copy)
    (copy / "nl" / "LC_MESSAGES" / "messages.mo").unlink()
    for module in (pbem.doctor, pbem.config):  # each imported it: the settings' check and ours
        monkeypatch.setattr(module, "catalog_problems",
                            functools.partial(pbem.i18n.catalog_problems, copy))
    finding = _findings(_config(migrated, smtp_server))["catalogs"]
    assert finding.status == "fail"
    assert f"{copy / 'nl' / 'LC_MESSAGES' / 'messages.mo'} is missing" in finding.detail
    assert "make translations" in finding.fix
