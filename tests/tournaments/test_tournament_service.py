"""Tournaments in the service, on SQLite and PostgreSQL: creation, the games a tournament makes,
Swiss rounds paired when the last game of a round ends, byes, withdrawals, closing a round,
cancelling, and standings checked against tables computed by hand.

Results are made the quickest ways a game really ends: a resignation (the other player wins) and
an organiser's adjudication with no winner (a draw); both pass through ``send_game_over``, which
calls the tournament.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlmodel import col, select

from pbem.admin.actions import adjudicate
from pbem.db import Database
from pbem.models import GameRecord, GameStatus, OutboxEmail, Player, Seat
from pbem.services import PlayerSpec, ServiceError, Site, resign
from pbem.tournaments.queries import TableGame, games_of, standings_view
from pbem.tournaments.service import (
    cancel_tournament,
    close_round,
    create_tournament,
    start_tournament,
    withdraw_player,
)
from pbem.tournaments.tables import Tournament, TournamentFormat, TournamentStatus

LETTERS = "ABCDEF"


def _make(database: Database, now: datetime, site: Site, count: int, fmt: str, *,
          rounds: int = 0, game_type: str = "mosey", table_size: int = 2,
          options: dict[str, object] | None = None) -> tuple[int, dict[str, int]]:
    """A started tournament of players A, B, ...; its id and the players' ids by letter."""
    specs = [PlayerSpec(letter, f"{letter.lower()}@example.test") for letter in LETTERS[:count]]
    with database.write() as session:
        tournament = create_tournament(
            session, now, site, name="Spring cup", game_type=game_type, players=specs, fmt=fmt,
            rounds=rounds, table_size=table_size,
            options=options if options is not None else {"order": 4}, created_by="boss")
        assert tournament.id is not None
        start_tournament(session, now, site, tournament_id=tournament.id, actor="boss")
        ids = {p.name: p.id for p in session.exec(select(Player))}
        return tournament.id, {k: v for k, v in ids.items() if v is not None}


def _games(database: Database, tournament_id: int) -> list[TableGame]:
    with database.session() as session:
        return games_of(session, tournament_id)


def _game(database: Database, tournament_id: int, a: int, b: int) -> TableGame:
    found = [g for g in _games(database, tournament_id) if set(g.players) == {a, b}
             and g.status == GameStatus.ACTIVE]
    assert len(found) == 1, found
    return found[0]


def _beats(database: Database, now: datetime, site: Site, tournament_id: int,
           winner: int, loser: int) -> None:
    game = _game(database, tournament_id, winner, loser)
    with database.write() as session:
        resign(session, now, site, game_id=game.game_id, seat=game.players.index(loser))


def _draw(database: Database, now: datetime, site: Site, tournament_id: int,
          a: int, b: int) -> None:
    game = _game(database, tournament_id, a, b)
    with database.write() as session:
        adjudicate(session, now, site, game_id=game.game_id, winners=[], reason="agreed",
                   actor="boss")


def _table(database: Database, tournament_id: int) -> list[tuple[object, ...]]:
    """(name, rank, points, Sonneborn-Berger, direct, Buchholz, games, byes) best first."""
    with database.session() as session:
        tournament = session.get(Tournament, tournament_id)
        assert tournament is not None
        view = standings_view(session, tournament)
    return [(r.name, r.standing.rank, r.standing.points, r.standing.sonneborn_berger,
             r.standing.direct, r.standing.buchholz, r.standing.games, r.standing.byes)
            for r in view.rows]


def _status(database: Database, tournament_id: int) -> Tournament:
    with database.session() as session:
        tournament = session.get(Tournament, tournament_id)
        assert tournament is not None
        return tournament


def _mail(database: Database, kind: str) -> list[OutboxEmail]:
    with database.session() as session:
        return list(session.exec(select(OutboxEmail).where(OutboxEmail.kind == kind)
                                 .order_by(col(OutboxEmail.id))))


def test_a_round_robin_makes_every_game_at_once_in_one_thread_per_player(
        database: Database, now: datetime, site: Site) -> None:
    tournament_id, ids = _make(database, now, site, 4, TournamentFormat.ROUND_ROBIN)
    games = _games(database, tournament_id)
    assert len(games) == 6 and {g.round for g in games} == {1, 2, 3}
    assert all(g.status == GameStatus.ACTIVE for g in games)  # nobody was asked to accept
    pairs = {frozenset(g.players) for g in games}
    assert len(pairs) == 6  # everyone meets everyone once
    for player in ids.values():  # seats balanced: first in one or two of three games
        assert sum(g.players[0] == player for g in games) in (1, 2)
    welcome, rounds = _mail(database, "tournament_welcome"), _mail(database, "tournament_round")
    assert sorted(m.to_address for m in welcome) == [f"{x}@example.test" for x in "abcd"]
    assert len(rounds) == 4
    thread = {m.to_address: m.message_id for m in welcome}
    assert all(m.in_reply_to == thread[m.to_address] for m in rounds)
    assert all(m.game_id is None for m in welcome + rounds)
    body = next(m for m in rounds if m.to_address == "a@example.test").text_body
    assert body.count(f"{site.links.base_url}/seat/") == 3 and "Round 3: against" in body
    with database.session() as session:  # the games count for ratings only when asked
        assert not any(g.rated for g in session.exec(select(GameRecord)))


def test_a_double_round_robin_meets_twice_with_seats_swapped(
        database: Database, now: datetime, site: Site) -> None:
    tournament_id, _ = _make(database, now, site, 3, TournamentFormat.DOUBLE_ROUND_ROBIN)
    games = _games(database, tournament_id)
    assert len(games) == 6 and _status(database, tournament_id).rounds == 6
    assert sorted(g.players for g in games) == sorted(g.players[::-1] for g in games)
    byes = _status(database, tournament_id).byes or {}
    assert len(byes) == 6 and sorted(p for b in byes.values() for p in b) == [1, 1, 2, 2, 3, 3]


def test_a_withdrawal_before_the_start_leaves_the_player_out(
        database: Database, now: datetime, site: Site) -> None:
    specs = [PlayerSpec(x, f"{x.lower()}@example.test") for x in "ABCD"]
    with database.write() as session:
        tournament = create_tournament(session, now, site, name="Cup", game_type="mosey",
                                       players=specs, fmt=TournamentFormat.ROUND_ROBIN,
                                       options={"order": 4})
        assert tournament.id is not None
        tournament_id = tournament.id
        d = session.exec(select(Player).where(Player.name == "D")).one().id
        assert d is not None
        withdraw_player(session, now, site, tournament_id=tournament_id, player_id=d,
                        actor="boss")
        start_tournament(session, now, site, tournament_id=tournament_id)
    games = _games(database, tournament_id)
    assert len(games) == 3 and all(d not in g.players for g in games)
    assert [m.to_address for m in _mail(database, "tournament_round")
            if m.to_address == "d@example.test"] == []
    [told] = _mail(database, "tournament_withdrawn")
    assert told.to_address == "d@example.test" and "before it started" in told.text_body


def test_round_robin_standings_match_a_table_computed_by_hand(
        database: Database, now: datetime, site: Site) -> None:
    tournament_id, p = _make(database, now, site, 4, TournamentFormat.ROUND_ROBIN)
    a, b, c, d = p["A"], p["B"], p["C"], p["D"]
    _beats(database, now, site, tournament_id, a, b)
    _draw(database, now, site, tournament_id, a, c)
    _beats(database, now, site, tournament_id, d, a)
    _beats(database, now, site, tournament_id, b, c)
    _beats(database, now, site, tournament_id, b, d)
    assert _status(database, tournament_id).status == TournamentStatus.RUNNING
    assert _mail(database, "tournament_standings") == []
    _draw(database, now, site, tournament_id, c, d)
    # Points: B 2, A 1.5, D 1.5, C 1. Sonneborn-Berger: A = 1x2 + .5x1 = 2.5, D = 1x1.5 +
    # .5x1 = 2, B = 1x1 + 1x1.5 = 2.5, C = .5x1.5 + .5x1.5 = 1.5. Direct (A, D tied): D 1, A 0.
    assert [row[:5] for row in _table(database, tournament_id)] == [
        ("B", 1, 2.0, 2.5, 0.0), ("A", 2, 1.5, 2.5, 0.0), ("D", 3, 1.5, 2.0, 1.0),
        ("C", 4, 1.0, 1.5, 0.0)]
    assert _status(database, tournament_id).status == TournamentStatus.FINISHED
    final = _mail(database, "tournament_standings")
    assert len(final) == 4 and "final standings" in final[0].subject
    assert "1. B: points 2, games 3" in final[0].text_body


def test_direct_encounter_breaks_a_tie_that_sonneborn_berger_leaves(
        database: Database, now: datetime, site: Site) -> None:
    tournament_id, p = _make(database, now, site, 3, TournamentFormat.ROUND_ROBIN)
    a, b, c = p["A"], p["B"], p["C"]
    _beats(database, now, site, tournament_id, b, a)
    _beats(database, now, site, tournament_id, a, c)
    _beats(database, now, site, tournament_id, c, b)
    # Everyone 2 points (a win and a bye), SB 2 each (each beat a 2-point player): a tie;
    # direct encounter among the three is 1 each too: equal ranks. A bye is in no tie-break.
    rows = _table(database, tournament_id)
    assert {row[1] for row in rows} == {1} and {row[2:5] for row in rows} == {(2.0, 2.0, 1.0)}
    assert {row[7] for row in rows} == {1}


def test_swiss_pairs_the_next_round_when_the_last_game_ends_with_byes(
        database: Database, now: datetime, site: Site) -> None:
    tournament_id, p = _make(database, now, site, 5, TournamentFormat.SWISS, rounds=2)
    a, b, c, d, e = (p[x] for x in "ABCDE")
    first = _games(database, tournament_id)
    assert sorted(g.players for g in first) == [(a, b), (c, d)]
    assert _status(database, tournament_id).byes == {"1": [e]}  # the lowest seeded
    _beats(database, now, site, tournament_id, a, b)
    assert len(_games(database, tournament_id)) == 2  # the round is not over yet
    later = now + timedelta(hours=1)
    _draw(database, later, site, tournament_id, c, d)
    second = [g for g in _games(database, tournament_id) if g.round == 2]
    # Ranking A 1, E 1 (bye), C .5, D .5, B 0: B gets the bye; A meets C since C-D would
    # repeat; seats go to whoever had the first seat less.
    assert sorted(g.players for g in second) == [(a, c), (d, e)]
    tournament = _status(database, tournament_id)
    assert tournament.byes == {"1": [e], "2": [b]} and tournament.current_round == 2
    round_two = [m for m in _mail(database, "tournament_round") if "round 2" in m.subject]
    assert len(round_two) == 5 and all(m.in_reply_to for m in round_two)
    # A bye has no game to send turn emails: its email says what comes next instead.
    rounds = {(m.subject[-1], m.to_address[0]): m.text_body
              for m in _mail(database, "tournament_round")}
    assert "Each game sends you its turn emails" in rounds["1", "a"]
    assert "Each game sends you" not in rounds["1", "e"]
    assert "this round. You will get an email when the next round is paired" in rounds["1", "e"]
    assert "Each game sends you" not in rounds["2", "b"]
    assert "You will get the final standings" in rounds["2", "b"]
    _beats(database, later, site, tournament_id, c, a)
    _beats(database, later, site, tournament_id, e, d)
    # Points E 2, C 1.5, A 1, B 1 (bye), D .5. Buchholz (games only): E .5, C .5+1 = 1.5,
    # A 0... B's 1 + C's 1.5 = 2.5, B 1, D 1.5+2 = 3.5; A and B tied on 1: Buchholz decides.
    assert [(r[0], r[1], r[2], r[5], r[3]) for r in _table(database, tournament_id)] == [
        ("E", 1, 2.0, 0.5, 0.5), ("C", 2, 1.5, 1.5, 1.25), ("A", 3, 1.0, 2.5, 1.0),
        ("B", 4, 1.0, 1.0, 0.0), ("D", 5, 0.5, 3.5, 0.75)]
    assert _status(database, tournament_id).status == TournamentStatus.FINISHED
    assert len(_mail(database, "tournament_standings")) == 5


def test_a_withdrawal_forfeits_the_remaining_games_and_standings_stay_right(
        database: Database, now: datetime, site: Site) -> None:
    tournament_id, p = _make(database, now, site, 4, TournamentFormat.ROUND_ROBIN)
    a, b, c, d = p["A"], p["B"], p["C"], p["D"]
    _beats(database, now, site, tournament_id, d, a)  # D's one played game: a win
    with database.write() as session:
        withdraw_player(session, now, site, tournament_id=tournament_id, player_id=d,
                        actor="boss")
    games = _games(database, tournament_id)
    of_d = [g for g in games if d in g.players]
    assert all(g.status == GameStatus.FINISHED for g in of_d)
    with database.session() as session:
        resigned = session.exec(select(Seat).where(Seat.player_id == d,
                                                   Seat.resigned == True)).all()  # noqa: E712
    assert len(resigned) == 2  # the two games still running, forfeited
    [told] = _mail(database, "tournament_withdrawn")
    [welcome] = [m for m in _mail(database, "tournament_welcome")
                 if m.to_address == "d@example.test"]
    assert told.to_address == "d@example.test" and told.in_reply_to == welcome.message_id
    assert "remaining games were forfeited; your finished games still count" in told.text_body
    _beats(database, now, site, tournament_id, a, b)
    _beats(database, now, site, tournament_id, a, c)
    _draw(database, now, site, tournament_id, b, c)
    rows = {r[0]: r for r in _table(database, tournament_id)}
    # A 2 (lost to D), B 1.5, C 1.5, D 1: D's win over A still counts for D and against A.
    assert {k: v[2] for k, v in rows.items()} == {"A": 2.0, "B": 1.5, "C": 1.5, "D": 1.0}
    assert all(r[6] == 3 for r in rows.values())
    with database.session() as session:
        tournament = session.get(Tournament, tournament_id)
        assert tournament is not None
        view = standings_view(session, tournament)
    assert [r.name for r in view.rows if r.withdrawn] == ["D"]
    assert _status(database, tournament_id).status == TournamentStatus.FINISHED
    with pytest.raises(ServiceError), database.write() as session:
        withdraw_player(session, now, site, tournament_id=tournament_id, player_id=d,
                        actor="boss")


def test_a_withdrawn_player_is_left_out_of_later_swiss_rounds(
        database: Database, now: datetime, site: Site) -> None:
    tournament_id, p = _make(database, now, site, 4, TournamentFormat.SWISS, rounds=3)
    a, b, c, d = p["A"], p["B"], p["C"], p["D"]
    _beats(database, now, site, tournament_id, a, b)
    with database.write() as session:  # D's game against C is forfeited: the round ends
        withdraw_player(session, now, site, tournament_id=tournament_id, player_id=d,
                        actor="boss")
    second = [g for g in _games(database, tournament_id) if g.round == 2]
    assert len(second) == 1 and set(second[0].players) == {a, c}
    assert _status(database, tournament_id).byes == {"2": [b]}
    round_two = [m.to_address for m in _mail(database, "tournament_round")
                 if "round 2" in m.subject]
    assert "d@example.test" not in round_two and len(round_two) == 3


def test_closing_a_round_pairs_the_next_and_running_games_still_count(
        database: Database, now: datetime, site: Site) -> None:
    tournament_id, p = _make(database, now, site, 4, TournamentFormat.SWISS, rounds=2)
    a, b, c, d = p["A"], p["B"], p["C"], p["D"]
    _beats(database, now, site, tournament_id, a, b)  # C-D still running
    with database.write() as session:
        close_round(session, now, site, tournament_id=tournament_id, round_number=1,
                    actor="boss")
    second = [g for g in _games(database, tournament_id) if g.round == 2]
    assert sorted(frozenset(g.players) for g in second) in (
        sorted([frozenset({a, c}), frozenset({b, d})]),
        sorted([frozenset({a, d}), frozenset({b, c})]))
    with pytest.raises(ServiceError, match="last round"), database.write() as session:
        close_round(session, now, site, tournament_id=tournament_id, round_number=2,
                    actor="boss")
    for game in second:
        with database.write() as session:
            resign(session, now, site, game_id=game.game_id, seat=1)
    assert _status(database, tournament_id).status == TournamentStatus.RUNNING  # C-D plays on
    _beats(database, now, site, tournament_id, c, d)
    assert _status(database, tournament_id).status == TournamentStatus.FINISHED
    assert {r[0]: r[6] for r in _table(database, tournament_id)} == {
        "A": 2, "B": 2, "C": 2, "D": 2}


def test_closing_a_round_already_closed_is_refused(
        database: Database, now: datetime, site: Site) -> None:
    tournament_id, _ = _make(database, now, site, 4, TournamentFormat.SWISS, rounds=3)
    with database.write() as session:
        close_round(session, now, site, tournament_id=tournament_id, round_number=1,
                    actor="boss")
    sent = len(_mail(database, "tournament_round"))
    with pytest.raises(ServiceError, match="Round 1 is closed already"), \
            database.write() as session:
        close_round(session, now, site, tournament_id=tournament_id, round_number=1,
                    actor="boss")
    assert _status(database, tournament_id).current_round == 2
    assert {g.round for g in _games(database, tournament_id)} == {1, 2}
    assert len(_mail(database, "tournament_round")) == sent


def test_cancelling_aborts_the_running_games_and_tells_everyone(
        database: Database, now: datetime, site: Site) -> None:
    tournament_id, p = _make(database, now, site, 4, TournamentFormat.ROUND_ROBIN)
    _beats(database, now, site, tournament_id, p["A"], p["B"])
    with database.write() as session:
        cancel_tournament(session, now, site, tournament_id=tournament_id, actor="boss",
                          reason="server move")
    games = _games(database, tournament_id)
    assert sorted(g.status for g in games) == [GameStatus.ABORTED] * 5 + [GameStatus.FINISHED]
    assert _status(database, tournament_id).status == TournamentStatus.CANCELLED
    told = _mail(database, "tournament_standings")
    assert len(told) == 4 and all("cancelled" in m.subject for m in told)
    assert {r[0]: r[2] for r in _table(database, tournament_id)} == {
        "A": 1.0, "B": 0.0, "C": 0.0, "D": 0.0}
    with pytest.raises(ServiceError), database.write() as session:
        cancel_tournament(session, now, site, tournament_id=tournament_id, actor="boss")


def test_rifugio_plays_swiss_rounds_at_tables_of_three(
        database: Database, now: datetime, site: Site) -> None:
    tournament_id, _ = _make(database, now, site, 6, TournamentFormat.SWISS, rounds=2,
                             game_type="rifugio", table_size=3, options={})
    games = _games(database, tournament_id)
    assert len(games) == 2 and all(len(g.players) == 3 for g in games)
    with database.session() as session:
        rows = [session.get(GameRecord, g.game_id) for g in games]
    assert all(r is not None and r.options["players"] == 3 for r in rows)


def test_a_withdrawal_at_a_table_of_three_leaves_the_others_playing(
        database: Database, now: datetime, site: Site) -> None:
    """The withdrawn player's seat is played to the end by the computer; a game they had
    already resigned is left as it is, and the withdrawal still goes through."""
    tournament_id, _ = _make(database, now, site, 6, TournamentFormat.SWISS, rounds=2,
                             game_type="rifugio", table_size=3, options={})
    first, second = _games(database, tournament_id)
    resigner, plain = first.players[0], second.players[0]

    def seat_of(game_id: int, player_id: int) -> Seat:
        with database.session() as session:
            return session.exec(select(Seat).where(Seat.game_id == game_id,
                                                   Seat.player_id == player_id)).one()

    with database.write() as session:
        resign(session, now, site, game_id=first.game_id,
               seat=seat_of(first.game_id, resigner).seat)
    for player_id in (resigner, plain):
        with database.write() as session:
            withdraw_player(session, now, site, tournament_id=tournament_id,
                            player_id=player_id, actor="boss")
    with database.session() as session:
        rows = [session.get(GameRecord, g.game_id) for g in (first, second)]
    assert all(r is not None and r.status == GameStatus.ACTIVE for r in rows)
    assert seat_of(second.game_id, plain).stand_in == "resigned"
    assert _status(database, tournament_id).status == TournamentStatus.RUNNING


BAD = [
    ({"fmt": TournamentFormat.SWISS, "rounds": 4}, "1 to 3 rounds"),
    ({"fmt": "knockout"}, "choose one of"),
    ({"table_size": 3}, "played by two"),
    ({"game_type": "rifugio", "table_size": 3, "options": {}}, "Swiss format"),
    ({"game_type": "rifugio", "table_size": 3, "options": {}, "fmt": TournamentFormat.SWISS,
      "rounds": 1, "players": [PlayerSpec(x, f"{x}@example.test") for x in "abcde"]},
     "5 players cannot sit at tables of 3 to 3"),
    ({"players": [PlayerSpec("A", "a@example.test"), PlayerSpec("B", "A@example.test")]},
     "own email address"),
    ({"players": [PlayerSpec("A", "a@example.test")]}, "at least two"),
    ({"players": [PlayerSpec("A", "a@example.test"), PlayerSpec("Computer", "bot@x.test",
                                                                "easy")]}, "for people"),
    ({"name": "   "}, "name"),
    ({"game_type": "chess"}, "chess"),
]


def test_bad_tournaments_are_refused_and_nothing_is_kept(
        database: Database, now: datetime, site: Site) -> None:
    for change, problem in BAD:  # one database per backend for every case: keeps it quick
        args: dict[str, object] = {
            "name": "Cup", "game_type": "mosey", "fmt": TournamentFormat.ROUND_ROBIN,
            "options": {"order": 4},
            "players": [PlayerSpec(x, f"{x.lower()}@example.test") for x in "ABCD"], **change}
        with pytest.raises(ServiceError, match=problem), database.write() as session:
            create_tournament(session, now, site, **args)  # type: ignore[arg-type]
        with database.session() as session:
            assert session.exec(select(Tournament)).all() == [], change
            assert session.exec(select(Player)).all() == [], change
