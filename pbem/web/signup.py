"""Sign-up, when the site allows it (``PBEM_SIGNUP=open``): an address nobody plays with yet
gets a sign-up link instead of a sign-in link (:mod:`pbem.web.signin` decides which).

The link is a signed, timed token holding the address (``itsdangerous``, its own salt), valid as
long as a sign-in link. Its page asks for a name and makes the account on its POST, once: an
address that is a player already finds the link used. ``invite`` (the default) and ``closed``
send no sign-up links; ``closed`` also keeps challenges from inviting new addresses.
"""

from __future__ import annotations

from datetime import datetime
from email.utils import make_msgid

from flask import Blueprint, current_app, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from itsdangerous import BadData, URLSafeTimedSerializer
from sqlmodel import Session, select
from werkzeug.wrappers import Response

from pbem.addresses import BadAddress, BadName, check_address, check_name
from pbem.clock.wall import utc_now
from pbem.models import OutboxEmail, Player
from pbem.services.common import audit
from pbem.templating import render_email
from pbem.web.csrf import check_csrf
from pbem.web.language import current_reader
from pbem.web.player_sessions import LINK_MINUTES, begin_session, go_on, signed_in_with_link
from pbem.web.support import database, message_page, shown_reason, site

bp = Blueprint("signup", __name__)


def _signup_serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(site().links.secret_key, salt="pbem-signup")


def enqueue_signup(db_session: Session, now: datetime, address: str) -> None:
    """A sign-up link for an address nobody plays with yet, in the page's language (the
    address has no player to have one). An address that is not one gets nothing."""
    try:
        address = check_address(address)
    except BadAddress:
        return
    reader = current_reader()
    url = f"{site().links.base_url}/sign-up/{_signup_serializer().dumps({'e': address})}"
    subject = reader.gettext("Your sign-in link")
    values = {"subject": subject, "sign_up_url": url, "minutes": LINK_MINUTES}
    db_session.add(OutboxEmail(
        kind="challenge_signup", to_address=address, subject=subject,
        text_body=render_email("email/challenge_signup.txt", reader, **values),
        html_body=render_email("email/challenge_signup.html", reader, **values),
        message_id=make_msgid(idstring="signup", domain=site().mail_domain),
        next_attempt_at=now, created_at=now))
    audit(db_session, now, "sign-up link sent")


def _signup_address(token: str) -> str | None:
    try:
        fields = _signup_serializer().loads(token, max_age=LINK_MINUTES * 60)
    except BadData:
        return None
    return fields.get("e") if isinstance(fields, dict) else None


@bp.route("/sign-up/<token>", methods=["GET", "POST"])
def sign_up(token: str) -> Response | tuple[str, int]:
    """GET shows the form (a mail scanner makes no account); its POST makes the account, once."""
    address = _signup_address(token)
    if address is None or current_app.config.get("SIGNUP") != "open":
        return message_page(_("This sign-in link does not work"), ngettext(
            "Sign-in links work for %(num)d minute. Please ask for a new one.",
            "Sign-in links work for %(num)d minutes. Please ask for a new one.",
            LINK_MINUTES), 410, game_url=url_for("signin.sign_in_page"))
    error = ""
    if request.method == "POST":
        check_csrf()
        now = utc_now()
        try:
            name = check_name(request.form.get("name", ""), default=address.partition("@")[0])
        except BadName as problem:
            error = shown_reason(problem)
        else:
            with database().write() as db_session:
                if db_session.exec(select(Player.id).where(Player.email == address)).first():
                    return message_page(_("This sign-in link has been used"), _(
                        "Each sign-in link works only once. If you are not signed in, ask for "
                        "a new link."), 410, game_url=url_for("signin.sign_in_page"))
                player = Player(name=name, email=address, created_at=now,
                                language=current_reader().language)
                db_session.add(player)
                db_session.flush()
                audit(db_session, now, "signed up", player_id=player.id)
                signing = signed_in_with_link(db_session, now, player, "sign-up-link")
            return begin_session(signing, go_on())
    return render_template("challenge_signup.html", token=token, address=address,
                           error=error), 400 if error else 200
