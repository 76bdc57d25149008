"""A player's email links: which browsers signed in with one, and replacing them.

- Every email to a player ends with their games-page link (``/me/<token>``, :mod:`pbem.links`).
  It is no password: it opens the games only in a browser signed in as that player already, or
  after one press of a button that signs this browser in (a POST, so a mail scanner that follows
  links signs nothing in; :mod:`pbem.web.players`).
- Every sign-in by a link from the player's mail (that button, a one-time sign-in link, a sign-up
  link) is recorded: when, roughly which browser on which system (its User-Agent, read by
  ua-parser), and which link. The account page lists the latest ones, so a link used by someone
  else is seen. No client address is kept.
- "Replace my email links" (and "sign out everywhere") adds one to ``Player.links_version``: every
  games-page link mailed before shows "this link was replaced", the new one is mailed at once, and
  unused sign-in links stop working. A game's seat links stay (move, invitation, resign, the seat's
  view): they are bound to the game, the seat and its holder, a move link lasts one turn, and
  replacing them would break the games in progress. The unsubscribe link stays too: it can only
  stop optional updates, and a mail program's one-click unsubscribe must keep working from old
  mail (RFC 8058).
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from flask_babel import lazy_gettext as _l
from sqlalchemy import update
from sqlmodel import Session, col, delete, select
from ua_parser import parse as parse_user_agent

from pbem.models import Player, PlayerSignIn, SignInLink
from pbem.services.common import audit
from pbem.web.support import queue_player_mail, site

KEEP_SIGN_INS = 20  # per player: the account page lists them all
MAX_NAME = 60  # of a browser or a system, as stored

# Which link signed a browser in (PlayerSignIn.via), as the account page says it.
VIA = {
    "games-link": _l("a games page link"),
    "sign-in-link": _l("a sign-in link"),
    "sign-up-link": _l("a sign-up link"),
}


@lru_cache(maxsize=512)
def browser_of(user_agent: str) -> tuple[str, str]:
    """Roughly which browser, on which system, a User-Agent names; "" for a part it does not.

    >>> browser_of("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0")
    ('Firefox', 'Linux')
    >>> browser_of("")
    ('', '')
    """
    found = parse_user_agent(user_agent[:512])  # real ones are shorter; a long one costs time
    browser = found.user_agent.family if found.user_agent else ""
    system = found.os.family if found.os else ""
    return ("" if browser == "Other" else browser[:MAX_NAME],
            "" if system == "Other" else system[:MAX_NAME])


def record_sign_in(db_session: Session, now: datetime, player_id: int, via: str,
                   user_agent: str) -> int:
    """Note that a browser signed in as the player with a link of ``via``; only the latest
    ``KEEP_SIGN_INS`` are kept. The new row's id (the session keeps it: "this browser")."""
    browser, system = browser_of(user_agent)
    row = PlayerSignIn(player_id=player_id, at=now, browser=browser, system=system, via=via)
    db_session.add(row)
    db_session.flush()
    assert row.id is not None
    kept = select(PlayerSignIn.id).where(PlayerSignIn.player_id == player_id).order_by(
        col(PlayerSignIn.id).desc()).limit(KEEP_SIGN_INS)
    db_session.exec(delete(PlayerSignIn).where(
        col(PlayerSignIn.player_id) == player_id,
        col(PlayerSignIn.id).not_in(kept.scalar_subquery())))
    return row.id


def sign_ins_of(db_session: Session, player_id: int) -> list[PlayerSignIn]:
    """The player's recorded sign-ins, newest first."""
    return list(db_session.exec(select(PlayerSignIn).where(
        PlayerSignIn.player_id == player_id).order_by(col(PlayerSignIn.id).desc())))


def replace_links(db_session: Session, now: datetime, player_id: int) -> int:
    """Make every games-page link of the player's mail stop working, and every unused sign-in
    link; mail them the new games-page link. Their new links version."""
    table = Player.__table__  # type: ignore[attr-defined]
    # Counted up in SQL, not read and written back: two at once both count.
    db_session.execute(update(table).where(table.c.id == player_id)
                       .values(links_version=table.c.links_version + 1))
    links = SignInLink.__table__  # type: ignore[attr-defined]
    db_session.execute(update(links).where(
        links.c.player_id == player_id, links.c.used_at.is_(None), links.c.expires_at > now,
    ).values(expires_at=now))
    player = db_session.get(Player, player_id)
    assert player is not None
    db_session.refresh(player)
    queue_player_mail(db_session, now, player, kind="links", replaced=True,
                      subject=lambda reader: reader.gettext("Your new games page link"),
                      my_games_url=site().links.my_games_url(player_id,
                                                             version=player.links_version))
    audit(db_session, now, "email links replaced", player_id=player_id)
    return player.links_version
