"""``pbem doctor``: is this site set up right? One line per check, nothing else.

An operator runs it after installing and after every change. Each check of :func:`diagnose`
says ``ok``, ``FAIL`` (with what is wrong and how to fix it), ``warn`` (could not tell, e.g. DNS
did not answer) or ``skip`` (not configured, or blocked by a failure before it); the command
exits 1 when anything failed. The settings are checked by the very functions every command runs
at start (:data:`pbem.config.CHECKS`); the rest talks to the parts the site needs, each with a
time limit: the database and its migrations, the mail relay, DKIM's DNS record, the reply and
bounce addresses and the reply domain's MX record, the IMAP mailbox, Redis, ``pbem inbound``,
and with PBEM_TASKS the search workers.

>>> print(Finding("database", "ok", "at the latest migration").line())
ok    database: at the latest migration
>>> print(Finding("redis", "fail", "no answer", "start it").line())
FAIL  redis: no answer; fix: start it
"""

from __future__ import annotations

import smtplib
import ssl
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from email.utils import parseaddr
from pathlib import Path
from typing import Any, Literal

import dns.exception
import dns.resolver
import redis
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from jinja2 import Environment, FileSystemLoader, TemplateError
from sqlalchemy.exc import SQLAlchemyError

from pbem.config import ConfigError, config_problems, inbound_address
from pbem.db import Database
from pbem.i18n import LANGUAGES, catalog_problems
from pbem.inbound.imap import check_mailbox, parse_url
from pbem.logs import mask_secrets
from pbem.mail.dkim import public_txt, sign_message
from pbem.migrate import alembic_config
from pbem.reply_addresses import bounce_address, make_bounce_token
from pbem.tasks.jobs import STALLED_SECONDS, driver_connection, has_job_tables, live_workers
from pbem.templating import TEMPLATES

Status = Literal["ok", "fail", "warn", "skip"]
DnsLookup = Callable[[str, str], list[str] | None]
"""``lookup(name, "TXT" or "MX")``: the records as text (a TXT record's strings joined, an MX
record's host), None when DNS cannot answer. Raises :class:`NoRecord` when DNS answers that
there is none."""


class NoRecord(LookupError):
    """DNS answered: there is no such record."""


@dataclass(frozen=True)
class Finding:
    """What one check found."""

    check: str
    status: Status
    detail: str
    fix: str = ""

    def line(self) -> str:
        mark = {"ok": "ok", "fail": "FAIL", "warn": "warn", "skip": "skip"}[self.status]
        text = f"{mark:<5} {self.check}: {mask_secrets(self.detail)}"
        return f"{text}; fix: {mask_secrets(self.fix)}" if self.fix else text


def diagnose(config: Mapping[str, Any], *, timeout: float = 5.0,
             dns_lookup: DnsLookup | None = None) -> Iterator[Finding]:
    """Every check, in order; ``dns_lookup`` answers DNS questions (default: the system's
    resolvers through dnspython)."""
    lookup = dns_lookup or system_dns_lookup(timeout)
    unusable: set[str] = set()
    for name, problem in config_problems(config):
        if problem is None:
            yield Finding(f"settings {name}", "ok", _setting_summary(name, config))
        else:
            unusable.add(name)
            yield Finding(f"settings {name}", "fail", problem)
    yield _catalogs()
    yield _templates()
    yield from _guarded("database", "PBEM_DATABASE_URL" in unusable,
                        lambda: _database(config))
    yield from _guarded("mail relay", "PBEM_SMTP_*" in unusable,
                        lambda: _relay(config, timeout))
    yield from _guarded("DKIM", "PBEM_DKIM_*" in unusable, lambda: _dkim(config, lookup))
    urls_broken = "PBEM_IMAP_URL, PBEM_REDIS_URL, PBEM_INBOUND_URL" in unusable
    yield from _guarded("reply address", "addresses" in unusable or urls_broken,
                        lambda: _reply_address(config, timeout))
    yield from _guarded("reply domain", "addresses" in unusable,
                        lambda: _reply_domain(config, lookup))
    yield from _guarded("IMAP mailbox", urls_broken, lambda: _imap(config, timeout))
    yield from _guarded("Redis", urls_broken, lambda: _redis(config, timeout))
    yield from _guarded("search workers", bool({"PBEM_TASKS", "PBEM_DATABASE_URL"} & unusable),
                        lambda: _search_workers(config))


def _guarded(check: str, blocked: bool, run: Callable[[], Iterator[Finding]]
             ) -> Iterator[Finding]:
    """The check's findings; a skip when a setting it needs failed; a failure, never a
    traceback, when it raises."""
    if blocked:
        yield Finding(check, "skip", "its settings failed above")
        return
    try:
        yield from run()
    except Exception as error:  # the one line an operator reads, whatever went wrong
        yield Finding(check, "fail", f"{type(error).__name__}: {error}")


def _setting_summary(name: str, config: Mapping[str, Any]) -> str:
    if name == "PBEM_BASE_URL":
        return str(config.get("BASE_URL"))
    if name == "PBEM_DATABASE_URL":
        return "(a test database)" if config.get("DATABASE") else \
            mask_secrets(str(config.get("DATABASE_URL")))
    if name == "PBEM_ENV":
        return str(config.get("ENV"))
    if name == "PBEM_TASKS":
        return (f"{config['TASKS']}: searches queued for pbem worker" if config.get("TASKS")
                else "empty: the scheduler searches in its own processes")
    if name == "PBEM_DKIM_*":
        return "signing on" if config.get("DKIM_KEY_FILE") else "signing off (not set)"
    return "valid"


def _catalogs() -> Finding:
    problems = catalog_problems()
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return Finding("catalogs", "fail", f"{problems[0]}{more}",
                       "build them: make translations (in a checkout) or reinstall the wheel")
    return Finding("catalogs", "ok", f"{', '.join(LANGUAGES)} compiled and complete")


def _templates() -> Finding:
    if not TEMPLATES.is_dir():
        return Finding("templates", "fail", f"no folder {TEMPLATES}",
                       "reinstall pbem (the wheel ships its templates)")
    loader = FileSystemLoader(TEMPLATES)
    env = Environment(loader=loader, extensions=["jinja2.ext.i18n"])
    names = env.list_templates()
    for name in names:
        try:
            # Syntax only: the app adds its own filters and globals when it starts.
            env.parse(loader.get_source(env, name)[0], name)
        except TemplateError as error:
            return Finding("templates", "fail", f"{name}: {error}", "reinstall pbem")
    if not names:
        return Finding("templates", "fail", f"{TEMPLATES} is empty", "reinstall pbem")
    return Finding("templates", "ok", f"{len(names)} in {TEMPLATES}")


def _database(config: Mapping[str, Any]) -> Iterator[Finding]:
    url = str(config["DATABASE_URL"])
    database = config.get("DATABASE") or Database.from_config(config)
    try:
        with database.engine.connect() as connection:
            current = MigrationContext.configure(connection).get_current_revision()
    except SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        yield Finding("database", "fail", f"cannot connect: {reason}",
                      "check PBEM_DATABASE_URL and that the database server runs")
        return
    finally:
        if not config.get("DATABASE"):
            database.dispose()
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    if current == head:
        yield Finding("database", "ok", f"reachable, at the latest migration ({head})")
    elif current is None:
        yield Finding("database", "fail", "reachable but empty (no migration applied)",
                      "pbem db upgrade")
    else:
        yield Finding("database", "fail", f"at migration {current}, the code needs {head}",
                      "pbem db upgrade")


def _relay(config: Mapping[str, Any], timeout: float) -> Iterator[Finding]:
    host, port, tls = str(config["SMTP_HOST"]), int(config["SMTP_PORT"]), config["SMTP_TLS"]
    user = str(config.get("SMTP_USER") or "")
    where = f"{host}:{port}"
    try:
        client: smtplib.SMTP = (smtplib.SMTP_SSL(host, port, timeout=timeout,
                                                 context=ssl.create_default_context())
                                if tls == "ssl" else smtplib.SMTP(host, port, timeout=timeout))
    except (OSError, smtplib.SMTPException) as error:
        yield Finding("mail relay", "fail", f"{where} does not answer ({_reason(error)})",
                      "check PBEM_SMTP_HOST, PBEM_SMTP_PORT and that the relay runs")
        return
    with client:
        code, _ = client.ehlo()
        if code != 250:
            yield Finding("mail relay", "fail", f"{where} refused EHLO ({code})")
            return
        if tls == "starttls":
            if not client.has_extn("starttls"):
                yield Finding("mail relay", "fail", f"{where} offers no STARTTLS",
                              "PBEM_SMTP_TLS=ssl (port 465) or none for a relay on this host")
                return
            client.starttls(context=ssl.create_default_context())
            client.ehlo()
        if user and not client.has_extn("auth"):
            hint = ("most relays offer AUTH only after STARTTLS: set PBEM_SMTP_TLS=starttls"
                    if tls == "none" else "leave PBEM_SMTP_USER and PBEM_SMTP_PASSWORD empty "
                    "if the relay trusts this host")
            yield Finding("mail relay", "fail", f"PBEM_SMTP_USER is set but {where} offers no "
                          f"AUTH (PBEM_SMTP_TLS={tls})", hint)
            return
        if user:
            try:
                client.login(user, str(config.get("SMTP_PASSWORD") or ""))
            except smtplib.SMTPException as error:
                yield Finding("mail relay", "fail", f"{where} refused the login of {user} "
                              f"({_reason(error)})",
                              "check PBEM_SMTP_USER and PBEM_SMTP_PASSWORD")
                return
        login = f", logged in as {user}" if user else ""
        yield Finding("mail relay", "ok", f"{where} answers EHLO (TLS: {tls}){login}")


def _reason(error: BaseException) -> str:
    if isinstance(error, smtplib.SMTPResponseException):
        text = error.smtp_error.decode("utf-8", "replace") if isinstance(
            error.smtp_error, bytes) else str(error.smtp_error)
        return f"{error.smtp_code} {text.strip()}"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or type(error).__name__


def _dkim(config: Mapping[str, Any], lookup: DnsLookup) -> Iterator[Finding]:
    if not config.get("DKIM_KEY_FILE"):
        yield Finding("DKIM", "skip", "not configured (PBEM_DKIM_* empty)")
        return
    selector, domain = str(config["DKIM_SELECTOR"]), str(config["DKIM_DOMAIN"])
    pem = Path(str(config["DKIM_KEY_FILE"])).read_bytes()
    try:
        sign_message(b"From: a@" + domain.encode() + b"\r\nSubject: t\r\n\r\nt\r\n",
                     selector=selector, domain=domain, private_key=pem)
        ours = _tag(public_txt(pem), "p")
    except Exception as error:
        yield Finding("DKIM", "fail", f"PBEM_DKIM_KEY_FILE cannot sign: {error}",
                      "make a new key with pbem dkim-keygen")
        return
    name = f"{selector}._domainkey.{domain}"
    try:
        records = lookup(name, "TXT")
    except NoRecord:
        yield Finding("DKIM", "fail", f"no TXT record at {name}",
                      "publish the record pbem dkim-keygen printed")
        return
    if records is None:
        yield Finding("DKIM", "warn", f"key signs; DNS did not answer for {name}, so the "
                      "published key was not compared")
        return
    published = [_tag(record, "p") for record in records]
    if ours in published:
        yield Finding("DKIM", "ok", f"key signs and matches the TXT record at {name}")
    else:
        yield Finding("DKIM", "fail", f"the TXT record at {name} holds another public key "
                      "than PBEM_DKIM_KEY_FILE", "publish the record for this key (pbem "
                      "dkim-keygen printed it) or point PBEM_DKIM_KEY_FILE at the right key")


def _tag(record: str, tag: str) -> str:
    """One tag's value of a DKIM record (``v=DKIM1; k=rsa; p=...``), spaces removed."""
    for part in record.split(";"):
        key, _, value = part.partition("=")
        if key.strip() == tag:
            return "".join(value.split())
    return ""


def system_dns_lookup(timeout: float, nameserver: tuple[str, int] | None = None) -> DnsLookup:
    """Look-ups through dnspython: the system's resolvers, or one ``(address, port)``."""
    resolver = dns.resolver.Resolver(configure=nameserver is None)
    if nameserver is not None:
        resolver.nameservers = [nameserver[0]]
        resolver.port = nameserver[1]

    def lookup(name: str, kind: str) -> list[str] | None:
        try:
            answer = resolver.resolve(name, kind, lifetime=timeout)
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            raise NoRecord(name) from None
        except (dns.exception.DNSException, OSError):
            return None
        if kind == "MX":
            return [record.exchange.to_text().rstrip(".") for record in answer]
        return [b"".join(record.strings).decode("ascii", "replace") for record in answer]

    return lookup


def _reply_address(config: Mapping[str, Any], timeout: float) -> Iterator[Finding]:
    """The reply and bounce addresses must both reach pbem: a server that knows only
    ``play@`` refuses every bounce (they go to ``bounce+TOKEN@``)."""
    reply = str(config.get("REPLY_ADDRESS") or "")
    if not reply:
        yield Finding("reply address", "skip", "play by reply is off (PBEM_REPLY_ADDRESS empty)")
        return
    # A genuine token (for no outbox row): pbem inbound checks signatures at RCPT time.
    bounce = bounce_address(reply, make_bounce_token(str(config["SECRET_KEY"]), 1))
    if config.get("INBOUND_URL"):
        protocol, host, port = inbound_address(str(config["INBOUND_URL"]))
        server = f"pbem inbound at {host}:{port} ({protocol.upper()})"
        lmtp = protocol == "lmtp"
    elif config.get("IMAP_URL"):
        host, port, lmtp = str(config["SMTP_HOST"]), int(config["SMTP_PORT"]), False
        server = f"the mail relay {host}:{port}"
    else:
        yield Finding("reply address", "fail", f"{reply} is set, but nothing receives its mail",
                      "set PBEM_INBOUND_URL (pbem inbound) or PBEM_IMAP_URL (a mailbox)")
        return
    if config.get("SMTP_TLS") == "ssl" and not config.get("INBOUND_URL"):
        yield Finding("reply address", "warn", f"{server} speaks TLS from the start; the "
                      "recipients were not tried")
        return
    refused = _refused_recipients(host, port, lmtp, [reply, bounce], timeout,
                                  sender=parseaddr(str(config["MAIL_FROM"]))[1])
    if isinstance(refused, str):
        yield Finding("reply address", "fail", f"{server} does not answer ({refused})",
                      "start it (pbem-inbound.service) or correct PBEM_INBOUND_URL"
                      if config.get("INBOUND_URL") else "check PBEM_SMTP_HOST")
        return
    if refused:
        what = ", ".join(f"{_kind(address, reply)} refused: {answer}"
                         for address, answer in refused.items())
        yield Finding("reply address", "fail", f"{server}: {what}",
                      "route both play@ and bounce+…@ (or the whole domain) to pbem: "
                      "docs/deploy.md, Play by reply")
        return
    yield Finding("reply address", "ok", f"{server} accepts the reply address and bounce "
                  "addresses")


def _reply_domain(config: Mapping[str, Any], lookup: DnsLookup) -> Iterator[Finding]:
    """Replies are addressed to the reply domain: mail servers find its MX record (or, without
    one, its address), so it must have one."""
    reply = str(config.get("REPLY_ADDRESS") or "")
    if not reply:
        yield Finding("reply domain", "skip", "play by reply is off")
        return
    domain = reply.rpartition("@")[2]
    fix = (f"publish an MX record for {domain} naming the host whose mail server receives "
           "replies (docs/deploy.md, Play by reply)")
    try:
        hosts = lookup(domain, "MX")
    except NoRecord:
        yield Finding("reply domain", "fail", f"{domain} has no MX record: replies cannot "
                      "reach it", fix)
        return
    if hosts is None:
        yield Finding("reply domain", "warn", f"DNS did not answer for {domain}'s MX record")
    elif hosts == [""]:  # "MX 0 ." (RFC 7505): the domain says it takes no mail
        yield Finding("reply domain", "fail", f"{domain} says it receives no mail (null MX)", fix)
    else:
        yield Finding("reply domain", "ok", f"mail for {domain} goes to {', '.join(hosts)}")


def _kind(address: str, reply: str) -> str:
    return "the reply address" if address == reply else "the bounce address"


def _refused_recipients(host: str, port: int, lmtp: bool, recipients: list[str],
                        timeout: float, *, sender: str) -> dict[str, str] | str:
    """Each recipient the server refuses, with its answer; a string when it cannot be asked.
    Nothing is sent: the transaction is reset before DATA."""
    try:
        # smtplib's LMTP says LHLO where SMTP says EHLO.
        client = (smtplib.LMTP(host, port, timeout=timeout) if lmtp
                  else smtplib.SMTP(host, port, timeout=timeout))
    except (OSError, smtplib.SMTPException) as error:
        return _reason(error)
    refused: dict[str, str] = {}
    with client:
        client.ehlo()
        code, answer = client.mail(sender or "")
        if code >= 400:
            return f"MAIL FROM refused: {code} {answer.decode('utf-8', 'replace')}"
        for recipient in recipients:
            code, answer = client.rcpt(recipient)
            if code >= 400:
                refused[recipient] = f"{code} {answer.decode('utf-8', 'replace')}"
        client.rset()
    return refused


def _imap(config: Mapping[str, Any], timeout: float) -> Iterator[Finding]:
    url = str(config.get("IMAP_URL") or "")
    if not url:
        yield Finding("IMAP mailbox", "skip", "not configured (PBEM_IMAP_URL empty)")
        return
    settings = parse_url(url)
    try:
        waiting = check_mailbox(url, timeout=timeout)
    except Exception as error:
        yield Finding("IMAP mailbox", "fail", f"{settings.user} at {settings.host}:"
                      f"{settings.port}: {type(error).__name__}: {error}",
                      "check PBEM_IMAP_URL (user, password, folder) and the IMAP server")
        return
    yield Finding("IMAP mailbox", "ok", f"{settings.user} logs in at {settings.host}:"
                  f"{settings.port}; {settings.folder} holds {waiting} message(s)")


def _redis(config: Mapping[str, Any], timeout: float) -> Iterator[Finding]:
    url = str(config.get("REDIS_URL") or "")
    if not url:
        yield Finding("Redis", "skip", "not configured (PBEM_REDIS_URL empty): rate limits "
                      "are kept in the database")
        return
    try:
        redis.Redis.from_url(url, socket_timeout=timeout,
                             socket_connect_timeout=timeout).ping()
    except redis.RedisError as error:
        yield Finding("Redis", "fail", f"PBEM_REDIS_URL does not answer ({error})",
                      "start Redis or correct PBEM_REDIS_URL")
        return
    yield Finding("Redis", "ok", "PBEM_REDIS_URL answers PING")


def _search_workers(config: Mapping[str, Any]) -> Iterator[Finding]:
    """With PBEM_TASKS: the job tables, and a worker heard of lately."""
    if not config.get("TASKS"):
        yield Finding("search workers", "skip", "PBEM_TASKS empty: the scheduler searches")
        return
    database = config.get("DATABASE") or Database.from_config(config)
    try:
        if not has_job_tables(database):
            yield Finding("search workers", "fail", "the database has no job tables",
                          "pbem db upgrade")
            return
        with database.session() as session:
            workers = live_workers(driver_connection(session))
    finally:
        if not config.get("DATABASE"):
            database.dispose()
    if not workers:
        yield Finding("search workers", "fail", f"no pbem worker heard of in the last "
                      f"{STALLED_SECONDS:g} s: the computer players' moves wait",
                      "start pbem worker (one per core) where the database is reachable")
        return
    yield Finding("search workers", "ok", f"{workers} pbem worker(s) heard of in the last "
                  f"{STALLED_SECONDS:g} s")


def run(config_loader: Callable[[], dict[str, Any]], echo: Callable[[str], None], *,
        timeout: float = 5.0, dns_lookup: DnsLookup | None = None) -> int:
    """Print every finding with ``echo``; the exit status (1: something failed)."""
    try:
        config = config_loader()
    except ConfigError as error:  # a number that is not one: nothing else can be read
        echo(Finding("settings", "fail", str(error)).line())
        return 1
    failed = False
    for finding in diagnose(config, timeout=timeout, dns_lookup=dns_lookup):
        echo(finding.line())
        failed = failed or finding.status == "fail"
    echo("some checks failed" if failed else "all checks passed")
    return 1 if failed else 0
