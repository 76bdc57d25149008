"""A tournament's emails, fewer and in order (issue 33), on SQLite and PostgreSQL: its start is
one email per player listing their new games (with the move link where the first move is
theirs), a round's email says where the player stands, and the game over that closes a Swiss
round reaches its players before the next round's pairings, through a real SMTP server even
when the server defers the first.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from email import message_from_bytes
from email.header import decode_header, make_header

from sqlmodel import col, select

from pbem.db import Database
from pbem.mail.outbox import deliver_pending
from pbem.models import OutboxEmail, Player
from pbem.services import PlayerSpec, Site, resign
from pbem.tournaments.queries import games_of
from pbem.tournaments.service import create_tournament, start_tournament
from pbem.tournaments.tables import TournamentFormat
from tests.support import SmtpServer


def _start(database: Database, now: datetime, site: Site, fmt: str, letters: str, *,
           rounds: int = 0, languages: dict[str, str] | None = None
           ) -> tuple[int, dict[str, int]]:
    """A started tournament of Mosey (the smallest board); its id, the players' ids."""
    with database.write() as session:
        for letter, language in (languages or {}).items():
            session.add(Player(name=letter, email=f"{letter.lower()}@example.test",
                               created_at=now, language=language))
        session.flush()
        tournament = create_tournament(
            session, now, site, name="Spring cup", game_type="mosey", fmt=fmt, rounds=rounds,
            players=[PlayerSpec(x, f"{x.lower()}@example.test") for x in letters],
            options={"order": 4}, created_by="boss")
        assert tournament.id is not None
        start_tournament(session, now, site, tournament_id=tournament.id, actor="boss")
        ids = {p.name: p.id for p in session.exec(select(Player)) if p.id is not None}
        return tournament.id, ids


def _mail(database: Database, after: int = 0) -> list[OutboxEmail]:
    with database.session() as session:
        return list(session.exec(select(OutboxEmail).where(col(OutboxEmail.id) > after)
                                 .order_by(col(OutboxEmail.id))))


def _last_id(database: Database) -> int:
    return max((e.id or 0 for e in _mail(database)), default=0)


def _resign(database: Database, now: datetime, site: Site, tournament_id: int,
            winner: int, loser: int) -> None:
    with database.session() as session:
        game = next(g for g in games_of(session, tournament_id)
                    if set(g.players) == {winner, loser} and g.status == "active")
    with database.write() as session:
        resign(session, now, site, game_id=game.game_id, seat=game.players.index(loser))


def test_a_tournament_start_sends_each_player_one_email_listing_their_games(
        database: Database, now: datetime, site: Site) -> None:
    before_start = 4  # the welcomes
    _start(database, now, site, TournamentFormat.ROUND_ROBIN, "ABCD")
    started = _mail(database)[before_start:]
    # Six games start: no "Game started" nor "Your turn" from any of them, one email each.
    assert sorted(e.to_address for e in started) == [f"{x}@example.test" for x in "abcd"]
    assert {e.kind for e in started} == {"tournament_round"}
    move_links = 0
    for email in started:
        assert email.text_body.count(f"{site.links.base_url}/seat/") == 3  # their three games
        move_links += email.text_body.count("Your move: ")
    assert move_links == 6  # each game's first move, in the email of the player it is up to


def test_round_emails_give_the_players_score_and_standing(
        database: Database, now: datetime, site: Site) -> None:
    tournament_id, ids = _start(database, now, site, TournamentFormat.SWISS, "ABCD", rounds=3,
                                languages={"D": "nl"})
    first = _mail(database)
    assert not any("You have" in e.text_body for e in first)  # nothing to stand on yet
    with database.session() as session:
        games = games_of(session, tournament_id)
    # Round 1: the first seat of each table resigns.
    last = _last_id(database)
    for game in games:
        _resign(database, now, site, tournament_id, game.players[1], game.players[0])
    winners = {g.players[1] for g in games}
    pairings = [e for e in _mail(database, last) if e.kind == "tournament_round"]
    assert len(pairings) == 4
    names = {v: k for k, v in ids.items()}
    for email in pairings:
        me = ids[email.to_name]
        if email.to_name == "D":  # in Dutch
            said = ("Je hebt 1 punt, 1e van 4." if me in winners else
                    "Je hebt 0 punten, 3e van 4.")
        else:
            said = ("You have 1 point, 1st of 4." if me in winners else
                    "You have 0 points, 3rd of 4.")
        assert said in email.text_body, (names[me], email.text_body)
        assert said in email.html_body


def _decoded(raw: bytes) -> tuple[str, str]:
    message = message_from_bytes(raw)
    return str(message["To"]), str(make_header(decode_header(str(message["Subject"]))))


def test_the_game_over_that_closes_a_round_arrives_before_the_pairings(
        database: Database, now: datetime, site: Site, smtp_server: SmtpServer) -> None:
    tournament_id, ids = _start(database, now, site, TournamentFormat.SWISS, "ABCD", rounds=3)
    deliver_pending(database, smtp_server.settings(), now)
    with database.session() as session:
        games = games_of(session, tournament_id)
    _resign(database, now, site, tournament_id, games[0].players[1], games[0].players[0])
    deliver_pending(database, smtp_server.settings(), now)
    received = len(smtp_server.messages)
    last = games[1]
    # The round's last game ends: its game over, then round 2's pairings, are written at once.
    _resign(database, now, site, tournament_id, last.players[1], last.players[0])
    smtp_server.refuse = 1  # the first of them is deferred ("451, try again later")
    deliver_pending(database, smtp_server.settings(), now)
    deliver_pending(database, smtp_server.settings(), now + timedelta(minutes=5))
    got = [_decoded(m.raw) for m in smtp_server.messages[received:]]
    for player in last.players:
        address = next(e.to_address for e in _mail(database) if e.player_id == player)
        subjects = [subject for to, subject in got if address in to]
        assert [s.split(":")[0] for s in subjects] == ["Game over", "Tournament Spring cup"], \
            subjects
        assert "round 2" in subjects[1]
    assert all(e.status == "sent" for e in _mail(database))
    assert ids  # every player got their emails
