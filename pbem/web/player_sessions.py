"""A player's session and the one-time links by email that start one (:mod:`pbem.web.signin`
has the pages): who is signed in to this browser, the links' tokens (only their SHA-256 is
stored; each works once, within ``LINK_MINUTES``), and starting a fresh session after a link.
Below the sign-in, sign-up and account pages, which all build on it.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import redirect, request, session, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_login import current_user, login_user
from sqlalchemy import update
from sqlmodel import Session, col, delete, select
from werkzeug.wrappers import Response

from pbem.db import Database
from pbem.i18n import Reader
from pbem.models import Player, SignInLink
from pbem.services.common import audit
from pbem.web.email_links import record_sign_in
from pbem.web.redirects import safe_next
from pbem.web.support import message_page, queue_player_mail, site

LINK_MINUTES = 15
SIGN_IN_LIMIT = "5 per hour"  # per address and per client: enough for a typo, useless for spam
KEEP_OLD_LINKS = timedelta(days=1)  # used and expired links are deleted after this


@dataclass(frozen=True)
class SignedInPlayer:
    """Flask-Login's user for a player's session: who, the session version it was made with,
    and the account's language and time zone (every page they open is in these). A plain
    object, not the table's row, so nothing loaded here goes stale in a session; it is loaded
    afresh for each request."""

    id: int
    name: str
    email: str
    session_version: int
    language: str = "en"
    time_zone: str = "UTC"

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def is_active(self) -> bool:
        return True

    @property
    def is_anonymous(self) -> bool:
        return False

    def get_id(self) -> str:
        return f"player:{self.id}:{self.session_version}"

    @classmethod
    def of(cls, player: Player) -> SignedInPlayer:
        assert player.id is not None
        return cls(player.id, player.name, player.email, player.session_version,
                   player.language, player.time_zone)

    @property
    def reader(self) -> Reader:
        return Reader.of(self)


def load_player(db: Database, user_id: str) -> SignedInPlayer | None:
    """The player whose session this is, if it is still theirs; ``user_id`` is what follows
    ``player:`` in the session (``"7:0"``)."""
    number, _sep, version = user_id.partition(":")
    if not number.isdigit() or not version.isdigit() or len(number) > 18:
        return None
    with db.session() as db_session:
        player = db_session.get(Player, int(number))
    if player is None or player.bot_level is not None or player.session_version != int(version):
        return None
    return SignedInPlayer.of(player)


def current_player() -> SignedInPlayer | None:
    """The player signed in to this session; None for nobody and for an organiser."""
    user = current_user._get_current_object()
    return user if isinstance(user, SignedInPlayer) else None


# -- the links ----------------------------------------------------------------------------------

def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_link(db_session: Session, now: datetime, player_id: int) -> str:
    """A new sign-in link's token for ``player_id`` (stored as its hash only); earlier links of
    the player keep working until they expire, and long-dead ones are deleted."""
    db_session.exec(delete(SignInLink).where(
        col(SignInLink.player_id) == player_id,
        col(SignInLink.expires_at) < now - KEEP_OLD_LINKS))
    token = secrets.token_urlsafe(32)
    db_session.add(SignInLink(player_id=player_id, token_hash=token_hash(token), created_at=now,
                              expires_at=now + timedelta(minutes=LINK_MINUTES)))
    return token


def link_problem(db_session: Session, now: datetime, token: str) -> tuple[str, int] | None:
    """Why ``token`` cannot sign anyone in (as a page), or None when it can."""
    link = db_session.exec(select(SignInLink).where(
        SignInLink.token_hash == token_hash(token))).one_or_none()
    if link is None:
        return message_page(
            _("This sign-in link does not work"),
            _("The link you followed is not one we sent, or part of it got lost on the way (long "
              "links are sometimes cut in two by mail programs). Copy the whole link from the "
              "email into the address bar, or ask for a new one."), 400,
            game_url=url_for("signin.sign_in_page"))
    if link.used_at is not None:
        return message_page(
            _("This sign-in link has been used"),
            _("Each sign-in link works only once. If you are not signed in, ask for a new "
              "link."), 410, game_url=url_for("signin.sign_in_page"))
    if link.expires_at <= now:
        return message_page(
            _("This sign-in link has expired"),
            ngettext("Sign-in links work for %(num)d minute. Please ask for a new one.",
                     "Sign-in links work for %(num)d minutes. Please ask for a new one.",
                     LINK_MINUTES), 410, game_url=url_for("signin.sign_in_page"))
    return None


def use_link(db_session: Session, now: datetime, token: str) -> int | None:
    """Mark the link used and return its player's id; None if it is unknown, used or expired.
    One UPDATE decides, so of two requests at once only one signs in."""
    table = SignInLink.__table__  # type: ignore[attr-defined]
    hashed = token_hash(token)
    done = db_session.execute(update(table).where(
        table.c.token_hash == hashed, table.c.used_at.is_(None), table.c.expires_at > now,
    ).values(used_at=now))
    if done.rowcount != 1:  # type: ignore[attr-defined]
        return None
    return db_session.exec(select(SignInLink.player_id).where(
        SignInLink.token_hash == hashed)).one()


def enqueue_link(db_session: Session, now: datetime, player: Player) -> None:
    """The sign-in link into the outbox, in the player's language; it belongs to no game."""
    assert player.id is not None
    token = issue_link(db_session, now, player.id)
    queue_player_mail(db_session, now, player, kind="sign_in",
                      subject=lambda reader: reader.gettext("Your sign-in link"),
                      minutes=LINK_MINUTES,
                      sign_in_url=f"{site().links.base_url}/sign-in/{token}")
    audit(db_session, now, "sign-in link sent", player_id=player.id)


# -- starting a session -------------------------------------------------------------------------

NEXT_KEY = "pbem_sign_in_next"  # where a signed-in player goes next, kept in the session
SIGN_IN_KEY = "pbem_sign_in"  # this browser's row of PlayerSignIn: "this browser" on the list


@dataclass(frozen=True)
class LinkSignIn:
    """A browser signing in with a link from the player's mail: who, and its recorded row."""

    player: SignedInPlayer
    row: int


def signed_in_with_link(db_session: Session, now: datetime, player: Player,
                        via: str) -> LinkSignIn:
    """Record that this browser signs in as ``player`` with a link of ``via`` (their account
    page lists it); :func:`begin_session` then starts the session."""
    assert player.id is not None
    row = record_sign_in(db_session, now, player.id, via, request.user_agent.string)
    audit(db_session, now, "signed in", player_id=player.id, via=via)
    return LinkSignIn(SignedInPlayer.of(player), row)


def begin_session(signing: LinkSignIn, going: Response) -> Response:
    """A fresh session: nothing from before (an organiser's login, a CSRF token) carries over.
    ``going`` is made before, as it may come from the old session (:func:`go_on`)."""
    session.clear()
    login_user(signing.player)
    session.permanent = True  # stays signed in across browser restarts, until signed out
    session[SIGN_IN_KEY] = signing.row
    return going


def go_on() -> Response:
    """After signing in, the page that sent the player here (kept in this browser's session;
    read before ``session.clear()``), else their games page."""
    return redirect(safe_next(session.pop(NEXT_KEY, None)) or url_for("signin.account"), 303)
