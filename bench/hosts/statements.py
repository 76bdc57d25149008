"""The database's side of a hosts run: its slowest statements (pg_stat_statements) and the
connections the hosts hold.

pg_stat_statements needs ``shared_preload_libraries`` and a server restart, machine-wide state
this bench does not change by itself; without it the run says how to turn it on and goes on::

    psql -h 127.0.0.1 -U postgres -c "ALTER SYSTEM SET shared_preload_libraries = \
'pg_stat_statements'" && pg_ctlcluster 15 main restart

Statements are counted by the server for every client, so they are read for the run's
database only (its ``dbid``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, create_engine, text
from sqlalchemy.engine import make_url

ENABLE = ("pg_stat_statements is not loaded: ALTER SYSTEM SET shared_preload_libraries = "
          "'pg_stat_statements', restart PostgreSQL, run again")


def _server(url: str, sql: str, **params: Any) -> list[Row[Any]]:
    """``sql``'s rows in the server's ``postgres`` database (the run's own copy may not have
    the extension made), committed."""
    admin = make_url(url).set(database="postgres").render_as_string(hide_password=False)
    engine = create_engine(admin)
    try:
        with engine.begin() as connection:
            result = connection.execute(text(sql), params)
            return list(result.all()) if result.returns_rows else []
    finally:
        engine.dispose()


def loaded(url: str) -> bool:
    """Whether the server collects statements (the library is preloaded)."""
    return "pg_stat_statements" in str(_server(url, "SHOW shared_preload_libraries")[0][0])


def reset(url: str) -> None:
    """Forget what was counted before (the build, other databases): the report is the run's."""
    _server(url, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    _server(url, "SELECT pg_stat_statements_reset()")


def slowest(url: str, limit: int = 10) -> list[str]:
    """The run database's statements by total time: calls, mean and max ms, the text's start."""
    rows = _server(url,
                   "SELECT s.calls, s.total_exec_time, s.mean_exec_time, s.max_exec_time, s.query "
                   "FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
                   "WHERE d.datname = :name ORDER BY s.total_exec_time DESC LIMIT :limit",
                   name=make_url(url).database, limit=limit)
    return [f"{calls:8d} calls {total:9.0f} ms total {mean:8.2f} mean {most:8.1f} max  "
            f"{' '.join(query.split())[:110]}" for calls, total, mean, most, query in rows]


def connections(url: str) -> dict[str, int]:
    """The run database's server connections now, by state (active, idle, idle in
    transaction): what the hosts' pools hold."""
    rows = _server(url, "SELECT coalesce(state, 'starting'), count(*) FROM pg_stat_activity "
                   "WHERE datname = :name GROUP BY 1", name=make_url(url).database)
    return {str(state): int(count) for state, count in rows}
