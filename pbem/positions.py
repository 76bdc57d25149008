"""Between a game row and its engine: the engine object, positions at any ply, what a viewer sees.

Only the engine contract is used here, so every game in ``engine.GAMES`` works the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy.orm import QueryableAttribute, defer
from sqlmodel import Session, col, select

import engine
from engine import AnyGame, NumberRange
from engine.text import N_, NO_TEXT, Text
from pbem.i18n import ENGLISH, Reader
from pbem.models import GameRecord, Move

TURN_STEPS_SHOWN = 40  # more steps than any turn has (Rifugio: two lays and a long walk)


def engine_game(row: GameRecord) -> AnyGame:
    return engine.new_game(row.game_type, **row.options)


def current_state(row: GameRecord) -> tuple[AnyGame, Any]:
    game = engine_game(row)
    return game, game.decode(row.state)


# A move's stored position as a mapped attribute, for loader options (SQLModel types it as its
# Python value): most lists of moves never read it.
STATE_AFTER = cast(QueryableAttribute[Any], Move.state_after)


def moves_of(session: Session, game_id: int, *, positions: bool = True) -> list[Move]:
    """A game's moves in order; without their stored positions unless ``positions`` (what a
    turn's emails need: decoding every position of a long game on every turn made a Rifugio
    turn cost more the longer the game had run)."""
    query = select(Move).where(Move.game_id == game_id).order_by(col(Move.ply))
    if not positions:
        query = query.options(defer(STATE_AFTER, raiseload=True))
    return list(session.exec(query))


def last_notation(session: Session, game_id: int) -> str | None:
    """The last move's notation, without loading every move and its stored position."""
    return session.exec(select(Move.notation).where(Move.game_id == game_id)
                        .order_by(col(Move.ply).desc()).limit(1)).first()


def played_this_turn(session: Session, game_id: int, seat: int) -> list[str]:
    """The notations of the moves ``seat`` has made so far in its turn, oldest first: the
    moves at the end of the game's record while they are that seat's (Rifugio's take and lay
    before the walk). Empty when the last move was someone else's."""
    latest = session.exec(select(Move.seat, Move.notation).where(Move.game_id == game_id)
                          .order_by(col(Move.ply).desc()).limit(TURN_STEPS_SHOWN)).all()
    run: list[str] = []
    for mover, notation in latest:
        if mover != seat:
            break
        run.append(notation)
    return run[::-1]


def state_at(game: AnyGame, row: GameRecord, moves: list[Move], ply: int) -> Any:
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
    numbers: list[NumberRange]


def move_menu(game: AnyGame, state: Any, prefix: tuple[str, ...]) -> MoveMenu:
    """Group the legal moves by their clicked cells so a page can offer one click at a time.

    Without a prefix the clickable cells are every legal move's first cell; after clicking C2 they
    are the continuations of moves starting with C2. Cell labels compare case-insensitively.
    """
    prefix = tuple(c.upper() for c in prefix)
    next_cells: dict[str, tuple[str, ...]] = {}
    complete: list[str] = []
    buttons: list[str] = []
    moves, numbers = game.move_choices(state)
    for move in moves:
        cells = tuple(c.upper() for c in game.move_cells(move))
        if not cells:
            buttons.append(str(move))
        elif cells[: len(prefix)] == prefix:
            if len(cells) == len(prefix):
                complete.append(str(move))
            else:
                next_cells.setdefault(cells[len(prefix)], (*prefix, cells[len(prefix)]))
    return MoveMenu(prefix, next_cells, complete, buttons, [] if numbers is None else [numbers])


# -- typed moves ----------------------------------------------------------------------------------

# Between a cell's digit and the next cell's letter, people write "-", "x", ":" or a space for the
# same thing ("B1-D3" for the capture B1xD3). A "-" elsewhere (Rifugio's "lay 2,-1") is a sign.
_CELL_SEPARATOR = re.compile(r"(?<=\d)[-x×:–—](?=[a-z])")
# Engines end parse errors with generic examples ("try e.g. D4, C2-E2, pass"), some of which are
# not moves of this game at all; the page gives examples from the position instead.
_ENGINE_HINT = re.compile(r"\s*\((?:try|e\.g\.)\b[^)]*\)")
# The same hint in a message id, whose examples are a value: "(try e.g. %(examples)s)".
_ENGINE_HINT_ID = re.compile(r"\s*\((?:try|e\.g\.)\b(?:[^()%]|%\(\w+\)[sd]|%%)*\)")
EXAMPLES = 6


def move_key(text: str) -> str:
    """``text`` with case, spaces and cell separators made uniform, to compare notations."""
    squeezed = "".join(text.casefold().split())
    return _CELL_SEPARATOR.sub("~", squeezed)


@dataclass(frozen=True)
class TypedMove:
    """What typed text means here: ``move`` when it names one legal move, else ``reason`` with
    the legal moves it could mean (``choices``) or a few legal ``examples``."""

    move: str | None
    reason: Text = NO_TEXT  # the page says it in the player's language
    choices: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()


def resolve_typed(game: AnyGame, state: Any, text: str, *,
                  reader: Reader = ENGLISH) -> TypedMove:
    """Read ``text`` as the engine does; when that is not a legal move as written, accept the one
    legal move it matches once written uniformly, or say why not with this position's moves."""
    try:
        parsed = game.parse_move(text)
        why = game.why_illegal(state, parsed)
        if why is None:
            return TypedMove(str(parsed))
        reason = why
    except engine.IllegalMove as error:
        reason = without_hint(error.text)
    key = move_key(text)
    matches = tuple(str(m) for m in game.move_choices(state)[0] if move_key(str(m)) == key)
    if len(matches) == 1:
        return TypedMove(matches[0])
    if matches:
        return TypedMove(None, Text("%(typed)s could be %(moves)s: choose one",
                                    typed=text.strip(), moves=_or(matches)), choices=matches)
    return TypedMove(None, reason, examples=examples_for(game, state, text, reader=reader))


def examples_for(game: AnyGame, state: Any, text: str, *,
                 reader: Reader = ENGLISH) -> tuple[str, ...]:
    """A few legal moves to show after a mistake, those that start like ``text`` first."""
    moves, numbers = game.move_choices(state)
    words = [] if numbers is None else [number_words(numbers, reader=reader)]
    plain = [str(m) for m in moves]
    start = move_key(text)[:2]
    alike = [m for m in plain if start and move_key(m).startswith(start)]
    rest = [m for m in plain if m not in alike]
    picked = alike[:EXAMPLES] + _spread(rest, EXAMPLES - min(len(alike), EXAMPLES))
    return tuple(words + picked)


def without_hint(reason: Text) -> Text:
    """An engine's reason without its generic examples ("(try e.g. D4, C2-E2, pass)"), still
    translatable: the hint is cut from the message id too."""
    if not _ENGINE_HINT.search(str(reason)):
        return reason
    msgid = _ENGINE_HINT_ID.sub("", reason.msgid).strip() if reason.msgid else ""
    if msgid and msgid != reason.msgid and reason.plural is None:
        values = {k: v for k, v in reason.values.items() if f"%({k})" in msgid}
        return Text(msgid, **values)
    return Text.verbatim(_ENGINE_HINT.sub("", str(reason)).strip())


# The engines' "is not a move (try e.g. ...)" without the examples: the page gives its own.
N_("%(move)s is not a move")


def number_words(choice: NumberRange, *, reader: Reader = ENGLISH) -> str:
    name = choice.label or choice.name
    name = reader.text(name) if isinstance(name, Text) else reader.gettext(name) if name else ""
    return reader.gettext("%(name)s: a whole number from %(low)d to %(high)d",
                          name=name, low=choice.low, high=choice.high)


_NUMBER = re.compile(r"[+-]?[0-9]+")


def shown_move(notation: str, *, reader: Reader = ENGLISH) -> str:
    """A recorded move as lists show it: a bare number (Stigmergy's komi, the only numeric
    move) says what it is, since "Computer (First): 1" told a newcomer nothing.

    >>> shown_move("1"), shown_move("-3"), shown_move("C4"), shown_move("take blind")
    ('komi 1', 'komi -3', 'C4', 'take blind')
    """
    if _NUMBER.fullmatch(notation.strip()):
        return reader.gettext("komi %(value)s", value=notation.strip())
    return notation


def _spread(items: list[str], count: int) -> list[str]:
    """``count`` items spread over the list (not just its first few, which look alike)."""
    if count <= 0 or not items:
        return []
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def _or(items: tuple[str, ...]) -> Text:
    if len(items) == 1:
        return Text.verbatim(items[0])
    return Text("%(some)s or %(last)s", some=", ".join(items[:-1]), last=items[-1])


def has_several_steps(game: AnyGame, state: Any, seat: int) -> bool:
    """Whether this turn goes on after a first step (checked on a few moves: a game's turns are
    either always one move or made of steps)."""
    for move in game.legal_moves(state)[:3]:
        if game.reveals_hidden(state, move):
            continue
        if game.to_move(game.play(state, move)) == seat:
            return True
    return False
