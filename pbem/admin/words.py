"""Words the dashboard shows from stored data (statuses, mail kinds, audit actions), translated.

The database keeps these as English words (``"active"``, ``"turn email resent"``); they stay so,
and the pages translate them as they show them. A word not listed here (an audit action added
later, a value from an older version) is shown as stored.
"""

from __future__ import annotations

from flask_babel import gettext

from engine.text import N_

STATUSES = (
    # games
    N_("invited"), N_("active"), N_("finished"), N_("aborted"),
    # seats
    N_("accepted"), N_("declined"),
    # mail
    N_("queued"), N_("retrying"), N_("sending"), N_("sent"), N_("bounced"), N_("failed"),
    N_("withheld"),
    # how a move was made (other than by the player's own link)
    N_("admin"), N_("timeout"), N_("forced-pass"), N_("stand-in"), N_("reply"), N_("bot"),
)

MAIL_KINDS = (
    N_("invitation"), N_("turn"), N_("update"), N_("reminder"), N_("game_over"), N_("notice"),
    N_("clock"), N_("links"), N_("reply_refused"), N_("sign_in"), N_("chat"),
    N_("digest"),
)

# What pbem writes as an audit entry's action (pbem.services.common.audit and its callers).
AUDIT_ACTIONS = (
    N_("admin: game created"), N_("game created"), N_("invitation accepted"),
    N_("invitation declined"), N_("game started"), N_("game aborted"), N_("abort requested"),
    N_("move"), N_("resigned"), N_("timeout"), N_("reminder sent"), N_("deadline extended"),
    N_("game paused"), N_("game resumed"), N_("turn email resent"), N_("player replaced"),
    N_("game adjudicated"), N_("absence added"), N_("absence cancelled"),
    N_("games page link sent"), N_("preferences changed"), N_("unsubscribed from updates"),
    N_("mail bounced"), N_("bot failed"), N_("sign-in link sent"), N_("signed in"),
    N_("signed out"), N_("signed out everywhere"), N_("chat message hidden"),
    N_("chat message written"),
    N_("notifications chosen"), N_("game muted"), N_("game unmuted"),
)

# The names of an audit entry's details (key=value on the audit pages); values stay as stored.
DETAIL_KEYS = (
    N_("seat"), N_("ply"), N_("source"), N_("policy"), N_("reason"), N_("winners"),
    N_("forced"), N_("error"), N_("level"), N_("options"), N_("game_type"), N_("by"),
    N_("rated"), N_("unrated"), N_("message"),
)

_KNOWN = frozenset(STATUSES + MAIL_KINDS + AUDIT_ACTIONS + DETAIL_KEYS)


def word(value: object) -> str:
    """A stored status, kind or audit action in the page's language (others as they are)."""
    text = "" if value is None else str(value)
    return gettext(text) if text in _KNOWN else text
