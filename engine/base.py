"""The engine contract shared by every game.

A game is an object made by :func:`engine.new_game` from its options; a state is an immutable value
that the game reads and produces. The base class does the bookkeeping (option checking, the
game-over and turn checks, the outcome and legal moves derived from the one statement of the end)
and each game writes a few small methods (:class:`Game` lists them)::

    >>> from engine import new_game
    >>> game = new_game("mosey", order=4)
    >>> state = game.start()
    >>> game.to_move(state)
    0
    >>> state = game.play(state, "G5xF4")
    >>> game.to_move(state)
    1
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar, final

from engine.text import ENGLISH, Text, Translator, Words, and_list, marked
from engine.values import JSON, CellHref, Ending, NumberRange, Outcome

Term = tuple[str, str]
"""A game's own word and its plain explanation, e.g. ("Komi", "Points added to ...")."""


@dataclass(frozen=True)
class SideTable:
    """A table a game's picture draws beside its board (each player's holdings and score), as
    data, so that a web page can show it as text a phone can read: ``columns`` are the headings
    and ``rows`` one tuple of values a seat, in seat order and the columns' order."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

__all__ = [
    "JSON",
    "AnyGame",
    "CellHref",
    "Ending",
    "Game",
    "GameInfo",
    "IllegalMove",
    "NumberRange",
    "Option",
    "Outcome",
    "PlayerError",
    "Presentation",
    "Search",
    "SideTable",
    "Term",
    "UnknownGame",
    "and_list",
    "marked",
]


class PlayerError(ValueError):
    """A refusal meant for a player: its message is a :class:`~engine.text.Text` (plain strings
    are kept, and read the same in every language)."""

    def __init__(self, message: Words) -> None:
        super().__init__(message)

    @property
    def text(self) -> Text:
        """The reason as a translatable text."""
        reason = self.args[0] if self.args else ""
        return reason if isinstance(reason, Text) else Text.verbatim(str(reason))


class IllegalMove(PlayerError):
    """A move that cannot be played here; the message is meant for the player.

    The message is a :class:`~engine.text.Text`, so the server can say it in the player's
    language; ``str(error)`` is the English.

    >>> error = IllegalMove(Text("%(cell)s is not a cell of this board", cell="Z9"))
    >>> str(error), error.text.msgid
    ('Z9 is not a cell of this board', '%(cell)s is not a cell of this board')
    """


class UnknownGame(PlayerError):
    """An unknown game id or option value; the message names the valid choices.

    Like :class:`IllegalMove`, the message is a :class:`~engine.text.Text` (``error.text``).
    """


@dataclass(frozen=True)
class Option:
    """One option of a game, e.g. the board size.

    >>> Option("order", "Board order", (4, 5, 6), 4).coerce("5")
    5
    """

    name: str
    label: str
    choices: tuple[int | str, ...]
    default: int | str
    help: str = ""
    choice_words: tuple[str, ...] = ()
    """How each choice reads to a player, in the order of ``choices``, where they are words."""

    def words(self, choice: object) -> str:
        """How ``choice`` reads to a player: its word (marked for translation), else itself.

        >>> komi = Option("komi", "Komi", ("negotiate", "none"), "negotiate",
        ...               choice_words=("negotiated", "zero"))
        >>> komi.words("none"), Option("order", "Board order", (4, 5), 4).words(5)
        ('zero', '5')
        """
        for value, word in zip(self.choices, self.choice_words, strict=False):
            if str(value) == str(choice):
                return word
        return str(choice)

    def coerce(self, value: object) -> int | str:
        """Return the choice meant by ``value`` (text from a form or the command line works too)."""
        for choice in self.choices:
            if value == choice or str(value).strip().lower() == str(choice).lower():
                return choice
        valid = ", ".join(str(c) for c in self.choices)
        raise UnknownGame(Text("%(option)s must be one of %(choices)s, not %(value)s",
                               option=self.name, choices=valid, value=repr(value)))


@dataclass(frozen=True)
class GameInfo:
    """What the catalogue says about a game: enough to build a create-game form and an email.

    ``name``, ``summary`` (the rules in a few sentences, more than 80 characters) and each
    option's ``label`` and ``help`` are plain strings marked with ``N_`` (pbem translates them);
    each option's default is one of its choices, and ``min_players <= max_players``."""

    id: str
    name: str
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    summary: str
    chance: bool = False
    hidden_information: bool = False
    aliases: tuple[str, ...] = ()

    def option(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        if not self.options:
            raise UnknownGame(Text("%(game)s has no option %(option)s; its options are: none",
                                   game=self.id, option=repr(name)))
        raise UnknownGame(Text("%(game)s has no option %(option)s; its options are: %(options)s",
                               game=self.id, option=repr(name),
                               options=", ".join(o.name for o in self.options)))

    def resolve(self, options: Mapping[str, object]) -> dict[str, int | str]:
        """All options with defaults filled in and values checked."""
        for name in options:
            self.option(name)
        return {o.name: o.coerce(options[o.name]) if o.name in options else o.default
                for o in self.options}



S = TypeVar("S")
M = TypeVar("M")
G = TypeVar("G", bound="Game[Any, Any]")


class Game(ABC, Generic[S, M]):
    """One game with its options fixed. Subclasses set ``info`` and write the abstract methods;
    the base class derives the rest from them.

    States are immutable values; every method is pure, so a state can be kept, compared, encoded
    and replayed freely. Each method's docstring says what it must do; the generic tests
    (``tests/engine/test_engine_contract.py``, ``tests/engine/test_texts.py``) hold every game
    in the catalogue to it, on every option setting, along seeded random games.

    The end is stated once, by :meth:`to_move` (None: the game is over). From it the base class
    derives :meth:`outcome` (None while the game runs, else the game's :meth:`final_outcome`),
    :meth:`legal_moves` (empty once over, else the game's :meth:`list_moves`) and the refusals
    of :meth:`play` (the game is over, it is not your turn, then the game's :meth:`why_illegal`),
    so these can never disagree; the methods the base class derives are final.
    """

    info: ClassVar[GameInfo]

    seat_colours: ClassVar[tuple[str, ...]] = ()
    """The colour each seat is drawn in, by name (marked for translation), for a game whose seat
    names do not say it (Rifugio's "Player 1" is drawn red): () when they do."""

    move_words: ClassVar[Mapping[str, str]] = {}
    """How a button says each move that is a word rather than cells ("take-button": "Take the
    button (+½ point)"), marked for translation; the notation stays what is sent."""

    def __init__(self, **options: object) -> None:
        self.options: dict[str, int | str] = self.info.resolve(options)

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"new_game({self.info.id!r}{', ' if opts else ''}{opts})"

    # -- what every game writes ----------------------------------------------------------------

    @property
    def num_players(self) -> int:
        """How many seats this game has (fixed by the options), from ``info.min_players`` to
        ``info.max_players``; the default is ``info.min_players``."""
        return self.info.min_players

    @abstractmethod
    def start(self, seed: int | str | None = None) -> S:
        """The opening position, which :meth:`encode` and :meth:`decode` carry through JSON
        unchanged. ``seed`` only matters for games with chance."""

    @abstractmethod
    def to_move(self, state: S) -> int | None:
        """The 0-based seat to move, or None once the game is over: the one place where the end
        is stated (the base class derives :meth:`outcome` and :meth:`legal_moves` from it).

        Random legal moves reach the end within 5,000 plies from the start. It is cheap: the
        search asks it at every step."""

    @abstractmethod
    def list_moves(self, state: S) -> list[M]:
        """Every move the seat to move may make; asked only while the game runs (for
        :meth:`legal_moves`), and never empty then.

        Each move is listed once (their notations, ``str(move)``, differ) and :meth:`play`
        accepts each by its notation. Where the seat names a number, every number of
        :meth:`number_range` is listed as a move of its own, in ascending order; no other
        move's notation is a whole number."""

    @abstractmethod
    def why_illegal(self, state: S, move: M) -> Text | None:
        """Why ``move`` (as :meth:`parse_move` read it) may not be played here, in words for the
        player; None exactly for the moves :meth:`list_moves` lists. Asked only while the game
        runs and only for the seat to move (:meth:`play` says "the game is over" and "it is not
        your turn" itself). The one judge of legality: :meth:`play` asks it, and so may anyone.

        The reason is a :class:`~engine.text.Text` with a message id, whose values hold the move
        as the player wrote it (its notation), so that a refusal in any language repeats the
        move word for word ("C1-D1 ..."). A move that is legal elsewhere in the game (``pass``
        included, where a game has it) is refused here with a reason, never accepted."""

    @abstractmethod
    def parse_move(self, text: str) -> M:
        """Read the notation (any case, spaces around allowed): ``parse_move(str(m)) == m`` for
        every move listed. Text that is not a move of this game at all raises
        :class:`IllegalMove` (``pass`` too, in a game without it).

        The refusal is a :class:`~engine.text.Text` whose values hold the text as typed, so a
        player reads back what they wrote, in any language; where it gives examples of the
        notation, they are this game's own (a placement game never suggests ``C2-E2``)."""

    @abstractmethod
    def apply(self, state: S, move: M) -> S:
        """The position after a move already known to be legal; ``state`` is left unchanged."""

    @abstractmethod
    def final_outcome(self, state: S) -> Outcome:
        """The result of a position the rules ended (asked only once :meth:`to_move` is None):
        ``winners`` are seats, ``scores`` (where kept) one per seat, and ``reason`` is a
        :class:`~engine.text.Text` a player can read in any language. Its ``ending`` is
        :attr:`Ending.RULES` (the default)."""

    @abstractmethod
    def encode(self, state: S) -> JSON:
        """The whole truth about a state as a JSON-safe dict (for the server's database)."""

    @abstractmethod
    def decode(self, data: Mapping[str, Any]) -> S:
        """The state that ``encode`` wrote; ``decode(encode(s)) == s`` for every state a game
        reaches, after a trip through JSON text too."""

    presentation: Presentation[Any, S, M]
    """How this game's positions are drawn and told; each game makes its own when it is made
    (:class:`Presentation` says what it must draw)."""

    # -- what the base class derives (final: a game states the end and legality once) ----------

    @final
    def outcome(self, state: S) -> Outcome | None:
        """None while the game runs (:meth:`to_move` names a seat), else its
        :meth:`final_outcome`."""
        if self.to_move(state) is not None:
            return None
        return self.final_outcome(state)

    @final
    def legal_moves(self, state: S) -> list[M]:
        """Every move the seat to move may make (:meth:`list_moves`); empty once the game is
        over. A number move is one move per number (see :meth:`move_choices`)."""
        if self.to_move(state) is None:
            return []
        return self.list_moves(state)

    @final
    def play(self, state: S, move: M | str, *, seat: int | None = None) -> S:
        """The position after ``move`` (text or a move); ``state`` itself is unchanged.

        With ``seat``, also check that it is that seat's turn. Raises :class:`IllegalMove` with a
        reason a player understands: "the game is over", "it is not your turn", a parse error
        (:meth:`parse_move`) or the game's :meth:`why_illegal`.
        """
        mover = self.to_move(state)
        if mover is None:
            raise IllegalMove(Text("the game is over"))
        if seat is not None and seat != mover:
            raise IllegalMove(Text("it is not your turn"))
        parsed = self.parse_move(move) if isinstance(move, str) else move
        reason = self.why_illegal(state, parsed)
        if reason is not None:
            raise IllegalMove(reason)
        return self.apply(state, parsed)

    @final
    def move_choices(self, state: S) -> tuple[list[M], NumberRange | None]:
        """The legal moves as a page offers them: those shown one by one (a button, a cell to
        click), and the :meth:`number_range` shown as one number field (None: no number is
        asked for) instead of a button per number.

        >>> from engine import new_game
        >>> game = new_game("stigmergy", size=5)
        >>> moves, numbers = game.move_choices(game.start())
        >>> moves, (numbers.low, numbers.high)
        ([], (-62, 62))
        """
        moves = self.legal_moves(state)
        numbers = self.number_range(state) if moves else None
        if numbers is None:
            return moves, None
        return [m for m in moves if not numbers.covers(m)], numbers

    @final
    def random_move(self, state: S, rng: random.Random) -> M:
        """A random legal move, uniformly among the :meth:`move_choices`, where a number range
        counts as one choice (before the others) with a uniformly random number."""
        moves, numbers = self.move_choices(state)
        if numbers is None:
            return rng.choice(moves)
        pick = rng.randrange(len(moves) + 1)
        if pick:
            return moves[pick - 1]
        return self.parse_move(str(numbers.pick(rng)))

    @final
    def ended_off_board(self, state: S, ending: Ending | None) -> bool:
        """Whether ``state`` is the last position of a game that ended although its rules go
        on: ``ending`` (how the game ended; None while it runs) is not the rules' and
        :meth:`to_move` still names a seat. Its pictures then say "game over" where they would
        say who is to move."""
        return ending not in (None, Ending.RULES) and self.to_move(state) is not None

    def render_svg(
        self,
        state: S,
        viewer: int | None = None,
        last_move: M | str | None = None,
        cell_href: CellHref | None = None,
        *,
        chosen: Sequence[str] | None = None,
        translator: Translator = ENGLISH,
        ending: Ending | None = None,
    ) -> str:
        """A standalone SVG of the position as ``viewer`` (a seat; None: the public) sees it,
        drawn by the game's :class:`Presentation` (:meth:`Presentation.render_svg` says how)."""
        return self.presentation.render_svg(state, viewer, last_move, cell_href, chosen=chosen,
                                            translator=translator, ending=ending)

    def render_text(self, state: S, viewer: int | None = None) -> str:
        """The position as plain text, for the terminal and plain-text emails, as the game's
        :class:`Presentation` draws it."""
        return self.presentation.render_text(state, viewer)

    def piece_list(self, state: S, viewer: int | None = None) -> Text:
        """Where the pieces are, in words, as ``viewer`` may know it: the board's text
        alternative, as the game's :class:`Presentation` says it."""
        return self.presentation.piece_list(state, viewer)

    def side_table(self, state: S, viewer: int | None = None, *,
                   translator: Translator = ENGLISH) -> SideTable | None:
        """The table the picture draws beside the board, as ``viewer`` may know it, as the
        game's :class:`Presentation` says it (None: it draws none)."""
        return self.presentation.side_table(state, viewer, translator=translator)

    def click_targets(self, state: S, chosen: Sequence[str]) -> dict[str, bool]:
        """The cells the next click may use after ``chosen``, each with whether it captures
        (from :meth:`move_cells` and :meth:`captures` of the legal moves).

        >>> from engine import new_game
        >>> game = new_game("mosey", order=4)
        >>> game.click_targets(game.start(), ["G5"])  # G5-F5, G5xE5, G5xF4
        {'F5': False, 'E5': True, 'F4': True}
        """
        prefix = tuple(c.upper() for c in chosen)
        targets: dict[str, bool] = {}
        for move in self.legal_moves(state):
            cells = tuple(c.upper() for c in self.move_cells(move))
            if len(cells) > len(prefix) and cells[: len(prefix)] == prefix:
                cell = cells[len(prefix)]
                takes = len(cells) == len(prefix) + 1 and self.captures(move)
                targets[cell] = targets.get(cell, False) or takes
        return targets

    def last_move_of(self, last_move: M | str | None) -> M | None:
        """Accept a last move as text or as a move (render_svg takes either)."""
        if last_move is None or not isinstance(last_move, str):
            return last_move
        try:
            return self.parse_move(last_move)
        except IllegalMove:
            return None

    # -- what a game may refine ----------------------------------------------------------------

    def number_range(self, state: S) -> NumberRange | None:
        """Where the seat to move names a number (Stigmergy's komi): the range of numbers that
        are legal moves, each listed by :meth:`list_moves` as a move whose notation is the
        number, so that :meth:`play` accepts both ends and the middle and refuses the numbers
        just outside. A page offers it as a number field. None (the default): no move here is
        a number. Asked only while the game runs."""
        return None

    def move_cells(self, move: M) -> tuple[str, ...]:
        """The cells a player clicks, in order, to make ``move`` on a board (none for a button
        or a number)."""
        return ()

    def captures(self, move: M) -> bool:
        """Whether ``move`` takes a piece on its last clicked cell (notation ``x``)."""
        return getattr(move, "capture", False) is True

    def seat_names(self, state: S) -> tuple[Text, ...]:
        """What each seat is called in this position, e.g. ("Light", "Dark"), as Texts with
        message ids; pages replace a generic "Player 2" by the seat's colour
        (:attr:`seat_colours`)."""
        names = self.fixed_seat_names()
        if names is None:
            raise NotImplementedError("a game whose seat names follow the position refines "
                                      "seat_names")
        return names

    def fixed_seat_names(self) -> tuple[Text, ...] | None:
        """The seat names of every position of this game, or None when they follow the
        position: a list of many games names their seats without decoding each position.
        A game that refines :meth:`seat_names` gets None unless it refines this too."""
        if type(self).seat_names is not Game.seat_names:
            return None
        return tuple(Text("Player %(number)d", number=i + 1) for i in range(self.num_players))

    def glossary(self, translator: Translator = ENGLISH) -> list[Term]:
        """(term, plain explanation) pairs of this game's own words with its options, said
        through ``translator`` (a gettext catalog), for the pages that show them; [] for none."""
        return []

    def describe(self, state: S, viewer: int | None = None) -> Text:
        """One line about the position for a page or an email: scores, whose turn, as a Text
        with message ids (no English left once translated). While the game runs it says who
        is "to move" (or to take, walk, lay, swap, choose, name); once over, who won and why."""
        seat = self.to_move(state)
        names = self.seat_names(state)
        if seat is not None:
            return Text("%(seat)s to move.", seat=names[seat])
        result = self.final_outcome(state)
        if not result.winners:
            over = Text("Game over: a draw.")
        else:
            over = Text("Game over: %(winners)s won.",
                        winners=and_list([names[s] for s in result.winners]))
        return Text.joined([over, result.reason]) if result.reason.strip() else over

    def view(self, state: S, viewer: int | None) -> JSON:
        """What ``viewer`` may know of the state. Games with hidden information override this."""
        return self.encode(state)

    def reveals_hidden(self, state: S, move: M) -> bool:
        """Whether playing ``move`` (legal here) brings hidden information into view, such as a
        tile drawn from a face-down pile. A preview of such a move must not play it, or the
        player would see the draw and could then choose another move. Games without hidden
        information reveal nothing (the default); games with it say which moves do (a draw
        from a hidden pile is one), and say what such a move does in :meth:`hidden_effect`.
        """
        return False

    def hidden_effect(self, state: S, move: M) -> Text:
        """What ``move`` will do, in words (a Text), for a preview that may not show its
        result."""
        return Text("%(move)s reveals something that is hidden now; you will see the result once "
                    "it is played", move=str(move))

    def search(self) -> Search[Any, S, M]:
        """What a computer player may ask of this game besides its rules (:class:`Search`)."""
        return Search(self)

    def playout(self, state: S, rng: random.Random, max_plies: int = 100_000) -> S:
        """Random legal moves to the end (:meth:`random_move`). A game may give a faster
        internal path; it must end in a position whose :meth:`outcome` is set, with winners
        among the seats and a score per seat where it keeps scores."""
        for _ in range(max_plies):
            if self.to_move(state) is None:
                return state
            state = self.apply(state, self.random_move(state, rng))
        raise RuntimeError(f"{self!r}: no end after {max_plies} plies")


AnyGame = Game[Any, Any]
"""A game of any state and move type: what code that knows no game by name holds (pbem)."""


class Search(Generic[G, S, M]):
    """What a computer player (engine.bots) may ask of a game besides its rules, so that the
    search needs to know no game by name. A game returns one from :meth:`Game.search`; this
    base suits a game where every seat sees everything and nothing is left to chance, and a
    game refines what it needs:

    - ``hidden``: seats do not see everything, or chance decides; then :meth:`determinize`
      makes a full state from what one seat sees, and :meth:`observe` says what chance showed;
    - ``margin``: the game is decided by points, so rewards count the margin too;
    - :meth:`special_move`: a choice made by a calculation rather than the tree (a komi);
    - the fast random playout to the end is the game's own :meth:`Game.playout`.

    >>> from engine import new_game
    >>> game = new_game("mosey", order=4)
    >>> search = game.search()
    >>> search.hidden, search.margin, search.special_move(game.start(), random.Random(1), 10)
    (False, False, None)
    """

    hidden: ClassVar[bool] = False
    margin: ClassVar[bool] = False

    def __init__(self, game: G) -> None:
        self.game = game

    def determinize(self, state: S, seat: int, rng: random.Random) -> S:
        """A full state that ``seat`` cannot tell from ``state``, its hidden parts drawn from
        ``rng``: the state itself where nothing is hidden (a game with ``hidden`` set must
        refine this)."""
        return state

    def observe(self, state: S) -> Hashable:
        """What chance has just shown everyone (a tile drawn): the search keeps a child node per
        observation. Only asked where ``hidden`` is set."""
        return None

    def special_move(self, state: S, rng: random.Random,
                     playouts: int) -> tuple[M, float] | None:
        """(a move, the bot's confidence in 0..1) chosen without the tree, with ``playouts``
        random playouts at most; None: the tree chooses (the default)."""
        return None


class Presentation(ABC, Generic[G, S, M]):
    """How a game's positions are drawn and told: the SVG board, the text board, the pieces in
    words. A game makes its own from itself (``self.presentation = MoseyPresentation(self)``)
    and asks it, the way python-chess's ``chess.svg`` draws a board it is given; the drawing
    reads the rules through ``game`` and never changes them.
    """

    def __init__(self, game: G) -> None:
        self.game = game

    @abstractmethod
    def render_svg(
        self,
        state: S,
        viewer: int | None = None,
        last_move: M | str | None = None,
        cell_href: CellHref | None = None,
        *,
        chosen: Sequence[str] | None = None,
        translator: Translator = ENGLISH,
        ending: Ending | None = None,
    ) -> str:
        """A standalone SVG of the position as ``viewer`` (a seat; None: the public) sees it.

        Every word drawn or named in it (headings, scores, link names, the text alternative) is
        said through ``translator`` (a gettext catalog); the default draws the English, and no
        English word is left once a catalog translates every message. Texts are escaped (the
        SVG is built with ElementTree).

        The picture is an image whose text alternative (``aria-label``) ends with
        :meth:`piece_list`; while the game runs its heading says who is "to move" (or to take,
        walk, lay, swap, choose, name). With ``cell_href`` each cell links to the address it
        gives (None: no link); without it there are no links.

        A move page passes ``chosen``, the cells clicked so far (``()`` before the first click):
        the board then outlines them, rings every cell the next click may use
        (:meth:`Game.click_targets`, captures with a distinct mark), and names each link by what
        the cell holds ("B1, your Light stone"), with ``data-cell="B1"`` as a stable hook for
        CSS. Without it (None) links are named by the bare label.

        ``ending`` says how the game ended, where it has (None: it runs). A position where it
        ended off the board although the rules would go on (:meth:`Game.ended_off_board`: a
        resignation, a forfeit on time, an adjudication, an abort) is drawn as over: the words
        about whose turn it is and what they must do (in the heading and the text alternative)
        become "game over", and the text alternative says "Game over."; scores and the rest
        stay. A position the rules ended is drawn the same whatever ``ending`` says.
        """

    def render_text(self, state: S, viewer: int | None = None) -> str:
        """The position as plain text, a :class:`~engine.text.Text` whose sentences all
        translate (rows of notation aside); the default is the game's :meth:`Game.describe`."""
        return self.game.describe(state, viewer)

    def side_table(self, state: S, viewer: int | None = None, *,
                   translator: Translator = ENGLISH) -> SideTable | None:
        """The table :meth:`render_svg` draws beside the board, with the same values and every
        heading said through ``translator``; None (the default) for a picture without one."""
        return None

    def piece_list(self, state: S, viewer: int | None = None) -> Text:
        """Where the pieces are, in words, as ``viewer`` may know it: a translatable
        :class:`~engine.text.Text`; the default is the game's :meth:`Game.describe`."""
        return self.game.describe(state, viewer)
