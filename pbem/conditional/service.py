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
from pbem.analysis.line import start_for
from pbem.conditional.tables import ConditionalMoves
from pbem.conditional.tree import (
    STEP_JOIN,
    ConditionalRefused,
    Tree,
    build,
    freeze,
    read_lines,
    rows,
    steps_of,
    thaw,
)
from pbem.models import GameRecord, GameStatus, Move, MoveSource, Seat
from pbem.positions import current_state, engine_game
from pbem.services.common import audit, lock_game, seats_of
from pbem.services.events import SeatEmail, StandingMove

MAX_ANSWER_STEPS = 50  # more steps than any answer in one turn holds: how far a turn email looks


@dataclass(frozen=True)
class Shown:
    """What a seat's own page or reply shows of its conditional moves: the tree (empty when
    none), and why it may not keep any now (None when it may)."""

    tree: Tree
    refusal: Text | None


def allows_conditional_moves(game: engine.AnyGame) -> bool:
    """Two players: every move between two of the seat's is the opponent's, so the tree's
    branches are the opponent's possible moves. Where something is hidden (or drawn by
    chance), a tree holds only what the seat's own view decides (:func:`save`)."""
    return game.num_players == 2


def why_not_kept(row: GameRecord, game: engine.AnyGame, seat: Seat, *,
                 holder: int | None = None) -> Text | None:
    """Why ``seat`` may not keep conditional moves in ``row`` now, or None."""
    if not allows_conditional_moves(game):
        return Text("conditional moves are only for games of two players: with more, the "
                    "others' moves come between your opponent's move and yours")
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
    tree = from_now(session, row, kept, seat) if kept is not None else {}
    return Shown(tree, why_not_kept(row, game, seat))


def from_now(session: Session, row: GameRecord, kept: ConditionalMoves, seat: Seat) -> Tree:
    """The part of ``kept`` that can still answer the opponent's move, keyed from the position
    now: where the opponent has played steps of a turn of several since it was kept, only the
    branches that start with those steps, without them. Empty for another holder's tree."""
    if kept.player_id != seat.player_id or not kept.tree or kept.ply > row.ply:
        return {}
    tree = freeze(kept.tree)
    if kept.ply == row.ply:
        return tree
    since = session.exec(select(Move).where(
        Move.game_id == row.id, Move.ply >= kept.ply, Move.ply < row.ply)
        .order_by(Move.ply)).all()  # type: ignore[arg-type]
    if any(m.seat == seat.seat for m in since):
        return {}
    played = STEP_JOIN.join(m.notation for m in since) + STEP_JOIN
    return {theirs[len(played):]: branch for theirs, branch in tree.items()
            if theirs.startswith(played)}


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
    before = from_now(session, row, kept, mine) if add and kept is not None else {}
    # Checked in a position the seat cannot tell from the real one: nothing the tree says or
    # refuses can depend on the pile or another seat's hidden values.
    tree = build(game, start_for(game, state, seat), seat, read_lines(text), before)
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


def on_standing_move(event: StandingMove) -> list[Any] | None:
    """The answer ``event.seat`` kept to the opponent's move just ended by ``event.last``
    (every step the opponent played since the tree's ply, as anyone may read them in the move
    list: only those are compared), its steps to be played in order, if its tree has one and
    the rules allow each of them in the real position; the tree then keeps what follows that
    answer. A tree without an answer to that move, or whose answer the real position refuses,
    is dropped (the turn email says so)."""
    session, row = event.session, event.row
    assert row.id is not None
    kept = kept_row(session, row.id, event.seat)
    if kept is None or not kept.tree:
        return None
    mine = next(s for s in seats_of(session, row.id) if s.seat == event.seat)
    if mine.player_id != kept.player_id or mine.resigned or mine.forfeited or mine.stand_in:
        session.delete(kept)  # the seat changed hands or left the game: nobody's plan now
        return None
    theirs = session.exec(select(Move).where(
        Move.game_id == row.id, Move.ply >= kept.ply, Move.ply <= event.last.ply)
        .order_by(Move.ply)).all()  # type: ignore[arg-type]
    played = STEP_JOIN.join(m.notation for m in theirs)
    branch = freeze(kept.tree).get(played) \
        if theirs and all(m.seat != event.seat for m in theirs) else None
    if branch is None:
        _drop(kept, event, played or event.last.notation, illegal=False)
        return None
    moves = _legal_steps(event.game, event.state, event.seat, branch.answer)
    if moves is None:  # checked when saved in the seat's view; the real position decides now
        _drop(kept, event, played, illegal=True)
        return None
    if branch.then:
        # the answer's steps are played from row.ply on; the next move of theirs starts after
        kept.tree, kept.ply = thaw(branch.then), row.ply + len(moves)
        kept.played += 1
        kept.updated_at = event.now
        session.add(kept)
    else:
        session.delete(kept)
    audit(session, event.now, "conditional-played", game_id=row.id, seat=event.seat,
          ply=row.ply)
    return moves


def _legal_steps(game: engine.AnyGame, state: Any, seat: int, answer: str) -> list[Any] | None:
    """The steps of ``answer``, each legal for ``seat`` where the one before leaves the real
    position ``state``; None if the rules refuse one."""
    moves = []
    for step in steps_of(answer):
        try:
            move = game.parse_move(step)
        except engine.IllegalMove:
            return None
        if game.to_move(state) != seat or game.why_illegal(state, move) is not None:
            return None
        moves.append(move)
        state = game.apply(state, move)
    return moves


def _drop(kept: ConditionalMoves, event: StandingMove, played: str, *, illegal: bool) -> None:
    kept.tree = {}
    kept.dropped_move, kept.dropped_ply = played, event.row.ply
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
    if event.kind != "turn":
        return {}
    begun = _begun(event.session, row, event.seat.seat)
    if kept is None or kept.dropped_ply != row.ply or kept.dropped_move is None:
        return {"conditional_begun": begun} if begun else {}
    told: dict[str, Any] = {"conditional_dropped": kept.dropped_move}
    if kept.dropped_illegal:
        told["conditional_illegal"] = True
    event.session.delete(kept)
    return told


def _begun(session: Session, row: GameRecord, seat: int) -> str:
    """The steps the seat's conditional move played at the start of the turn it is now to
    finish (a game whose turn has several steps, where the answer stopped at a draw), as the
    move list reads them; "" when none."""
    assert row.id is not None
    last = session.exec(select(Move).where(Move.game_id == row.id, Move.ply < row.ply)
                        .order_by(Move.ply.desc()).limit(MAX_ANSWER_STEPS)).all()  # type: ignore[attr-defined]
    begun: list[str] = []
    for move in last:
        if move.seat != seat or move.source != MoveSource.CONDITIONAL:
            break
        begun.insert(0, move.notation)
    return STEP_JOIN.join(begun)


__all__ = ["ConditionalRefused"]
