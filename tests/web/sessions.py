"""A browser signed in as a player, the way a player signs in: a sign-in link of their own,
opened (GET) and confirmed with its button (POST)."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Flask
from flask.testing import FlaskClient

from pbem.db import Database
from pbem.web.signin import issue_link
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
