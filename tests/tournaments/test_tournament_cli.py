"""``pbem tournament list`` and ``pbem tournament standings``, on a migrated database."""

from __future__ import annotations

from datetime import datetime

from pbem.services import PlayerSpec, Site, resign
from pbem.tournaments.queries import games_of
from pbem.tournaments.service import create_tournament, start_tournament
from tests.support import Cli


def test_the_list_and_standings_commands(cli: Cli, site: Site, now: datetime) -> None:
    with cli.database.write() as session:
        tournament = create_tournament(
            session, now, site, name="Club night", game_type="mosey", options={"order": 4},
            fmt="round-robin", players=[PlayerSpec(n, f"{n}@example.test") for n in "ab"])
        assert tournament.id is not None
        tournament_id = tournament.id
        start_tournament(session, now, site, tournament_id=tournament_id)
        [game] = games_of(session, tournament_id)
        resign(session, now, site, game_id=game.game_id, seat=game.players.index(2))
    listed = cli("tournament", "list")
    assert listed.exit_code == 0, listed.output
    assert listed.output == f"{tournament_id}\tfinished\t1/1\tmosey\tClub night\n"
    shown = cli("tournament", "standings", str(tournament_id))
    assert shown.exit_code == 0, shown.output
    assert shown.output.splitlines()[1:] == ["1\t1\t0\t0\t1\ta", "2\t0\t0\t0\t1\tb"]
    missing = cli("tournament", "standings", "99")
    assert missing.exit_code != 0 and "no tournament 99" in missing.output
