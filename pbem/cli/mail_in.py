"""Commands for play by reply: receive mail, fetch it, and make a DKIM key.

    pbem inbound --host 127.0.0.1 --port 2525 [--lmtp]
    pbem fetch-mail
    pbem dkim-keygen --out /etc/pbem/dkim.pem

Imports that only one command needs are made when it runs: see :mod:`pbem.cli` (start-up).
"""

from __future__ import annotations

import logging
import os
import pwd
import signal
import threading
from datetime import UTC, datetime
from email.utils import parseaddr
from pathlib import Path
from typing import Any

import click

from pbem.cli.common import checked_config, open_database
from pbem.config import inbound_address, load_config
from pbem.services.common import site_from_config


def _site(config: dict[str, Any]) -> Any:
    database = open_database(config)
    site = site_from_config(database, config)
    if not site.reply_address:
        raise click.UsageError("set PBEM_REPLY_ADDRESS (e.g. play@pbem.example.org) first")
    return database, site


@click.command("inbound")
@click.option("--host", default=None, help="[default: PBEM_INBOUND_URL's, else 127.0.0.1]")
@click.option("--port", default=None, type=int, help="[default: PBEM_INBOUND_URL's, else 2525]")
@click.option("--lmtp", is_flag=True, default=None,
              help="Speak LMTP (for a Postfix lmtp: transport) [default: when PBEM_INBOUND_URL "
                   "is lmtp://].")
def inbound_command(host: str | None, port: int | None, lmtp: bool | None) -> None:
    """Receive replies and bounces over SMTP or LMTP until stopped (SIGTERM or Ctrl-C).

    Recipients other than the reply and bounce addresses are refused at RCPT time, messages
    over 1 MB at DATA; a message that cannot be handled now is answered 451 (try again).
    """
    from pbem.inbound.service import accepts_recipient, receive
    from pbem.inbound.smtp import InboundServer

    config = checked_config()
    protocol, default_host, default_port = (inbound_address(config["INBOUND_URL"])
                                            if config["INBOUND_URL"] else
                                            ("smtp", "127.0.0.1", 2525))
    host, port = host or default_host, port or default_port
    lmtp = protocol == "lmtp" if lmtp is None else lmtp
    database, site = _site(config)
    log = logging.getLogger("pbem.inbound")

    def deliver(raw: bytes, sender: str, recipients: list[str]) -> None:
        outcome = receive(database, datetime.now(UTC), site, raw, recipients=recipients)
        log.info("from %s: %s %s", sender or "<>", outcome.kind, outcome.detail)

    server = InboundServer(host, port, lmtp=lmtp, hostname=host,
                           accept_recipient=lambda address: accepts_recipient(site, address),
                           deliver=deliver)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    server.start()
    click.echo(f"pbem inbound: {'LMTP' if lmtp else 'SMTP'} on {host}:{port} for "
               f"{site.reply_address}")
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        database.dispose()


@click.command("fetch-mail")
def fetch_mail_command() -> None:
    """One pass over the IMAP mailbox of PBEM_IMAP_URL: handle each message, then delete it."""
    from pbem.inbound.imap import fetch_pass
    from pbem.inbound.service import receive

    config = checked_config()
    if not config.get("IMAP_URL"):
        raise click.UsageError("set PBEM_IMAP_URL (e.g. imaps://user:password@host/INBOX) first")
    database, site = _site(config)
    outcomes: list[str] = []
    try:
        result = fetch_pass(config["IMAP_URL"], lambda raw: outcomes.append(
            receive(database, datetime.now(UTC), site, raw).kind))
    finally:
        database.dispose()
    kinds = ", ".join(f"{outcomes.count(k)} {k}" for k in sorted(set(outcomes))) or "nothing"
    click.echo(f"fetched {result.handled} message(s) ({kinds}); {result.failed} left for later")


@click.command("dkim-keygen")
@click.option("--out", "out", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write the private key (PEM); it must not exist yet.")
@click.option("--selector", default=None, help="Default: PBEM_DKIM_SELECTOR, else 'pbem'.")
@click.option("--domain", default=None, help="Default: PBEM_DKIM_DOMAIN, else MAIL_FROM's.")
@click.option("--owner", default=None, metavar="USER",
              help="The user the services run as (pbem under deploy/): the key is made theirs, "
                   "mode 0600, so that they can read it and nobody else can.")
def dkim_keygen_command(out: Path, selector: str | None, domain: str | None,
                        owner: str | None) -> None:
    """Make a DKIM key and print the DNS TXT record to publish.

    pbem dkim-keygen --out /etc/pbem/dkim.pem --selector pbem --domain example.org --owner pbem
    """
    from pbem.mail.dkim import dns_record, generate_key

    # The key is read by the services: without the settings they would fail with, the DKIM
    # ones are checked once the key exists (`pbem doctor`).
    config = load_config()
    if out.exists():
        raise click.UsageError(f"{out} exists; choose another file")
    try:
        account = pwd.getpwnam(owner) if owner else None
    except KeyError:
        raise click.BadParameter(f"there is no user {owner!r}", param_hint="--owner") from None
    selector = selector or config.get("DKIM_SELECTOR") or "pbem"
    domain = domain or config.get("DKIM_DOMAIN") or \
        parseaddr(config["MAIL_FROM"])[1].rpartition("@")[2]
    private, public = generate_key()
    descriptor = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(private)
    if account is not None:
        os.chown(out, account.pw_uid, account.pw_gid)
    elif os.geteuid() == 0:
        click.echo(f"warning: {out} belongs to root, mode 0600: the services cannot read it "
                   f"unless they run as root; give it to their user with "
                   f"chown pbem:pbem {out} (or use --owner pbem next time)", err=True)
    click.echo(f"private key written to {out}; publish this record:\n")
    click.echo(dns_record(selector, domain, public))
    click.echo(f"\nthen set PBEM_DKIM_SELECTOR={selector} PBEM_DKIM_DOMAIN={domain} "
               f"PBEM_DKIM_KEY_FILE={out}")
