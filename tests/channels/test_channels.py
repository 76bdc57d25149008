"""A player's other channels (pbem.channels): addresses checked, sealed and shown masked; a
message queued with each turn notice, reminder and game-over email for the channels that want
it; delivered to a real HTTP server on the loopback through Apprise, with the outbox's retries.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import col, select

from pbem.channels.delivery import deliver_channels
from pbem.channels.messages import GAME_OVER, REMINDER, TURN
from pbem.channels.service import (
    MAX_CHANNELS,
    NoSuchChannel,
    TooManyChannels,
    add_channel,
    follow,
    remove_channel,
    try_channel,
)
from pbem.channels.tables import ChannelMessage, PlayerChannel
from pbem.channels.urls import (
    SERVICES,
    ChannelRefused,
    UnreadableChannel,
    check_channel_url,
    unseal,
)
from pbem.db import Database
from pbem.links import Links
from pbem.mail.outbox import backoff
from pbem.models import AuditEntry, GameRecord, MailStatus, OutboxEmail, Player
from pbem.services import Site, resign
from tests.channels.conftest import Receiver
from tests.support import ALICE_BOB, Cli, ClockGames, start_a_game, two_player_game

TELEGRAM = "tgram://123456789:AAHsecretBotToken/987654"


def players(database: Database, now: datetime) -> tuple[int, int]:
    """Alice and Bob, before any game: their channels are there when the first email is."""
    with database.write() as session:
        rows = [Player(name=p.name, email=p.email, created_at=now) for p in ALICE_BOB]
        session.add_all(rows)
        session.flush()
        return rows[0].id or 0, rows[1].id or 0


def channel(database: Database, now: datetime, site: Site, player_id: int, url: str,
            news: tuple[str, ...] = (TURN, REMINDER, GAME_OVER)) -> int:
    with database.write() as session:
        return add_channel(session, now, site, player_id=player_id, news=news,
                           checked=check_channel_url(url, private_hosts=True)).id or 0


def messages(database: Database) -> list[ChannelMessage]:
    with database.session() as session:
        return list(session.exec(select(ChannelMessage).order_by(col(ChannelMessage.id))))


def test_every_offered_service_is_one_apprise_knows() -> None:
    from apprise.manager_plugins import NotificationManager

    assert set(NotificationManager().schemas()) >= SERVICES


@pytest.mark.parametrize(("url", "why"), [
    ("", "empty"),
    ("bogus://example.org/x", "not the address of a service"),
    ("windows://", "not the address of a service"),  # a pop-up on the server itself
    ("mailto://user:pw@example.org", "not the address of a service"),  # pbem sends mail
    ("https://example.org/hook", "not the address of a service"),
    ("tgram://", "incomplete or mistyped"),
    ("json://a.example json://b.example", "no spaces"),
    ("json://127.0.0.1:8080/hook", "private network"),
    ("ntfys://localhost/topic", "private network"),
    ("gotify://192.168.1.9/AbCdEf123", "private network"),
    ("jsons://[::1]/hook", "private network"),
    ("json://2130706433/hook", "private network"),  # 127.0.0.1, written as one number
    ("json://" + "a" * 2000 + ".example", "longer than"),
])
def test_an_address_that_cannot_be_a_channel_is_refused_with_its_reason(url: str, why: str,
                                                                       ) -> None:
    with pytest.raises(ChannelRefused, match=why):
        check_channel_url(url)


def test_a_loopback_address_is_allowed_only_where_the_site_says_so() -> None:
    assert check_channel_url("json://127.0.0.1:8080/hook", private_hosts=True).service == "JSON"


@pytest.mark.parametrize(("url", "shown"), [
    (TELEGRAM, "tgram://…"),
    ("discord://4174216298/JHMHI8qBe7bk2ZwO5U711o3dV_js", "discord://…"),
    ("ntfys://ntfy.example.org/private-topic", "ntfys://ntfy.example.org/…"),
    ("ntfy://private-topic", "ntfy://…"),
    ("matrixs://ann:pa55word@matrix.example.org/#games", "matrixs://matrix.example.org/…"),
    ("jsons://ann:pa55word@hooks.example.org/hook/s3cr3t?token=abcdef", "jsons://hooks.example.org/…"),
])
def test_an_address_is_shown_as_its_scheme_and_host_at_most(url: str, shown: str) -> None:
    assert check_channel_url(url).shown == shown


def test_the_address_is_stored_encrypted_and_only_the_site_secret_opens_it(
        database: Database, now: datetime, site: Site) -> None:
    alice, _ = players(database, now)
    channel_id = channel(database, now, site, alice, TELEGRAM)
    with database.session() as session:
        row = session.get(PlayerChannel, channel_id)
    assert row is not None and row.service == "Telegram" and row.shown == "tgram://…"
    assert "AAHsecretBotToken" not in row.sealed_url and "987654" not in row.sealed_url
    assert unseal(site.links.secret_key, row.sealed_url) == TELEGRAM
    with pytest.raises(UnreadableChannel):
        unseal("another site's secret", row.sealed_url)


def test_a_player_has_at_most_a_few_channels(database: Database, now: datetime,
                                             site: Site) -> None:
    alice, _ = players(database, now)
    for number in range(MAX_CHANNELS):
        channel(database, now, site, alice, f"ntfy://topic-{number}")
    with pytest.raises(TooManyChannels), database.write() as session:
        add_channel(session, now, site, player_id=alice, checked=check_channel_url(
            "ntfy://one-more"))


def test_a_turn_notice_queues_a_message_for_each_channel_that_wants_turns(
        database: Database, now: datetime, site: Site) -> None:
    alice, bob = players(database, now)
    wants = channel(database, now, site, alice, "ntfy://alice-turns", (TURN,))
    channel(database, now, site, alice, "ntfy://alice-ends", (GAME_OVER,))
    channel(database, now, site, bob, "ntfy://bob-turns", (TURN,))
    game = start_a_game(database, now, site, two_player_game(), players=ALICE_BOB)
    with database.session() as session:
        row = session.get(GameRecord, game)
        turn_email = session.exec(select(OutboxEmail).where(OutboxEmail.kind == "turn")).one()
    assert row is not None and row.to_move is not None
    queued = messages(database)
    mover_channel = wants if turn_email.player_id == alice else queued[0].channel_id
    assert [(m.channel_id, m.kind, m.title, m.game_id, m.seat, m.ply) for m in queued] == [
        (mover_channel, TURN, turn_email.subject, game, row.to_move, row.ply)]
    assert queued[0].status == MailStatus.QUEUED and queued[0].next_attempt_at == now


def test_nothing_is_queued_for_a_player_without_channels(database: Database, now: datetime,
                                                         site: Site) -> None:
    start_a_game(database, now, site, two_player_game(), players=ALICE_BOB)
    assert messages(database) == []


def test_a_game_over_and_a_reminder_reach_the_channels_that_want_them(
        database: Database, now: datetime, site: Site) -> None:
    alice, bob = players(database, now)
    for player in (alice, bob):
        channel(database, now, site, player, f"ntfy://ends-{player}", (GAME_OVER,))
        channel(database, now, site, player, f"ntfy://reminders-{player}", (REMINDER,))
    games = ClockGames(database, site)
    game = start_a_game(database, now, site, two_player_game(), players=ALICE_BOB,
                        per_move=timedelta(days=3), reminders=[timedelta(days=1)])
    games.sweep(now + timedelta(days=2, minutes=1))
    reminders = [m for m in messages(database) if m.kind == REMINDER]
    reminder_email = games.emails("reminder")[0]
    assert [m.title for m in reminders] == [reminder_email.subject]
    row = games.game(game)
    with database.write() as session:
        resign(session, now, site, game_id=game, seat=row.to_move)
    ends = [m for m in messages(database) if m.kind == GAME_OVER]
    assert sorted(m.title for m in ends) == sorted(e.subject for e in games.emails("game_over"))
    assert len(ends) == 2


def test_delivery_posts_through_apprise_and_retries_a_channel_that_fails(
        database: Database, now: datetime, site: Site, receiver: Receiver) -> None:
    alice, bob = players(database, now)
    for player in (alice, bob):
        channel(database, now, site, player, receiver.url(path=f"hook/{player}"), (TURN,))
    game = start_a_game(database, now, site, two_player_game(), players=ALICE_BOB)
    [queued] = messages(database)
    receiver.answers = [500]  # the service is down at the first try

    first = deliver_channels(database, site, now)
    [tried] = messages(database)
    assert (first.sent, first.deferred, first.failed) == (0, 1, 0)
    assert (tried.status, tried.attempts) == (MailStatus.RETRYING, 1)
    assert tried.next_attempt_at == now + backoff(1) and tried.last_error
    assert deliver_channels(database, site, now).attempted == 0  # not yet due again

    again = deliver_channels(database, site, now + backoff(1))
    [sent] = messages(database)
    assert (again.sent, sent.status, sent.attempts) == (1, MailStatus.SENT, 2)
    assert sent.sent_at == now + backoff(1) and sent.last_error == ""
    assert len(receiver.received) == 2
    path, payload = receiver.received[-1]
    row = ClockGames(database, site).game(game)
    move_url = site.links.move_url(game, queued.seat or 0, queued.ply or 0,
                                   holder=sent_holder(database, sent))
    assert payload["title"] == queued.title
    assert payload["message"] == f"Make your move: {move_url}"
    assert row.to_move == queued.seat and path.startswith("/hook/")


def sent_holder(database: Database, message: ChannelMessage) -> int:
    with database.session() as session:
        found = session.get(PlayerChannel, message.channel_id)
    assert found is not None
    return found.player_id


def test_a_channel_that_keeps_failing_is_given_up_after_the_last_attempt(
        database: Database, now: datetime, site: Site, receiver: Receiver) -> None:
    alice, _ = players(database, now)
    channel(database, now, site, alice, receiver.url(), (TURN, GAME_OVER))
    game = start_a_game(database, now, site, two_player_game(), players=ALICE_BOB)
    with database.write() as session:
        resign(session, now, site, game_id=game, seat=0)
    receiver.answers = [503] * 10
    moment = now
    for _ in range(3):
        deliver_channels(database, site, moment, max_attempts=3)
        moment += timedelta(hours=7)  # past any backoff
    assert {(m.status, m.attempts) for m in messages(database)} == {(MailStatus.FAILED, 3)}
    assert deliver_channels(database, site, moment, max_attempts=3).attempted == 0


def test_an_ntfy_address_on_a_server_of_ones_own_works_too(
        database: Database, now: datetime, site: Site, receiver: Receiver) -> None:
    alice, _ = players(database, now)
    channel(database, now, site, alice, receiver.url("ntfy", "pbem-alice"), (GAME_OVER,))
    game = start_a_game(database, now, site, two_player_game(), players=ALICE_BOB)
    with database.write() as session:
        resign(session, now, site, game_id=game, seat=1)
    assert deliver_channels(database, site, now).sent == 1
    [(_, payload)] = receiver.received
    row = ClockGames(database, site).game(game)
    assert payload["topic"] == "pbem-alice"
    assert payload["message"] == f"See the game: {site.links.game_url(row.public_id)}"


def test_an_address_the_secret_no_longer_opens_fails_at_once(
        database: Database, now: datetime, site: Site, receiver: Receiver) -> None:
    alice, _ = players(database, now)
    channel(database, now, site, alice, receiver.url(), (TURN,))
    start_a_game(database, now, site, two_player_game(), players=ALICE_BOB)
    with database.write() as session:
        for row in session.exec(select(PlayerChannel)):
            row.sealed_url = "not a sealed address"
            session.add(row)
    queued = messages(database)
    report = deliver_channels(database, site, now)
    assert report.failed == len(queued) and receiver.received == []


def test_the_test_button_sends_at_once_and_says_why_it_failed_without_the_secret(
        database: Database, now: datetime, site: Site, receiver: Receiver,
        caplog: pytest.LogCaptureFixture) -> None:
    alice, bob = players(database, now)
    url = receiver.url(path="hook/s3cr3t-path")
    channel_id = channel(database, now, site, alice, url)
    assert try_channel(database, now, site, player_id=alice, channel_id=channel_id).sent
    assert receiver.received[0][1]["title"] == "Test message from pbem"
    receiver.answers = [500]
    caplog.set_level(logging.INFO)  # as pbem logs (pbem.logs.configure_logging)
    failed = try_channel(database, now, site, player_id=alice, channel_id=channel_id)
    assert not failed.sent and failed.reason and "s3cr3t" not in failed.reason
    assert "s3cr3t" not in caplog.text
    with pytest.raises(NoSuchChannel):  # not Bob's to test
        try_channel(database, now, site, player_id=bob, channel_id=channel_id)
    with database.session() as session:
        tests = session.exec(select(AuditEntry).where(AuditEntry.action == "channel tested"))
        assert [entry.detail["sent"] for entry in tests] == [True, False]


def test_a_channel_follows_the_news_chosen_and_takes_its_queue_when_removed(
        database: Database, now: datetime, site: Site) -> None:
    alice, bob = players(database, now)
    ids = [channel(database, now, site, player, f"ntfy://x-{player}", ()) for player in
           (alice, bob)]
    for player, channel_id in zip((alice, bob), ids, strict=True):
        with database.write() as session:
            follow(session, now, player_id=player, channel_id=channel_id, news=[TURN])
    start_a_game(database, now, site, two_player_game(), players=ALICE_BOB)
    [queued] = messages(database)
    owner = alice if queued.channel_id == ids[0] else bob
    with pytest.raises(NoSuchChannel), database.write() as session:
        remove_channel(session, now, player_id=bob if owner == alice else alice,
                       channel_id=queued.channel_id)
    with database.write() as session:
        remove_channel(session, now, player_id=owner, channel_id=queued.channel_id)
    assert messages(database) == []
    with database.session() as session:
        assert len(session.exec(select(PlayerChannel)).all()) == 1


def test_a_pass_stops_at_its_limit_and_leaves_the_rest_queued(
        database: Database, now: datetime, site: Site, receiver: Receiver) -> None:
    alice, bob = players(database, now)
    for player in (alice, bob):
        channel(database, now, site, player, receiver.url(), (TURN, GAME_OVER))
    game = start_a_game(database, now, site, two_player_game(), players=ALICE_BOB)
    with database.write() as session:
        resign(session, now, site, game_id=game, seat=0)
    assert len(messages(database)) == 3  # a turn notice, two game ends
    assert deliver_channels(database, site, now, seconds=0).attempted == 0
    assert deliver_channels(database, site, now, limit=2).sent == 2
    assert [m.status for m in messages(database)].count(MailStatus.QUEUED) == 1
    assert deliver_channels(database, site, now).sent == 1


def test_pbem_deliver_sends_the_channels_too_on_a_migrated_database(
        cli: Cli, receiver: Receiver, closed_port: int) -> None:
    now = datetime.now(UTC)
    site = Site(Links(cli.env["PBEM_SECRET_KEY"], cli.env["PBEM_BASE_URL"]), "pbem@example.test")
    alice, _ = players(cli.database, now)
    channel(cli.database, now, site, alice, receiver.url(), (TURN, GAME_OVER))
    game = start_a_game(cli.database, now, site, two_player_game(), players=ALICE_BOB)
    with cli.database.write() as session:
        resign(session, now, site, game_id=game, seat=0)
    cli.env.update({"PBEM_SMTP_HOST": "127.0.0.1", "PBEM_SMTP_PORT": str(closed_port)})
    result = cli("deliver")
    assert result.exit_code == 0, result.output
    sent = len(messages(cli.database))
    assert f"channels: sent {sent}, deferred 0, failed 0" in result.output
    assert len(receiver.received) == sent
