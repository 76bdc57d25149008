"""A player's games and mail settings, their games-page link, and the one-click unsubscribe of
RFC 8058.

- ``/account`` is the home of the player signed in to this browser (:mod:`pbem.web.signin`
  sends anyone else to sign in): their games in the order they need attention
  (:mod:`pbem.web.home`), then the account's sections (``ACCOUNT_SECTIONS``): ratings, profile,
  absences, settings, a link to other channels and the calendar, the browsers that signed in
  with a link from their mail, and "Replace my email links" (``/account/links``). Their
  language buttons, on every page, POST to ``/account/language``.
- ``/me/<token>``, the games-page link at the foot of every email, is no password: it goes
  straight to ``/account`` in a browser signed in as its player, and shows any other browser a
  page whose button (a POST) signs it in as them and goes there. A mail scanner that follows the
  link signs nothing in, the address bar never shows the token after that, and each such sign-in
  is listed on the account page. A link from before the player replaced their links says so
  (:mod:`pbem.web.email_links`).
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from functools import cache
from typing import Any
from zoneinfo import available_timezones

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup, escape
from sqlmodel import Session, select
from werkzeug.wrappers import Response

from engine.text import Text
from pbem.addresses import BadName, check_name
from pbem.clock.controls import DEFAULT_ALLOWANCE_DAYS, BadAbsence, local_date
from pbem.clock.deadlines import recompute_deadlines_of
from pbem.clock.wall import utc_now
from pbem.i18n import LANGUAGES
from pbem.links import DamagedLink, ReplacedPlayerLink
from pbem.models import Player, PlayerSignIn
from pbem.notifications.service import setting_of, unsubscribed
from pbem.services.common import audit
from pbem.services.vacations import (
    AbsenceRefused,
    absences_for,
    add_absence,
    days_left,
    remove_absence,
)
from pbem.web.csrf import check_csrf
from pbem.web.email_links import VIA, replace_links, sign_ins_of
from pbem.web.home import home_of
from pbem.web.language import current_reader, remember_language
from pbem.web.player_sessions import (
    LINK_MINUTES,
    NEXT_KEY,
    SIGN_IN_KEY,
    SIGN_IN_LIMIT,
    current_player,
    enqueue_link,
)
from pbem.web.ratings import rating_lines
from pbem.web.redirects import safe_next
from pbem.web.support import (
    damaged_link,
    database,
    load_token,
    message_page,
    queue_player_mail,
    read_as_player,
    shown_reason,
    site,
    within_limits,
)

bp = Blueprint("players", __name__)

MAX_DAYS_AHEAD = 2 * 366
LINKS_LIMIT = "5 per hour"  # per address and per client: enough for a typo, useless for spam
LINKS_SENT = _l("If we know that address, its games page link is on its way. It can take a "
                "few minutes; look in the spam folder too.")


@bp.post("/links")
def email_links() -> tuple[str, int]:
    """Mail a player their games page link. The page answers the same whether the address is
    known or not, so nobody can find out who plays here; both limits count every request."""
    check_csrf()
    address = request.form.get("email", "").strip().lower()[:320]
    if not within_limits("pbem-links", LINKS_LIMIT, address):
        return message_page(_("Please wait"), _("Too many requests for links. Please try again "
                                                 "in an hour."), 429)
    with database().write() as session:
        player = session.exec(select(Player).where(Player.email == address)).one_or_none()
        if player is not None:
            _enqueue_links(session, player)
    return message_page(_("Check your mail"), str(LINKS_SENT))


def _enqueue_links(session: Session, player: Player) -> None:
    """The games page link into the outbox; it belongs to no game."""
    assert player.id is not None
    now = utc_now()
    queue_player_mail(session, now, player, kind="links",
                      subject=lambda reader: reader.gettext("Your games page link"),
                      my_games_url=site().links.my_games_url(player.id,
                                                             version=player.links_version))
    audit(session, now, "games page link sent", player_id=player.id)


@bp.route("/me/<token>", methods=["GET", "POST"])
def my_games(token: str) -> tuple[str, int] | Response:
    """The games-page link of mails: ``/account`` for a browser signed in as its player. Any
    other browser needs a fresh one-time sign-in: the page's button (its POST) mails the player
    a sign-in link. The games-page link is in every email's footer for as long as the player
    keeps their mail, so on its own it must open nothing: a forwarded email, or a mailbox read
    by someone else, would be a key that never expires."""
    player = _player_of_link(token)
    if not isinstance(player, Player):
        return player
    assert player.id is not None
    signed = current_player()
    if signed is not None and signed.id == player.id:  # nothing to do: their games
        return redirect(url_for("signin.account"), 303)
    read_as_player(player)
    if request.method != "POST":  # GET and HEAD only show (a mail scanner's visit too)
        return render_template("me_link.html", token=token, name=player.name,
                               minutes=LINK_MINUTES,
                               other=signed.name if signed is not None else ""), 200
    check_csrf()
    if not within_limits("pbem-sign-in", SIGN_IN_LIMIT, player.email):
        return message_page(_("Please wait"), _("Too many requests for sign-in links. Please "
                                                 "try again in an hour."), 429)
    with database().write() as db_session:
        row = db_session.get(Player, player.id)
        if row is None or row.links_version != player.links_version:  # replaced meanwhile
            return replaced_link()
        enqueue_link(db_session, utc_now(), row)
    session[NEXT_KEY] = url_for("signin.account")  # the link means their games
    return render_template("me_link_sent.html", minutes=LINK_MINUTES), 200


def _player_of_link(token: str) -> Player | tuple[str, int]:
    """The player whose games-page link ``token`` is, or the page saying why it works no more:
    damaged, or replaced (the token's links version is not the player's now)."""
    try:
        fields = load_token("player", token)
    except ReplacedPlayerLink:
        return replaced_link()
    except DamagedLink:
        return damaged_link()
    with database().session() as db_session:
        player = db_session.get(Player, fields["player"])
    if player is None or player.bot_level is not None:  # computer players get no mail
        return damaged_link()
    if fields.get("v", 0) != player.links_version:
        return replaced_link()
    return player


def replaced_link() -> tuple[str, int]:
    """In the visitor's language, not the player's: whoever has an old link learns nothing."""
    return message_page(
        _("This link was replaced"),
        _("The links in your earlier emails were replaced by new ones, so this one no longer "
          "opens anyone's games. We emailed you the new link; the latest emails have it at the "
          "bottom. Links to moves in your games keep working."), 410,
        game_url=url_for("signin.account"))


def account_page(player_id: int) -> Response | tuple[str, int]:
    """``/account`` (:func:`pbem.web.signin.account`) for the signed-in ``player_id``: the page,
    and its forms' POSTs."""
    with database().session() as db_session:
        player = db_session.get(Player, player_id)
    if player is None:
        return redirect(url_for("signin.sign_in_page"), 303)
    read_as_player(player)
    if request.method == "POST":  # the CSRF token is checked (signin.account)
        if request.form.get("action") in ("add_absence", "cancel_absence"):
            return _change_absences(player_id)
        if request.form.get("action") == "profile":
            return _change_profile(player_id)
        try:
            name, zone = _checked_settings()
        except BadName as error:
            return _my_games_page(player_id, settings_error=_(
                "%(problem)s. Nothing was saved; correct it and save again.",
                problem=shown_reason(error)), status=400)
        with database().write() as session:
            player = session.get(Player, player_id)
            if player is None:
                return damaged_link()
            player.name = name or player.name
            zone_changed = player.time_zone != zone
            player.time_zone = zone
            language = request.form.get("language", player.language)
            player.language = language if language in LANGUAGES else player.language
            session.add(player)
            if zone_changed:  # weekends and absences are days in their zone: new deadlines
                session.flush()
                recompute_deadlines_of(session, player_id, absences_changed=False)
            audit(session, utc_now(), "preferences changed", player_id=player_id)
        return redirect(url_for("signin.account", saved=1), 303)
    return _my_games_page(player_id)


@bp.post("/account/language")
def account_language() -> Response:
    """The language buttons of a signed-in player's pages: the account's language changes (every
    page they open and every email is in it), and they go back where they were. The switcher's
    cookie follows, so the site stays in that language after they sign out. Anyone else is sent
    to sign in (visitors choose with ``GET /language/<code>``, which stores nothing)."""
    check_csrf()
    player = current_player()
    if player is None:
        return redirect(url_for("signin.sign_in_page"), 303)
    language = request.form.get("language", "")
    back = redirect(safe_next(request.form.get("next")) or url_for("signin.account"), 303)
    if language not in LANGUAGES:
        return back
    with database().write() as session:
        row = session.get(Player, player.id)
        if row is not None and row.language != language:
            row.language = language
            session.add(row)
            audit(session, utc_now(), "preferences changed", player_id=player.id)
    remember_language(back, language)
    return back


@bp.post("/account/links")
def replace_my_links() -> Response | tuple[str, int]:
    """"Replace my email links": the games-page links of every earlier email stop working, and
    the new one is mailed (:func:`pbem.web.email_links.replace_links`)."""
    check_csrf()
    player = current_player()
    if player is None:
        return redirect(url_for("signin.sign_in_page"), 303)
    with database().write() as db_session:
        replace_links(db_session, utc_now(), player.id)
    return message_page(
        _("Your email links were replaced"),
        _("The links in our earlier emails no longer open your games; we have emailed you the "
          "new one. Links to moves in your games keep working, and this browser stays signed "
          "in."), game_url=url_for("signin.account"))


def _change_profile(player_id: int) -> Response | tuple[str, int]:
    """Hide or show the player's public profile (pbem.web.profiles); the box unticked shows it."""
    hidden = request.form.get("profile_hidden") == "on"
    with database().write() as session:
        player = session.get(Player, player_id)
        if player is None:
            return damaged_link()
        player.profile_hidden = hidden
        session.add(player)
        audit(session, utc_now(), "profile hidden" if hidden else "profile shown",
              player_id=player_id)
    return redirect(url_for("signin.account", saved=1, _anchor="profile"), 303)


def _checked_settings() -> tuple[str, str]:
    """The name and time zone of the settings form, or BadName saying what is wrong with them
    (the page shows the form again with the error and what was typed)."""
    name = check_name(request.form.get("name", ""))
    zone = request.form.get("time_zone", "UTC").strip()
    if zone not in available_timezones():
        raise BadName(Text("%(zone)s is not a time zone we know; choose one from the list, "
                           "like Europe/Paris or America/New_York", zone=repr(zone[:60])))
    return name, zone


@cache
def time_zones() -> list[str]:
    """Every zone the server's zoneinfo knows, sorted, for the settings form's list."""
    return sorted(available_timezones())


def zone_options(selected: str) -> Markup:
    """The settings form's list of :func:`time_zones`, ``selected`` chosen: made here, where
    the template's loop over 600 zones took 2 ms of every account page (issue 36).

    >>> options = zone_options("Europe/Paris")
    >>> options.count("<option selected>"), options.count("<option selected>Europe/Paris<")
    (1, 1)
    >>> options.startswith("<option>Africa/Abidjan</option><option>Africa/Accra</option>")
    True
    """
    return Markup("".join(f"<option selected>{escape(zone)}</option>" if zone == selected
                          else f"<option>{escape(zone)}</option>" for zone in time_zones()))


# The account's sections below the games, each its own template (templates/account/), in the
# page's order: a new section is a template and a line here.
ACCOUNT_SECTIONS = ("account/_ratings.html", "account/_profile.html", "account/_away.html",
                    "account/_settings.html", "account/_notifications.html",
                    "account/_channels.html", "account/_sign_ins.html", "account/_links.html")


def _my_games_page(player_id: int, *, absence_error: str = "", settings_error: str = "",
                   status: int = 200) -> tuple[str, int]:
    allowance = int(current_app.config.get("VACATION_DAYS", DEFAULT_ALLOWANCE_DAYS))
    now = utc_now()
    with database().session() as session:
        player = session.get(Player, player_id)
        if player is None:
            return damaged_link()
        absences = absences_for(session, player_id)
        year = local_date(now, player.time_zone).year
        left = days_left(session, player_id, year, allowance)
        home = home_of(session, player_id, now, current_reader())
        ratings = rating_lines(session, player_id)
        sign_ins = [_sign_in_line(row) for row in sign_ins_of(session, player_id)]
        # Read here, not by the section in a session of its own (a connection's checkout and
        # ping more for every page, issue 36).
        notifications = setting_of(session, player_id)
    typed = request.form if settings_error else {}
    return render_template("me.html", player=player, home=home, sections=ACCOUNT_SECTIONS,
                           computer_url=url_for("computer.play_the_computer"),
                           languages=LANGUAGES, saved=bool(request.args.get("saved")),
                           absences=absences, absence_error=absence_error, days_left=left,
                           allowance=allowance, year=year, zones=time_zones(),
                           zone_options=zone_options,
                           settings_error=settings_error, typed=typed, ratings=ratings,
                           sign_ins=sign_ins, notifications=notifications), status


def _sign_in_line(row: PlayerSignIn) -> dict[str, Any]:
    """One line of "sign-ins": when, which browser roughly, which link, and whether it is this
    browser's own."""
    if row.browser and row.system:
        browser = _("%(browser)s on %(system)s", browser=row.browser, system=row.system)
    else:
        browser = row.browser or row.system or _("a browser that does not say which")
    return {"at": row.at, "browser": browser, "via": str(VIA.get(row.via, row.via)),
            "here": row.id == session.get(SIGN_IN_KEY)}


def _change_absences(player_id: int) -> tuple[str, int] | Response:
    """Add or cancel an absence; a refusal shows the page again with the reason."""
    allowance = int(current_app.config.get("VACATION_DAYS", DEFAULT_ALLOWANCE_DAYS))
    try:
        with database().write() as session:
            if request.form["action"] == "cancel_absence":
                remove_absence(session, utc_now(), player_id=player_id,
                               absence_id=_form_id("absence_id"))
            else:
                start, end = (_form_date(name) for name in ("start", "end"))
                add_absence(session, utc_now(), player_id=player_id, start=start, end=end,
                            allowance_days=allowance)
    except (AbsenceRefused, BadAbsence) as error:
        return _my_games_page(player_id, absence_error=shown_reason(error), status=400)
    return redirect(url_for("signin.account", saved=1), 303)


def _form_id(name: str) -> int:
    """A row id from a hidden field; anything else (``abc``, ``1e9``, past the database's
    integers) is no absence of this player's."""
    text = request.form.get(name, "").strip()
    if not re.fullmatch(r"[0-9]{1,9}", text):
        raise AbsenceRefused(Text("there is no such absence"))
    return int(text)


def _form_date(name: str) -> date:
    """A day from a date field, no further ahead than anyone plans an absence: far dates
    (9999-12-31) would overflow the calendar arithmetic of the allowance."""
    text = request.form.get(name, "").strip()
    first = name == "start"
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise BadAbsence(
            Text("the first day %(text)s is not a date like 2025-07-31", text=repr(text[:40]))
            if first else
            Text("the last day %(text)s is not a date like 2025-07-31", text=repr(text[:40]))
        ) from None
    latest = utc_now().date() + timedelta(days=MAX_DAYS_AHEAD)
    if day > latest:
        raise BadAbsence(
            Text("the first day can be %(latest)s at the latest: absences can be planned up to "
                 "two years ahead", latest=current_reader().day(latest)) if first else
            Text("the last day can be %(latest)s at the latest: absences can be planned up to "
                 "two years ahead", latest=current_reader().day(latest)))
    return day


@bp.route("/unsubscribe/<token>", methods=["GET", "POST"])
def unsubscribe(token: str) -> tuple[str, int]:
    """GET asks; POST (from the page, or a mail client's one-click) turns updates off: a player
    who got every event gets only their turns and game ends from now on
    (:func:`pbem.notifications.service.unsubscribed`).

    The one-click POST comes from the mail client without our cookie, so it carries no CSRF token;
    the signed link is the authority, and the worst a forger could do is stop optional updates.
    """
    try:
        player_id = load_token("unsubscribe", token)["player"]
    except (DamagedLink, KeyError):
        return damaged_link()
    with database().session() as session:
        known = session.get(Player, player_id)
    if known is not None:
        read_as_player(known)
    if request.method != "POST":  # GET and HEAD only show
        return render_template("unsubscribe.html", token=token), 200
    with database().write() as session:
        player = session.get(Player, player_id)
        if player is None:
            return damaged_link()
        unsubscribed(session, utc_now(), player_id=player_id)
        audit(session, utc_now(), "unsubscribed from updates", player_id=player_id)
    # Their games, for whoever signed in: this link may reach someone else (a forwarded email),
    # and must not hand them the player's games-page link.
    return message_page(_("Updates turned off"),
                        _("You will no longer get updates about other players' moves. "
                          "Invitations, your turn notices and results still come."),
                        game_url=url_for("signin.account"))
