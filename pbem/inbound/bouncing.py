"""A bounce: an email of ours never arrived. Mark it, flag the player, stop their clock.

The email is found by its VERP return path (``bounce+TOKEN@``, which names the outbox row), else
by the original Message-ID quoted in the report, else by the failed address. A player who never
got their turn email must not time out: when the bounced player is the one to move, the game is
held (as the timeout policy "hold" does) and the organisers are alerted; extending the deadline or
replacing the player from the dashboard lets it go on.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlmodel import Session, col, select

from pbem.clock.deadlines import refresh_due
from pbem.i18n import Reader
from pbem.models import Game, GameStatus, MailStatus, OutboxEmail, Player, Seat
from pbem.services.common import Site, audit, lock_game
from pbem.services.timeouts import alert_organiser


def bounced_emails(session: Session, *, outbox_ids: Iterable[int], addresses: Iterable[str],
                   message_id: str) -> list[OutboxEmail]:
    """The emails a delivery report is about, most precise evidence first."""
    ids = list(outbox_ids)
    if ids:
        found = list(session.exec(select(OutboxEmail).where(col(OutboxEmail.id).in_(ids))))
        if found:
            return found
    if message_id:
        found = list(session.exec(select(OutboxEmail).where(
            OutboxEmail.message_id == message_id)))
        if found:
            return found
    emails = []
    for address in {a.lower() for a in addresses}:
        latest = session.exec(select(OutboxEmail).where(
            OutboxEmail.to_address == address, OutboxEmail.status == MailStatus.SENT)
            .order_by(col(OutboxEmail.id).desc())).first()
        if latest is not None:
            emails.append(latest)
    return emails


def record_bounce(session: Session, now: datetime, site: Site, *, outbox_ids: Iterable[int],
                  addresses: Iterable[str], message_id: str) -> set[str]:
    """Mark the bounced emails; returns the addresses that bounced (empty: none of ours)."""
    found = set()
    for mail in bounced_emails(session, outbox_ids=outbox_ids, addresses=addresses,
                               message_id=message_id):
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
    """Stop the game's clock if ``player`` is the one to move, and tell the organisers."""
    row: Game = lock_game(session, game_id)
    if row.status != GameStatus.ACTIVE:
        return
    seat = session.exec(select(Seat).where(Seat.game_id == game_id,
                                           Seat.seat == row.to_move)).first()
    waiting = seat is not None and seat.player_id == player.id
    if waiting and row.held_since is None:
        row.held_since = now
        refresh_due(row)
        session.add(row)

    def text(reader: Reader) -> str:
        """The alert in the organiser's language (an alert address gets the site's)."""
        bounced = reader.gettext("Mail to %(name)s <%(address)s> bounced.", name=player.name,
                                 address=player.email)
        if not waiting:
            return bounced
        return " ".join((bounced, reader.gettext(
            "Their clock is stopped until you act: extend the deadline or replace the player.")))

    alert_organiser(session, now, site, row, text)
