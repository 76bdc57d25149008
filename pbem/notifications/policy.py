"""The one place that decides whether an email goes out: by its kind and its recipient's choice.

Subscribed to :class:`~pbem.services.events.EmailQueued` (pbem.features), so every email of the
core and of the features passes here as the outbox gets it, and no sender checks anything. An
email kept back is written all the same, marked :attr:`~pbem.models.MailStatus.WITHHELD`: it is
never sent, and the daily digest lists it (:mod:`pbem.notifications.digest`).

>>> goes("update", Mode.TURNS, muted=False), goes("turn", Mode.TURNS, muted=False)
(False, True)
>>> goes("reminder", Mode.DIGEST, muted=True), goes("reminder", Mode.OFF, muted=False)
(True, False)
>>> goes("sign_in", Mode.OFF, muted=False)
True
"""

from __future__ import annotations

from enum import StrEnum

from sqlmodel import Session, select

from pbem.models import MailStatus, OutboxEmail, Seat
from pbem.notifications.tables import GameMute, Mode, NotificationSetting
from pbem.services.events import EmailQueued


class Kind(StrEnum):
    """What an email is to its reader, which is what their setting is about."""

    ALWAYS = "always"  # sign-in links, answers to what they just asked: never kept back
    ACT = "act"  # it is their turn, or an invitation waits for their answer
    REMINDER = "reminder"  # a deadline comes near: kept back only when they chose "off"
    GAME_END = "game_end"
    EVENT = "event"  # everything else that happened: others' moves, clocks, tournaments


# Every kind of email pbem writes (tests/notifications checks that each template is here).
# "reply_*" (the answers to a reply's command) are ALWAYS by their prefix.
KINDS: dict[str, Kind] = {
    "sign_in": Kind.ALWAYS, "links": Kind.ALWAYS, "challenge_signup": Kind.ALWAYS,
    "digest": Kind.ALWAYS,
    "turn": Kind.ACT, "invitation": Kind.ACT, "challenge_invitation": Kind.ACT,
    # A round's email is the only news of its games' first turns (they start without their own).
    "tournament_round": Kind.ACT,
    "reminder": Kind.REMINDER,
    "game_over": Kind.GAME_END,
    "update": Kind.EVENT, "notice": Kind.EVENT, "clock": Kind.EVENT,
    "challenge_closed": Kind.EVENT, "rematch_offer": Kind.EVENT,
    "conditional_played": Kind.EVENT, "chat": Kind.EVENT, "tournament_welcome": Kind.EVENT,
    "tournament_withdrawn": Kind.EVENT, "tournament_standings": Kind.EVENT,
}
# What each setting lets through (ALWAYS goes under every setting).
LET_THROUGH: dict[Mode, frozenset[Kind]] = {
    Mode.ALL: frozenset(Kind),
    Mode.TURNS: frozenset({Kind.ALWAYS, Kind.ACT, Kind.REMINDER, Kind.GAME_END}),
    Mode.DIGEST: frozenset({Kind.ALWAYS, Kind.REMINDER}),
    Mode.OFF: frozenset({Kind.ALWAYS}),
}


def kind_of(email_kind: str) -> Kind:
    """An email's :class:`Kind`; a kind nobody classified goes, rather than being lost."""
    if email_kind.startswith("reply_"):
        return Kind.ALWAYS
    return KINDS.get(email_kind, Kind.ALWAYS)


def goes(email_kind: str, mode: Mode, *, muted: bool) -> bool:
    """Whether an email of ``email_kind`` goes to a player whose setting is ``mode``, about a
    game they ``muted`` (or not). A muted game still sends its reminders, unless "off"."""
    kind = kind_of(email_kind)
    if muted and kind not in (Kind.ALWAYS, Kind.REMINDER):
        return False
    return kind in LET_THROUGH[mode]


def mode_of(session: Session, player_id: int) -> Mode:
    setting = session.get(NotificationSetting, player_id)
    return Mode(setting.mode) if setting is not None else Mode.ALL


def is_muted(session: Session, player_id: int, game_id: int) -> bool:
    return session.exec(select(GameMute.id).where(
        GameMute.player_id == player_id, GameMute.game_id == game_id)).first() is not None


def on_email_queued(event: EmailQueued) -> None:
    """Mark the email withheld where its recipient's setting keeps it back. Mail about a game
    the recipient holds no seat in (an organiser's alert) is theirs to act on: it always goes."""
    email: OutboxEmail = event.email
    if email.player_id is None or email.status != MailStatus.QUEUED:
        return
    kind = kind_of(email.kind)
    if kind == Kind.ALWAYS:
        return
    session = event.session
    mode = mode_of(session, email.player_id)
    muted = False
    if email.game_id is not None:
        if not _holds_seat(session, email.player_id, email.game_id):
            return
        muted = is_muted(session, email.player_id, email.game_id)
    if not goes(email.kind, mode, muted=muted):
        email.status = MailStatus.WITHHELD


def _holds_seat(session: Session, player_id: int, game_id: int) -> bool:
    """Whether the player holds a seat of the game, counting seats not yet written (the
    emails of a game being made are queued with its seats, before the flush)."""
    if any(isinstance(row, Seat) and row.game_id == game_id and row.player_id == player_id
           for row in session.new):
        return True
    return session.exec(select(Seat.id).where(
        Seat.game_id == game_id, Seat.player_id == player_id)).first() is not None
