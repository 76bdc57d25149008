"""A game without an organiser (``pbem create-game`` without ``--organiser``) still has somebody
to alert: every organiser alert (a bounce, a declined invitation, a clock on hold) goes to
PBEM_ALERT_EMAILS, and with nobody to tell at all the log says so.

The mail goes the way it does on a real site: pbem's outbox to a real SMTP server with VERP return
paths, the bounce over SMTP into a real ``pbem inbound`` server (aiosmtpd), the alert out again.
"""

from __future__ import annotations

import dataclasses
import email
import email.policy
import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from email.message import EmailMessage
from functools import partial
from typing import Any

import pytest
from sqlmodel import select

from pbem.cli import main
from pbem.config import load_config
from pbem.db import Database
from pbem.mail.outbox import deliver_pending, verp_address
from pbem.models import GameRecord, Player
from pbem.services import PlayerSpec, create_game
from pbem.services.common import site_from_config
from tests.inbound.replies import REPLY_ADDRESS, ReplyTable, answer, inbound_server, reply_site
from tests.inbound.test_play_by_reply import bounce_of
from tests.support import Cli, Mailbox, Received, SmtpServer, start_a_game

OPERATORS = "ops@example.test"
ANN, BOB = "ann@example.test", "bob@example.test"


@pytest.fixture
def alert_table(sqlite_database: Database, smtp_server: SmtpServer) -> Iterator[ReplyTable]:
    """The reply table of ``tests/inbound/conftest.py`` on a site with PBEM_ALERT_EMAILS set."""
    site = dataclasses.replace(reply_site(sqlite_database), alert_emails=(OPERATORS,))
    outcomes: list[Any] = []
    for server in inbound_server(sqlite_database, site, outcomes):
        yield ReplyTable(sqlite_database, site, Mailbox(sqlite_database, smtp_server), server,
                         outcomes)


def bounce(table: ReplyTable, address: str) -> None:
    """The last email to ``address`` bounces back to its VERP return path."""
    sent = next(m for m in reversed(table.mailbox.server.messages) if address in m.recipients)
    assert sent.mail_from.startswith("bounce+"), sent.mail_from
    outcome = table.send(bounce_of(sent.raw, sent.mail_from, address),
                         recipient=sent.mail_from, sender="")
    assert outcome.kind == "bounce", outcome


def alerts(messages: list[EmailMessage], address: str) -> list[str]:
    """The text of each organiser alert among ``messages`` that went to ``address``."""
    return [str(m.get_body(("plain",)).get_content())  # type: ignore[union-attr]
            for m in messages if address in str(m["To"])
            and str(m["Subject"]).startswith("[organiser]")]


def parsed(received: list[Received]) -> list[EmailMessage]:
    return [email.message_from_bytes(m.raw, policy=email.policy.default) for m in received]


def test_a_bounce_on_a_game_made_by_pbem_create_game_alerts_the_alert_addresses(
        cli: Cli, smtp_server: SmtpServer) -> None:
    """The operator's way: ``pbem create-game`` with no organiser, PBEM_ALERT_EMAILS set; Bob's
    address does not exist, his invitation bounces, and the operators hear of it."""
    env = {**cli.env, "PBEM_ALERT_EMAILS": OPERATORS, "PBEM_REPLY_ADDRESS": REPLY_ADDRESS}
    made = cli.runner.invoke(main, [
        "create-game", "mosey", "--player", f"Ann <{ANN}>", "--player", f"Bob <{BOB}>"], env=env)
    assert made.exit_code == 0, made.output
    with cli.database.session() as session:
        game = session.exec(select(GameRecord)).one()
    assert game.organiser_id is None
    config = load_config(env, read_dotenv=False)
    site = site_from_config(cli.database, config)
    settings = dataclasses.replace(smtp_server.settings(), return_path=partial(
        verp_address, config["SECRET_KEY"], REPLY_ADDRESS))
    deliver_pending(cli.database, settings, datetime.now(UTC))
    outcomes: list[Any] = []
    for server in inbound_server(cli.database, site, outcomes):
        table = ReplyTable(cli.database, site, Mailbox(cli.database, smtp_server), server,
                           outcomes)
        bounce(table, BOB)
    before = len(smtp_server.messages)
    deliver_pending(cli.database, settings, datetime.now(UTC))
    told = alerts(parsed(smtp_server.messages[before:]), OPERATORS)
    assert len(told) == 1
    assert f"Mail to Bob <{BOB}> bounced." in told[0]
    assert "The game has not started: from the dashboard you can replace the player" in told[0]
    assert f"/admin/games/{game.id}" in told[0]
    with cli.database.session() as session:
        bob = session.exec(select(Player).where(Player.email == BOB)).one()
    assert bob.bounced_at is not None


@pytest.mark.parametrize("organiser", [False, True])
def test_a_bounced_turn_email_alerts_the_alert_addresses_and_any_organiser(
        alert_table: ReplyTable, organiser: bool) -> None:
    boss = PlayerSpec("Olga", "olga@example.test") if organiser else None
    game = start_a_game(alert_table.database, datetime.now(UTC), alert_table.site, "mosey",
                        players=[PlayerSpec("Ann", ANN), PlayerSpec("Bob", BOB)],
                        organiser=boss)
    alert_table.fetch()
    to_move = alert_table.player_to_move(game)
    bounce(alert_table, to_move)
    assert alert_table.clock(game).held_since is not None
    received = alert_table.fetch()
    told = alerts(received, OPERATORS)
    assert len(told) == 1 and "Their clock is stopped until you act" in told[0]
    assert len(alerts(received, "olga@example.test")) == (1 if organiser else 0)


def test_a_declined_invitation_without_organiser_alerts_the_alert_addresses(
        alert_table: ReplyTable) -> None:
    with alert_table.database.write() as session:
        create_game(session, datetime.now(UTC), alert_table.site, game_type="mosey",
                    players=[PlayerSpec("Ann", ANN), PlayerSpec("Bob", BOB)])
    alert_table.fetch()
    alert_table.send(answer(alert_table.latest(BOB), "decline"))
    told = alerts(alert_table.fetch(), OPERATORS)
    assert len(told) == 1 and "Bob declined the invitation" in told[0]


def test_with_nobody_to_alert_the_log_says_so(reply_table: ReplyTable,
                                              caplog: pytest.LogCaptureFixture) -> None:
    """No organiser and no PBEM_ALERT_EMAILS: the bounce is recorded, and the log names the
    setting that would have made somebody hear of it."""
    with reply_table.database.write() as session:
        row = create_game(session, datetime.now(UTC), reply_table.site, game_type="mosey",
                          players=[PlayerSpec("Ann", ANN), PlayerSpec("Bob", BOB)])
        game = row.id
    reply_table.fetch()
    with caplog.at_level(logging.WARNING, logger="pbem.services.timeouts"):
        bounce(reply_table, BOB)
    assert any(f"game {game} " in r.getMessage() and "PBEM_ALERT_EMAILS" in r.getMessage()
               for r in caplog.records), caplog.text
    assert not alerts(reply_table.fetch(), OPERATORS)
