"""Players start games themselves: the new-challenge form, a challenge's page (accept, decline,
cancel), the invitee's emailed link, and the rematch link of a game-over email.

Emailed links only show on GET (a mail scanner that follows them changes nothing); the buttons
on their pages POST, with the page's CSRF token. Making a challenge, answering as a signed-in
player and cancelling need a signed-in player (pbem.web.signin); an invitee's emailed link is
their identity for that challenge alone, as a game invitation's is.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from flask_babel import gettext as _
from sqlmodel import col, or_, select
from werkzeug.wrappers import Response

import engine
from engine.bots import LEVELS
from pbem.addresses import BadAddress, BadName
from pbem.challenges.rematch import answer_rematch
from pbem.challenges.rules import (
    ChallengeRules,
    load_challenge_token,
    load_rematch_token,
    rules_from_config,
)
from pbem.challenges.service import (
    answer_challenge,
    cancel_challenge,
    create_challenge,
    describe,
    people_of,
    players_by_id,
)
from pbem.challenges.tables import Challenge, ChallengePlayer, ChallengeStatus, SeatOrder
from pbem.clock.controls import parse_time_control
from pbem.clock.deadlines import policy_label
from pbem.clock.wall import utc_now
from pbem.clock.wording import describe_control
from pbem.errors import ServiceError
from pbem.game_options import game_name
from pbem.links import DamagedLink
from pbem.models import GameRecord, Player
from pbem.services.common import shown_name
from pbem.services.players import PlayerSpec, parse_player
from pbem.web.catalogue import game_cards
from pbem.web.csrf import check_csrf
from pbem.web.language import current_reader
from pbem.web.player_sessions import current_player
from pbem.web.support import (
    damaged_link,
    database,
    message_page,
    read_as_player,
    shown_reason,
    site,
    unknown_game_reason,
    within_limits,
)

bp = Blueprint("challenges", __name__)
MAX_INVITEES = 12  # more names than any game has seats: a typo, not a game
# Challenges mail whoever is named: per player and per client, like the sign-in form's limit,
# so that cancelling and sending again cannot turn the site into a mailer.
CHALLENGE_LIMIT = "20 per hour"


@bp.record_once
def _check_presets(state: Any) -> None:
    """A preset that does not parse stops the app at start, not at a player's first form."""
    rules_from_config(state.app.config)


def rules() -> ChallengeRules:
    return rules_from_config(current_app.config)


def _sign_in_first() -> Response:
    return redirect(url_for("signin.sign_in_page"), 303)


# -- the new-challenge form ---------------------------------------------------------------------

@bp.route("/challenges/new", methods=["GET", "POST"])
def new_challenge() -> tuple[str, int] | Response:
    """Two steps without JavaScript: ``?game=`` shows that game's options (each has its own)."""
    player = current_player()
    if player is None:
        return _sign_in_first()
    game_id = (request.values.get("game") or "").strip()
    info = engine.GAMES.get(game_id)
    values = request.form if request.method == "POST" else request.args
    if info is None:
        return _form(None, values, unknown_game_reason(game_id)), 400 if game_id else 200
    if request.method == "GET":
        return _form(info, values, ""), 200
    check_csrf()
    options = {o.name: values.get(f"option-{o.name}", o.default) for o in info.options}
    seek = values.get("kind") == "seek"
    rated = values.get("rated") == "on"
    listed = values.get("unlisted") != "on"
    if not within_limits("pbem-challenge", CHALLENGE_LIMIT, player.email, count=False):
        return _form(info, values, _("too many challenges in the last hour; please wait")), 429
    try:
        invitees = [] if seek else _invitees(values.get("invitees", ""))
        # A game with a computer player is never rated: the box is simply not counted (the
        # challenge page then says "Not rated."), rather than the form refused for it.
        rated = rated and not any(spec.bot_level is not None for spec in invitees)
        with database().write() as session:
            me = session.get(Player, player.id)
            assert me is not None
            row = create_challenge(
                session, utc_now(), site(), rules(), creator=me, game_type=info.id,
                options=options, time_control=values.get("time_control", ""),
                timeout_policy=values.get("policy", ""),
                seat_order=values.get("seat_order", SeatOrder.FIRST), invitees=invitees,
                seek=seek, rated=rated, listed=listed)
            public_id = row.public_id
    except (ServiceError, engine.UnknownGame, BadAddress, BadName) as error:
        return _form(info, values, shown_reason(error)), 400
    # Counted only once the challenge is made (after its transaction: the limiter's storage may
    # be this database), so a form refused for a typo costs nothing.
    within_limits("pbem-challenge", CHALLENGE_LIMIT, player.email)
    return redirect(url_for("challenges.challenge_page", public_id=public_id), 303)


def _invitees(text: str) -> list[PlayerSpec]:
    """One player a line: "Ann <ann@example.org>", a bare address, or ``bot``/``bot:LEVEL``."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) > MAX_INVITEES:
        raise ServiceError(_("invite at most %(num)d players", num=MAX_INVITEES))
    return [parse_player(line) for line in lines]


def _form(info: engine.GameInfo | None, values: Any, error: str) -> str:
    """The form with ``values``; the rated box ticked as sent (ticked on a first visit), and
    unticked once a computer is among the invitees, as its game is never rated."""
    reader = current_reader()
    settings = rules()
    controls = {t: describe_control(parse_time_control(t), reader)
                for t in settings.time_controls}
    players = info.max_players if info is not None else 3  # the form lets the player choose
    policies = {p: _("the game's usual rule") if p == "default" else reader.gettext(
        policy_label(p, players)) for p in settings.policies}
    orders = {SeatOrder.FIRST: _("I sit first"), SeatOrder.SECOND: _("I sit second"),
              SeatOrder.RANDOM: _("decide at random")}
    rated = values.get("rated") == "on" if request.method == "POST" else True
    invitees = values.get("invitees", "").splitlines()
    rated = rated and not any(line.strip().lower().partition(":")[0].strip() == "bot"
                              for line in invitees)
    cards = game_cards(reader, lambda game: url_for("challenges.new_challenge", game=game))
    return render_template("challenge_new.html", info=info, cards=cards,
                           values=values, error=error, controls=controls, policies=policies,
                           orders=orders, levels=LEVELS, rated=rated)


# -- a challenge's page ------------------------------------------------------------------------

def _load(public_id: str) -> tuple[Challenge, list[ChallengePlayer], dict[int, Player],
                                   GameRecord | None] | None:
    with database().session() as session:
        row = session.exec(select(Challenge).where(Challenge.public_id == public_id)).first()
        if row is None or row.id is None:
            return None
        people = people_of(session, row.id)
        players = players_by_id(session, [p.player_id for p in people] + [row.creator_id])
        game = session.get(GameRecord, row.game_id) if row.game_id else None
    return row, people, players, game


def _page(row: Challenge, people: list[ChallengePlayer], players: dict[int, Player],
          game: GameRecord | None, viewer: int | None, *, token: str = "", error: str = "",
          status: int = 200) -> tuple[str, int]:
    mine = next((p for p in people if p.player_id == viewer), None)
    names = [shown_name(players[p.player_id], current_reader()) for p in people]
    facts = describe(row, current_reader(), names)
    return render_template(
        "challenge.html", **facts, people=people, players=players, mine=mine,
        first_mover=_first_mover(row, names),
        creator=players[row.creator_id], viewer=viewer, token=token, error=error,
        waiting=row.status == ChallengeStatus.OPEN and row.expires_at > utc_now(),
        game_url=site().links.game_url(game.public_id) if game else ""), status


def _first_mover(row: Challenge, names: list[str]) -> str:
    """Who will move first, in a sentence: the first seat does in every game, and the
    challenge's seat order says who takes it (``names`` in slot order, the creator first)."""
    if row.seat_order == SeatOrder.RANDOM:
        return _("Who moves first is drawn at random when the game starts.")
    if row.seat_order == SeatOrder.SECOND:
        if len(names) < 2:
            return _("The first player to join moves first.")
        return _("%(name)s moves first.", name=names[1])
    return _("%(name)s moves first.", name=names[0])


@bp.get("/challenges/<public_id>")
def challenge_page(public_id: str) -> tuple[str, int]:
    found = _load(public_id)
    if found is None:
        return damaged_link()
    player = current_player()
    return _page(*found, viewer=player.id if player else None)


@bp.post("/challenges/<public_id>")
def challenge_action(public_id: str) -> tuple[str, int] | Response:
    """The signed-in player's buttons: accept, decline, or (the creator's) cancel."""
    check_csrf()
    player = current_player()
    if player is None:
        return _sign_in_first()
    found = _load(public_id)
    if found is None or found[0].id is None:
        return damaged_link()
    action = request.form.get("action", "")
    challenge_id = found[0].id
    try:
        with database().write() as session:
            if action == "cancel":
                cancel_challenge(session, utc_now(), site(), challenge_id=challenge_id,
                                 player_id=player.id)
            elif action in ("accept", "decline"):
                answer_challenge(session, utc_now(), site(), rules(),
                                 challenge_id=challenge_id, player_id=player.id,
                                 accept=action == "accept")
            else:
                raise ServiceError(_("choose accept, decline or cancel"))
    except ServiceError as error:
        return _page(*found, viewer=player.id, error=shown_reason(error), status=409)
    return redirect(url_for("challenges.challenge_page", public_id=public_id), 303)


@bp.get("/challenges")
def my_challenges() -> tuple[str, int] | Response:
    """The signed-in player's challenges: made by them or inviting them, newest first."""
    player = current_player()
    if player is None:
        return _sign_in_first()
    with database().session() as session:
        mine = select(ChallengePlayer.challenge_id).where(ChallengePlayer.player_id == player.id)
        rows = list(session.exec(select(Challenge).where(or_(
            Challenge.creator_id == player.id, col(Challenge.id).in_(mine)))
            .order_by(col(Challenge.created_at).desc()).limit(100)))
    reader = current_reader()
    lines = [describe(row, reader) for row in rows]
    return render_template("challenges.html", lines=lines, now=utc_now()), 200


# -- an invitee's emailed link -----------------------------------------------------------------

@bp.route("/challenge/<token>", methods=["GET", "POST"])
def invitation(token: str) -> tuple[str, int] | Response:
    try:
        challenge_id, player_id = load_challenge_token(site(), token)
    except DamagedLink:
        return damaged_link()
    with database().session() as session:
        row = session.get(Challenge, challenge_id)
        invitee = session.get(Player, player_id)
    if row is None or invitee is None:
        return damaged_link()
    read_as_player(invitee)
    if request.method == "POST":
        check_csrf()
        answer = request.form.get("action")
        try:
            if answer not in ("accept", "decline"):
                raise ServiceError(_("choose accept or decline"))
            with database().write() as session:
                answer_challenge(session, utc_now(), site(), rules(), challenge_id=challenge_id,
                                 player_id=player_id, accept=answer == "accept")
        except ServiceError as error:
            found = _load(row.public_id)
            assert found is not None
            return _page(*found, viewer=player_id, token=token, error=shown_reason(error),
                         status=409)
        return redirect(url_for("challenges.invitation", token=token), 303)
    found = _load(row.public_id)
    assert found is not None
    return _page(*found, viewer=player_id, token=token)


# -- rematch -----------------------------------------------------------------------------------

@bp.route("/rematch/<token>", methods=["GET", "POST"])
def rematch(token: str) -> tuple[str, int]:
    """A game-over email's rematch link: GET asks, the POST answers (accepting makes the
    rematch if nobody has yet)."""
    try:
        game_id, seat, player_id = load_rematch_token(site(), token)
    except DamagedLink:
        return damaged_link()
    with database().session() as session:
        game = session.get(GameRecord, game_id)
        player = session.get(Player, player_id)
        challenge = session.exec(select(Challenge).where(Challenge.rematch_of == game_id)).first()
    if game is None or player is None:
        return damaged_link()
    read_as_player(player)
    error = ""
    status = 200
    if request.method == "POST":
        check_csrf()
        action = request.form.get("action")
        try:
            if action not in ("accept", "decline"):
                raise ServiceError(_("choose accept or decline"))
            with database().write() as session:
                answer_rematch(session, utc_now(), site(), rules(), game_id=game_id,
                               seat=seat, player_id=player_id, accept=action == "accept")
        except ServiceError as error_:
            error, status = shown_reason(error_), 409
        if not error and action == "decline":
            return message_page(_("Rematch declined"), _("Thank you for answering; the other "
                                                         "players will be told."),
                                game_url=url_for("signin.account"))
        with database().session() as session:
            challenge = session.exec(select(Challenge).where(
                Challenge.rematch_of == game_id)).first()
    found = _load(challenge.public_id) if challenge is not None else None
    people = found[1] if found else []
    players = found[2] if found else {}
    new_game = found[3] if found else None
    return render_template(
        "rematch.html", game=game, game_name=game_name(game.game_type, current_reader()),
        challenge=challenge, people=people, players=players,
        player_id=player_id, error=error, game_url=site().links.game_url(game.public_id),
        new_game_url=site().links.game_url(new_game.public_id) if new_game else ""), status
