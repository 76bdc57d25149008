"""A game of three (Alice, Bob and Cleo) on each backend, its web app, and its mail delivered to
the real SMTP server of tests/conftest.py, for the conversation's tests."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parseaddr
from typing import Any

import pytest
from flask.testing import FlaskClient

from pbem import create_app
from pbem.db import Database
from pbem.models import Seat
from pbem.services import Site
from tests.support import (
    ALICE_BOB_CLEO,
    BASE_URL,
    MAIL_FROM,
    SECRET,
    Mailbox,
    SmtpServer,
    csrf_of,
    start_a_game,
)


@dataclass
class Table:
    """A started three-player game, its app's browser, and everybody's mail."""

    database: Database
    site: Site
    client: FlaskClient
    mailbox: Mailbox
    game_id: int
    first_mail: dict[str, Any]  # address -> the first email of the game to that player
    started: list[Any]  # every email the game's start sent

    def move_link(self) -> str:
        """The move page of the player to move, from their turn email."""
        turn = next(m for m in self.started
                    if any("/play/" in link for link in self.mailbox.links(m)))
        return self.mailbox.link(turn, "/play/").removeprefix(BASE_URL)

    def seat_link(self, address: str) -> str:
        """The player's own page of the game, from their first email (as they would open it)."""
        return self.mailbox.link(self.first_mail[address], "/seat/").removeprefix(BASE_URL)

    def post(self, address: str, text: str) -> Any:
        """The player writes ``text`` in the seat page's form, with the page's CSRF token."""
        link = self.seat_link(address)
        page = self.client.get(link)
        assert page.status_code == 200, page.text
        return self.client.post(f"{link}/chat", data={"csrf_token": csrf_of(page.text),
                                                      "message": text})

    @staticmethod
    def csrf(html: str) -> str:
        return csrf_of(html)

    def thread_of(self, address: str) -> str:
        """The Message-ID that starts the player's thread of the game."""
        return str(self.first_mail[address]["Message-ID"])

    def seats(self) -> list[Seat]:
        from pbem.services.common import seats_of

        with self.database.session() as session:
            return seats_of(session, self.game_id)


def to_address(message: Any) -> str:
    return parseaddr(str(message["To"]))[1]


@pytest.fixture
def table(database: Database, smtp_server: SmtpServer) -> Iterator[Table]:
    """Rifugio of three on each backend, its turn and start emails already delivered."""
    app = create_app({
        "ENV": "development", "TESTING": True, "SECRET_KEY": SECRET, "BASE_URL": BASE_URL,
        "DATABASE": database, "DATABASE_URL": database.url, "SMTP_HOST": smtp_server.host,
        "SMTP_PORT": smtp_server.port, "MAIL_FROM": MAIL_FROM, "CHAT_PER_HOUR": 3,
    }, read_env=False)
    app_site = app.extensions["pbem.site"]
    game_id = start_a_game(database, datetime.now(UTC), app_site, "rifugio", {"players": 3},
                           players=ALICE_BOB_CLEO)
    mailbox = Mailbox(database, smtp_server)
    started = mailbox.deliver()
    first: dict[str, Any] = {}
    for message in started:
        first.setdefault(to_address(message), message)
    yield Table(database, app_site, app.test_client(), mailbox, game_id, first, started)
