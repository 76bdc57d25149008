"""A mail catcher for development: an SMTP server on loopback that keeps what it receives.

``pbem dev`` starts one so that a newcomer can play a whole game on one machine and read every
email at ``/dev/mail``. Tests use the same server to receive real SMTP.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from aiosmtpd.controller import Controller

from pbem.db import Database
from pbem.models import CaughtMail

Store = Callable[[str, list[str], bytes], None]


class CatchingHandler:
    """aiosmtpd handler: hands each message to ``store`` and says 250."""

    def __init__(self, store: Store) -> None:
        self.store = store

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        self.store(envelope.mail_from, list(envelope.rcpt_tos),
                   raw if isinstance(raw, bytes) else str(raw).encode())
        return "250 Message accepted for delivery"


def database_store(database: Database) -> Store:
    def store(mail_from: str, recipients: list[str], raw: bytes) -> None:
        with database.write() as session:
            session.add(CaughtMail(received_at=datetime.now(UTC), mail_from=mail_from,
                                   recipients=", ".join(recipients), raw=raw))
    return store


def start_catcher(store: Store, host: str = "127.0.0.1", port: int = 8025) -> Controller:
    """Start the SMTP server in its own thread; call ``.stop()`` on the result to end it."""
    controller = Controller(CatchingHandler(store), hostname=host, port=port)
    controller.start()
    return controller
