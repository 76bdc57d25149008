"""A player's games and mail settings, and the one-click unsubscribe of RFC 8058."""

from __future__ import annotations

import re
from datetime import date, timedelta
from functools import cache
from typing import Any
from zoneinfo import available_timezones

from flask import Blueprint, current_app, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from sqlmodel import Session, col, select
from werkzeug.wrappers import Response

from engine.text import Text
from pbem.addresses import BadName, check_name
from pbem.clock.controls import DEFAULT_ALLOWANCE_DAYS, BadAbsence, local_date
from pbem.clock.deadlines import recompute_deadlines_of
from pbem.game_options import game_name
from pbem.i18n import LANGUAGES
from pbem.links import DamagedLink
from pbem.models import Game, GameStatus, Player, Seat
from pbem.positions import current_state
from pbem.services.common import audit, players_of, seats_of, shown_names
from pbem.services.results import result_in
from pbem.services.vacations import (
    AbsenceRefused,
    absences_for,
    add_absence,
    days_left,
    remove_absence,
)
from pbem.web.csrf import check_csrf
from pbem.web.language import current_reader
from pbem.web.ratings import rating_lines
from pbem.web.support import (
    damaged_link,
    database,
    load_token,
    message_page,
    queue_player_mail,
    read_as_player,
    reason_of,
    site,
    utc_now,
    within_limits,
)
from pbem.web.terms import label_seats, seat_names

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
                      my_games_url=site().links.my_games_url(player.id))
    audit(session, now, "games page link sent", player_id=player.id)


@bp.route("/me/<token>", methods=["GET", "POST"])
def my_games(token: str) -> tuple[str, int] | Response:
    try:
        player_id = load_token("player", token)["player"]
    except (DamagedLink, KeyError):
        return damaged_link()
    with database().session() as session:
        player = session.get(Player, player_id)
    if player is None:
        return damaged_link()
    read_as_player(player, settings_url="#settings")
    if request.method == "POST":
        check_csrf()
        if request.form.get("action") in ("add_absence", "cancel_absence"):
            return _change_absences(token, player_id)
        if request.form.get("action") == "profile":
            return _change_profile(token, player_id)
        try:
            name, zone = _checked_settings()
        except BadName as error:
            return _my_games_page(token, player_id, settings_error=_(
                "%(problem)s. Nothing was saved; correct it and save again.",
                problem=reason_of(error)), status=400)
        with database().write() as session:
            player = session.get(Player, player_id)
            if player is None:
                return damaged_link()
            player.name = name or player.name
            zone_changed = player.time_zone != zone
            player.time_zone = zone
            language = request.form.get("language", player.language)
            player.language = language if language in LANGUAGES else player.language
            player.notify_updates = request.form.get("notify_updates") == "on"
            session.add(player)
            if zone_changed:  # weekends and absences are days in their zone: new deadlines
                session.flush()
                recompute_deadlines_of(session, player_id, absences_changed=False)
            audit(session, utc_now(), "preferences changed", player_id=player_id)
        return redirect(url_for("players.my_games", token=token, saved=1), 303)
    return _my_games_page(token, player_id)


def _change_profile(token: str, player_id: int) -> Response | tuple[str, int]:
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
    return redirect(url_for("players.my_games", token=token, saved=1, _anchor="profile"), 303)


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


def _my_games_page(token: str, player_id: int, *, absence_error: str = "",
                   settings_error: str = "", status: int = 200) -> tuple[str, int]:
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
        games = [_game_line(session, game, seat, player_id) for game, seat in rows]
        ratings = rating_lines(session, player_id)
    g.pbem_settings_url = "#settings"
    typed = request.form if settings_error else {}
    return render_template("me.html", player=player, games=games, token=token,
                           languages=LANGUAGES, saved=bool(request.args.get("saved")),
                           absences=absences, absence_error=absence_error, days_left=left,
                           allowance=allowance, year=year, zones=time_zones(),
                           settings_error=settings_error, typed=typed, ratings=ratings), status


def _game_line(session: Session, game: Game, seat: Seat, player_id: int) -> dict[str, Any]:
    """One row of "my games": the game, its opponents by name and colour, the deadline, and a
    direct link to the move page when it is this player's turn."""
    assert game.id is not None
    links = site().links
    seats = seats_of(session, game.id)
    players = players_of(session, seats)
    names = _seat_names(game)
    out = seat.resigned or seat.forfeited  # the computer plays the seat: nothing to do
    your_turn = game.status == GameStatus.ACTIVE and game.to_move == seat.seat and not out
    reader = current_reader()
    people = shown_names(seats, players, reader)
    labels = dict(zip([s.seat for s in seats], label_seats(seats, people, names), strict=True))
    waiting_for = (labels.get(game.to_move, "") if game.status == GameStatus.ACTIVE
                   and game.to_move is not None and not your_turn and not out else "")
    return {
        "game": game, "seat": seat,
        "title": game_name(game.game_type, current_reader()),
        "you": names[seat.seat] if seat.seat < len(names) else "",
        "opponents": [labels[s.seat] for s in seats if s.seat != seat.seat],
        "url": links.seat_view_url(game.id, seat.seat, holder=player_id),
        "move_url": links.move_url(game.id, seat.seat, game.ply, holder=player_id)
        if your_turn else None,
        "your_turn": your_turn,
        "waiting_for": waiting_for,  # whose turn it is, when not this player's
        "out": out and game.status == GameStatus.ACTIVE,
        "deadline": game.deadline if game.status == GameStatus.ACTIVE else None,
        "result": result_in(game, seats, people, reader),
    }


def _seat_names(game: Game) -> list[str]:
    """The seats' colour names in the game as it stands (Stigmergy's change once sides are
    chosen); none for a game the engine can no longer read."""
    try:
        engine_game, state = current_state(game)
        return seat_names(game.game_type, engine_game.seat_names(state),
                          reader=current_reader())
    except Exception:  # a list of games must not fail on one unreadable stored game
        return []


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
        return _my_games_page(token, player_id, absence_error=reason_of(error), status=400)
    return redirect(url_for("players.my_games", token=token, saved=1), 303)


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
                 "two years ahead", latest=latest.isoformat()) if first else
            Text("the last day can be %(latest)s at the latest: absences can be planned up to "
                 "two years ahead", latest=latest.isoformat()))
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
        player.notify_updates = False
        session.add(player)
        audit(session, utc_now(), "unsubscribed from updates", player_id=player_id)
    return message_page(_("Updates turned off"),
                        _("You will no longer get updates about other players' moves. "
                          "Invitations, your turn notices and results still come."),
                        game_url=site().links.my_games_url(player_id))
