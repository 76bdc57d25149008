"""Keeping, showing, clearing and playing a seat's conditional moves.

A seat keeps its tree while it is the opponent's turn; the opponent's move is answered from it
in the opponent's own transaction (:func:`on_standing_move`, asked by
:func:`pbem.services.turns.play_moves` through :class:`~pbem.services.events.StandingMove`), so
the answer is played exactly once, by whichever request plays the opponent's move: two
confirms at once are one move and a "moved on" (the row lock), never two answers. A move the
tree does not answer drops it, and the seat's turn email says so (:func:`on_turn_email`).

Saving locks the game row as a move does, so a tree is checked against the very position the
opponent's move will be played in, and a save racing that move either comes first (and is
used) or is refused because the turn changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, select

import engine
from engine.text import Text
from pbem.conditional.tables import ConditionalMoves
from pbem.conditional.tree import ConditionalRefused, Tree, build, freeze, read_lines, rows, thaw
from pbem.models import GameRecord, GameStatus, Seat
from pbem.positions import current_state, engine_game
from pbem.services.common import audit, lock_game, seats_of
from pbem.services.events import SeatEmail, StandingMove


@dataclass(frozen=True)
class Shown:
    """What a seat's own page or reply shows of its conditional moves: the tree (empty when
    none), and why it may not keep any now (None when it may)."""

    tree: Tree
    refusal: Text | None


def allows_conditional_moves(game: engine.AnyGame) -> bool:
    """Two players, nothing hidden, no chance: an answer decided in advance is as good as one
    decided then, and the tree shows nothing the player could not see."""
    info = game.info
    return game.num_players == 2 and not info.chance and not info.hidden_information


def why_not_kept(row: GameRecord, game: engine.AnyGame, seat: Seat, *,
                 holder: int | None = None) -> Text | None:
    """Why ``seat`` may not keep conditional moves in ``row`` now, or None."""
    if not allows_conditional_moves(game):
        return Text("conditional moves are only for games of two players without hidden "
                    "information or chance")
    if row.status != GameStatus.ACTIVE:
        return Text("this game is not running")
    if holder is not None and seat.player_id != holder:
        return Text("this seat has a new player")
    if seat.resigned or seat.forfeited or seat.stand_in:
        return Text("the computer plays your seat now")
    if row.to_move == seat.seat:
        return Text("it is your turn: play your move; conditional moves are left while the "
                    "opponent is to move")
    return None


def kept_row(session: Session, game_id: int, seat: int) -> ConditionalMoves | None:
    return session.exec(select(ConditionalMoves).where(
        ConditionalMoves.game_id == game_id, ConditionalMoves.seat == seat)).first()


def shown(session: Session, row: GameRecord, seat: Seat) -> Shown:
    """``seat``'s conditional moves as its holder may see them (nobody else ever does)."""
    assert row.id is not None
    game = engine_game(row)
    kept = kept_row(session, row.id, seat.seat)
    tree = freeze(kept.tree) if kept is not None and kept.player_id == seat.player_id \
        and kept.ply == row.ply and kept.tree else {}
    return Shown(tree, why_not_kept(row, game, seat))


def save(session: Session, now: datetime, *, game_id: int, seat: int, text: str,
         holder: int | None = None, add: bool = False) -> Tree:
    """Keep the conditional moves of ``text`` (lines ``if X then Y [then Z then W ...]``) for
    ``seat``: instead of those it kept, or with them (``add``). Empty text keeps none.
    Raises :class:`ConditionalRefused` (nothing changed) when the seat may not keep any now or
    a move of theirs or yours is illegal in its position."""
    row = lock_game(session, game_id)
    mine = next((s for s in seats_of(session, game_id) if s.seat == seat), None)
    if mine is None:
        raise ConditionalRefused(Text("there is no such seat"))
    game, state = current_state(row)
    if (why := why_not_kept(row, game, mine, holder=holder)) is not None:
        raise ConditionalRefused(why)
    kept = kept_row(session, game_id, seat)
    before = freeze(kept.tree) if add and kept is not None and kept.ply == row.ply \
        and kept.player_id == mine.player_id and kept.tree else {}
    tree = build(game, state, seat, read_lines(text), before)
    if not tree:
        if kept is not None:
            session.delete(kept)
        audit(session, now, "conditional-cleared", game_id=game_id, seat=seat)
        return tree
    kept = kept or ConditionalMoves(game_id=game_id, seat=seat, player_id=mine.player_id,
                                    ply=row.ply, updated_at=now)
    kept.player_id, kept.ply, kept.tree, kept.updated_at = mine.player_id, row.ply, thaw(tree), now
    kept.dropped_move, kept.dropped_ply, kept.dropped_illegal, kept.played = None, None, False, 0
    session.add(kept)
    session.flush()
    # The audit says that a tree was kept, not what it holds: the opponent must never read it.
    audit(session, now, "conditional-saved", game_id=game_id, seat=seat)
    return tree


def clear(session: Session, now: datetime, *, game_id: int, seat: int,
          holder: int | None = None) -> bool:
    """Drop ``seat``'s conditional moves, if it kept any (whether it is its turn or not).
    ``holder``, when given, must hold the seat; whether there were any."""
    lock_game(session, game_id)
    mine = next((s for s in seats_of(session, game_id) if s.seat == seat), None)
    if mine is None or (holder is not None and mine.player_id != holder):
        raise ConditionalRefused(Text("this seat has a new player"))
    kept = kept_row(session, game_id, seat)
    if kept is None or not kept.tree:
        return False
    session.delete(kept)
    audit(session, now, "conditional-cleared", game_id=game_id, seat=seat)
    return True


def on_standing_move(event: StandingMove) -> Any | None:
    """The answer ``event.seat`` kept to the move just played, if its tree has one and the
    rules still allow it; the tree then keeps what follows that answer. A tree without an
    answer to that move is dropped (the turn email says so)."""
    session, row = event.session, event.row
    assert row.id is not None
    kept = kept_row(session, row.id, event.seat)
    if kept is None or not kept.tree:
        return None
    mine = next(s for s in seats_of(session, row.id) if s.seat == event.seat)
    if mine.player_id != kept.player_id or mine.resigned or mine.forfeited or mine.stand_in:
        session.delete(kept)  # the seat changed hands or left the game: nobody's plan now
        return None
    branch = freeze(kept.tree).get(event.last.notation) if kept.ply == event.last.ply else None
    if branch is None:
        _drop(kept, event, illegal=False)
        return None
    game = event.game
    try:
        move = game.parse_move(branch.answer)
        refused = game.why_illegal(event.state, move) is not None
    except engine.IllegalMove:
        refused = True
    if refused:  # checked when saved; a change of the rules since could refuse it now
        _drop(kept, event, illegal=True)
        return None
    if branch.then:
        kept.tree, kept.ply = thaw(branch.then), row.ply + 1  # the answer is played at row.ply
        kept.played += 1
        kept.updated_at = event.now
        session.add(kept)
    else:
        session.delete(kept)
    audit(session, event.now, "conditional-played", game_id=row.id, seat=event.seat,
          ply=row.ply)
    return move


def _drop(kept: ConditionalMoves, event: StandingMove, *, illegal: bool) -> None:
    kept.tree = {}
    kept.dropped_move, kept.dropped_ply = event.last.notation, event.row.ply
    kept.dropped_illegal = illegal
    kept.updated_at = event.now
    event.session.add(kept)


def on_seat_email(event: SeatEmail) -> dict[str, Any]:
    """What an email to the seat says of its conditional moves: the turn email, those dropped
    at this very turn (and the row that remembered it goes: the player has been told); the
    email that says an answer was played, those still kept."""
    row = event.row
    assert row.id is not None
    kept = kept_row(event.session, row.id, event.seat.seat)
    if event.kind == "conditional_played":
        return {"branches": rows(freeze(kept.tree)) if kept is not None and kept.tree else []}
    if event.kind != "turn" or kept is None or kept.dropped_ply != row.ply \
            or kept.dropped_move is None:
        return {}
    told: dict[str, Any] = {"conditional_dropped": kept.dropped_move}
    if kept.dropped_illegal:
        told["conditional_illegal"] = True
    event.session.delete(kept)
    return told


__all__ = ["ConditionalRefused"]
