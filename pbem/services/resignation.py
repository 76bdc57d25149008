"""Resigning a game: in a game of two it ends; with three or more the others play on.

In a game of two, a resignation ends it: the other side wins. In a game of three or more (Rifugio)
the others still have a game to finish, so the player who resigns leaves it instead: they are out
and placed last (:func:`pbem.ratings.service.places`), and the computer plays their seat to the
end, as it does for a seat that forfeited on time under ``forfeit-bot``. The game ends at once only
when fewer than two seats would stay in play, or no person among them; those seats share the win.

A tournament's withdrawal (:func:`pbem.tournaments.service.withdraw_player`) resigns each of the
player's running games, so it follows the same rule.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from engine.text import N_, Text
from pbem.i18n import Reader
from pbem.models import GameRecord, GameStatus, Seat
from pbem.positions import current_state
from pbem.services.common import (
    GameNotActive,
    ServiceError,
    Site,
    audit,
    end_game,
    lock_game,
    others_in_play,
    players_of,
    plays_on,
    seats_of,
)
from pbem.services.moves import publish_game_over, seat_labels
from pbem.services.results import labels_for, resignation_sentence
from pbem.services.timeouts import clock_notice

RESIGNED_STAND_IN = "resigned"  # Seat.stand_in: the computer plays a resigned seat to the end
PLAYS_ON = N_("%(player)s resigned and is out of the game, placed last. The computer plays "
              "their seat to the end so that the others can finish.")


class OutOfGame(ServiceError):
    """The seat has resigned or forfeited: it has no moves and no resignation left to make."""


def check_in_play(seat: Seat) -> None:
    """Raise :class:`OutOfGame` for a seat that has left the game."""
    if seat.resigned:
        raise OutOfGame(Text("you resigned from this game; the computer plays your seat now"))
    if seat.forfeited:
        raise OutOfGame(Text("you forfeited this game on time; your seat is played for you now"))


def resign(session: Session, now: datetime, site: Site, *, game_id: int, seat: int) -> GameRecord:
    """``seat`` gives up: the game ends, the seats still in play sharing the win, or, with two
    or more of them left (a person among them), it goes on and the computer plays ``seat``."""
    row = lock_game(session, game_id)
    if row.status != GameStatus.ACTIVE:
        raise GameNotActive(Text("this game is not running"))
    seats = seats_of(session, game_id)
    if not 0 <= seat < len(seats):
        raise ServiceError(Text("there is no such seat"))
    leaving = seats[seat]
    check_in_play(leaving)
    leaving.resigned = True
    session.add(leaving)
    others = others_in_play(seats, seat)
    players = players_of(session, seats)
    audit(session, now, "resigned", game_id=game_id, player_id=leaving.player_id, seat=seat)
    game, state = current_state(row)
    if plays_on(others, players):
        leaving.stand_in = RESIGNED_STAND_IN  # the sweep's bot pass plays it, never a request
        session.add(leaving)
        names = [players[s.player_id].name for s in seats]

        def text(reader: Reader) -> str:
            return reader.gettext(PLAYS_ON, player=labels_for(game, state, names, reader)[seat])

        clock_notice(session, now, site, row, "resigned", text, about=seat)
        return row
    winners = [s.seat for s in others]
    end_game(session, row, now, winners=winners, result=resignation_sentence(
        seat_labels(session, game, state, game_id), seat, winners))
    session.add(row)
    publish_game_over(session, now, site, row, game, state, seats)
    return row
