"""The move page (clickable board, buttons, number field, text field), confirmation, resignation.

GET and HEAD only ever show pages: mail scanners follow links. Only the confirm form's POST,
with the link's token and this browser's CSRF token, plays a move.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from werkzeug.wrappers import Response

import engine
from engine.text import Text
from pbem.addresses import has_control_characters
from pbem.clock.deadlines import clock_of
from pbem.clock.wall import utc_now
from pbem.models import GameRecord, GameStatus
from pbem.positions import (
    MoveMenu,
    TypedMove,
    current_state,
    has_several_steps,
    last_notation,
    move_menu,
    number_words,
    resolve_typed,
)
from pbem.services import GameMovedOn, ServiceError, resign
from pbem.services.common import others_in_play, players_of, plays_on, seats_of
from pbem.services.moves import MAX_NOTE
from pbem.services.turns import play_turn
from pbem.web.conversation import conversation_view
from pbem.web.csrf import check_csrf
from pbem.web.games import OUT_OF_GAME, render_game_page, viewed
from pbem.web.language import current_reader
from pbem.web.support import (
    board_svg,
    cell_links,
    damaged_link,
    database,
    game_of_token,
    game_or_none,
    message_page,
    named_svg,
    needs_zoom,
    read_as_seat,
    seat_labels,
    seat_out_of_game,
    shown_reason,
    side_table,
    site,
    steps_played,
    with_names,
)
from pbem.web.terms import seat_names, terms_for

bp = Blueprint("play", __name__)

Page = tuple[str, int] | Response


def turn_of_token(token: str) -> tuple[GameRecord, int, int] | Page:
    """The game, seat and ply of a move token, or the page to show instead."""
    found = game_of_token("move", token)
    if found is None or not {"seat", "ply"} <= found[1].keys():
        return damaged_link()
    row, fields = found
    seat, ply = fields["seat"], fields["ply"]
    if row.ply != ply or row.status != GameStatus.ACTIVE:
        return moved_on(row, seat)
    if row.to_move != seat:
        return message_page(_("Not your turn"), _("This link is for a turn that is not yours."),
                            403)
    if row.id is not None and seat_out_of_game(row.id, seat):
        return render_game_page(row, seat, status=403, notice=str(OUT_OF_GAME))
    return row, seat, ply


@dataclass(frozen=True)
class OpenTurn:
    """A move link that still opens its turn: the game row, the seat, the ply, the position."""

    row: GameRecord
    seat: int
    ply: int
    game: engine.AnyGame
    state: Any


def open_turn(token: str) -> OpenTurn | Page:
    """The turn a move link opens (a POST must also carry this browser's CSRF token), or the
    page to show instead."""
    turn = turn_of_token(token)
    if request.method == "POST":
        check_csrf()
    if not isinstance(turn, tuple) or not isinstance(turn[0], GameRecord):
        return turn
    row, seat, ply = turn
    game, state = current_state(row)
    return OpenTurn(row, seat, ply, game, state)


MOVED_ON = _l("The game has moved on since this link was sent: that turn is over. "
              "Here is the game as it stands now.")
NOT_PLAYED = _l("Your move was not played: the game had already moved on (perhaps the form was "
                "sent twice, or from another window). Here is the game as it stands now.")


def moved_on(row: GameRecord, seat: int, status: int = 409) -> tuple[str, int]:
    # A confirm POST that finds its turn over must say so plainly: the person pressed "Play".
    if row.id is not None:
        read_as_seat(row.id, seat)
    notice = NOT_PLAYED if request.method == "POST" else MOVED_ON
    return render_game_page(row, seat, status=status, notice=str(notice))


def _cells(raw: str) -> tuple[str, ...]:
    return tuple(c for c in raw.upper().split(".") if c)


@bp.get("/play/<token>")
def move_page(token: str, error: str = "", status: int = 200, text: str = "",
              typed: TypedMove | None = None, draft: str = "", chat_error: str = "") -> Page:
    turn = turn_of_token(token)
    if not isinstance(turn, tuple) or not isinstance(turn[0], GameRecord):
        return turn
    row, seat, _ply = turn
    viewed(row, seat)
    game, state = current_state(row)
    prefix = _cells(request.args.get("cells", ""))
    menu = move_menu(game, state, prefix)
    if prefix and not menu.next_cells and not menu.complete:
        menu, prefix = move_menu(game, state, ()), ()  # a stale or edited click: start over
    if prefix and len(menu.complete) == 1 and not menu.next_cells:
        return redirect(url_for("play.confirm_page", token=token, move=menu.complete[0]))
    zoom = request.args.get("zoom") == "2"
    labels = seat_labels(row, game, state)
    board = named_svg(labels, board_svg(game, state, seat, _last_move(row),
                                        _cell_links(token, menu, zoom), chosen=menu.prefix))
    reader = current_reader()
    return render_template(
        "move.html", row=row, seat=seat, token=token, info=game.info, menu=menu,
        names=seat_names(row.game_type, game.seat_names(state), reader=reader),
        describe=with_names(labels, game.describe(state, seat)), error=error,
        side=side_table(game, state, seat), side_labels=labels,
        text=text, typed=typed, board=board, zoom=zoom, can_zoom=zoom or needs_zoom(board),
        legal=[*((number_words(n, reader=reader), False) for n in menu.numbers),
               *((str(m), True) for m in game.move_choices(state)[0])],
        paused=paused(row), played=steps_played(row, seat),
        terms=terms_for(row.game_type, game.options, reader=reader),
        terms_open=False,  # one closed line above the board: the board comes first
        rules_url=url_for("rules.rules_page", game_id=row.game_type),
        turn_url=url_for("turns.turn_page", token=token)
        if has_several_steps(game, state, seat) else None,
        conversation=conversation_view(
            row.id or 0, seat, post_url=url_for("chat.post_from_move_page", token=token),
            draft=draft, error=chat_error),
    ), status


def _cell_links(token: str, menu: MoveMenu, zoom: bool) -> Callable[[str], str | None]:
    """Where each cell links: the same page with that cell clicked (or taken back)."""
    return cell_links(menu.prefix, menu.next_cells, lambda cells, anchor: url_for(
        "play.move_page", token=token, cells=".".join(cells) or None,
        zoom=2 if zoom else None, _anchor=anchor))


def paused(row: GameRecord) -> bool:
    if row.status != GameStatus.ACTIVE:
        return False
    with database().session() as session:
        return clock_of(session, row.id).paused_at is not None


def _last_move(row: GameRecord) -> str | None:
    """The notation to mark on the board of the current position."""
    if not row.ply or row.id is None:
        return None
    with database().session() as session:
        return last_notation(session, row.id)


class UnclearMove(engine.IllegalMove):
    """Typed text that names no legal move here (or several): the move page says which."""

    def __init__(self, typed: TypedMove) -> None:
        super().__init__(typed.reason)
        self.typed = typed

    @property
    def text(self) -> Text:
        reason = self.typed.reason
        return reason if isinstance(reason, Text) else Text.verbatim(str(reason))


def _chosen_move(game: engine.AnyGame, state: Any) -> str:
    """The notation the form sent: a button or text (``move``) or a number field (``number``)."""
    text = request.values.get("move", "").strip()
    if has_control_characters(text):
        raise engine.IllegalMove(Text("a move is one line of text, without control characters"))
    if text:
        typed = resolve_typed(game, state, text, reader=current_reader())
        if typed.move is None:
            raise UnclearMove(typed)
        return typed.move
    number = request.values.get("number", "").strip()
    if number:
        choices = game.move_choices(state)[1]
        try:
            value = int(number)
        except ValueError:
            raise engine.IllegalMove(Text("%(number)s is not a whole number",
                                          number=repr(number))) from None
        if choices is None or value not in choices:
            low, high = (choices.low, choices.high) if choices else (0, 0)
            raise engine.IllegalMove(Text("choose a whole number from %(low)d to %(high)d",
                                          low=low, high=high))
        return str(value)  # a number move's notation is the number
    raise engine.IllegalMove(Text("choose a move first"))


@bp.route("/play/<token>/confirm", methods=["GET", "POST"])
def confirm_page(token: str) -> Page:
    turn = open_turn(token)
    if not isinstance(turn, OpenTurn):
        return turn
    row, seat, ply, game, state = turn.row, turn.seat, turn.ply, turn.game, turn.state
    try:
        text = _chosen_move(game, state)
        move = game.parse_move(text)
        after = game.play(state, move, seat=seat)
    except engine.IllegalMove as error:
        return move_page(token, error=current_reader().text(error.text), status=422,
                         text=request.values.get("move", ""),
                         typed=error.typed if isinstance(error, UnclearMove) else None)
    if request.method != "POST" or paused(row):  # GET and HEAD only show; a pause keeps it
        page, _shown = _preview(row, seat, token, game, state, move, after)
        return page, 409 if request.method == "POST" else 200
    note = request.form.get("note", "")
    problem = note_problem(note)
    if problem:
        return message_page(_("Your move was not played"),
                            _("%(problem)s. Please go back, change the note and confirm again.",
                              problem=problem), 400)
    return _commit(row, seat, ply, str(move), note)


def note_problem(note: str) -> str:
    """Why the note cannot go with the move ("" if it can). Notes are shown to others on pages
    and in mail: control characters (escapes, direction overrides, line breaks) are refused
    rather than silently cleaned."""
    if has_control_characters(note):
        return str(_("A note is one line of text, without line breaks or other control "
                     "characters"))
    if len(note) > MAX_NOTE:
        return str(_("A note can be at most %(count)d characters long", count=MAX_NOTE))
    return ""


def _preview(row: GameRecord, seat: int, token: str, game: engine.AnyGame,
             state: Any, move: Any, after: Any) -> tuple[str, int]:
    """The confirm page: the position after the move, unless the move would reveal something.

    A move that draws from a hidden pile must not be played for a preview: the player would see
    the draw and could then pick another move. Such a page shows the position as it is now and
    says in words what the move will do (the engine knows which moves reveal, for every game).
    """
    effect = ""
    marked_move: str | None
    shown, marked_move = after, str(move)
    if game.reveals_hidden(state, move):
        effect = current_reader().text(game.hidden_effect(state, move))
        shown, marked_move = state, _last_move(row)
    typed = request.values.get("move", "").strip()
    labels = seat_labels(row, game, state)
    return render_template(
        "confirm.html", row=row, seat=seat, token=token, info=game.info, move=str(move),
        describe=with_names(labels, game.describe(shown, seat)), effect=effect,
        paused=paused(row),
        typed=typed if typed and typed != str(move) else "",
        note=request.form.get("note", ""),
        board=named_svg(labels, board_svg(game, shown, seat, marked_move)),
    ), 200


@dataclass(frozen=True)
class Played:
    """Where a turn left its game, as the transaction that played it saw it."""

    running: bool
    to_move: int | None
    ply: int


def play_steps(game_id: int, seat: int, ply: int, steps: list[str], note: str, *,
               title: str, refusal: Callable[[str], str]) -> Played | Page:
    """Play ``steps`` for ``seat`` in one transaction (an error in any step rolls all of them
    back): where the turn left the game once played, else the page that says why not, headed
    ``title``, the reason worded by ``refusal``. The move page and the turn page both commit
    through here."""
    try:
        with database().write() as session:
            play_turn(session, utc_now(), site(), game_id=game_id, seat=seat, ply=ply,
                      steps=steps, note=note)
            row = session.get(GameRecord, game_id)  # the turn's own row: no new read
            assert row is not None  # the turn locked it
            played = Played(row.status == GameStatus.ACTIVE, row.to_move, row.ply)
    except GameMovedOn:
        # The game as it is now, read afresh: the transaction that raised has rolled back.
        fresh = game_or_none(game_id)
        if fresh is None:
            return message_page(title, _("This game no longer exists."), 409)
        return moved_on(fresh, seat)
    except (ServiceError, engine.IllegalMove) as error:
        return message_page(title, refusal(shown_reason(error)), 409)
    return played


def played_page(game_id: int, seat: int) -> Response:
    """After a turn: the game as the seat sees it, saying the move was played."""
    token = site().links.sign("seat-view", game=game_id, seat=seat)
    return redirect(url_for("games.seat_page", token=token, played=1), 303)


def _commit(row: GameRecord, seat: int, ply: int, move: str, note: str) -> Page:
    assert row.id is not None
    played = play_steps(row.id, seat, ply, [move], note, title=_("Your move was not played"),
                        refusal=lambda reason: reason)
    if not isinstance(played, Played):
        return played
    if played.running and played.to_move == seat and played.ply == ply + 1:
        # A turn of several steps: go straight on to the next step. (After the others' forced
        # passes it is a new turn, which its own email announces.)
        return redirect(site().links.move_url(row.id, seat, played.ply))
    return played_page(row.id, seat)


def resign_plays_on(row: GameRecord, seat: int) -> bool:
    """Whether the game would go on without ``seat`` (three or more players)."""
    assert row.id is not None
    with database().session() as session:
        seats = seats_of(session, row.id)
        others = others_in_play(seats, seat)
        return plays_on(others, players_of(session, seats))


@bp.route("/resign/<token>", methods=["GET", "POST"])
def resign_page(token: str) -> Page:
    found = game_of_token("resign", token)
    if found is None:
        return damaged_link()
    row, fields = found
    if row.status != GameStatus.ACTIVE:
        return render_game_page(row, fields["seat"],
                                notice=_("This game is not running any more."))
    if row.id is not None and seat_out_of_game(row.id, fields["seat"]):
        return render_game_page(row, fields["seat"], notice=str(OUT_OF_GAME))
    if request.method != "POST":  # GET and HEAD only show
        return render_template("resign.html", row=row, token=token,
                               plays_on=resign_plays_on(row, fields["seat"])), 200
    check_csrf()
    assert row.id is not None
    try:
        with database().write() as session:
            resign(session, utc_now(), site(), game_id=row.id, seat=fields["seat"])
    except ServiceError as error:
        return message_page(_("Not resigned"), shown_reason(error), 409)
    return redirect(url_for("games.seat_page", token=site().links.sign(
        "seat-view", game=row.id, seat=fields["seat"])), 303)
