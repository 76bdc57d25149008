"""A throwaway Dovecot IMAP server for the tests: Debian's dovecot-imapd, run in the foreground
from a configuration in a temporary folder, on a free loopback port, with one user.

Nothing is shared with a system Dovecot: the configuration, sockets (``base_dir``), state, logs
and mail all live in the folder, and the server runs as the current user (root or not), so the
tests need no set-up beyond the package. ``make test`` installs the package when it is missing;
without it the tests that need it are skipped, never faked.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

DOVECOT = "/usr/sbin/dovecot"
USER = "player"
# Characters that need quoting in a URL, so that the tests show fetch_pass unquotes them.
PASSWORD = "p@ss w/rd%?"  # no colon: passwd-file separates fields with it
START_TIMEOUT = 20.0


@dataclass
class Dovecot:
    """A running server: where it listens, who may log in, and the process to stop."""

    host: str
    port: int
    user: str
    password: str
    folder: Path
    mail: Path
    process: subprocess.Popen[bytes]
    started_in: float

    def url(self, mailbox: str = "INBOX") -> str:
        """The PBEM_IMAP_URL for this server's user and ``mailbox``."""
        return (f"imap://{quote(self.user, safe='')}:{quote(self.password, safe='')}"
                f"@{self.host}:{self.port}/{quote(mailbox, safe='')}")

    def log(self) -> str:
        """What Dovecot wrote: its log, then its standard output and error."""
        return "".join(path.read_text(errors="replace")
                       for path in (self.folder / "dovecot.log", self.folder / "dovecot.out")
                       if path.exists())

    def stop(self) -> None:
        """Stop this server (only the process this helper started) and wait for it."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.mail, ignore_errors=True)


def available() -> str | None:
    """None when Dovecot can be started, else why not (the skip reason)."""
    if not os.path.exists(DOVECOT):
        return (f"{DOVECOT} is missing: install Debian's dovecot-imapd "
                "(make test installs it) to run the IMAP tests")
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _mail_owner() -> tuple[int, int]:
    """Who the mail processes run as: the current user, except that Dovecot never gives root
    access to mail, so root's tests use nobody."""
    if os.getuid() != 0:
        return os.getuid(), os.getgid()
    nobody = pwd.getpwnam("nobody")
    return nobody.pw_uid, nobody.pw_gid


def _config(folder: Path, mail: Path, port: int) -> str:
    uid, gid = os.getuid(), os.getgid()
    mail_uid, mail_gid = _mail_owner()
    if uid == 0:
        # Dovecot refuses to run its login processes as root: they run as the dovenull and dovecot
        # accounts the package creates, chrooted (as by default) into base_dir, so they never
        # need to traverse the root-only temporary folder; auth reads the users file as root.
        accounts = """
default_login_user = dovenull
default_internal_user = dovecot
service auth {
  user = root
}
service auth-worker {
  user = root
}
"""
    else:
        # As an ordinary user, every service runs as that user without chroot, which needs no
        # system accounts at all.
        me = pwd.getpwuid(uid).pw_name
        accounts = f"""
default_login_user = {me}
default_internal_user = {me}
default_internal_group = {grp.getgrgid(gid).gr_name}
service imap-login {{
  chroot =
}}
service anvil {{
  chroot =
}}
"""
    return f"""
protocols = imap
listen = 127.0.0.1
base_dir = {folder}/run
state_dir = {folder}/state
log_path = {folder}/dovecot.log
info_log_path = {folder}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
# No delay before answering a wrong password. (Dovecot also slows down later logins from an
# address that failed, for a few seconds: the wrong-password test has a server of its own.)
auth_failure_delay = 0
first_valid_uid = 0
first_valid_gid = 0
mail_uid = {mail_uid}
mail_gid = {mail_gid}
mail_location = maildir:{mail}/%u
{accounts}
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {folder}/users
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {folder}/users
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
"""


def start(folder: Path) -> Dovecot:
    """Start a Dovecot whose configuration, sockets and logs live in ``folder``; waits until it
    answers IMAP. Call ``stop()`` on the result."""
    folder.mkdir(parents=True, exist_ok=True)
    for sub in ("run", "state"):
        (folder / sub).mkdir(exist_ok=True)
    # The mail processes may run as another user (see _mail_owner), who cannot enter a
    # root-only pytest folder: their mail lives in a folder of their own under /tmp.
    mail = Path(tempfile.mkdtemp(prefix="pbem-dovecot-mail-"))
    mail_uid, mail_gid = _mail_owner()
    os.chown(mail, mail_uid, mail_gid)
    # passwd-file: user:password:uid:gid:gecos:home:shell:extra. The uid and gid stay empty
    # (passwd-file rejects 0, root's): mail_uid and mail_gid in the configuration apply.
    (folder / "users").write_text(f"{USER}:{{PLAIN}}{PASSWORD}::::{mail}/{USER}::\n")
    config = folder / "dovecot.conf"
    last_error = ""
    for _attempt in range(3):  # a free port can be taken between probing and binding
        port = _free_port()
        config.write_text(_config(folder, mail, port))
        began = time.monotonic()
        with (folder / "dovecot.out").open("ab") as output:
            process = subprocess.Popen([DOVECOT, "-F", "-c", str(config)],
                                       stdout=output, stderr=subprocess.STDOUT)
        server = Dovecot("127.0.0.1", port, USER, PASSWORD, folder, mail, process, 0.0)
        while time.monotonic() - began < START_TIMEOUT and process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as probe:
                    probe.settimeout(2)
                    if probe.recv(100).startswith(b"* OK"):
                        server.started_in = time.monotonic() - began
                        return server
            except OSError:
                time.sleep(0.02)  # dovecot is starting
        server.stop()
        last_error = server.log()
    raise RuntimeError(f"dovecot did not start:\n{last_error}")
