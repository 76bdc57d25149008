"""Messages for a player's channels, queued beside the emails they repeat.

Subscribed to :class:`~pbem.services.events.EmailQueued` (pbem.features): when the outbox gets a
player's turn notice, reminder or game-over email, each of the player's channels that wants that
news gets a message in the same transaction, titled with the email's subject (already in the
player's language). The message's link is made when it is sent (pbem.channels.delivery)."""

from __future__ import annotations

from sqlmodel import Session, col, select

from pbem.channels.tables import ChannelMessage, PlayerChannel
from pbem.models import GameRecord, OutboxEmail
from pbem.services.events import EmailQueued

TURN, REMINDER, GAME_OVER = "turn", "reminder", "game_over"
# An email's kind -> the channel's setting that asks for it.
FOLLOWED = {TURN: "on_turn", REMINDER: "on_reminder", GAME_OVER: "on_game_over"}


def on_email_queued(event: EmailQueued) -> None:
    """A message to each of the recipient's channels that follows this email's kind."""
    email = event.email
    setting = FOLLOWED.get(email.kind)
    if setting is None or email.player_id is None:
        return
    session = event.session
    channels = session.exec(select(PlayerChannel).where(
        PlayerChannel.player_id == email.player_id,
        col(getattr(PlayerChannel, setting)).is_(True)).order_by(col(PlayerChannel.id))).all()
    if not channels:
        return
    seat, ply = _turn_of(session, email)
    for channel in channels:
        assert channel.id is not None
        session.add(ChannelMessage(
            channel_id=channel.id, kind=email.kind, title=email.subject, game_id=email.game_id,
            seat=seat, ply=ply, next_attempt_at=email.created_at, created_at=email.created_at))


def _turn_of(session: Session, email: OutboxEmail) -> tuple[int | None, int | None]:
    """(seat, ply) of the turn a turn notice or reminder asks for: the game's turn as the
    email is written. None for other news."""
    if email.kind not in (TURN, REMINDER) or email.game_id is None:
        return None, None
    row = session.get(GameRecord, email.game_id)
    if row is None or row.to_move is None:
        return None, None
    return row.to_move, row.ply
