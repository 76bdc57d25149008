"""A tree of conditional moves: for each move the opponent may play, the answer to play at
once, and under it the next answers. Pure: lines of text in, a checked tree out, through the
game engine only.

A line reads as a reply does: ``if B1-C2 then D3-E4``, and ``then`` goes on deeper,
alternating the opponent's move and the answer: ``if B1-C2 then D3-E4 then A2-B3 then C4-C5``.
In a game whose turn has several steps, ``;`` joins the steps of one move:
``if step NE; end then take 2; lay 1,0``.
Lines that start alike share their branch (their answers must agree). The words ``if`` and
``then`` are also read in Dutch, German and Italian (``als … dan``, ``wenn … dann``,
``se … allora``), in any case.

>>> lines = read_lines("if B1-C2 then D3-E4\\nIF b4-b3 THEN d3-e4 then a2-b3 then c4-c5")
>>> [(line.number, line.moves) for line in lines]
[(1, ('B1-C2', 'D3-E4')), (2, ('b4-b3', 'd3-e4', 'a2-b3', 'c4-c5'))]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import engine
from engine.text import Text

IF_WORDS = ("if", "als", "wenn", "se")
THEN_WORDS = ("then", "dan", "dann", "allora")
MAX_LINES = 200  # a tree larger than this is a paste gone wrong, not a plan
MAX_DEPTH = 20  # answers in one line
STEP_SEPARATOR = ";"  # between the steps of one move, in a game whose turn has several
STEP_JOIN = "; "  # how a stored move writes them

_IF = re.compile(rf"^(?:{'|'.join(IF_WORDS)})\s+", re.I)
_THEN = re.compile(rf"\s+(?:{'|'.join(THEN_WORDS)})\s+", re.I)


class ConditionalRefused(ValueError):
    """Conditional moves that cannot be kept; ``text`` says why, for the player (a Text)."""

    def __init__(self, text: Text) -> None:
        super().__init__(text)
        self.text = text


@dataclass(frozen=True)
class Line:
    """One line as typed: its number (from 1, blank lines counted) and its moves, the
    opponent's first, then the answer, and so on."""

    number: int
    moves: tuple[str, ...]


@dataclass(frozen=True)
class Branch:
    """The answer to one move of the opponent, and the branches after that answer."""

    answer: str
    then: Mapping[str, Branch] = field(default_factory=dict)


Tree = Mapping[str, Branch]
"""The opponent's move (its notation) -> the branch that answers it."""


def is_conditional_line(text: str) -> bool:
    """Whether ``text`` starts like a conditional move (``if …``)."""
    return bool(_IF.match(text.strip()))


def read_lines(text: str) -> list[Line]:
    """The lines of ``text`` that are not blank, each read into its moves; a line that does
    not read as ``if X then Y [then Z then W ...]`` is refused with its number."""
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        words = " ".join(raw.split())
        if not words:
            continue
        start = _IF.match(words)
        moves = tuple(_THEN.split(words[start.end():])) if start else ()
        if not start or len(moves) < 2 or not all(moves):
            raise ConditionalRefused(Text(
                "line %(line)d does not read as \"if (their move) then (your move)\": %(text)s",
                line=number, text=words))
        if len(moves) % 2:
            raise ConditionalRefused(Text(
                "line %(line)d ends with their move %(move)s: say what you answer with "
                "\"then\"", line=number, move=moves[-1]))
        if len(moves) > 2 * MAX_DEPTH:
            raise ConditionalRefused(Text("line %(line)d is longer than %(count)d answers",
                                          line=number, count=MAX_DEPTH))
        lines.append(Line(number, moves))
    if len(lines) > MAX_LINES:
        raise ConditionalRefused(Text("more than %(count)d lines of conditional moves",
                                      count=MAX_LINES))
    return lines


def build(game: engine.AnyGame, state: Any, me: int, lines: list[Line],
          base: Tree | None = None) -> Tree:
    """The tree of ``lines`` (added to ``base``, when given), checked by playing every move in
    its position from ``state``, where the opponent of seat ``me`` is to move: each of their
    moves must be legal and pass the turn to ``me``, each answer legal and pass it back (an
    answer that ends the game ends its line; the last answer of a line may leave the rest of a
    turn to ``me``). A move is one step or, in a game whose turn has several, the turn's steps
    separated by ``;`` (``take 1; lay 1,0``). Notation is the engine's own (``b1-c2`` is stored
    as ``B1-C2``). Raises :class:`ConditionalRefused`, naming the line and the move.

    In a game with hidden information, ``state`` must be one ``me`` cannot tell from the real
    one (pbem.analysis.line.start_for): nothing past a step that draws what ``me`` cannot see
    (:meth:`engine.base.Game.reveals_hidden`) is decided by what ``me`` knows, so a line goes
    no further than that step, and only an answer of ``me`` may end with one."""
    tree = thaw(base or {})
    for line in lines:
        position, level = state, tree
        for index in range(0, len(line.moves), 2):
            theirs, position = _turn(game, position, line, line.moves[index], mine=False, me=me)
            mine, position = _turn(game, position, line, line.moves[index + 1], mine=True,
                                   me=me, last=index + 2 == len(line.moves))
            found = level.get(theirs)
            if found is None:
                found = level[theirs] = {"answer": mine, "then": {}}
            elif found["answer"] != mine:
                raise ConditionalRefused(Text(
                    "line %(line)d answers %(move)s with %(answer)s, but an earlier line "
                    "answers it with %(other)s: keep one", line=line.number, move=theirs,
                    answer=mine, other=found["answer"]))
            level = found["then"]
    return freeze(tree)


def _turn(game: engine.AnyGame, state: Any, line: Line, text: str, *, mine: bool, me: int,
          last: bool = False) -> tuple[str, Any]:
    """The steps of one move of ``line`` (``;`` between them) played in ``state``: their
    notation and the position after, checked as :func:`build` says."""
    steps = [step.strip() for step in text.split(STEP_SEPARATOR)]
    if not all(steps):
        raise ConditionalRefused(Text("line %(line)d: %(move)s has an empty step",
                                      line=line.number, move=text))
    played: list[str] = []
    for number, step in enumerate(steps, 1):
        notation, after, draws = _played(game, state, line, step, mine=mine)
        played.append(notation)
        final = number == len(steps)
        if draws and not (mine and last and final):
            raise ConditionalRefused(Text(
                "line %(line)d: %(move)s draws what you cannot see yet (%(effect)s), so no "
                "conditional move can go past it; it can only be the last step of your last "
                "answer", line=line.number, move=notation,
                effect=game.hidden_effect(state, game.parse_move(notation))))
        state, mover = after, game.to_move(after)
        if not mine and not final and mover != 1 - me:
            raise ConditionalRefused(Text(
                "line %(line)d: after %(move)s it is no longer their turn, so the steps after "
                "it are not theirs", line=line.number, move=notation))
        if not mine and final and mover != me:
            raise ConditionalRefused(Text(
                "line %(line)d: after %(move)s it is not your turn, so nothing can answer "
                "it", line=line.number, move=STEP_JOIN.join(played)))
        if mine and not final and mover != me:
            raise ConditionalRefused(Text(
                "line %(line)d: after %(move)s your turn is over, so the steps after it are "
                "not yours", line=line.number, move=notation))
        if mine and final and not last and mover is None:
            raise ConditionalRefused(Text(
                "line %(line)d: %(move)s ends the game, so nothing can follow it",
                line=line.number, move=STEP_JOIN.join(played)))
        if mine and final and not last and mover == me:
            raise ConditionalRefused(Text(
                "line %(line)d: after %(move)s it is still your turn; a conditional move "
                "answers one move of theirs with one of yours", line=line.number,
                move=STEP_JOIN.join(played)))
    return STEP_JOIN.join(played), state


def _played(game: engine.AnyGame, state: Any, line: Line, text: str, *,
            mine: bool) -> tuple[str, Any, bool]:
    """``text`` read and played in ``state``: its notation, the position after, and whether
    it draws what was hidden."""
    try:
        move = game.parse_move(text)
        after = game.play(state, move)
        return str(move), after, game.reveals_hidden(state, move)
    except engine.IllegalMove as error:
        if mine:
            raise ConditionalRefused(Text("line %(line)d: your move %(move)s: %(reason)s",
                                          line=line.number, move=text,
                                          reason=error.text)) from None
        raise ConditionalRefused(Text("line %(line)d: their move %(move)s: %(reason)s",
                                      line=line.number, move=text, reason=error.text)) from None


def steps_of(move: str) -> list[str]:
    """The steps of a stored move (its notation; ``;`` between the steps of one turn)."""
    return move.split(STEP_JOIN)


def lines_of(tree: Tree) -> list[str]:
    """The tree as the lines that make it, one per leaf, in the order it was given:
    what the form shows to edit and a reply repeats."""
    return [f"if {' then '.join(moves)}" for moves in paths(tree)]


def paths(tree: Tree) -> Iterator[tuple[str, ...]]:
    """Each line of moves from the root to a leaf."""
    for theirs, branch in tree.items():
        if not branch.then:
            yield theirs, branch.answer
        for rest in paths(branch.then):
            yield theirs, branch.answer, *rest


def count(tree: Tree) -> int:
    """How many answers the tree holds."""
    return sum(1 + count(branch.then) for branch in tree.values())


def freeze(data: Mapping[str, Any]) -> Tree:
    """The tree of its JSON form: ``{their move: {"answer": ..., "then": {...}}}``."""
    return {theirs: Branch(str(branch["answer"]), freeze(branch.get("then") or {}))
            for theirs, branch in data.items()}


def thaw(tree: Tree) -> dict[str, Any]:
    """The JSON form of ``tree`` (see :func:`freeze`)."""
    return {theirs: {"answer": branch.answer, "then": thaw(branch.then)}
            for theirs, branch in tree.items()}


def rows(tree: Tree, depth: int = 0) -> list[tuple[int, str, str]]:
    """The tree depth first as (depth, their move, your answer): how pages and emails show it
    ("if they play X, you play Y", the answers after it indented below)."""
    found: list[tuple[int, str, str]] = []
    for theirs, branch in tree.items():
        found.append((depth, theirs, branch.answer))
        found += rows(branch.then, depth + 1)
    return found
