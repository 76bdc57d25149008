"""Fixtures of the dashboard's tests (tests/conftest.py has the shared ones)."""

from __future__ import annotations

from datetime import datetime

import pytest

from pbem.admin.accounts import create_admin
from pbem.db import Database
from pbem.models import AdminUser
from tests.support import ADMIN_EMAIL, ADMIN_PASSWORD


@pytest.fixture
def admin(sqlite_database: Database, now: datetime) -> AdminUser:
    """The organiser ADMIN_EMAIL, with ADMIN_PASSWORD."""
    with sqlite_database.write() as session:
        return create_admin(session, now, ADMIN_EMAIL, ADMIN_PASSWORD)
