"""Play the computer: from "my games", a player picks a game, its options, the computer's level
and who starts; the game begins at once and its first turn email follows as usual.

Two steps without JavaScript: ``?game=`` shows that game's options (each game has its own).
"""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request
from flask_babel import gettext as _
from werkzeug.wrappers import Response

import engine
from engine.bots import DEFAULT_LEVEL, LEVELS
from pbem.clock.deadlines import DEFAULT_TIME_CONTROL
from pbem.clock.wording import describe_control
from pbem.errors import ServiceError
from pbem.links import DamagedLink
from pbem.models import GameStatus, Player, Seat
from pbem.services.common import seats_of
from pbem.services.computer_games import STARTERS, start_computer_game
from pbem.web.csrf import check_csrf
from pbem.web.language import current_reader
from pbem.web.support import (
    damaged_link,
    database,
    load_token,
    read_as_player,
    reason_of,
    site,
    unknown_game_reason,
    utc_now,
)

bp = Blueprint("computer", __name__)


def _player(token: str) -> Player | None:
    try:
        player_id = load_token("player", token)["player"]
    except (DamagedLink, KeyError):
        return None
    with database().session() as session:
        return session.get(Player, player_id)


@bp.route("/me/<token>/computer", methods=["GET", "POST"])
def play_the_computer(token: str) -> tuple[str, int] | Response:
    player = _player(token)
    if player is None or player.id is None:
        return damaged_link()
    read_as_player(player)
    game_id = (request.values.get("game") or "").strip()
    info = engine.GAMES.get(game_id)
    if info is None:  # the list of games; an unknown one (a stale form or a typo) is named
        page = render_template("computer_game.html", token=token, info=None,
                               games=list(engine.GAMES.values()),
                               error=unknown_game_reason(game_id), values={})
        return page, 400 if game_id else 200
    values = request.form if request.method == "POST" else request.args
    if request.method == "GET":
        return _form(token, info, values, "")
    check_csrf()
    options = {o.name: values.get(f"option-{o.name}", o.default) for o in info.options}
    level = values.get("level", DEFAULT_LEVEL)
    starter = values.get("starter", "me")
    try:
        with database().write() as session:
            row = start_computer_game(session, utc_now(), site(), player=player,
                                      game_type=info.id, options=options, level=level,
                                      starter=starter)  # type: ignore[arg-type]
            assert row.id is not None
            mine = next(s for s in seats_of(session, row.id) if s.player_id == player.id)
            target = _where_to_go(row.status, row.to_move, mine, row.id, row.ply)
    except (ServiceError, engine.UnknownGame) as error:
        return _form(token, info, values, reason_of(error), 400)
    return redirect(target, 303)



def _where_to_go(status: str, to_move: int | None, mine: Seat, game: int, ply: int) -> str:
    """Straight to the move page when the player starts, else to their page of the game, which
    shows the computer's first move as it comes."""
    links = site().links
    if status == GameStatus.ACTIVE and to_move == mine.seat:
        return links.move_url(game, mine.seat, ply, holder=mine.player_id)
    return f"{links.seat_view_url(game, mine.seat, holder=mine.player_id)}?started=1"


def _form(token: str, info: engine.GameInfo, values: object, error: str,
          status: int = 200) -> tuple[str, int]:
    levels = {"easy": _("easy (answers at once)"), "normal": _("normal"),
              "strong": _("strong (thinks longer)")}
    starters = {"me": _("I start"), "computer": _("the computer starts"),
                "random": _("decide at random")}
    return render_template("computer_game.html", token=token, info=info, error=error,
                           clock=describe_control(DEFAULT_TIME_CONTROL, current_reader()),
                           games=list(engine.GAMES.values()), values=values,
                           levels={k: levels.get(k, k) for k in LEVELS},
                           starters={k: starters[k] for k in STARTERS},
                           default_level=DEFAULT_LEVEL), status
