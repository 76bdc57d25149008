"""Running the Alembic migrations from Python (``pbem db upgrade``, tests, ``pbem dev``).

The migration scripts live inside the package (``pbem/migrations``) so an installed pbem can migrate
its database without a checkout; no ``alembic.ini`` is needed.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(url: str, *, search_path: str | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # Alembic's ini interpolation would choke on a '%' in a password.
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["search_path"] = search_path
    return config


def upgrade(url: str, revision: str = "head", *, search_path: str | None = None) -> None:
    """Bring the database at ``url`` up to ``revision``."""
    command.upgrade(alembic_config(url, search_path=search_path), revision)


def downgrade(url: str, revision: str, *, search_path: str | None = None) -> None:
    command.downgrade(alembic_config(url, search_path=search_path), revision)
