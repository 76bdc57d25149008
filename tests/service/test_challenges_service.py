"""Challenges, open seeks and rematches as services (pbem.challenges.service and friends), on
SQLite and PostgreSQL: the game they make, who is told, the limits, expiry and cancelling."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.challenges.rematch import answer_rematch
from pbem.challenges.rules import (
    ChallengeRules,
    load_challenge_token,
    load_rematch_token,
    rules_from_config,
)
from pbem.challenges.seeks import SeatTaken, join_seek
from pbem.challenges.service import (
    answer_challenge,
    cancel_challenge,
    create_challenge,
    rematch_url,
)
from pbem.challenges.tables import Challenge, ChallengePlayer, ChallengeStatus
from pbem.clock.deadlines import clock_of
from pbem.db import Database
from pbem.errors import ServiceError
from pbem.models import GameRecord, GameStatus, OutboxEmail, Player, SeatStatus
from pbem.services import PlayerSpec, Site, resign
from pbem.services.common import seats_of
from tests.support import smallest_options, start_a_game, two_player_game

RULES = ChallengeRules(time_controls=("3d per move", "fischer"),
                       policies=("default", "forfeit"), days=7, max_open_challenges=2,
                       max_active_games=3)
ANN = "ann@example.test"
BOB = "bob@example.test"


def _player(database: Database, now: datetime, name: str, email: str) -> Player:
    with database.write() as session:
        player = Player(name=name, email=email, created_at=now)
        session.add(player)
        session.flush()
        session.refresh(player)
        session.expunge(player)
        return player


def _challenge(database: Database, now: datetime, site: Site, creator: Player, *,
               rules: ChallengeRules = RULES, **fields: Any) -> int:
    game = two_player_game()
    values: dict[str, Any] = {"game_type": game, "options": smallest_options(game),
                              "time_control": "3d per move", "timeout_policy": "default",
                              "invitees": [PlayerSpec("Bob", BOB)]}
    values.update(fields)
    with database.write() as session:
        me = session.get(Player, creator.id)
        assert me is not None
        row = create_challenge(session, now, site, rules, creator=me, **values)
        assert row.id is not None
        return row.id


def _emails(database: Database, kind: str, to: str | None = None) -> list[OutboxEmail]:
    query = select(OutboxEmail).where(OutboxEmail.kind == kind).order_by(col(OutboxEmail.id))
    if to:
        query = query.where(OutboxEmail.to_address == to)
    with database.session() as session:
        return list(session.exec(query))


def _row(database: Database, challenge_id: int) -> Challenge:
    with database.session() as session:
        row = session.get(Challenge, challenge_id)
        assert row is not None
        return row


def _lineup(database: Database, game_id: int) -> list[str]:
    with database.session() as session:
        return [session.get(Player, s.player_id).email  # type: ignore[union-attr]
                for s in seats_of(session, game_id)]


def test_an_accepted_invitation_starts_the_game(database: Database, now: datetime,
                                                site: Site) -> None:
    ann = _player(database, now, "Ann", ANN)
    challenge_id = _challenge(database, now, site, ann, seat_order="second",
                              time_control="fischer", timeout_policy="forfeit")
    [invitation] = _emails(database, "challenge_invitation")
    assert invitation.to_address == BOB and "Ann" in invitation.subject
    token = invitation.text_body.split("/challenge/")[1].split()[0]
    assert load_challenge_token(site, token)[0] == challenge_id
    bob_id = load_challenge_token(site, token)[1]
    assert _row(database, challenge_id).status == ChallengeStatus.OPEN
    with database.write() as session:
        answer_challenge(session, now, site, RULES, challenge_id=challenge_id,
                         player_id=bob_id, accept=True)
    row = _row(database, challenge_id)
    assert row.status == ChallengeStatus.STARTED and row.game_id is not None
    with database.session() as session:
        game = session.get(GameRecord, row.game_id)
        assert game is not None and game.status == GameStatus.ACTIVE
        clock = clock_of(session, row.game_id)
        assert clock.timeout_policy == "forfeit" and clock.time_control is not None
        assert clock.time_control["kind"] == "fischer"
        assert all(s.status == SeatStatus.ACCEPTED for s in seats_of(session, row.game_id))
    assert _lineup(database, row.game_id) == [BOB, ANN]  # Ann asked to sit second
    assert not _emails(database, "invitation")  # nobody is asked twice


def test_a_declined_invitation_closes_it_and_tells_the_creator(
    database: Database, now: datetime, site: Site,
) -> None:
    ann = _player(database, now, "Ann", ANN)
    challenge_id = _challenge(database, now, site, ann)
    with database.session() as session:
        bob = session.exec(select(Player).where(Player.email == BOB)).one()
    with database.write() as session:
        answer_challenge(session, now, site, RULES, challenge_id=challenge_id,
                         player_id=bob.id or 0, accept=False)
    assert _row(database, challenge_id).status == ChallengeStatus.DECLINED
    [told] = _emails(database, "challenge_closed")
    assert told.to_address == ANN and "Bob declined" in told.text_body
    with pytest.raises(ServiceError, match="declined"), database.write() as session:
        answer_challenge(session, now, site, RULES, challenge_id=challenge_id,
                         player_id=bob.id or 0, accept=True)


def test_only_approved_presets_and_known_players_when_sign_up_is_closed(
    database: Database, now: datetime, site: Site,
) -> None:
    ann = _player(database, now, "Ann", ANN)
    with pytest.raises(ServiceError, match="time controls"):
        _challenge(database, now, site, ann, time_control="1m per move")
    with pytest.raises(ServiceError, match="timeout policies"):
        _challenge(database, now, site, ann, timeout_policy="hold")
    closed = ChallengeRules(time_controls=RULES.time_controls, policies=RULES.policies,
                            signup="closed")
    with pytest.raises(ServiceError, match="takes no new players"):
        _challenge(database, now, site, ann, rules=closed)
    with database.session() as session:
        assert session.exec(select(Player).where(Player.email == BOB)).first() is None
        assert session.exec(select(Challenge)).first() is None


def test_a_computer_invitee_accepts_at_once(database: Database, now: datetime,
                                           site: Site) -> None:
    ann = _player(database, now, "Ann", ANN)
    challenge_id = _challenge(database, now, site, ann, invitees=[PlayerSpec(
        "Computer (easy)", "bot-easy@bots.pbem.invalid", bot_level="easy")])
    row = _row(database, challenge_id)
    assert row.status == ChallengeStatus.STARTED and row.game_id is not None
    with database.session() as session:
        game = session.get(GameRecord, row.game_id)
        assert game is not None and game.status == GameStatus.ACTIVE and not game.rated


def test_a_seek_starts_when_full_and_never_seats_anyone_twice(
    database: Database, now: datetime, site: Site,
) -> None:
    ann = _player(database, now, "Ann", ANN)
    bob = _player(database, now, "Bob", BOB)
    cat = _player(database, now, "Cat", "cat@example.test")
    challenge_id = _challenge(database, now, site, ann, invitees=[], seek=True)
    with pytest.raises(ServiceError, match="joined this seek already"), \
            database.write() as session:
        join_seek(session, now, site, RULES, challenge_id=challenge_id, player=ann)
    with database.write() as session:
        join_seek(session, now, site, RULES, challenge_id=challenge_id, player=bob)
    row = _row(database, challenge_id)
    assert row.status == ChallengeStatus.STARTED and row.game_id is not None
    assert _lineup(database, row.game_id) == [ANN, BOB]
    with pytest.raises(SeatTaken), database.write() as session:
        join_seek(session, now, site, RULES, challenge_id=challenge_id, player=cat)
    with database.session() as session:
        slots = session.exec(select(ChallengePlayer.slot).where(
            ChallengePlayer.challenge_id == challenge_id)).all()
    assert sorted(slots) == [0, 1]


def test_the_limits_on_open_challenges_and_games(database: Database, now: datetime,
                                                 site: Site) -> None:
    ann = _player(database, now, "Ann", ANN)
    for _ in range(RULES.max_open_challenges):
        _challenge(database, now, site, ann, invitees=[], seek=True)
    with pytest.raises(ServiceError, match="open challenges"):
        _challenge(database, now, site, ann, invitees=[], seek=True)
    game = two_player_game()
    for number in range(RULES.max_active_games):
        start_a_game(database, now, site, game, players=[
            PlayerSpec("Bob", BOB), PlayerSpec("X", f"x{number}@example.test")])
    cat = _player(database, now, "Cat", "cat@example.test")
    with pytest.raises(ServiceError, match="Bob already plays 3 games"):
        _challenge(database, now, site, cat)  # Bob is at the limit
    with database.session() as session:
        seek = session.exec(select(Challenge)).first()
        bob = session.exec(select(Player).where(Player.email == BOB)).one()
    assert seek is not None and seek.id is not None
    with pytest.raises(ServiceError, match="already plays 3 games"), \
            database.write() as session:
        join_seek(session, now, site, RULES, challenge_id=seek.id, player=bob)


def test_the_sweep_expires_what_nobody_took_up(database: Database, now: datetime,
                                               site: Site) -> None:
    from pbem.scheduler import sweep

    ann = _player(database, now, "Ann", ANN)
    challenge_id = _challenge(database, now, site, ann)
    sweep(database, now + timedelta(days=6), site)
    assert _row(database, challenge_id).status == ChallengeStatus.OPEN
    sweep(database, now + timedelta(days=7, seconds=1), site)
    assert _row(database, challenge_id).status == ChallengeStatus.EXPIRED
    [told] = _emails(database, "challenge_closed")
    assert told.to_address == ANN and "expired" in told.text_body
    with database.session() as session:
        bob = session.exec(select(Player).where(Player.email == BOB)).one()
    with pytest.raises(ServiceError, match="expired"), database.write() as session:
        answer_challenge(session, now + timedelta(days=8), site, RULES,
                         challenge_id=challenge_id, player_id=bob.id or 0, accept=True)


def test_cancel_by_the_creator_or_an_organiser_only(database: Database, now: datetime,
                                                   site: Site) -> None:
    ann = _player(database, now, "Ann", ANN)
    first = _challenge(database, now, site, ann)
    with database.session() as session:
        bob = session.exec(select(Player).where(Player.email == BOB)).one()
    with pytest.raises(ServiceError, match="only the player who made"), \
            database.write() as session:
        cancel_challenge(session, now, site, challenge_id=first, player_id=bob.id)
    with database.write() as session:
        cancel_challenge(session, now, site, challenge_id=first, player_id=ann.id)
    assert _row(database, first).status == ChallengeStatus.CANCELLED
    assert [e.to_address for e in _emails(database, "challenge_closed")] == [BOB]
    second = _challenge(database, now, site, ann)
    with database.write() as session:
        cancel_challenge(session, now, site, challenge_id=second, player_id=None,
                         admin="boss@example.test")
    told = _emails(database, "challenge_closed")[1:]
    assert sorted(e.to_address for e in told) == [ANN, BOB]
    assert "organisers cancelled" in told[0].text_body
    with pytest.raises(ServiceError, match="cancelled"), database.write() as session:
        cancel_challenge(session, now, site, challenge_id=second, player_id=ann.id)


def test_a_rematch_rotates_the_seats_and_starts_when_all_accept(
    database: Database, now: datetime, site: Site,
) -> None:
    game = two_player_game()
    options = smallest_options(game)
    game_id = start_a_game(database, now, site, game, options, players=[
        PlayerSpec("Ann", ANN), PlayerSpec("Bob", BOB)], rated=True)
    with database.session() as session:
        row = session.get(GameRecord, game_id)
        seats = seats_of(session, game_id)
    assert row is not None and rematch_url(site, row, seats[0]) is None  # still being played
    with database.write() as session:
        resign(session, now, site, game_id=game_id, seat=1)
    over = _emails(database, "game_over", to=ANN)[0]
    link = over.text_body.split("/rematch/")[1].split()[0]
    assert load_rematch_token(site, link) == (game_id, 0, seats[0].player_id)
    with database.write() as session:
        answer_rematch(session, now, site, RULES, game_id=game_id, seat=0,
                       player_id=seats[0].player_id)
    [offer] = _emails(database, "rematch_offer")
    assert offer.to_address == BOB and "/rematch/" in offer.text_body
    with database.write() as session:  # two presses of Ann's button make one rematch
        answer_rematch(session, now, site, RULES, game_id=game_id, seat=0,
                       player_id=seats[0].player_id)
    with database.write() as session:
        answer_rematch(session, now, site, RULES, game_id=game_id, seat=1,
                       player_id=seats[1].player_id)
    with database.session() as session:
        [challenge] = session.exec(select(Challenge)).all()
        assert challenge.status == ChallengeStatus.STARTED and challenge.game_id is not None
        new = session.get(GameRecord, challenge.game_id)
        assert new is not None and new.status == GameStatus.ACTIVE
        assert new.options == row.options and new.rated
        assert clock_of(session, challenge.game_id).time_control == clock_of(
            session, game_id).time_control
    assert _lineup(database, challenge.game_id) == [BOB, ANN]


def test_rules_come_from_the_configuration() -> None:
    rules = rules_from_config({"CHALLENGE_TIME_CONTROLS": "2d per move; fischer",
                               "CHALLENGE_POLICIES": "default, hold", "SIGNUP": "open",
                               "MAX_OPEN_CHALLENGES": "4"})
    assert rules.time_controls == ("2d per move", "fischer")
    assert rules.policies == ("default", "hold") and rules.signup == "open"
    assert rules.max_open_challenges == 4
    with pytest.raises(ValueError, match="TIME_CONTROLS"):
        rules_from_config({"CHALLENGE_TIME_CONTROLS": "soon"})
    with pytest.raises(ValueError, match="POLICIES"):
        rules_from_config({"CHALLENGE_POLICIES": "never"})
