"""The dashboard's tests: a client logged in as an organiser."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from flask.testing import FlaskClient

import pbem.ratelimit  # noqa: F401  (its table must be on the metadata the test databases use)
from pbem.db import Database
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD, csrf_of


@pytest.fixture
def admin_client(client: FlaskClient, sqlite_database: Database) -> FlaskClient:
    """A test client logged in to the dashboard as ADMIN_EMAIL."""
    from pbem.admin.accounts import create_admin

    with sqlite_database.write() as session:
        create_admin(session, datetime.now(UTC), ADMIN_EMAIL, ADMIN_PASSWORD)
    token = csrf_of(client.get("/admin/login").text)
    assert client.post("/admin/login", data={"csrf_token": token, "email": ADMIN_EMAIL,
                                             "password": ADMIN_PASSWORD}).status_code == 302
    return client
