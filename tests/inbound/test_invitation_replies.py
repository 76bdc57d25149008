"""Answering an invitation by mail: ``accept`` or ``decline`` (in any of the four languages) as a
reply to the invitation email does what the invitation link's buttons do, and anything else
says how to answer it rather than "this turn is over".

Every message goes the way it does on a real site: the invitation from pbem's outbox to a real
SMTP server, the player's answer over SMTP into a real ``pbem inbound`` server (aiosmtpd).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlmodel import col, select

from pbem.i18n import Reader
from pbem.models import AuditEntry, GameStatus, OutboxEmail, Seat, SeatStatus
from pbem.services import PlayerSpec, create_game, start_game
from tests.inbound.replies import ReplyTable, answer

ANN, BOB = "ann@example.test", "bob@example.test"


def invite(table: ReplyTable, language: str = "en") -> int:
    """A game of Mosey between Ann and Bob (who read ``language``), waiting for their answers;
    the invitations are in their mailboxes."""
    with table.database.write() as session:
        row = create_game(session, datetime.now(UTC), table.site, game_type="mosey",
                          players=[PlayerSpec("Ann", ANN, language=language),
                                   PlayerSpec("Bob", BOB, language=language)])
        assert row.id is not None
        game = row.id
    table.fetch()
    return game


def seats(table: ReplyTable, game: int) -> list[str]:
    with table.database.session() as session:
        return [s.status for s in session.exec(select(Seat).where(Seat.game_id == game)
                                               .order_by(col(Seat.seat)))]


def mail_to(table: ReplyTable, address: str, kind: str) -> list[OutboxEmail]:
    with table.database.session() as session:
        return list(session.exec(select(OutboxEmail).where(
            OutboxEmail.to_address == address, OutboxEmail.kind == kind)
            .order_by(col(OutboxEmail.id))))


def answers(table: ReplyTable, address: str) -> list[OutboxEmail]:
    """What pbem wrote back to ``address`` (the invitee gets every answer about their seat)."""
    with table.database.session() as session:
        return list(session.exec(select(OutboxEmail).where(
            OutboxEmail.to_address == address, col(OutboxEmail.kind).like("reply_%"))
            .order_by(col(OutboxEmail.id))))


def reply(table: ReplyTable, address: str, words: str, *, sender: str | None = None
          ) -> OutboxEmail | None:
    """``address`` answers the latest email it got (the invitation) with ``words``, from
    ``sender`` if given; the answer pbem wrote back, if any."""
    before = len(answers(table, address))
    table.send(answer(table.latest(address), words, sender=sender))
    after = answers(table, address)
    return after[-1] if len(after) > before else None


@pytest.mark.parametrize(("language", "accept"), [
    ("en", "accept"), ("nl", "accepteren"), ("de", "Annehmen."), ("it", "accetto")])
def test_accepting_by_reply_starts_the_game_once_everyone_has(
        reply_table: ReplyTable, language: str, accept: str) -> None:
    game = invite(reply_table, language)
    reader = Reader(language)
    mosey = reader.gettext("Mosey")

    first = reply(reply_table, ANN, accept)
    assert reply_table.outcomes[-1].kind == "command", reply_table.outcomes[-1]
    assert seats(reply_table, game) == [SeatStatus.ACCEPTED, SeatStatus.INVITED]
    assert reply_table.game(game).status == GameStatus.INVITED
    assert first is not None and first.kind == "reply_invitation"
    assert reader.gettext("You accepted the invitation to play %(game)s.",
                          game=mosey) in first.text_body
    assert reader.gettext("Thanks! The game starts when everyone has accepted.") in \
        first.text_body
    assert first.in_reply_to and first.reply_to  # in the thread, and it can go on by mail

    second = reply(reply_table, BOB, accept)
    assert reply_table.game(game).status == GameStatus.ACTIVE
    assert second is not None
    assert reader.gettext("The game has started: watch your mail.") in second.text_body
    assert mail_to(reply_table, ANN, "turn") or mail_to(reply_table, BOB, "turn")
    with reply_table.database.session() as session:
        said = [e.action for e in session.exec(select(AuditEntry).where(
            AuditEntry.game_id == game).order_by(col(AuditEntry.id)))]
    assert said.count("invitation accepted") == 2 and "game started" in said
    # What arrives reads in the player's language.
    received = reply_table.fetch()
    confirmation = next(m for m in received if BOB in str(m["To"])
                        and m["In-Reply-To"] is not None
                        and "reply_invitation" in str(m["Message-ID"]))
    assert reader.gettext("The game has started: watch your mail.") in str(
        confirmation.get_body(("plain",)).get_content())  # type: ignore[union-attr]


@pytest.mark.parametrize(("language", "decline"), [("en", "decline"), ("de", "ablehnen")])
def test_declining_by_reply_tells_the_other_players(reply_table: ReplyTable, language: str,
                                                    decline: str) -> None:
    game = invite(reply_table, language)
    reader = Reader(language)
    sent = reply(reply_table, BOB, decline)
    assert seats(reply_table, game) == [SeatStatus.INVITED, SeatStatus.DECLINED]
    assert sent is not None and sent.kind == "reply_invitation"
    assert reader.gettext(
        "You declined the invitation to play %(game)s; the other players and the organiser "
        "will be told.", game=reader.gettext("Mosey")) in sent.text_body
    notices = mail_to(reply_table, ANN, "notice")
    assert notices and reader.gettext("%(player)s declined:", player="Bob") in \
        notices[-1].subject


@pytest.mark.parametrize(("language", "words"), [("en", ("accept", "decline")),
                                                 ("nl", ("accepteren", "afslaan"))])
def test_a_move_in_answer_to_an_invitation_says_how_to_answer_it(
        reply_table: ReplyTable, language: str, words: tuple[str, str]) -> None:
    """Not "this turn is over": the game has not started, and the answer says what to do."""
    game = invite(reply_table, language)
    reader = Reader(language)
    sent = reply(reply_table, ANN, "C2-E2")
    outcome = reply_table.outcomes[-1]
    assert outcome.kind == "refused" and "not-started" in outcome.detail
    assert "turn is over" not in outcome.detail
    assert sent is not None and sent.kind == "reply_refused"
    why = reader.gettext(
        "this game has not started yet: answer the invitation with %(accept)s or %(decline)s, "
        "or use the link in it; nothing was played", accept=f'"{words[0]}"',
        decline=f'"{words[1]}"')
    assert reader.gettext("Your message was not carried out: %(reason)s.",
                          reason=why) in sent.text_body
    assert reader.gettext("Moves you can make now, for example: %(moves)s", moves="") \
        not in sent.text_body  # none yet
    assert seats(reply_table, game) == [SeatStatus.INVITED, SeatStatus.INVITED]

    # Once accepted, a move is refused with when the game starts instead.
    reply(reply_table, ANN, words[0])
    sent = reply(reply_table, ANN, "pass")
    assert sent is not None and reader.gettext(
        "this game has not started yet: it starts when every player has accepted, and you "
        "will get an email when it is your turn; nothing was played") in sent.text_body
    assert reply_table.game(game).status == GameStatus.INVITED


def test_help_in_answer_to_an_invitation_names_accept_and_decline(
        reply_table: ReplyTable) -> None:
    invite(reply_table, "it")
    italian = Reader("it")
    sent = reply(reply_table, ANN, "aiuto")
    assert sent is not None and sent.kind == "reply_help"
    assert italian.gettext(
        "This game has not started yet: answer %(accept)s to accept the invitation, or "
        "%(decline)s to decline it.", accept='"accetto"', decline='"rifiuto"') in sent.text_body


def test_an_invitation_is_not_answered_from_another_address(reply_table: ReplyTable) -> None:
    game = invite(reply_table)
    sent = reply(reply_table, ANN, "accept", sender="someone.else@example.test")
    assert reply_table.outcomes[-1].kind == "refused"
    assert seats(reply_table, game) == [SeatStatus.INVITED, SeatStatus.INVITED]
    assert sent is not None and sent.to_address == ANN  # the invitee learns of it
    assert "an invitation is answered from the address it was sent to" in sent.text_body
    assert "someone.else@example.test" in sent.text_body


def test_accepting_a_game_that_has_started_changes_nothing(reply_table: ReplyTable) -> None:
    game = invite(reply_table)
    with reply_table.database.write() as session:
        start_game(session, datetime.now(UTC), reply_table.site, game_id=game, force=True)
    sent = reply(reply_table, BOB, "decline")
    assert reply_table.outcomes[-1].kind == "refused"
    assert reply_table.game(game).status == GameStatus.ACTIVE
    assert seats(reply_table, game) == [SeatStatus.INVITED, SeatStatus.INVITED]
    assert sent is not None and "no longer waiting for answers; nothing was changed" in \
        sent.text_body
