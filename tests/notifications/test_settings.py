"""Each mail setting lets through exactly its kinds of mail, decided where the outbox gets them;
a muted game sends only its reminders; what is kept back is never delivered (a real SMTP server
receives only the rest)."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest

from pbem.db import Database
from pbem.mail.outbox import deliver_pending
from pbem.models import MailStatus, Player
from pbem.notifications.policy import KINDS, Kind, kind_of
from pbem.notifications.service import choose, mute, setting_of, unsubscribed
from pbem.notifications.tables import Mode
from pbem.services import Site, resign
from tests.notifications.support import mail_to, player, statuses
from tests.support import ClockGames, SmtpServer

START = datetime(2026, 2, 2, 9, 0, tzinfo=UTC)
DAY = timedelta(days=1)
SENT, KEPT = MailStatus.QUEUED, MailStatus.WITHHELD
TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "email"


def play_a_day(games: ClockGames, game_id: int) -> None:
    """After the invitation and the turn notice at the start, a reminder a day before the
    deadline, a timeout (a clock notice to both, the next turn notice), then a resignation
    (game over to both)."""
    games.sweep(START + 2 * DAY + timedelta(minutes=1))
    games.sweep(START + 3 * DAY + timedelta(minutes=1))
    row = games.game(game_id)
    with games.database.write() as session:
        resign(session, START + 3 * DAY + timedelta(hours=1), games.site, game_id=game_id,
               seat=row.to_move)


def a_game(games: ClockGames) -> int:
    """Mosey of p0 (who moves first) and p1, three days a move, a reminder a day before."""
    game_id = games.start("mosey", START, per_move=3 * DAY, reminders=[DAY],
                          timeout_policy="random")
    assert games.game(game_id).to_move == 0
    return game_id


KINDS_SEEN = ("invitation", "turn", "reminder", "clock", "game_over")


def expect(*statuses: MailStatus, digest: bool = False) -> dict[str, set[str]]:
    """Each kind of KINDS_SEEN with its status; with the daily digests that went."""
    return {**({"digest": {SENT}} if digest else {}),
            **{kind: {status} for kind, status in zip(KINDS_SEEN, statuses, strict=True)}}


EXPECTED = {
    Mode.ALL: expect(SENT, SENT, SENT, SENT, SENT),
    Mode.TURNS: expect(SENT, SENT, SENT, KEPT, SENT),
    Mode.DIGEST: expect(KEPT, KEPT, SENT, KEPT, KEPT, digest=True),
    Mode.OFF: expect(KEPT, KEPT, KEPT, KEPT, KEPT),
}


@pytest.mark.parametrize("mode", list(Mode))
def test_each_setting_sends_its_kinds_of_mail_and_keeps_back_the_rest(
        database: Database, site: Site, smtp_server: SmtpServer, mode: Mode) -> None:
    first = player(database, START, 0, mode=mode)
    other = player(database, START, 1)  # every event: the other player's mail is untouched
    games = ClockGames(database, site)
    play_a_day(games, a_game(games))
    assert statuses(database, first) == EXPECTED[mode]
    assert all(status == {SENT} for status in statuses(database, other).values())
    # Delivered through a real SMTP server: exactly what was not kept back arrives.
    deliver_pending(database, smtp_server.settings(), START + 4 * DAY)
    arrived = sorted(str(m["Subject"]) for m in received(smtp_server, "p0@example.test"))
    assert arrived == sorted(e.subject for e in mail_to(database, first)
                             if e.status != MailStatus.WITHHELD)
    assert {e.status for e in mail_to(database, first)} <= {MailStatus.SENT, KEPT}


def received(server: SmtpServer, address: str) -> list[EmailMessage]:
    messages = [email.message_from_bytes(m.raw, policy=email.policy.default)
                for m in server.messages]
    return [m for m in messages if isinstance(m, EmailMessage) and address in str(m["To"])]


def test_a_muted_game_sends_only_its_reminders(database: Database, site: Site) -> None:
    players = [player(database, START, n) for n in range(2)]
    games = ClockGames(database, site)
    muted, loud = a_game(games), a_game(games)
    with database.write() as session:
        for player_id in players:
            assert mute(session, START, player_id=player_id, game_id=muted, muted=True)
    play_a_day(games, muted)
    play_a_day(games, loud)
    for player_id in players:
        for written in mail_to(database, player_id):
            if written.created_at == START:
                continue  # the invitations and first turn notice, before the game was muted
            if written.game_id == loud or written.kind == "reminder":
                assert written.status == SENT, (written.kind, written.game_id)
            else:
                assert written.status == KEPT, (written.kind, written.game_id)
    assert any(e.kind == "reminder" and e.game_id == muted for p in players
               for e in mail_to(database, p))


def test_off_keeps_back_every_email_of_a_game_reminders_too(database: Database,
                                                                site: Site) -> None:
    players = [player(database, START, n, mode=Mode.OFF) for n in range(2)]
    games = ClockGames(database, site)
    game = a_game(games)
    play_a_day(games, game)
    assert {e.status for p in players for e in mail_to(database, p)} == {KEPT}


def test_unmuting_lets_the_game_s_mail_through_again(database: Database, site: Site) -> None:
    players = [player(database, START, n) for n in range(2)]
    games = ClockGames(database, site)
    game = a_game(games)
    with database.write() as session:
        for player_id in players:
            mute(session, START, player_id=player_id, game_id=game, muted=True)
    with database.write() as session:
        for player_id in players:
            assert mute(session, START, player_id=player_id, game_id=game, muted=False)
            assert not mute(session, START, player_id=player_id, game_id=game, muted=False)
    play_a_day(games, game)
    later = [e for p in players for e in mail_to(database, p) if e.created_at > START]
    assert later and {e.status for e in later} == {SENT}


def test_mail_that_must_always_go_is_never_kept_back() -> None:
    for kind in ("sign_in", "links", "challenge_signup", "reply_notify", "reply_receipt",
                 "reply_refused", "digest"):
        assert kind_of(kind) == Kind.ALWAYS


def test_every_kind_of_email_pbem_writes_is_classified() -> None:
    """A new kind of email is a decision about who gets it under which setting."""
    kinds = {path.stem for path in TEMPLATES.glob("*.txt") if not path.stem.startswith("_")}
    missing = {k for k in kinds if not k.startswith("reply_") and k not in KINDS}
    assert not missing


def test_an_organiser_s_alert_goes_whatever_their_own_setting(database: Database,
                                                               site: Site) -> None:
    """Olga organises a game she does not play in: its alert asks her to act, so it comes
    even though she chose "off" for her own games."""
    with database.write() as session:
        olga = Player(name="Olga", email="olga@example.test", created_at=START)
        session.add(olga)
        session.flush()
        assert olga.id is not None
        choose(session, START, player_id=olga.id, mode=Mode.OFF)
        organiser = olga.id
    games = ClockGames(database, site)
    games.start("mosey", START, timeout_policy="hold", organiser=True)
    games.sweep(START + 3 * DAY + timedelta(minutes=1))
    alerts = mail_to(database, organiser)
    assert alerts and {e.status for e in alerts} == {SENT}
    assert all(e.subject.startswith("[organiser]") for e in alerts)


def test_the_one_click_unsubscribe_leaves_turns_and_game_ends(database: Database) -> None:
    first = player(database, START, 0)
    with database.write() as session:
        unsubscribed(session, START, player_id=first)
    with database.session() as session:
        assert setting_of(session, first).mode == Mode.TURNS
        found = session.get(Player, first)
        assert found is not None and not found.notify_updates
    quieter = player(database, START, 1, mode=Mode.DIGEST)
    with database.write() as session:
        unsubscribed(session, START, player_id=quieter)
    with database.session() as session:
        assert setting_of(session, quieter).mode == Mode.DIGEST
