"""A player's games and mail settings, and the one-click unsubscribe of RFC 8058."""

from __future__ import annotations

import re
from datetime import date, timedelta
from zoneinfo import available_timezones

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from sqlmodel import col, select
from werkzeug.wrappers import Response

from pbem.addresses import BadName, check_name
from pbem.clock.controls import DEFAULT_ALLOWANCE_DAYS, BadAbsence, local_date
from pbem.clock.deadlines import recompute_deadlines_of
from pbem.links import DamagedLink
from pbem.models import Game, Player, Seat
from pbem.services.common import audit
from pbem.services.vacations import (
    AbsenceRefused,
    absences_for,
    add_absence,
    days_left,
    remove_absence,
)
from pbem.web.csrf import check_csrf
from pbem.web.support import damaged_link, database, load_token, message_page, site, utc_now

bp = Blueprint("players", __name__)

LANGUAGES = {"en": "English"}
MAX_DAYS_AHEAD = 2 * 366


@bp.route("/me/<token>", methods=["GET", "POST"])
def my_games(token: str) -> tuple[str, int] | Response:
    try:
        player_id = load_token("player", token)["player"]
    except (DamagedLink, KeyError):
        return damaged_link()
    if request.method == "POST":
        check_csrf()
        if request.form.get("action") in ("add_absence", "cancel_absence"):
            return _change_absences(token, player_id)
        try:
            name = check_name(request.form.get("name", ""))
        except BadName as error:
            return message_page("Your name was not saved", f"{error}. Nothing was changed; "
                                "please go back and correct it.", 400)
        zone = request.form.get("time_zone", "UTC").strip()
        if zone not in available_timezones():
            return message_page("Unknown time zone", f"{zone!r} is not a time zone we know; "
                                "use a name like Europe/Paris or America/New_York.", 400)
        with database().write() as session:
            player = session.get(Player, player_id)
            if player is None:
                return damaged_link()
            player.name = name or player.name
            zone_changed = player.time_zone != zone
            player.time_zone = zone
            language = request.form.get("language", "en")
            player.language = language if language in LANGUAGES else "en"
            player.notify_updates = request.form.get("notify_updates") == "on"
            session.add(player)
            if zone_changed:  # weekends and absences are days in their zone: new deadlines
                session.flush()
                recompute_deadlines_of(session, player_id, absences_changed=False)
            audit(session, utc_now(), "preferences changed", player_id=player_id)
        return redirect(url_for("players.my_games", token=token, saved=1), 303)
    return _my_games_page(token, player_id)


def _my_games_page(token: str, player_id: int, *, absence_error: str = "",
                   status: int = 200) -> tuple[str, int]:
    allowance = int(current_app.config.get("VACATION_DAYS", DEFAULT_ALLOWANCE_DAYS))
    with database().session() as session:
        player = session.get(Player, player_id)
        if player is None:
            return damaged_link()
        absences = absences_for(session, player_id)
        year = local_date(utc_now(), player.time_zone).year
        left = days_left(session, player_id, year, allowance)
        rows = session.exec(
            select(Game, Seat).join(Seat, col(Seat.game_id) == Game.id)
            .where(Seat.player_id == player_id).order_by(col(Game.created_at).desc())
        ).all()
    links = site().links
    games = [(game, seat, links.seat_view_url(game.id, seat.seat, holder=player_id)
              if game.id else "")
             for game, seat in rows]
    return render_template("me.html", player=player, games=games, token=token,
                           languages=LANGUAGES, saved=bool(request.args.get("saved")),
                           absences=absences, absence_error=absence_error, days_left=left,
                           allowance=allowance, year=year), status


def _change_absences(token: str, player_id: int) -> tuple[str, int] | Response:
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
        return _my_games_page(token, player_id, absence_error=str(error), status=400)
    return redirect(url_for("players.my_games", token=token, saved=1), 303)


def _form_id(name: str) -> int:
    """A row id from a hidden field; anything else (``abc``, ``1e9``, past the database's
    integers) is no absence of this player's."""
    text = request.form.get(name, "").strip()
    if not re.fullmatch(r"[0-9]{1,9}", text):
        raise AbsenceRefused("there is no such absence")
    return int(text)


def _form_date(name: str) -> date:
    """A day from a date field, no further ahead than anyone plans an absence: far dates
    (9999-12-31) would overflow the calendar arithmetic of the allowance."""
    text = request.form.get(name, "").strip()
    label = "first" if name == "start" else "last"
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise BadAbsence(f"the {label} day {text[:40]!r} is not a date like 2025-07-31") from None
    latest = utc_now().date() + timedelta(days=MAX_DAYS_AHEAD)
    if day > latest:
        raise BadAbsence(f"the {label} day can be {latest.isoformat()} at the latest: absences "
                         "can be planned up to two years ahead")
    return day


@bp.route("/unsubscribe/<token>", methods=["GET", "POST"])
def unsubscribe(token: str) -> tuple[str, int]:
    """GET asks; POST (from the page, or a mail client's one-click) turns updates off.

    The one-click POST comes from the mail client without our cookie, so it carries no CSRF token;
    the signed link is the authority, and the worst a forger could do is stop optional updates.
    """
    try:
        player_id = load_token("unsubscribe", token)["player"]
    except (DamagedLink, KeyError):
        return damaged_link()
    if request.method != "POST":  # GET and HEAD only show
        return render_template("unsubscribe.html", token=token), 200
    with database().write() as session:
        player = session.get(Player, player_id)
        if player is None:
            return damaged_link()
        player.notify_updates = False
        session.add(player)
        audit(session, utc_now(), "unsubscribed from updates", player_id=player_id)
    return message_page("Updates turned off", "You will no longer get updates about other "
                        "players' moves. Invitations, your turn notices and results still come.",
                        game_url=site().links.my_games_url(player_id))
