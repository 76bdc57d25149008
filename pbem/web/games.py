"""Game pages by unguessable URL (public view) and a seat's own view; the page links the game's
records, which pbem.web.replay serves."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import (
    Blueprint,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from sqlmodel import select
from werkzeug.wrappers import Response

from pbem.clock.deadlines import (
    clock_of,
    default_timeout_policy,
    policy_label,
    time_control_of,
)
from pbem.clock.tables import GameClock
from pbem.clock.wall import utc_now
from pbem.clock.wording import describe_control
from pbem.conditional.service import Shown
from pbem.conditional.service import shown as conditional_moves_of
from pbem.conditional.tree import lines_of, rows
from pbem.game_options import game_name
from pbem.models import GameRecord, GameStatus, Move, MoveSource, Player, Seat
from pbem.positions import current_state, engine_game, moves_of, state_at
from pbem.services.common import others_in_play, players_of, seats_of, shown_name, shown_names
from pbem.services.records import is_over
from pbem.services.results import ending_of, result_in, result_sentence
from pbem.services.turn_mail import record_page_view
from pbem.web.catalogue import game_cards
from pbem.web.conversation import conversation_view
from pbem.web.language import current_reader
from pbem.web.player_sessions import current_player
from pbem.web.ratings import seat_ratings
from pbem.web.replay import profile_url, record_links
from pbem.web.support import (
    DamagedLink,
    board_svg,
    damaged_link,
    database,
    game_of_token,
    named_svg,
    seat_out_of_game,
    side_table,
    site,
)
from pbem.web.terms import label_seats, name_numbered_players, seat_names, terms_for

bp = Blueprint("games", __name__)
COMPUTER_REFRESH_SECONDS = 5  # how often a page waiting for the computer's move looks again
COMPUTER_LOOKS = 36  # and how many times (3 minutes): a bot that failed must not reload forever


@bp.get("/")
def index() -> str | Response:
    """What pbem is, how to begin, and the games as cards; a signed-in player's home is their
    games (/account)."""
    if current_player() is not None:
        return redirect(url_for("signin.account"), 303)
    return render_template("index.html", cards=game_cards(
        current_reader(), lambda game_id: url_for("rules.rules_page", game_id=game_id)))


def _load(public_id: str) -> GameRecord:
    with database().session() as session:
        query = select(GameRecord).where(GameRecord.public_id == public_id)
        row = session.exec(query).one_or_none()
    if row is None:
        abort(404)
    return row


def clock_text(clock: GameClock, game_type: str, players: int) -> dict[str, str]:
    """The game's time control and timeout policy in words, for its page (a game of
    ``players`` seats)."""
    control = time_control_of(clock)
    if control is None:
        return {}
    policy = clock.timeout_policy or default_timeout_policy(game_type)
    reader = current_reader()
    return {"time_control": describe_control(control, reader),
            "policy_text": reader.gettext(policy_label(policy, players))}


def turns_of(moves: list[Move]) -> list[tuple[int, list[tuple[int, Move]]]]:
    """The moves as turns: (seat, [(ply number from 1, move)]) with consecutive moves of one seat
    together, so a turn of several steps (Rifugio: lay, walk, build) reads as one line."""
    turns: list[tuple[int, list[tuple[int, Move]]]] = []
    for number, move in enumerate(moves, 1):
        if turns and turns[-1][0] == move.seat:
            turns[-1][1].append((number, move))
        else:
            turns.append((move.seat, [(number, move)]))
    return turns


def result_text(row: GameRecord, labels: list[str], seats: list[Seat] | None = None,
                players: dict[int, Player] | None = None) -> str:
    """The result as a sentence with names, in the page's language. The service writes one
    when a game ends; a game that ended before it did gets one from the final position."""
    reader = current_reader()
    if row.result or row.status != GameStatus.FINISHED:
        if seats is None or players is None:
            return row.result or ""
        return result_in(row, seats, players, reader)
    game, state = current_state(row)
    return result_sentence(game, state, labels, reader) or ""


def computer_wait() -> dict[str, Any]:
    """How a page waiting for the computer's move looks again: ``refresh_url`` (the page once
    more, counting its looks; None once they are used up, or when the reader asked it to stop:
    a page that reloads moves a screen reader back to its top) and ``stop_url``."""
    looks = request.args.get("look", default=0, type=int)
    kept = {k: v for k, v in request.args.items() if k not in ("look", "still", "played",
                                                                "started")}
    here = {**(request.view_args or {}), **kept}
    assert request.endpoint is not None
    going_on = not request.args.get("still") and 0 <= looks < COMPUTER_LOOKS
    return {
        "seconds": COMPUTER_REFRESH_SECONDS,
        "refresh_url": url_for(request.endpoint, **here, look=looks + 1) if going_on else None,
        "stop_url": url_for(request.endpoint, **here, still=1),
    }


def computer_again_url(row: GameRecord, viewer: int | None, seats: list[Seat],
                       players: dict[int, Player]) -> str | None:
    """"Play the computer again" on a finished game of the viewer against computers only: the
    form to start one, filled in with this game's options and the computer's level."""
    if viewer is None or row.status != GameStatus.FINISHED or not 0 <= viewer < len(seats):
        return None
    levels = [players[s.player_id].bot_level for s in seats if s.seat != viewer]
    if not levels or None in levels:
        return None
    query = {"game": row.game_type, "level": levels[0],
             **{f"option-{name}": value for name, value in row.options.items()}}
    # The signed-in player's form: this page may be a forwarded link, and must not hand anyone
    # the player's games-page link (it signs a browser in as them).
    return f"{url_for('computer.play_the_computer')}?{urlencode(query)}"


def render_game_page(
    row: GameRecord, viewer: int | None, *, notice: str = "", status: int = 200,
    seat_token: str | None = None, conditional_error: str = "",
    conditional_text: str | None = None, draft: str = "", chat_error: str = "",
) -> tuple[str, int]:
    """The game as ``viewer`` (a seat, or None for the public) may see it, at ``?ply=``. A seat
    sees the game's conversation too, with ``draft`` and ``chat_error`` where a message it
    wrote was refused; on its own page (``seat_token``), its conditional moves and their form,
    with the text and reason of a refused one."""
    assert row.id is not None
    with database().session() as session:
        moves = moves_of(session, row.id)
        seats = seats_of(session, row.id)
        players = players_of(session, seats)
        ratings = seat_ratings(session, row, seats)
        clock = clock_of(session, row.id)
        kept = conditional_moves_of(session, row, seats[viewer]) if seat_token is not None \
            and viewer is not None and 0 <= viewer < len(seats) else None
    game = engine_game(row)
    shown = request.args.get("ply", type=int)
    if shown is None or not 0 <= shown <= len(moves):
        shown = len(moves)
    state = state_at(game, row, moves, shown)
    reader = current_reader()
    names = seat_names(row.game_type, game.seat_names(state), reader=reader)
    people = shown_names(seats, players, reader)
    labels = label_seats(seats, people, names)
    links = site().links
    # ended off the board at the position shown: the board says so, not who is to move
    ended_here = is_over(row) and shown == len(moves) and game.to_move(state) is not None
    move_url = None
    mover = seats[row.to_move] if row.status == GameStatus.ACTIVE and row.to_move is not None \
        and row.to_move < len(seats) else None
    # The scheduler plays the computer within seconds (PBEM_BOT_EVERY): the page says so and
    # looks again, so a player who just moved sees the reply arrive.
    computer_to_move = (mover is not None and shown == len(moves) and not clock.paused_at
                        and not clock.held_since
                        and (players[mover.player_id].bot_level is not None
                             or mover.stand_in is not None))
    if viewer is not None and row.status == GameStatus.ACTIVE and row.to_move == viewer:
        move_url = links.move_url(row.id, viewer, row.ply, holder=seats[viewer].player_id)
    return render_template(
        "game.html",
        row=row, info=game.info, options=game.options, moves=moves, names=names,
        lineup=[(s, players[s.player_id]) for s in seats], labels=labels, ratings=ratings,
        profiles=[profile_url(players[s.player_id]) for s in seats],
        turns=turns_of(moves),
        result=result_text(row, labels, seats, players),
        terms=terms_for(row.game_type, game.options, reader=reader),
        terms_open=viewer is None or all(m.seat != viewer for m in moves),
        rules_url=url_for("rules.rules_page", game_id=row.game_type)
        if "rules.rules_page" in current_app.view_functions else None,
        board=named_svg(labels, board_svg(game, state, viewer,
                                          moves[shown - 1].notation if shown else None,
                                          ending=ending_of(row, seats, game, state)
                                          if ended_here else None)),
        side=side_table(game, state, viewer), side_labels=labels,
        describe=name_numbered_players(reader.text(game.describe(state, viewer)), labels),
        # A resignation, forfeit or adjudication ends a game whose position the rules did not
        # end, so the engine would still say "Light to move": the result is said instead.
        ended=is_over(row) and shown == len(moves),
        shown=shown,
        viewer=viewer, notice=notice,
        waiting=computer_wait() if computer_to_move else None,
        again_url=computer_again_url(row, viewer, seats, players),
        move_url=move_url, seat_token=seat_token, clock=clock,
        analysis_url=_analysis_url(row, shown, len(moves), move_url, seat_token),
        **clock_text(clock, row.game_type, len(seats)),
        resign_url=links.resign_url(row.id, viewer, holder=seats[viewer].player_id)
        if viewer is not None
        and row.status == GameStatus.ACTIVE else None,
        downloads=record_links(row.public_id),
        conditional=conditional_section(kept, seat_token, conditional_error, conditional_text),
        # Only the seat's own page marks the moves its conditional moves played.
        conditional_plies={m.ply for m in moves if m.source == MoveSource.CONDITIONAL
                           and m.seat == viewer} if seat_token is not None else set(),
        # Not on a refusal (a spent link's page), unless it refuses a message: it keeps its text.
        conversation=None if viewer is None or (status >= 400 and not chat_error)
        else conversation_view(
            row.id, viewer, post_url=url_for("chat.post_from_seat", token=links.sign(
                "seat-view", game=row.id, seat=viewer)), draft=draft, error=chat_error),
    ), status


def _analysis_url(row: GameRecord, shown: int, total: int, move_url: str | None,
                  seat_token: str | None) -> str:
    """The analysis board at the position shown: from the move link at the player's turn (so
    that its first move can be played), else as the seat or the public sees the game."""
    if move_url is not None and shown == total:
        return f"{move_url}/analysis"
    if seat_token is not None:
        return url_for("analysis.from_seat", token=seat_token, ply=shown)
    return url_for("analysis.from_game", public_id=row.public_id, ply=shown)


def conditional_section(kept: Shown | None, seat_token: str | None, error: str,
                        text: str | None) -> dict[str, Any] | None:
    """What the seat's page shows of its conditional moves: the tree, the form (its lines to
    edit, or the refused text again) and its addresses; None where nothing is shown (the
    public page, a game that has none)."""
    if kept is None or seat_token is None:
        return None
    if kept.refusal is not None and not kept.tree and not error:
        return None  # the seat's own turn, or a game without them: nothing to show or keep
    return {
        "rows": rows(kept.tree),
        "refusal": current_reader().text(kept.refusal) if kept.refusal else "",
        "form": kept.refusal is None,
        "text": text if text is not None else "\n".join(lines_of(kept.tree)),
        "error": error,
        "keep_url": url_for("conditional.keep", token=seat_token),
        "cancel_url": url_for("conditional.cancel", token=seat_token),
    }


@bp.get("/g/<public_id>")
def public_page(public_id: str) -> tuple[str, int]:
    return render_game_page(_load(public_id), None)


OUT_OF_GAME = _l("You are out of this game (you resigned, or forfeited on time): the computer "
                 "plays your seat to the end, and you will get the result by email.")

@bp.get("/seat/<token>")
def seat_page(token: str) -> tuple[str, int] | Response:
    """A player's own page of a game: with hidden information, it shows what they may see.
    Looking again while the computer chose its move (``?look=``), it goes on to the move page
    once the turn is the player's: they were waiting to move, not to read the game page."""
    found = game_of_token("seat-view", token)
    if found is None:
        return damaged_link()
    row, fields = found
    seat = fields["seat"]
    if (request.args.get("look") and row.status == GameStatus.ACTIVE and row.to_move == seat
            and row.id is not None and not seat_out_of_game(row.id, seat)):
        with database().session() as session:
            holder = seats_of(session, row.id)[seat].player_id
        return redirect(site().links.move_url(row.id, seat, row.ply, holder=holder), 303)
    notice = _("Your move was played.") if request.args.get("played") else ""
    if (kept := request.args.get("conditional", type=int)) is not None:
        notice = ngettext("Your conditional moves are kept: %(num)d answer.",
                          "Your conditional moves are kept: %(num)d answers.", kept) if kept \
            else _("You keep no conditional moves now.")
    if request.args.get("started"):
        notice = _("The game has started.")
    if row.status == GameStatus.ACTIVE and row.id is not None and seat_out_of_game(
            row.id, fields["seat"]):
        notice = str(OUT_OF_GAME)
    viewed(row, fields["seat"])
    return render_game_page(row, fields["seat"], notice=notice, seat_token=token)


def viewed(row: GameRecord, seat: int) -> None:
    """The seat's player is on the game's page (their own page, their move page): while they
    are, a game against the computer mails them no turn (pbem.services.turn_mail)."""
    if row.status == GameStatus.ACTIVE and row.id is not None:
        with database().write() as session:
            record_page_view(session, utc_now(), row.id, seat)


def resign_title(row: GameRecord, token: str) -> str:
    """"Resign from Mosey against Bob": the resign page's button names what is given up.

    A Jinja global (see pbem.web.rules.init_app), because the resign view only hands its
    template the game row and the link's token; the seat comes from that signed token."""
    reader = current_reader()
    name = game_name(row.game_type, reader)
    title = reader.gettext("Resign from %(game)s", game=name)
    try:
        seat = int(site().links.load("resign", token)["seat"])
    except (DamagedLink, KeyError, TypeError, ValueError):
        return title
    assert row.id is not None
    with database().session() as session:
        seats = seats_of(session, row.id)
        players = players_of(session, seats)
    others = [shown_name(players[s.player_id], reader) for s in others_in_play(seats, seat)]
    if not others:
        return title
    if len(others) == 1:
        return reader.gettext("Resign from %(game)s against %(player)s", game=name,
                              player=others[0])
    return reader.gettext("Resign from %(game)s against %(players)s and %(last)s",
                          game=name, players=", ".join(others[:-1]), last=others[-1])
