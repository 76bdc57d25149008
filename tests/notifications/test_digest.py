"""The daily digest: once a local day at the player's hour, across the days daylight saving time
begins and ends; every game waiting for them with its board (an inline PNG) and move link, and
what happened since the last one; delivered through a real SMTP server."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import select

from pbem.db import Database
from pbem.i18n import Reader
from pbem.mail.outbox import deliver_pending
from pbem.models import GameRecord, MailStatus, OutboxEmail, OutboxImage, Player
from pbem.notifications.digest import send_digests
from pbem.notifications.service import choose, mute
from pbem.notifications.tables import Mode
from pbem.positions import current_state
from pbem.services import PlayerSpec, Site, resign, submit_move
from tests.notifications.support import mail_to, player
from tests.support import ClockGames, SmtpServer, start_a_game

AMSTERDAM = ZoneInfo("Europe/Amsterdam")
QUARTER = timedelta(minutes=15)


def digests(database: Database, player_id: int) -> list[OutboxEmail]:
    return [e for e in mail_to(database, player_id) if e.kind == "digest"]


def waiting_game(database: Database, site: Site, now: datetime) -> int:
    """A game where it is p0's turn for a month."""
    games = ClockGames(database, site)
    game = games.start("mosey", now, per_move=timedelta(days=30))
    assert games.game(game).to_move == 0
    return game


@pytest.mark.parametrize(("first_day", "days"), [
    (datetime(2026, 3, 27, tzinfo=AMSTERDAM), 4),  # summer time begins on Sunday 29 March
    (datetime(2026, 10, 23, tzinfo=AMSTERDAM), 4),  # and ends on Sunday 25 October
])
@pytest.mark.parametrize("hour", [2, 8])
def test_the_digest_goes_once_a_local_day_at_the_chosen_hour_across_a_dst_change(
        database: Database, site: Site, first_day: datetime, days: int, hour: int) -> None:
    start = first_day.astimezone(UTC)
    reader = player(database, start, 0, mode=Mode.DIGEST, hour=hour, zone="Europe/Amsterdam")
    player(database, start, 1)
    waiting_game(database, site, start)
    now = start
    while now < start + timedelta(days=days):  # the sweep's every minute, in quarters
        send_digests(database, now, site)
        now += QUARTER
    sent = [e.created_at.astimezone(AMSTERDAM) for e in digests(database, reader)]
    local_days = [first_day.date() + timedelta(days=n) for n in range(days)]
    assert [moment.date() for moment in sent] == local_days
    for moment in sent:
        # The first quarter at or after the hour; 02:00 does not exist on 29 March: 03:00.
        gap = moment.date() == datetime(2026, 3, 29).date() and hour == 2
        assert (moment.hour, moment.minute) == ((3, 0) if gap else (hour, 0)), moment


def test_choosing_the_digest_after_its_hour_sends_the_first_one_tomorrow(
        database: Database, site: Site) -> None:
    noon = datetime(2026, 6, 1, 10, 0, tzinfo=UTC)  # 12:00 in Amsterdam
    reader = player(database, noon, 0, mode=Mode.DIGEST, hour=9, zone="Europe/Amsterdam")
    player(database, noon, 1)
    waiting_game(database, site, noon)
    assert send_digests(database, noon + QUARTER, site) == 0
    assert send_digests(database, noon + timedelta(hours=20, minutes=59), site) == 0
    assert send_digests(database, noon + timedelta(hours=21), site) == 1  # 09:00 is 07:00 UTC
    with database.write() as session:  # a later hour the same day sends no second one
        choose(session, noon, player_id=reader, mode=Mode.DIGEST, digest_hour=20)
    assert send_digests(database, noon + timedelta(hours=32, minutes=1), site) == 0  # 20:01
    assert len(digests(database, reader)) == 1


def test_a_day_with_nothing_waiting_and_nothing_new_sends_no_digest(database: Database,
                                                                      site: Site) -> None:
    now = datetime(2026, 6, 1, 5, 0, tzinfo=UTC)
    reader = player(database, now, 0, mode=Mode.DIGEST, hour=9)
    assert send_digests(database, now + timedelta(hours=4), site) == 0
    assert digests(database, reader) == []


def test_the_digest_lists_every_waiting_game_with_its_board_and_link_and_what_happened(
        database: Database, site: Site, smtp_server: SmtpServer) -> None:
    monday = datetime(2026, 6, 1, 6, 0, tzinfo=UTC)
    reader = player(database, monday, 0, mode=Mode.DIGEST, hour=8)
    player(database, monday, 1)
    games = ClockGames(database, site)
    mine = [games.start("mosey", monday, per_move=timedelta(days=9)) for _ in range(3)]
    theirs = games.start("mosey", monday, per_move=timedelta(days=9))
    muted = games.start("mosey", monday, per_move=timedelta(days=9))
    with database.write() as session:
        mute(session, monday, player_id=reader, game_id=muted, muted=True)
    # p0 moves in ``theirs`` and, in one of ``mine``, p1 answers: news since yesterday.
    tuesday = monday + timedelta(days=1)
    move(database, site, theirs, monday + timedelta(hours=1))
    move(database, site, mine[0], monday + timedelta(hours=1))
    move(database, site, mine[0], monday + timedelta(hours=2))
    with database.write() as session:  # p1 resigns ``theirs``: its result is news too
        resign(session, monday + timedelta(hours=3), site, game_id=theirs, seat=1)
    assert send_digests(database, tuesday + timedelta(hours=2, minutes=1), site) == 1
    [digest] = digests(database, reader)
    assert digest.subject == "Your daily digest: 3 games wait for you"
    deliver_pending(database, smtp_server.settings(), tuesday + timedelta(hours=3))
    [message] = [m for m in received(smtp_server) if "digest" in str(m["Subject"])]
    text = message.get_body(("plain",))
    html = message.get_body(("html",))
    assert text is not None and html is not None
    plain, markup = str(text.get_content()), str(html.get_content())
    rows = {game: row(database, game) for game in [*mine, theirs, muted]}
    for game in mine:
        url = site.links.move_url(game, 0, rows[game].ply, holder=reader)
        assert url in plain and url in markup
        assert rows[game].public_id[:6] in plain
    for game in (theirs, muted):
        assert rows[game].public_id[:6] not in plain.split("Since your last digest:")[0]
    # One inline PNG a waiting game, each shown by the HTML through its Content-ID.
    pictures = [part for part in message.walk() if part.get_content_type() == "image/png"]
    assert len(pictures) == 3
    for part in pictures:
        cid = str(part["Content-ID"]).strip().strip("<>")
        assert f'src="cid:{cid}"' in markup
        assert part.get_content()[:8] == b"\x89PNG\r\n\x1a\n"
    assert 'src="cid:board-' not in markup  # every name was replaced by its Content-ID
    # What happened since the last digest: the news its setting kept back, by their subjects.
    news = plain.split("Since your last digest:")[1]
    kept = [e for e in mail_to(database, reader) if e.status == MailStatus.WITHHELD
            and e.kind not in ("turn", "reminder", "invitation") and e.game_id != muted]
    assert kept and all(e.subject in news for e in kept)
    assert any(e.kind == "game_over" for e in kept)
    assert rows[muted].public_id[:6] not in plain
    with database.session() as session:
        assert len(session.exec(select(OutboxImage).where(
            OutboxImage.email_id == digest.id)).all()) == 3
    # The next day tells only what happened after this digest.
    wednesday = tuesday + timedelta(days=1)
    assert send_digests(database, wednesday + timedelta(hours=2, minutes=1), site) == 1
    latest = digests(database, reader)[-1]
    assert "Since your last digest:" not in latest.text_body


def move(database: Database, site: Site, game: int, now: datetime) -> None:
    with database.write() as session:
        record = session.get(GameRecord, game)
        assert record is not None and record.to_move is not None
        rules, state = current_state(record)
        submit_move(session, now, site, game_id=game, seat=record.to_move, ply=record.ply,
                    text=str(rules.legal_moves(state)[0]))


def row(database: Database, game: int) -> GameRecord:
    with database.session() as session:
        found = session.get(GameRecord, game)
        assert found is not None
        return found


def received(server: SmtpServer) -> list[EmailMessage]:
    found = [email.message_from_bytes(m.raw, policy=email.policy.default)
             for m in server.messages]
    return [m for m in found if isinstance(m, EmailMessage)]


def test_a_digest_is_in_the_player_s_language(database: Database, site: Site) -> None:
    now = datetime(2026, 6, 1, 6, 0, tzinfo=UTC)
    reader = player(database, now, 0, mode=Mode.DIGEST, hour=8)
    with database.write() as session:
        found = session.get(Player, reader)
        assert found is not None
        found.language = "nl"
        session.add(found)
    start_a_game(database, now, site, "mosey", players=[
        PlayerSpec("Player 0", "p0@example.test"), PlayerSpec("Player 1", "p1@example.test")])
    assert send_digests(database, now + timedelta(hours=2), site) == 1
    [digest] = digests(database, reader)
    dutch = Reader("nl")
    assert digest.subject == dutch.ngettext(
        "Your daily digest: %(num)d game waits for you",
        "Your daily digest: %(num)d games wait for you", 1, num=1)
    assert digest.subject != "Your daily digest: 1 game waits for you"
    assert '<html lang="nl">' in digest.html_body
    assert dutch.gettext("Since your last digest:") != "Since your last digest:"
