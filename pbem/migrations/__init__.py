"""Alembic migrations; run them with ``pbem db upgrade`` (see :mod:`pbem.migrate`)."""
