"""The dashboard's tournament pages (create through the form, bad input, start, withdraw,
cancel) and the public standings pages (listed and unlisted), with the test client."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from flask.testing import FlaskClient
from sqlmodel import col, select

import pbem.ratelimit  # noqa: F401  (its table must be on the metadata the test databases use)
from pbem.db import Database
from pbem.models import GameRecord, GameStatus, OutboxEmail, Player, Seat
from pbem.services import PlayerSpec, Site, resign
from pbem.tournaments.service import (
    cancel_tournament,
    close_round,
    create_tournament,
    start_tournament,
    withdraw_player,
)
from pbem.tournaments.tables import Tournament, TournamentEntry, TournamentStatus
from tests.support import ADMIN_EMAIL, csrf_of

PLAYERS = "Ann <ann@example.test>\nbob@example.test\n\nCid Third <cid@example.test>\n" \
          "Dee <dee@example.test>"


def _form(client: FlaskClient, **changes: str) -> dict[str, str]:
    page = client.get("/admin/tournaments/new?game=mosey")
    assert page.status_code == 200
    return {"csrf_token": csrf_of(page.text), "game": "mosey", "name": "Autumn cup",
            "option-order": "4", "players": PLAYERS, "format": "round-robin", "rounds": "3",
            "table_size": "2", "time_control": "3d", "timeout_policy": "forfeit",
            "language": "en", "listed": "on", **changes}


def _tournaments(database: Database) -> list[Tournament]:
    with database.session() as session:
        return list(session.exec(select(Tournament)))


def test_an_organiser_creates_and_starts_a_tournament_through_the_dashboard(
        admin_client: FlaskClient, sqlite_database: Database) -> None:
    assert "Tournaments" in admin_client.get("/admin/").text  # the nav link
    created = admin_client.post("/admin/tournaments/new", data=_form(admin_client))
    assert created.status_code == 303, created.text
    [tournament] = _tournaments(sqlite_database)
    assert tournament.status == TournamentStatus.PENDING and tournament.created_by == ADMIN_EMAIL
    assert tournament.time_control is not None and tournament.timeout_policy == "forfeit"
    page = admin_client.get(created.location)
    assert page.status_code == 200 and "Cid Third" in page.text and "bob@example.test" in page.text
    with sqlite_database.session() as session:
        names = {p.email: p.name for p in session.exec(select(Player))}
    assert names["bob@example.test"] == "bob"  # a bare address: named after it
    started = admin_client.post("/admin/tournaments/start", data={
        "csrf_token": csrf_of(page.text), "tournament_id": tournament.id})
    assert started.status_code == 303
    page = admin_client.get(started.location)
    assert "Tournament started" in page.text and "Round 3" in page.text
    with sqlite_database.session() as session:
        games = session.exec(select(GameRecord)).all()
    assert len(games) == 6 and all(g.status == GameStatus.ACTIVE for g in games)
    assert "Autumn cup" in admin_client.get("/admin/tournaments").text


BAD_INPUT = [
    ({"name": ""}, "name", "give the tournament a name"),
    ({"players": "Ann <ann@example.test>\nnot an address"}, "players", "line 2"),
    ({"players": "ann@example.test\nANN@example.test"}, "players", "listed twice"),
    ({"players": "ann@example.test\nbot:easy"}, "players", "not the computer"),
    ({"players": "ann@example.test"}, "players", "at least two"),
    ({"rounds": "many"}, "rounds", "whole number"),
    ({"time_control": "soon"}, "time_control", ""),
    ({"format": "swiss", "rounds": "9"}, "form", "1 to 3 rounds"),
]


def test_bad_input_is_shown_next_to_its_field_and_nothing_is_made(
        admin_client: FlaskClient, sqlite_database: Database) -> None:
    for changes, field, message in BAD_INPUT:
        data = _form(admin_client, **changes)
        answer = admin_client.post("/admin/tournaments/new", data=data)
        assert answer.status_code == 422, changes
        assert f'id="{field}-error"' in answer.text and message in answer.text, changes
        kept = data["name"] or data["players"].splitlines()[0]
        assert kept.replace("<", "&lt;").replace(">", "&gt;") in answer.text  # typed, kept
        assert _tournaments(sqlite_database) == []


def test_an_unknown_game_and_a_missing_token_are_refused(
        admin_client: FlaskClient, sqlite_database: Database) -> None:
    assert admin_client.get("/admin/tournaments/new?game=chess").status_code == 404
    assert "Which game?" in admin_client.get("/admin/tournaments/new").text
    data = _form(admin_client)
    del data["csrf_token"]
    assert admin_client.post("/admin/tournaments/new", data=data).status_code == 400
    assert _tournaments(sqlite_database) == []


def test_the_dashboard_needs_an_organiser(client: FlaskClient) -> None:
    assert client.get("/admin/tournaments").status_code == 302
    assert client.post("/admin/tournaments/cancel").status_code in (302, 400)


def _started(database: Database, site: Site, *, listed: bool) -> Tournament:
    now = datetime.now(UTC)
    with database.write() as session:
        tournament = create_tournament(
            session, now, site, name="Listed" if listed else "Private", game_type="mosey",
            options={"order": 4}, fmt="round-robin", listed=listed,
            players=[PlayerSpec(n, f"{n.lower()}@example.test") for n in ("Ann", "Bob", "Cid")])
        assert tournament.id is not None
        start_tournament(session, now, site, tournament_id=tournament.id)
        session.expunge(tournament)
        return tournament


def test_withdrawing_and_cancelling_from_the_tournament_page(
        admin_client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    tournament = _started(sqlite_database, site, listed=True)
    page = admin_client.get(f"/admin/tournaments/{tournament.id}")
    with sqlite_database.session() as session:
        bob = session.exec(select(Player).where(Player.name == "Bob")).one()
    answer = admin_client.post("/admin/tournaments/withdraw", data={
        "csrf_token": csrf_of(page.text), "tournament_id": tournament.id, "player_id": bob.id})
    page = admin_client.get(answer.location)
    assert "has withdrawn" in page.text and "withdrew" in page.text
    with sqlite_database.session() as session:
        entry = session.exec(select(TournamentEntry).where(
            TournamentEntry.player_id == bob.id)).one()
        assert entry.withdrawn_at is not None
        assert len(session.exec(select(Seat).where(Seat.player_id == bob.id,
                                                   Seat.resigned == True)).all()) == 2  # noqa: E712
    again = admin_client.post("/admin/tournaments/withdraw", data={
        "csrf_token": csrf_of(page.text), "tournament_id": tournament.id, "player_id": bob.id})
    assert "already withdrawn" in admin_client.get(again.location).text
    answer = admin_client.post("/admin/tournaments/cancel", data={
        "csrf_token": csrf_of(page.text), "tournament_id": tournament.id, "reason": "a test"})
    assert "cancelled" in admin_client.get(answer.location).text
    assert _tournaments(sqlite_database)[0].status == TournamentStatus.CANCELLED
    # A tournament's status agrees with "torneo" (a game's and a challenge's with "partita",
    # "sfida"): the catalogs tell them apart by context.
    italian = admin_client.get("/tournaments", headers={"Accept-Language": "it"}).text
    assert "Tornei" in italian and "annullato" in italian and "annullata" not in italian
    assert admin_client.get("/admin/tournaments/999").status_code == 404
    assert admin_client.post("/admin/tournaments/start", data={
        "csrf_token": csrf_of(page.text), "tournament_id": 999}).status_code == 404


def test_standings_pages_public_and_unlisted(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    listed = _started(sqlite_database, site, listed=True)
    private = _started(sqlite_database, site, listed=False)
    with sqlite_database.write() as session:  # Ann beats Bob in the listed one
        game = session.exec(select(GameRecord).where(GameRecord.id == 1)).one()
        seats = session.exec(select(Seat).where(Seat.game_id == game.id)).all()
        players = {p.id: p.name for p in session.exec(select(Player))}
        loser = next(s.seat for s in seats if players[s.player_id] != "Cid")
        winner_name = next(players[s.player_id] for s in seats if s.seat != loser)
        assert game.id is not None
        resign(session, datetime.now(UTC), site, game_id=game.id, seat=loser)
    index = client.get("/tournaments")
    assert index.status_code == 200
    assert "Listed" in index.text and "Private" not in index.text
    assert private.slug not in index.text
    page = client.get(f"/tournaments/{listed.slug}")
    assert page.status_code == 200
    assert f"/g/{game.public_id}" in page.text  # the crosstable and the rounds link the game
    assert "Sonneborn-Berger" in page.text and "Direct encounter" in page.text
    assert "@example.test" not in page.text  # names only
    standings = page.text.split('class="standings')[1].split("</table>")[0]
    first = re.search(r"<tr><td[^>]*>1</td><td[^>]*>(?:<a [^>]*>)?([^<]+)(?:</a>)?</td>"
                      r"<td[^>]*>([^<]+)</td>",
                      standings)
    # Three players: everyone has a bye (a win) in one round; the game's winner leads with 2.
    assert first is not None and first.groups() == (winner_name, "2")
    assert client.get(f"/tournaments/{private.slug}").status_code == 200
    assert client.get("/tournaments/not-a-slug").status_code == 404
    assert client.get(f"/tournaments/{private.id}").status_code == 404
    with sqlite_database.session() as session:  # the players were told where the page is
        bodies = [m.text_body for m in session.exec(select(OutboxEmail).where(
            OutboxEmail.kind == "tournament_welcome"))]
    assert any(f"/tournaments/{private.slug}" in b for b in bodies)


def test_a_tournament_of_tables_through_the_dashboard(
        admin_client: FlaskClient, sqlite_database: Database) -> None:
    page = admin_client.get("/admin/tournaments/new?game=rifugio")
    assert page.status_code == 200
    assert 'name="option-players"' not in page.text  # each table's size sets it
    players = "\n".join(f"P{n} <p{n}@example.test>" for n in range(6))
    created = admin_client.post("/admin/tournaments/new", data={
        "csrf_token": csrf_of(page.text), "game": "rifugio", "name": "Tables", "players": players,
        "format": "swiss", "rounds": "2", "table_size": "3", "time_control": "3d",
        "language": "en"})
    assert created.status_code == 303, created.text
    [tournament] = _tournaments(sqlite_database)
    assert not tournament.listed  # the box was left unticked
    detail = admin_client.get(created.location)
    admin_client.post("/admin/tournaments/start", data={
        "csrf_token": csrf_of(detail.text), "tournament_id": tournament.id})
    with sqlite_database.session() as session:
        games = session.exec(select(GameRecord)).all()
        seats = session.exec(select(Seat)).all()
    assert len(games) == 2 and all(g.options["players"] == 3 for g in games)
    assert len(seats) == 6 and len({s.player_id for s in seats}) == 6


def test_a_close_round_form_sent_twice_closes_one_round(
        admin_client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    now = datetime.now(UTC)
    with sqlite_database.write() as session:
        tournament = create_tournament(
            session, now, site, name="Swiss", game_type="mosey", options={"order": 4},
            fmt="swiss", rounds=3,
            players=[PlayerSpec(n, f"{n.lower()}@example.test") for n in ("Ann", "Bob", "Cid",
                                                                          "Dee")])
        tournament_id = tournament.id
    page = admin_client.get(f"/admin/tournaments/{tournament_id}")
    start = {"csrf_token": csrf_of(page.text), "tournament_id": tournament_id}
    admin_client.post("/admin/tournaments/start", data=start)
    again = admin_client.post("/admin/tournaments/start", data=start)  # a stale start form
    assert "already started" in admin_client.get(again.location).text
    page = admin_client.get(f"/admin/tournaments/{tournament_id}")
    assert 'name="round" value="1"' in page.text
    form = {"csrf_token": csrf_of(page.text), "tournament_id": tournament_id, "round": 1}
    first = admin_client.post("/admin/tournaments/close-round", data=form)
    assert "Round closed" in admin_client.get(first.location).text
    with sqlite_database.session() as session:
        sent = len(session.exec(select(OutboxEmail)).all())
    second = admin_client.post("/admin/tournaments/close-round", data=form)  # double click
    assert "Round 1 is closed already." in admin_client.get(second.location).text
    with sqlite_database.session() as session:
        assert len(session.exec(select(OutboxEmail)).all()) == sent
        assert session.get(Tournament, tournament_id).current_round == 2  # type: ignore[union-attr]
        assert len(session.exec(select(GameRecord)).all()) == 4  # rounds 1 and 2 only
    no_round = admin_client.post("/admin/tournaments/close-round", data={
        "csrf_token": form["csrf_token"], "tournament_id": tournament_id})
    assert no_round.status_code == 400


def test_a_running_round_robin_shows_its_games_not_a_current_round(
        admin_client: FlaskClient, client: FlaskClient, sqlite_database: Database,
        site: Site) -> None:
    tournament = _started(sqlite_database, site, listed=True)  # three players: 3 rounds at once
    pages = [client.get(f"/tournaments/{tournament.slug}").text,
             client.get("/tournaments").text,
             admin_client.get("/admin/tournaments").text,
             admin_client.get(f"/admin/tournaments/{tournament.id}").text]
    assert all("all rounds under way" in text for text in pages)
    assert all("round 3 of 3" not in text and "3 / 3" not in text for text in pages)
    assert "0 of 3 games finished" in pages[0] and "0 of 3 games finished" in pages[3]


def _round_table(page: str) -> tuple[list[str], dict[str, int], dict[str, list[str]]]:
    """A Swiss page's table of rounds: its column headings, each row's rank (its heading) and
    each row's cells (their inner HTML, a list a round), by the row's player's name."""
    table = page.split('class="crosstable by-round stack">')[1].split("</table>")[0]
    head, body = table.split("<tbody>")
    rows = re.findall(r'<tr><th scope="row">(\d+)\. ([^<]+)</th>(.*?)</tr>', body)
    return (re.findall(r'<th scope="col">([^<]+)</th>', head),
            {name: int(rank) for rank, name, _ in rows},
            {name: re.findall(r"<td[^>]*>(.*?)</td>", cells) for _, name, cells in rows})


def _players_of(database: Database, game_id: int) -> list[str]:
    """The names at a game's table, in seat order."""
    with database.session() as session:
        seats = session.exec(select(Seat).where(Seat.game_id == game_id)
                             .order_by(col(Seat.seat))).all()
        names = {p.id: p.name for p in session.exec(select(Player))}
        return [names[s.player_id] for s in seats]


def _game_link(database: Database, game_id: int) -> str:
    with database.session() as session:
        game = session.get(GameRecord, game_id)
        assert game is not None
        return f'href="/g/{game.public_id}"'


def test_a_swiss_page_shows_each_players_rounds_not_a_crosstable(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    now = datetime.now(UTC)
    names = ("Ann", "Bob", "Cid", "Dee", "Eve")
    with sqlite_database.write() as session:
        tournament = create_tournament(
            session, now, site, name="Swiss", game_type="mosey", options={"order": 4},
            fmt="swiss", rounds=3, players=[PlayerSpec(n, f"{n.lower()}@example.test")
                                            for n in names])
        assert tournament.id is not None
        start_tournament(session, now, site, tournament_id=tournament.id)
        slug, tournament_id, byes = tournament.slug, tournament.id, dict(tournament.byes or {})
    [resting] = byes["1"]
    first_round = [1, 2]  # the game ids of round 1: its two tables
    tables = [_players_of(sqlite_database, game_id) for game_id in first_round]
    with sqlite_database.write() as session:  # the second seat resigns at each table
        for game_id in first_round:
            resign(session, now, site, game_id=game_id, seat=1)
    # Round 1 over, round 2 is paired (its bye counts already) and running.
    headings, rank, rows = _round_table(client.get(f"/tournaments/{slug}").text)
    assert headings == ["Player", "Round 1", "Round 2"]
    assert sum(len(cells) for cells in rows.values()) == len(names) * 2  # players x rounds
    for game_id, (winner, loser) in zip(first_round, tables, strict=True):
        link = _game_link(sqlite_database, game_id)
        assert rows[winner][0] == f'{rank[loser]}: <a {link}>1</a>'
        assert rows[loser][0] == f'{rank[winner]}: <a {link}>0</a>'
    with sqlite_database.session() as session:
        bye_name = session.get(Player, resting).name  # type: ignore[union-attr]
    assert rows[bye_name][0] == "bye"
    second_round = [3, 4]
    for game_id in second_round:
        link = _game_link(sqlite_database, game_id)
        one, other = _players_of(sqlite_database, game_id)
        assert rows[one][1] == f'{rank[other]}: <a {link}>playing</a>'
        assert rows[other][1] == f'{rank[one]}: <a {link}>playing</a>'

    # One player withdraws (their game is lost), the organiser closes round 2 with the other
    # game still running: round 3 is paired without the one who left, whose cell stays empty.
    leaver = _players_of(sqlite_database, second_round[0])[0]
    with sqlite_database.write() as session:
        player_id = session.exec(select(Player.id).where(Player.name == leaver)).one()
        assert player_id is not None
        withdraw_player(session, now, site, tournament_id=tournament_id, player_id=player_id,
                        actor="test")
        close_round(session, now, site, tournament_id=tournament_id, round_number=2,
                    actor="test")
    page = client.get(f"/tournaments/{slug}").text
    headings, rank, rows = _round_table(page)
    assert headings == ["Player", "Round 1", "Round 2", "Round 3"]
    assert sum(len(cells) for cells in rows.values()) == len(names) * 3
    winner = _players_of(sqlite_database, second_round[0])[1]
    link = _game_link(sqlite_database, second_round[0])
    assert rows[leaver][1] == f'{rank[winner]}: <a {link}>0</a>'
    assert rows[winner][1] == f'{rank[leaver]}: <a {link}>1</a>'
    assert rows[leaver][2] == ""
    assert sum(cell.endswith(">playing</a>") for cells in rows.values() for cell in cells) == 6
    assert 'class="crosstable stack"' not in page  # no table of every pair
    assert "Each cell gives the rank of the opponents met in that round" in page

    with sqlite_database.write() as session:  # the games still running are aborted
        cancel_tournament(session, now, site, tournament_id=tournament_id, actor="test")
    _, _, rows = _round_table(client.get(f"/tournaments/{slug}").text)
    assert sum(cell.endswith(">aborted</a>") for cells in rows.values() for cell in cells) == 6
    assert not any(cell.endswith(">playing</a>") for cells in rows.values() for cell in cells)


def test_a_swiss_of_tables_lists_every_opponent_in_a_cell(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    now = datetime.now(UTC)
    with sqlite_database.write() as session:
        tournament = create_tournament(
            session, now, site, name="Tables", game_type="rifugio", fmt="swiss", rounds=2,
            table_size=3, players=[PlayerSpec(f"P{n}", f"p{n}@example.test") for n in range(6)])
        assert tournament.id is not None
        start_tournament(session, now, site, tournament_id=tournament.id)
        slug = tournament.slug
    _, _, rows = _round_table(client.get(f"/tournaments/{slug}").text)
    # Nobody has a point yet: everyone is first, and meets two others who are first.
    assert sorted(rows) == [f"P{n}" for n in range(6)]
    assert all(re.fullmatch(r'1, 1: <a href="/g/[^"]+">playing</a>', cells[0])
               for cells in rows.values()), rows


def test_a_round_robin_page_keeps_the_crosstable_of_every_pair(
        client: FlaskClient, sqlite_database: Database, site: Site) -> None:
    tournament = _started(sqlite_database, site, listed=True)
    page = client.get(f"/tournaments/{tournament.slug}").text
    assert "by-round" not in page
    table = page.split('class="crosstable stack">')[1].split("</table>")[0]
    head, body = table.split("<tbody>")
    assert len(re.findall(r'<th scope="col">', head)) == 1 + 3  # "Player", then each player
    assert len(re.findall(r"<td[ >]", body)) == 3 * 3  # each pair, and oneself
