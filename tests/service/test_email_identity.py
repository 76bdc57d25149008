"""Every email the outbox gets stays the same, byte for byte, while the code behind it moves.

A fixed story is played through the services' own code paths at fixed times, with the random
choices of the server (game seeds, public ids) made reproducible: for every game of the catalogue
an invitation, a start, a few moves (turns and updates in the players' own languages), a
resignation (game over, rematch links); a game on the clock (a reminder, a timeout); a declined
invitation (the organiser's alert) and an abort; a tournament (welcome, rounds, a withdrawal,
standings); challenges (invitation, decline, cancel) and a rematch offer. The SHA-256 of each
email's subject, text and HTML is compared with ``email_identity.json`` beside this file, and
a difference names the email.

Regenerate the stored values, after a change that is meant to change emails, with::

    PBEM_REGENERATE_EMAIL_IDENTITY=1 .venv/bin/python -m pytest -q -p no:cacheprovider \\
        tests/service/test_email_identity.py
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
import secrets
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import col, select

import engine
from pbem.admin.actions import adjudicate, replace_player
from pbem.challenges.rematch import answer_rematch
from pbem.challenges.rules import ChallengeRules
from pbem.challenges.service import answer_challenge, cancel_challenge, create_challenge
from pbem.db import Database
from pbem.models import GameRecord, GameStatus, OutboxEmail, Player
from pbem.positions import current_state
from pbem.services import (
    PlayerSpec,
    Site,
    abort_game,
    create_game,
    resign,
    respond_to_invitation,
    submit_move,
)
from pbem.services.common import seats_of
from pbem.services.timeouts import handle_due_game
from pbem.tournaments.service import (
    create_tournament,
    start_tournament,
    withdraw_player,
)
from pbem.tournaments.tables import TournamentGame
from tests.support import smallest_options

STORED = Path(__file__).with_name("email_identity.json")
REGENERATE = "PBEM_REGENERATE_EMAIL_IDENTITY"
LANGUAGES = ("en", "nl", "de", "it")
RULES = ChallengeRules(time_controls=("3d per move",), policies=("default",), days=7,
                       max_open_challenges=5, max_active_games=20)


@pytest.fixture(autouse=True)
def reproducible_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeds and public ids drawn in order from a counter, so links and boards repeat."""
    counter = itertools.count()
    monkeypatch.setattr(secrets, "token_hex", lambda n=16: f"{next(counter):0{2 * n}x}")
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n=12: f"id{next(counter):0{n}d}")
    monkeypatch.setattr(secrets, "randbits", lambda k: next(counter))


def people(count: int, prefix: str) -> list[PlayerSpec]:
    return [PlayerSpec(f"{prefix}{n}", f"{prefix.lower()}{n}@example.test",
                       language=LANGUAGES[n % len(LANGUAGES)]) for n in range(count)]


def play_a_few(database: Database, now: datetime, site: Site, game_id: int, plies: int) -> None:
    """``plies`` moves chosen by a generator seeded by the ply, each as its player would type it."""
    for _ in range(plies):
        with database.write() as session:
            row = session.get(GameRecord, game_id)
            assert row is not None
            if row.status != GameStatus.ACTIVE or row.to_move is None:
                return
            game, state = current_state(row)
            move = game.random_move(state, random.Random(row.ply))
            submit_move(session, now, site, game_id=game_id, seat=row.to_move, ply=row.ply,
                        text=str(move), note=f"note at {row.ply}")


def resign_to_move(database: Database, now: datetime, site: Site, game_id: int) -> None:
    """The player to move resigns, if the game is still running."""
    with database.write() as session:
        row = session.get(GameRecord, game_id)
        assert row is not None
        if row.status == GameStatus.ACTIVE:
            resign(session, now, site, game_id=game_id, seat=row.to_move or 0)


def every_game(database: Database, now: datetime, site: Site) -> None:
    """Each game with its smallest options, then Rifugio of three whose players want updates."""
    plays = [(game_type, smallest_options(game_type)) for game_type in engine.GAMES]
    if "rifugio" in engine.GAMES:
        plays.append(("rifugio", {"players": 3}))
    for number, (game_type, options) in enumerate(plays):
        count = engine.new_game(game_type, **options).num_players
        with database.write() as session:
            row = create_game(session, now, site, game_type=game_type, options=options,
                              players=people(count, f"G{number}x"), rated=count == 2,
                              organiser=PlayerSpec("Org", "org@example.test"))
            assert row.id is not None
            game_id = row.id
            for seat in seats_of(session, game_id):
                player = session.get(Player, seat.player_id)
                assert player is not None
                player.notify_updates = count > 2
                session.add(player)
        for seat in range(count):
            with database.write() as session:
                respond_to_invitation(session, now, site, game_id=game_id, seat=seat,
                                      accept=True)
        play_a_few(database, now, site, game_id, 4)
        resign_to_move(database, now, site, game_id)
        if count > 2:
            with database.write() as session:
                row = session.get(GameRecord, game_id)
                assert row is not None
                if row.status == GameStatus.ACTIVE:
                    adjudicate(session, now, site, game_id=game_id, winners=[0],
                               reason="agreed", actor="org@example.test")


def clock_and_organiser(database: Database, now: datetime, site: Site) -> None:
    game_type = next(iter(engine.GAMES))
    options = smallest_options(game_type)
    count = engine.new_game(game_type, **options).num_players
    with database.write() as session:
        row = create_game(session, now, site, game_type=game_type, options=options,
                          players=people(count, "Clk"), per_move=timedelta(days=1),
                          organiser=PlayerSpec("Org", "org@example.test"), accepted=[
                              p.email for p in people(count, "Clk")])
        assert row.id is not None and row.status == GameStatus.ACTIVE
        game_id = row.id
    for hours in (23, 25):
        with database.write() as session:
            row = session.get(GameRecord, game_id)
            assert row is not None
            handle_due_game(session, now + timedelta(hours=hours), site, game_id, row.ply)
    with database.write() as session:  # a declined invitation, a replacement and an abort
        row = create_game(session, now, site, game_type=game_type, options=options,
                          players=people(count, "Dec"),
                          organiser=PlayerSpec("Org", "org@example.test"))
        assert row.id is not None
        declined = row.id
    with database.write() as session:
        respond_to_invitation(session, now, site, game_id=declined, seat=0, accept=False)
    with database.write() as session:
        replace_player(session, now, site, game_id=declined, seat=0,
                       new_player=PlayerSpec("Newcomer", "new@example.test", language="de"),
                       actor="org@example.test")
    with database.write() as session:
        abort_game(session, now, site, game_id=declined, reason="no quorum")


def a_tournament(database: Database, now: datetime, site: Site) -> None:
    with database.write() as session:
        tournament = create_tournament(
            session, now, site, name="Spring cup", game_type="mosey", players=people(4, "T"),
            fmt="swiss", rounds=2, table_size=2, options={"order": 4}, created_by="boss")
        assert tournament.id is not None
        tournament_id = tournament.id
        start_tournament(session, now, site, tournament_id=tournament_id, actor="boss")
    with database.session() as session:
        running = list(session.exec(
            select(TournamentGame.game_id).where(TournamentGame.tournament_id == tournament_id)
            .order_by(col(TournamentGame.game_id))))
    for game_id in running:
        play_a_few(database, now, site, game_id, 2)
        with database.write() as session:
            resign(session, now, site, game_id=game_id, seat=1)
    with database.session() as session:
        quitter = session.exec(select(Player).where(Player.email == "t3@example.test")).one()
    assert quitter.id is not None
    with database.write() as session:
        withdraw_player(session, now, site, tournament_id=tournament_id, player_id=quitter.id,
                        actor="boss")


def challenges(database: Database, now: datetime, site: Site) -> None:
    game_type = next(g for g, info in engine.GAMES.items() if info.min_players <= 2)
    options = smallest_options(game_type)
    with database.write() as session:
        ann = Player(name="Ann", email="ann@example.test", created_at=now, language="it")
        session.add(ann)
        session.flush()
        ids = []
        for invitee in ("Bob", "Cid", "Dee"):
            made = create_challenge(session, now, site, RULES, creator=ann, game_type=game_type,
                                    options=options, time_control="3d per move",
                                    timeout_policy="default",
                                    invitees=[PlayerSpec(invitee, f"{invitee}@example.test",
                                                         language="nl")])
            ids.append(made.id)
        ann_id = ann.id
    assert ann_id is not None

    def player_id(email: str) -> int:
        with database.session() as session:
            found = session.exec(select(Player).where(Player.email == email)).one().id
            assert found is not None
            return found

    with database.write() as session:
        accepted = answer_challenge(session, now, site, RULES, challenge_id=ids[0] or 0,
                                    player_id=player_id("bob@example.test"), accept=True)
        game_id = accepted.game_id
    with database.write() as session:
        answer_challenge(session, now, site, RULES, challenge_id=ids[1] or 0,
                         player_id=player_id("cid@example.test"), accept=False)
    with database.write() as session:
        cancel_challenge(session, now, site, challenge_id=ids[2] or 0, player_id=ann_id)
    assert game_id is not None
    play_a_few(database, now, site, game_id, 3)
    resign_to_move(database, now, site, game_id)
    with database.write() as session:
        seats = seats_of(session, game_id)
        answer_rematch(session, now, site, RULES, game_id=game_id, seat=0,
                       player_id=seats[0].player_id)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def outbox_digests(database: Database) -> dict[str, dict[str, str]]:
    """Each email, named by its place, kind and recipient: the digests of its three parts."""
    with database.session() as session:
        emails = session.exec(select(OutboxEmail).order_by(col(OutboxEmail.id))).all()
        return {f"{n:04d} {e.kind} to {e.to_address}": {
            "subject": digest(e.subject), "text": digest(e.text_body), "html": digest(e.html_body)}
            for n, e in enumerate(emails)}


def test_every_email_is_as_stored(sqlite_database: Database, now: datetime, site: Site) -> None:
    for story in (every_game, clock_and_organiser, a_tournament, challenges):
        story(sqlite_database, now, site)
    found = outbox_digests(sqlite_database)
    if os.environ.get(REGENERATE):
        STORED.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    stored = json.loads(STORED.read_text())
    kinds = {name.split()[1] for name in found}
    assert {"invitation", "notice", "turn", "update", "game_over", "reminder", "clock",
            "tournament_welcome", "tournament_round", "tournament_withdrawn",
            "challenge_invitation", "challenge_closed", "rematch_offer"} <= kinds, kinds
    differing = [
        f"{name}: {', '.join(p for p, d in parts.items() if stored.get(name, {}).get(p) != d)}"
        for name, parts in found.items() if stored.get(name) != parts]
    missing = sorted(set(stored) - set(found))
    assert not differing and not missing, (
        f"emails that differ from {STORED.name} (set {REGENERATE}=1 to accept a meant change):\n"
        + "\n".join(differing + [f"{name}: no longer sent" for name in missing]))
