"""The rating tests reuse the dashboard's logged-in client (for the create-game form)."""

from tests.admin.conftest import admin_client  # noqa: F401  (a fixture)
