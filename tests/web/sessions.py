"""A browser signed in as a player, the way a player signs in: a sign-in link of their own,
opened (GET) and confirmed with its button (POST); or the games-page link of their mail, whose
button mails them such a sign-in link."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from pbem.db import Database
from pbem.web.player_sessions import issue_link
from tests.support import csrf_of


def signed_in(app: Flask, database: Database, player_id: int) -> FlaskClient:
    """A new browser signed in as ``player_id``."""
    with database.write() as session:
        token = issue_link(session, datetime.now(UTC), player_id)
    client = app.test_client()
    page = client.get(f"/sign-in/{token}")
    assert client.post(f"/sign-in/{token}",
                       data={"csrf_token": csrf_of(page.text)}).status_code == 303
    return client


def newest_sign_in_path(database: Database) -> str:
    """The path of the sign-in link in the newest sign-in email of the outbox."""
    import re

    from sqlmodel import col, select

    from pbem.models import OutboxEmail

    with database.session() as session:
        email = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "sign_in")
                             .order_by(col(OutboxEmail.id).desc())).first()
    assert email is not None, "no sign-in email was sent"
    found = re.search(r"/sign-in/[A-Za-z0-9_-]+", email.text_body)
    assert found, email.text_body
    return found[0]


def open_games_link(client: FlaskClient, link: str, *, user_agent: str = "",
                    address: str = "127.0.0.1") -> TestResponse:
    """Open a games-page link of the mail in ``client`` (a browser saying ``user_agent``, from
    ``address``) as a player would: its page's button mails a sign-in link; that link's page
    and button sign the browser in. Returns the last answer (303 to /account)."""
    from urllib.parse import urlsplit

    path = urlsplit(link).path
    headers = {"User-Agent": user_agent}
    client_address = {"REMOTE_ADDR": address}
    page = client.get(path, headers=headers)
    assert page.status_code == 200, page.text
    sent = client.post(path, data={"csrf_token": csrf_of(page.text)}, headers=headers,
                       environ_overrides=client_address)
    assert sent.status_code == 200 and "Check your mail" in sent.text, sent.text
    assert "/sign-in/" not in sent.text  # the link goes to the player's mailbox only
    database: Database = client.application.extensions["pbem.database"]
    sign_in = newest_sign_in_path(database)
    confirm = client.get(sign_in, headers=headers)
    return client.post(sign_in, data={"csrf_token": csrf_of(confirm.text)}, headers=headers,
                       environ_overrides=client_address)
