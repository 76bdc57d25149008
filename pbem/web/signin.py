"""Players sign in by email: a one-time link, then a Flask-Login session.

- ``/sign-in`` asks for an address and mails that player a link, answering the same whether or
  not the address is known (nobody can find out who plays here). Requests are counted per address
  and per client in the dashboard limiter's storage, as ``/links`` does.
- The link's token is ``secrets.token_urlsafe(32)``; only its SHA-256 is stored. It works once,
  within ``LINK_MINUTES``, and only by POST: opening it shows a page with a "Sign in" button, so
  a mail scanner that follows links cannot use it up.
- The session's user id is ``"player:<id>:<session_version>"`` (the dashboard's organisers are
  ``"admin:..."``; one user loader in :mod:`pbem.admin` reads both). "Sign out everywhere" adds
  one to ``Player.session_version``, so every older session stops loading. Unlike an organiser's,
  a player's session is not bound to the client's address: phones change addresses all day.
- Sign-up (``PBEM_SIGNUP``): ``invite`` and ``closed`` mail links to existing players only;
  ``open`` mails an unknown address a sign-up link instead (:mod:`pbem.web.signup`).
- A signed-in player's ``/account`` is their games page and settings (:mod:`pbem.web.players`);
  the games-page link of their mail (``/me/<token>``) leads there, signing the browser in with
  one press of a button. Each sign-in by a link is recorded for the account page, and "sign out
  everywhere" also replaces those links (:mod:`pbem.web.email_links`).
- Where to go after signing in (``?next=``) is checked by :func:`pbem.web.redirects.safe_next`.

The links and sessions themselves are :mod:`pbem.web.player_sessions`, below these pages and
the sign-up and account pages that build on it.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, g, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_login import login_user, logout_user
from sqlalchemy import update
from sqlmodel import select
from werkzeug.wrappers import Response

from pbem.addresses import BadAddress, check_address
from pbem.clock.wall import utc_now
from pbem.models import Player, SignInLink
from pbem.services.common import audit
from pbem.web.csrf import check_csrf
from pbem.web.email_links import replace_links
from pbem.web.language import read_as
from pbem.web.player_sessions import (
    LINK_MINUTES,
    NEXT_KEY,
    SIGN_IN_KEY,
    SIGN_IN_LIMIT,
    SignedInPlayer,
    begin_session,
    current_player,
    enqueue_link,
    go_on,
    link_problem,
    signed_in_with_link,
    token_hash,
    use_link,
)
from pbem.web.players import account_page
from pbem.web.redirects import safe_next
from pbem.web.signup import enqueue_signup
from pbem.web.support import database, message_page, read_as_player, within_limits

bp = Blueprint("signin", __name__)


@bp.app_context_processor
def signed_in() -> dict[str, Any]:
    """Every page's navigation says who is signed in (base.html)."""
    try:
        player = current_player()
    except Exception:  # an error page must still render when the database does not answer
        player = None
    return {"signed_in_player": player}


@bp.before_app_request
def read_as_account() -> None:
    """Every page a signed-in player opens is in their account's language and time zone,
    whatever the browser's Accept-Language or the switcher's cookie says (a page reached by
    another player's link then reads as that player: :func:`pbem.web.support.read_as_player`)."""
    try:
        player = current_player()
    except Exception:  # an error page must still render when the database does not answer
        return
    if player is not None:
        read_as(player.reader)
        g.pbem_reader_id = player.id


@bp.get("/sign-in")
def sign_in_page() -> tuple[str, int]:
    if target := safe_next(request.args.get("next")):
        session[NEXT_KEY] = target
    notice = _("Sign in to join this seek.") if request.args.get("why") == "seek" else ""
    return render_template("sign_in.html", minutes=LINK_MINUTES, error="", typed="",
                           notice=notice), 200


@bp.post("/sign-in")
def request_link() -> tuple[str, int]:
    """Mail the address's player a sign-in link; the answer is the same for any address."""
    check_csrf()
    typed = request.form.get("email", "")[:320]
    try:  # checked before counting: a typo must not use up the address's or client's allowance
        address = check_address(typed)
    except BadAddress:
        return render_template("sign_in.html", minutes=LINK_MINUTES, notice="", typed=typed,
                               error=_("Enter your email address, such as ann@example.org")), 400
    if not within_limits("pbem-sign-in", SIGN_IN_LIMIT, address):
        return message_page(_("Please wait"), _("Too many requests for sign-in links. Please "
                                                 "try again in an hour."), 429)
    with database().write() as db_session:
        player = db_session.exec(select(Player).where(Player.email == address)).one_or_none()
        if player is not None and player.bot_level is None:  # bots get no mail
            enqueue_link(db_session, utc_now(), player)
        elif player is None and current_app.config.get("SIGNUP") == "open":
            enqueue_signup(db_session, utc_now(), address)
    # The same page whatever the address and the sign-up policy: nothing can be probed here.
    return render_template("sign_in_sent.html", minutes=LINK_MINUTES), 200


@bp.get("/sign-in/<token>")
def confirm_page(token: str) -> tuple[str, int]:
    """Only shows: the button on it signs in (a mail scanner's GET must not use the link)."""
    with database().session() as db_session:
        problem = link_problem(db_session, utc_now(), token)
        if problem is not None:
            return problem
        link = db_session.exec(select(SignInLink).where(
            SignInLink.token_hash == token_hash(token))).one()
        player = db_session.get(Player, link.player_id)
    assert player is not None  # a link's player is a foreign key
    read_as_player(player)  # the page of their link is in their language
    return render_template("sign_in_confirm.html", token=token, name=player.name), 200


@bp.post("/sign-in/<token>")
def complete(token: str) -> Response | tuple[str, int]:
    check_csrf()
    now = utc_now()
    with database().write() as db_session:
        player_id = use_link(db_session, now, token)
        player = db_session.get(Player, player_id) if player_id is not None else None
        signing = (signed_in_with_link(db_session, now, player, "sign-in-link")
                   if player is not None else None)
    if signing is None:
        with database().session() as db_session:
            problem = link_problem(db_session, now, token)
        return problem or message_page(_("This sign-in link does not work"),
                                       _("Please ask for a new one."), 400,
                                       game_url=url_for("signin.sign_in_page"))
    return begin_session(signing, go_on())


@bp.route("/account", methods=["GET", "POST"])
def account() -> Response | tuple[str, int]:
    """A signed-in player's games and settings (:mod:`pbem.web.players` makes the page and
    saves its forms); anyone else is sent to sign in."""
    if request.method == "POST":
        check_csrf()
    player = current_player()
    if player is None:
        return redirect(url_for("signin.sign_in_page"), 303)
    return account_page(player.id)


@bp.get("/sign-out")
def sign_out_page() -> Response | tuple[str, int]:
    player = current_player()
    if player is None:
        return redirect(url_for("signin.sign_in_page"), 303)
    return render_template("sign_in_sign_out.html", player=player), 200


@bp.post("/sign-out")
def sign_out() -> Response | tuple[str, int]:
    """Ends this session only. An organiser's session is no player's: it is left alone."""
    check_csrf()
    player = current_player()
    if player is None:
        return redirect(url_for("signin.sign_in_page"), 303)
    with database().write() as db_session:
        audit(db_session, utc_now(), "signed out", player_id=player.id)
    logout_user()
    session.clear()
    return message_page(_("You are signed out"),
                        _("To sign in again, ask for a new sign-in link."),
                        game_url=url_for("signin.sign_in_page"))


@bp.post("/sign-out-everywhere")
def sign_out_everywhere() -> Response | tuple[str, int]:
    """Every other session of this player ends (their version is counted up); this one goes
    on with the new version. Their email links are replaced too: a games-page link signs a
    browser in with one press, so an old email would otherwise sign the lost phone in again."""
    check_csrf()
    player = current_player()
    if player is None:
        return redirect(url_for("signin.sign_in_page"), 303)
    table = Player.__table__  # type: ignore[attr-defined]
    with database().write() as db_session:
        now = utc_now()
        # Counted up in SQL, not read and written back: two at once both count.
        db_session.execute(update(table).where(table.c.id == player.id)
                           .values(session_version=table.c.session_version + 1))
        replace_links(db_session, now, player.id)
        audit(db_session, now, "signed out everywhere", player_id=player.id)
        row = db_session.get(Player, player.id)
        assert row is not None
        db_session.refresh(row)
        signed = SignedInPlayer.of(row)
    this_browser = session.get(SIGN_IN_KEY)
    session.clear()
    login_user(signed)
    session.permanent = True
    if this_browser:
        session[SIGN_IN_KEY] = this_browser
    return message_page(_("Signed out on all other devices"),
                        _("Your other sessions have ended, and the links in our earlier emails no "
                          "longer open your games: we have emailed you a new one. You are still "
                          "signed in here."), game_url=url_for("signin.account"))
