"""Commands about players' ratings (pbem.ratings.service).

    pbem ratings rebuild    # forget every rating, replay every rated game in finishing order
"""

from __future__ import annotations

from datetime import UTC, datetime

import click

from pbem.cli.common import checked_config, open_database
from pbem.ratings.service import rebuild


@click.group("ratings")
def ratings_group() -> None:
    """Players' ratings."""


@ratings_group.command("rebuild")
def rebuild_command() -> None:
    """Rebuild every rating from the rated finished games, in the order they finished (after a
    correction to a game, or a change to how ratings are worked out)."""
    database = open_database(checked_config())
    with database.write() as session:
        games, players = rebuild(session, datetime.now(UTC))
    click.echo(f"ratings rebuilt from {games} rated game{'s' * (games != 1)}"
               f" for {players} player{'s' * (players != 1)}")
