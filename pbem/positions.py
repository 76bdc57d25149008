"""Between a game row and its engine: the engine object, positions at any ply, what a viewer sees.

Only the engine contract is used here, so every game in ``engine.GAMES`` works the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

import engine
from engine import NumberChoice
from pbem.models import Game, Move


def engine_game(row: Game) -> engine.Game:  # type: ignore[type-arg]
    return engine.new_game(row.game_type, **row.options)


def current_state(row: Game) -> tuple[engine.Game, Any]:  # type: ignore[type-arg]
    game = engine_game(row)
    return game, game.decode(row.state)


def moves_of(session: Session, game_id: int) -> list[Move]:
    return list(session.exec(select(Move).where(Move.game_id == game_id).order_by(col(Move.ply))))


def last_notation(session: Session, game_id: int) -> str | None:
    """The last move's notation, without loading every move and its stored position."""
    return session.exec(select(Move.notation).where(Move.game_id == game_id)
                        .order_by(col(Move.ply).desc()).limit(1)).first()


def state_at(game: engine.Game, row: Game, moves: list[Move], ply: int) -> Any:  # type: ignore[type-arg]
    """The position after ``ply`` moves (0: the start)."""
    if ply <= 0:
        return game.decode(row.start_state)
    return game.decode(moves[ply - 1].state_after)


@dataclass(frozen=True)
class MoveMenu:
    """What the move page offers after the cells in ``prefix`` have been clicked."""

    prefix: tuple[str, ...]
    next_cells: dict[str, tuple[str, ...]]  # clickable cell -> the new prefix
    complete: list[str]  # moves whose cells are exactly the prefix (buttons when several)
    buttons: list[str]  # moves without cells (pass, take-button, ...)
    numbers: list[NumberChoice]


def move_menu(
    game: engine.Game, state: Any, prefix: tuple[str, ...]  # type: ignore[type-arg]
) -> MoveMenu:
    """Group the legal moves by their clicked cells so a page can offer one click at a time.

    Without a prefix the clickable cells are every legal move's first cell; after clicking C2 they
    are the continuations of moves starting with C2. Cell labels compare case-insensitively.
    """
    prefix = tuple(c.upper() for c in prefix)
    next_cells: dict[str, tuple[str, ...]] = {}
    complete: list[str] = []
    buttons: list[str] = []
    numbers: list[NumberChoice] = []
    for move in game.legal_moves(state):
        if isinstance(move, NumberChoice):
            numbers.append(move)
            continue
        cells = tuple(c.upper() for c in game.move_cells(move))
        if not cells:
            buttons.append(str(move))
        elif cells[: len(prefix)] == prefix:
            if len(cells) == len(prefix):
                complete.append(str(move))
            else:
                next_cells.setdefault(cells[len(prefix)], (*prefix, cells[len(prefix)]))
    return MoveMenu(prefix, next_cells, complete, buttons, numbers)
