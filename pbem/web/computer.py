"""Play the computer: from "my games", a player picks a game, its options, the computer's level
and who starts; the game begins at once and its first turn email follows as usual.

Two steps without JavaScript: ``?game=`` shows that game's options (each game has its own).
The form is the signed-in player's (``/account/computer``): a token in the address bar would be
their games-page link, which signs a browser in. ``/me/<token>/computer`` (links on pages served
before) leads there, through the games-page link's button when this browser is not signed in.
"""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

import engine
from engine.bots import DEFAULT_LEVEL, LEVELS
from pbem.clock.deadlines import DEFAULT_TIME_CONTROL
from pbem.clock.wall import utc_now
from pbem.clock.wording import describe_control
from pbem.errors import ServiceError
from pbem.links import DamagedLink, ReplacedPlayerLink
from pbem.models import GameStatus, Player, Seat
from pbem.services.common import seats_of
from pbem.services.computer_games import STARTERS, start_computer_game
from pbem.web.catalogue import game_cards
from pbem.web.csrf import check_csrf
from pbem.web.language import current_reader
from pbem.web.player_sessions import current_player
from pbem.web.players import replaced_link
from pbem.web.support import (
    damaged_link,
    database,
    load_token,
    read_as_player,
    shown_reason,
    site,
    unknown_game_reason,
)

bp = Blueprint("computer", __name__)


@bp.get("/me/<token>/computer")
def old_link(token: str) -> tuple[str, int] | Response:
    """A games-page link's "Play the computer" from before ``/account/computer``: there, for a
    browser signed in as its player; else the games-page link's page, whose button signs in."""
    try:
        player_id = load_token("player", token)["player"]
    except ReplacedPlayerLink:
        return replaced_link()
    except DamagedLink:
        return damaged_link()
    signed = current_player()
    if signed is not None and signed.id == player_id:
        query = request.query_string.decode("latin-1")
        return redirect(url_for("computer.play_the_computer") + (f"?{query}" if query else ""),
                        303)
    return redirect(url_for("players.my_games", token=token), 303)


@bp.route("/account/computer", methods=["GET", "POST"])
def play_the_computer() -> tuple[str, int] | Response:
    if request.method == "POST":
        check_csrf()
    signed = current_player()
    if signed is None:
        return redirect(url_for("signin.sign_in_page", next=request.full_path.rstrip("?")), 303)
    with database().session() as session:
        player = session.get(Player, signed.id)
    if player is None or player.id is None:
        return redirect(url_for("signin.sign_in_page"), 303)
    read_as_player(player)
    game_id = (request.values.get("game") or "").strip()
    info = engine.GAMES.get(game_id)
    if info is None:  # the list of games; an unknown one (a stale form or a typo) is named
        page = render_template("computer_game.html", info=None, cards=game_cards(
            current_reader(), lambda game: url_for("computer.play_the_computer", game=game)),
                               error=unknown_game_reason(game_id), values={})
        return page, 400 if game_id else 200
    values = request.form if request.method == "POST" else request.args
    if request.method != "POST":  # GET and HEAD only show
        return _form(info, values, "")
    options = {o.name: values.get(f"option-{o.name}", o.default) for o in info.options}
    level = values.get("level", DEFAULT_LEVEL)
    starter = values.get("starter", "me")
    try:
        with database().write() as session:
            row = start_computer_game(session, utc_now(), site(), player=player,
                                      game_type=info.id, options=options, level=level,
                                      starter=starter,  # type: ignore[arg-type]
                                      watching=True)  # the next page shows the game
            assert row.id is not None
            mine = next(s for s in seats_of(session, row.id) if s.player_id == player.id)
            target = _where_to_go(row.status, row.to_move, mine, row.id, row.ply)
    except (ServiceError, engine.UnknownGame) as error:
        return _form(info, values, shown_reason(error), 400)
    return redirect(target, 303)


def _where_to_go(status: str, to_move: int | None, mine: Seat, game: int, ply: int) -> str:
    """Straight to the move page when the player starts, else to their page of the game, which
    shows the computer's first move as it comes."""
    links = site().links
    if status == GameStatus.ACTIVE and to_move == mine.seat:
        return links.move_url(game, mine.seat, ply, holder=mine.player_id)
    return f"{links.seat_view_url(game, mine.seat, holder=mine.player_id)}?started=1"


def _form(info: engine.GameInfo, values: object, error: str,
          status: int = 200) -> tuple[str, int]:
    levels = {"easy": _("easy (answers at once)"), "normal": _("normal"),
              "strong": _("strong (thinks longer)")}
    starters = {"me": _("I start"), "computer": _("the computer starts"),
                "random": _("decide at random")}
    return render_template("computer_game.html", info=info, error=error,
                           clock=describe_control(DEFAULT_TIME_CONTROL, current_reader()),
                           values=values, levels={k: levels.get(k, k) for k in LEVELS},
                           starters={k: starters[k] for k in STARTERS},
                           default_level=DEFAULT_LEVEL), status
