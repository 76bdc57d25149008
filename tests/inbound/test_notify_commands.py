"""Mail settings by reply: ``notify all|turns|digest [hour]|off`` and ``mute``/``unmute`` in a
game's thread, answered through the real SMTP round trip (the answer comes even under "off")."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import col, select

from pbem.i18n import Reader
from pbem.models import MailStatus, OutboxEmail, Player
from pbem.notifications.policy import is_muted
from pbem.notifications.service import setting_of
from pbem.notifications.tables import Mode
from pbem.services import PlayerSpec
from tests.inbound.replies import ReplyTable, answer
from tests.support import start_a_game


def start(table: ReplyTable) -> int:
    return start_a_game(table.database, datetime.now(UTC), table.site, "mosey", players=[
        PlayerSpec("Ann", "ann@example.test"), PlayerSpec("Bob", "bob@example.test")])


def player_id(table: ReplyTable, address: str) -> int:
    with table.database.session() as session:
        found = session.exec(select(Player.id).where(Player.email == address)).one()
        assert found is not None
        return found


def mode_of(table: ReplyTable, address: str) -> tuple[str, int]:
    with table.database.session() as session:
        setting = setting_of(session, player_id(table, address))
        return setting.mode, setting.digest_hour


def reply(table: ReplyTable, address: str, words: str, *, sender: str | None = None) -> str:
    """``address`` (or ``sender``) answers their latest email with ``words``; the kind of the
    answer, delivered."""
    table.fetch()
    table.send(answer(table.latest(address), words, sender=sender))
    table.fetch()
    with table.database.session() as session:
        last = session.exec(select(OutboxEmail).where(col(OutboxEmail.kind).like("reply_%"))
                            .order_by(col(OutboxEmail.id).desc())).first()
    assert last is not None and last.status == MailStatus.SENT
    return last.kind


def test_notify_digest_with_an_hour_chooses_the_daily_digest(reply_table: ReplyTable) -> None:
    start(reply_table)
    ann = "ann@example.test"
    assert reply(reply_table, ann, "notify digest 7") == "reply_notify"
    assert mode_of(reply_table, ann) == (Mode.DIGEST, 7)
    told = reply_table.latest(ann)
    body = told.get_body(("plain",))
    assert body is not None
    assert "You get one email a day at 07:00 (UTC time)" in str(body.get_content())
    assert str(told["Subject"]).startswith("Re: ")


def test_notify_off_is_answered_and_then_the_turn_notices_stay_back(
        reply_table: ReplyTable) -> None:
    game = start(reply_table)
    mover = reply_table.player_to_move(game)
    other = next(a for a in ("ann@example.test", "bob@example.test") if a != mover)
    assert reply(reply_table, other, "notify off") == "reply_notify"  # the answer still comes
    assert mode_of(reply_table, other)[0] == Mode.OFF
    reply_table.play_one(game)  # the mover moves: the other's turn notice is kept back
    with reply_table.database.session() as session:
        turn = session.exec(select(OutboxEmail).where(
            OutboxEmail.kind == "turn", OutboxEmail.to_address == other)
            .order_by(col(OutboxEmail.id).desc())).first()
    assert turn is not None and turn.status == MailStatus.WITHHELD


def test_mute_and_unmute_in_a_game_s_thread(reply_table: ReplyTable) -> None:
    game = start(reply_table)
    mover = reply_table.player_to_move(game)
    reply(reply_table, mover, "mute")
    with reply_table.database.session() as session:
        assert is_muted(session, player_id(reply_table, mover), game)
    text = reply_table.latest(mover).get_body(("plain",))
    assert text is not None and "This game is muted" in str(text.get_content())
    reply(reply_table, mover, "Unmute.")
    with reply_table.database.session() as session:
        assert not is_muted(session, player_id(reply_table, mover), game)


def test_an_unknown_setting_is_refused_with_the_choices(reply_table: ReplyTable) -> None:
    start(reply_table)
    assert reply(reply_table, "ann@example.test", "notify sometimes") == "reply_refused"
    assert mode_of(reply_table, "ann@example.test")[0] == Mode.ALL
    text = reply_table.latest("ann@example.test").get_body(("plain",))
    assert text is not None and '"all", "turns", "digest"' in str(text.get_content())


def test_another_address_cannot_change_a_player_s_mail(reply_table: ReplyTable) -> None:
    start(reply_table)
    reply(reply_table, "ann@example.test", "notify off", sender="mallory@example.test")
    assert mode_of(reply_table, "ann@example.test")[0] == Mode.ALL


def test_dutch_words_choose_and_the_answer_is_dutch(reply_table: ReplyTable) -> None:
    start(reply_table)
    with reply_table.database.write() as session:
        ann = session.exec(select(Player).where(Player.email == "ann@example.test")).one()
        ann.language = "nl"
        session.add(ann)
    assert reply(reply_table, "ann@example.test", "meldingen beurten") == "reply_notify"
    assert mode_of(reply_table, "ann@example.test")[0] == Mode.TURNS
    text = reply_table.latest("ann@example.test").get_body(("plain",))
    dutch = Reader("nl")
    said = dutch.gettext("You get an email only when it is your turn and when a game ends.")
    assert text is not None and said in str(text.get_content())
    assert said != "You get an email only when it is your turn and when a game ends."
