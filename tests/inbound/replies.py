"""Players who answer their mail: the outbox read through a real SMTP server, answers sent to a
real ``pbem inbound`` server (aiosmtpd), as a mail client and a site's mail server would."""

from __future__ import annotations

import dataclasses
import email.policy
import random
import smtplib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr
from functools import partial
from typing import Any

from sqlmodel import select

from pbem.clock.tables import GameClock
from pbem.db import Database
from pbem.inbound.commands import Handled
from pbem.inbound.service import accepts_recipient, receive
from pbem.inbound.smtp import InboundServer
from pbem.links import Links, seat_holder_for
from pbem.models import GameRecord, Player, Seat
from pbem.positions import current_state
from pbem.services import Site
from tests.support import BASE_URL, MAIL_FROM, SECRET, Mailbox, clock_in, free_port

REPLY_ADDRESS = "play@pbem.example.test"


def reply_site(database: Database) -> Site:
    return Site(Links(SECRET, BASE_URL, seat_holder=seat_holder_for(database)), MAIL_FROM,
                reply_address=REPLY_ADDRESS)


def answer(message: EmailMessage, body: str, *, sender: str | None = None,
           to: str | None = None, html: bool = False) -> bytes:
    """A reply to ``message`` as a mail client writes it: the new text on top, the old quoted."""
    reply = EmailMessage()
    reply["From"] = sender or str(message["To"])
    reply["To"] = to or str(message["Reply-To"])
    reply["Subject"] = f"Re: {message['Subject']}"
    reply["Date"] = "Mon, 23 Nov 2026 21:00:00 +0000"
    reply["Message-ID"] = make_msgid(domain="player.example.test")
    reply["In-Reply-To"] = str(message["Message-ID"])
    reply["References"] = str(message["Message-ID"])
    old = message.get_body(("plain",))
    assert old is not None
    quoted = "\n".join(f"> {line}" for line in str(old.get_content()).splitlines())
    text = f"{body}\n\nOn Mon, 23 Nov 2026 at 20:00, pbem <{REPLY_ADDRESS}> wrote:\n{quoted}\n"
    if html:
        reply.set_content(f"<html><body><div>{'<br>'.join(body.splitlines())}</div>"
                          f"<div class=\"gmail_quote\"><blockquote>{quoted}</blockquote></div>"
                          "</body></html>", subtype="html")
    else:
        reply.set_content(text)
    return reply.as_bytes(policy=email.policy.SMTP)  # CRLF, as on the wire


@dataclass
class ReplyTable:
    """Everybody's mail, and a mail server that hands answers to pbem over SMTP."""

    database: Database
    site: Site
    mailbox: Mailbox
    server: InboundServer
    outcomes: list[Handled] = field(default_factory=list)
    inbox: list[EmailMessage] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    def fetch(self) -> list[EmailMessage]:
        """Deliver the outbox (with VERP return paths, as on a site with play by reply); the new
        messages, also kept in ``inbox``."""
        import email

        from pbem.mail.outbox import deliver_pending, verp_address

        settings = dataclasses.replace(self.mailbox.server.settings(), return_path=partial(
            verp_address, SECRET, REPLY_ADDRESS))
        deliver_pending(self.database, settings, datetime.now(UTC))
        received = self.mailbox.server.messages
        new = [email.message_from_bytes(m.raw, policy=email.policy.default)
               for m in received[self.mailbox.read:]]
        self.mailbox.read = len(received)
        self.inbox.extend(new)  # type: ignore[arg-type]
        return new  # type: ignore[return-value]

    def latest(self, address: str, *, with_reply_to: bool = True) -> EmailMessage:
        for message in reversed(self.inbox):
            to = parseaddr(str(message["To"]))[1]
            if to == address and (message["Reply-To"] or not with_reply_to):
                return message
        raise AssertionError(f"no mail to {address}")

    def send(self, raw: bytes, *, recipient: str | None = None, sender: str = "") -> Handled:
        """Hand ``raw`` to pbem inbound over SMTP; the outcome of handling it."""
        from email import message_from_bytes

        to = recipient or parseaddr(str(message_from_bytes(raw)["To"]))[1]
        before = len(self.outcomes)
        with smtplib.SMTP(self.server.host, self.server.port, timeout=30) as client:
            client.sendmail(sender or "player@example.test", [to], raw)
        assert len(self.outcomes) == before + 1, "the message was not handled"
        return self.outcomes[-1]

    def game(self, game_id: int) -> GameRecord:
        with self.database.session() as session:
            row = session.get(GameRecord, game_id)
            assert row is not None
            return row

    def clock(self, game_id: int) -> GameClock:
        return clock_in(self.database, game_id)

    def player_to_move(self, game_id: int) -> str:
        with self.database.session() as session:
            row = session.get(GameRecord, game_id)
            assert row is not None
            seat = session.exec(select(Seat).where(Seat.game_id == game_id,
                                                   Seat.seat == row.to_move)).one()
            player = session.get(Player, seat.player_id)
            assert player is not None
            return player.email

    def random_move(self, game_id: int) -> str:
        game, state = current_state(self.game(game_id))
        return str(game.random_move(state, self.rng))

    def play_one(self, game_id: int) -> Handled:
        """The player to move answers their latest email with a random legal move."""
        self.fetch()
        address = self.player_to_move(game_id)
        move = self.random_move(game_id)
        return self.send(answer(self.latest(address), move))


def deliver_to(database: Database, site: Site, outcomes: list[Handled]) -> Any:
    def deliver(raw: bytes, sender: str, recipients: list[str]) -> None:
        outcomes.append(receive(database, datetime.now(UTC), site, raw, recipients=recipients))
    return deliver


def inbound_server(database: Database, site: Site, outcomes: list[Handled]) -> Iterator[
        InboundServer]:
    server = InboundServer("127.0.0.1", free_port(), lmtp=False,
                           accept_recipient=lambda address: accepts_recipient(site, address),
                           deliver=deliver_to(database, site, outcomes), hostname="localhost")
    server.start()
    try:
        yield server
    finally:
        server.stop()
