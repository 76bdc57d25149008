"""Commands about tournaments (pbem.tournaments.service); the dashboard does the rest.

    pbem tournament list              # every tournament: id, status, round, name
    pbem tournament standings 3       # one tournament's standings, best first
"""

from __future__ import annotations

import click

from pbem.cli.common import checked_config, open_database
from pbem.tournaments.queries import points_text, standings_view
from pbem.tournaments.service import all_tournaments
from pbem.tournaments.tables import Tournament


@click.group("tournament")
def tournament_group() -> None:
    """Tournaments: list them, show their standings."""


@tournament_group.command("list")
def list_command() -> None:
    """Every tournament, newest first."""
    database = open_database(checked_config())
    with database.session() as session:
        for tournament in all_tournaments(session):
            click.echo(f"{tournament.id}\t{tournament.status}\t"
                       f"{tournament.current_round}/{tournament.rounds}\t{tournament.game_type}"
                       f"\t{tournament.name}")


@tournament_group.command("standings")
@click.argument("tournament_id", type=int)
def standings_command(tournament_id: int) -> None:
    """The standings of TOURNAMENT_ID: rank, points, tie-breaks, games played, name."""
    database = open_database(checked_config())
    with database.session() as session:
        tournament = session.get(Tournament, tournament_id)
        if tournament is None:
            raise click.ClickException(f"there is no tournament {tournament_id}")
        view = standings_view(session, tournament)
    second = "buchholz" if view.swiss else "direct"
    click.echo(f"rank\tpoints\tsonneborn-berger\t{second}\tgames\tplayer")
    for row in view.rows:
        s = row.standing
        tie = s.buchholz if view.swiss else s.direct
        click.echo(f"{s.rank}\t{points_text(s.points)}\t{points_text(s.sonneborn_berger)}\t"
                   f"{points_text(tie)}\t{s.games}\t{row.name}"
                   + (" (withdrew)" if row.withdrawn else ""))
