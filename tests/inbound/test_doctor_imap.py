"""``pbem doctor`` logs in to the IMAP mailbox of PBEM_IMAP_URL (a real Dovecot), and says so
in one line without the password when it cannot."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pbem.config import load_config
from pbem.doctor import diagnose, system_dns_lookup
from tests.support import SECRET, SmtpServer, free_port, make_database


def _imap_finding(url: str, tmp_path: Path, smtp_server: SmtpServer) -> str:
    database, remove = make_database("sqlite", tmp_path, migrate=True)
    try:
        config = load_config({"PBEM_DATABASE_URL": database.url, "PBEM_SECRET_KEY": SECRET,
                              "PBEM_SMTP_PORT": str(smtp_server.port),
                              "PBEM_REPLY_ADDRESS": "play@pbem.example.org",
                              "PBEM_IMAP_URL": url}, read_dotenv=False)
        nobody = system_dns_lookup(0.3, ("127.0.0.1", free_port()))
        [finding] = [f for f in diagnose(config, timeout=3, dns_lookup=nobody)
                     if f.check == "IMAP mailbox"]
        return finding.line()
    finally:
        remove()


def test_the_imap_mailbox_must_log_in(dovecot: tuple[str, Callable[[bytes], None]],
                                      tmp_path: Path, smtp_server: SmtpServer) -> None:
    url, deliver = dovecot
    deliver(b"From: a@example.org\r\nSubject: hi\r\n\r\nhello\r\n")
    good = _imap_finding(url, tmp_path / "good", smtp_server)
    assert good.startswith("ok    IMAP mailbox: player logs in at 127.0.0.1:"), good
    assert "holds 1 message(s)" in good
    password = "p%40ss%20w%2Frd%25%3F"  # dovecot.PASSWORD, as it stands in the URL
    assert password in url
    bad = _imap_finding(url.replace(password, "wr0ng-pw"), tmp_path / "bad", smtp_server)
    assert bad.startswith("FAIL  IMAP mailbox: player at 127.0.0.1:"), bad
    assert "fix: check PBEM_IMAP_URL" in bad and "wr0ng-pw" not in bad
