"""The ``pbem`` command's entry point, kept light on purpose.

A computer player's search runs in a spawned worker process (pbem.scheduler.search_process),
and a spawned process first imports the script that started its parent: the ``pbem`` command.
Its script imports this module only, so a worker loads the engine and nothing of the web app
(Flask, SQLAlchemy, APScheduler): 25 MB resident under `pbem dev`, where it was 104.
"""

from __future__ import annotations


def main() -> None:
    """``pbem ...``: the click group in :mod:`pbem.cli`, imported only when a command runs."""
    from pbem.cli import main as command

    command()
