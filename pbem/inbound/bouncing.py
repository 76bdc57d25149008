"""A bounce: an email of ours never arrived. Mark it, flag the player, stop their clock.

The email is found by its VERP return path (``bounce+TOKEN@``, whose signed token names the
outbox row), else by the original Message-ID quoted in the report, only when that Message-ID
carries our signed token and the email went to the very address the report says failed. Nothing
weaker counts (the failed address alone, an unsigned Message-ID, an invalid token): anybody can
write a delivery report naming any player, and a forged one must not stop their game.

A player who never got their turn email must not time out: when the bounced player is the one to
move, the game is held (as the timeout policy "hold" does) and the organisers are alerted;
extending the deadline or replacing the player from the dashboard lets it go on. A bounce in a
game still waiting for its players' answers (an invitation that never arrived) is alerted too: it
would wait for ever. Who is alerted is :func:`pbem.services.timeouts.alert_organiser`'s one rule.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlmodel import Session, col, select

from pbem.clock.deadlines import clock_of, refresh_due
from pbem.i18n import Reader
from pbem.models import GameRecord, GameStatus, MailStatus, OutboxEmail, Player, Seat
from pbem.reply_addresses import BadReplyToken, read_reply_token, token_in_message_ids
from pbem.services.common import Site, audit, lock_game
from pbem.services.timeouts import alert_organiser


def bounced_emails(session: Session, site: Site, *, outbox_ids: Iterable[int],
                   addresses: Iterable[str], message_id: str) -> list[OutboxEmail]:
    """The emails a delivery report proves it is about (none: it proves nothing).

    ``outbox_ids`` come from valid VERP tokens (the report came back to those emails' return
    paths); ``message_id`` is the original Message-ID the report quotes, which counts only when
    it carries a valid reply token of ours and names an email to one of ``addresses``, the ones
    the report says failed.
    """
    ids = list(outbox_ids)
    if ids:
        return list(session.exec(select(OutboxEmail).where(col(OutboxEmail.id).in_(ids))))
    failed = {a.lower() for a in addresses}
    if not message_id or not failed or not signed(site, message_id):
        return []
    return list(session.exec(select(OutboxEmail).where(
        OutboxEmail.message_id == message_id, col(OutboxEmail.to_address).in_(failed))))


def signed(site: Site, message_id: str) -> bool:
    """Whether ``message_id`` carries a reply token that we signed (so nobody guessed it)."""
    for token in token_in_message_ids([message_id]):
        try:
            read_reply_token(site.links.secret_key, token)
        except BadReplyToken:
            continue
        return True
    return False


def record_bounce(session: Session, now: datetime, site: Site,
                  emails: Iterable[OutboxEmail]) -> set[str]:
    """Mark ``emails`` bounced, flag their players and hold their games; returns the addresses
    that bounced."""
    found = set()
    for mail in emails:
        found.add(mail.to_address)
        mail.status, mail.last_error = MailStatus.BOUNCED, f"bounced (reported {now:%Y-%m-%d})"
        session.add(mail)
        player = session.get(Player, mail.player_id) if mail.player_id else None
        if player is not None:
            player.bounced_at = now
            session.add(player)
        audit(session, now, "mail bounced", game_id=mail.game_id, player_id=mail.player_id,
              outbox_id=mail.id, address=mail.to_address)
        if mail.game_id is not None and player is not None:
            hold_for_bounce(session, now, site, mail.game_id, player)
    return found


def hold_for_bounce(session: Session, now: datetime, site: Site, game_id: int,
                    player: Player) -> None:
    """Stop the game's clock if ``player`` is the one to move, and tell the organisers (also
    of a game not started yet); a game that is over needs nobody's decision."""
    row: GameRecord = lock_game(session, game_id)
    if row.status not in (GameStatus.INVITED, GameStatus.ACTIVE):
        return
    invited = row.status == GameStatus.INVITED
    seat = None if invited else session.exec(select(Seat).where(
        Seat.game_id == game_id, Seat.seat == row.to_move)).first()
    waiting = seat is not None and seat.player_id == player.id
    clock = clock_of(session, game_id)
    if waiting and clock.held_since is None:
        clock.held_since = now
        refresh_due(session, row)
        session.add(clock)

    def text(reader: Reader) -> str:
        """The alert in the organiser's language (an alert address gets the site's)."""
        bounced = reader.gettext("Mail to %(name)s <%(address)s> bounced.", name=player.name,
                                 address=player.email)
        if invited:
            return " ".join((bounced, reader.gettext(
                "The game has not started: from the dashboard you can replace the player (the "
                "new player gets an invitation for that seat) or abort the game.")))
        if not waiting:
            return bounced
        return " ".join((bounced, reader.gettext(
            "Their clock is stopped until you act: extend the deadline or replace the player.")))

    alert_organiser(session, now, site, row, text, event="bounce")
