"""The engine contract shared by every game.

A game is an object made by :func:`engine.new_game` from its options; a state is an immutable value
that the game reads and produces. The base class does the bookkeeping (option checking, parsing,
turn checks, the game-over check) and each game fills in a few small methods::

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
from typing import Any, ClassVar, Generic, TypeVar

from engine.text import ENGLISH, Text, Translator, and_list, marked
from engine.values import JSON, CellHref, NumberChoice, Outcome

Term = tuple[str, str]
"""A game's own word and its plain explanation, e.g. ("Komi", "Points added to ...")."""

__all__ = [
    "JSON",
    "CellHref",
    "Game",
    "GameInfo",
    "IllegalMove",
    "NumberChoice",
    "Option",
    "Outcome",
    "PlayerError",
    "Presentation",
    "Search",
    "Term",
    "UnknownGame",
    "and_list",
    "marked",
]


class PlayerError(ValueError):
    """A refusal meant for a player: its message is a :class:`~engine.text.Text` (plain strings
    are kept, and read the same in every language)."""

    def __init__(self, message: str) -> None:
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
    """What the catalogue says about a game: enough to build a create-game form and an email."""

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
    """One game with its options fixed. Subclasses set ``info`` and fill in the abstract methods.

    States are immutable values; every method is pure, so a state can be kept, compared, encoded
    and replayed freely.
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

    # -- what every game fills in ------------------------------------------------------------

    @property
    def num_players(self) -> int:
        """How many seats this game has (fixed by the options)."""
        return self.info.min_players

    @abstractmethod
    def start(self, seed: int | str | None = None) -> S:
        """The opening position. ``seed`` only matters for games with chance."""

    @abstractmethod
    def to_move(self, state: S) -> int | None:
        """The 0-based seat to move, or None once the game is over.

        The end is one fact said three ways, which must agree in every position (the generic
        tests play random games on every option setting to check it): ``to_move`` is None
        exactly when :meth:`outcome` is not None and :meth:`legal_moves` is empty. A running
        game always has a legal move."""

    @abstractmethod
    def legal_moves(self, state: S) -> list[M | NumberChoice]:
        """Every move the seat to move may make, sorted by notation; empty once the game is over.

        Each move is listed once (their notations differ), ``play`` accepts each of them by its
        notation, and refuses moves listed elsewhere but not here. A numeric choice is one
        :class:`NumberChoice`, whose ends and middle ``play`` accepts and whose neighbours
        outside it refuses."""

    @abstractmethod
    def parse_move(self, text: str) -> M:
        """Read the notation; raise :class:`IllegalMove` for text that is not a move at all.

        The refusal is a :class:`~engine.text.Text` whose values hold the text as typed, so a
        player reads back what they wrote, in any language."""

    @abstractmethod
    def apply(self, state: S, move: M) -> S:
        """The position after a move already known to be legal."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """None while the game runs, else the result; its ``reason`` is a Text (see
        :meth:`to_move` for how the end is stated)."""

    @abstractmethod
    def encode(self, state: S) -> JSON:
        """The whole truth about a state as a JSON-safe dict (for the server's database)."""

    @abstractmethod
    def decode(self, data: Mapping[str, Any]) -> S:
        """The state that ``encode`` wrote; ``decode(encode(s)) == s``."""

    presentation: Presentation[Any, S, M]
    """How this game's positions are drawn and told; each game makes its own when it is made."""

    def render_svg(
        self,
        state: S,
        viewer: int | None = None,
        last_move: M | str | None = None,
        cell_href: CellHref | None = None,
        *,
        chosen: Sequence[str] | None = None,
        translator: Translator = ENGLISH,
        over: bool = False,
    ) -> str:
        """A standalone SVG of the position as ``viewer`` (a seat; None: the public) sees it,
        drawn by the game's :class:`Presentation` (:meth:`Presentation.render_svg` says how)."""
        return self.presentation.render_svg(state, viewer, last_move, cell_href, chosen=chosen,
                                            translator=translator, over=over)

    # -- what a game may refine ----------------------------------------------------------------

    def explain_illegal(self, state: S, move: M) -> str:
        """Why ``move`` is not legal here, in words for the player. Games give better reasons.

        The reason is a :class:`~engine.text.Text` whose values hold the move as the player
        wrote it (its notation), so that every language repeats it word for word."""
        return Text("%(move)s is not a legal move here", move=str(move))

    def is_legal(self, state: S, move: M) -> bool:
        """Whether ``move`` is legal; games with a faster check than listing may override."""
        return move in self.legal_moves(state)

    def move_cells(self, move: M) -> tuple[str, ...]:
        """The cells a player clicks, in order, to make ``move`` on a board (none for a button)."""
        return ()

    def captures(self, move: M) -> bool:
        """Whether ``move`` takes a piece on its last clicked cell (notation ``x``)."""
        return getattr(move, "capture", False) is True

    def click_targets(self, state: S, chosen: Sequence[str]) -> dict[str, bool]:
        """The cells the next click may use after ``chosen``, each with whether it captures.

        >>> from engine import new_game
        >>> game = new_game("mosey", order=4)
        >>> game.click_targets(game.start(), ["G5"])  # G5-F5, G5xE5, G5xF4
        {'F5': False, 'E5': True, 'F4': True}
        """
        prefix = tuple(c.upper() for c in chosen)
        targets: dict[str, bool] = {}
        for move in self.legal_moves(state):
            if isinstance(move, NumberChoice):
                continue
            cells = tuple(c.upper() for c in self.move_cells(move))
            if len(cells) > len(prefix) and cells[: len(prefix)] == prefix:
                cell = cells[len(prefix)]
                takes = len(cells) == len(prefix) + 1 and self.captures(move)
                targets[cell] = targets.get(cell, False) or takes
        return targets

    def piece_list(self, state: S, viewer: int | None = None) -> str:
        """Where the pieces are, in words, as ``viewer`` may know it: the board's text
        alternative, as the game's :class:`Presentation` says it."""
        return self.presentation.piece_list(state, viewer)

    def seat_names(self, state: S) -> tuple[str, ...]:
        """What each seat is called in this position, e.g. ("Light", "Dark"), as Texts; pages
        replace a generic "Player 2" by the seat's colour (:attr:`seat_colours`)."""
        return tuple(Text("Player %(number)d", number=i + 1) for i in range(self.num_players))

    def glossary(self, translator: Translator = ENGLISH) -> list[Term]:
        """(term, plain explanation) pairs of this game's own words with its options, said
        through ``translator`` (a gettext catalog), for the pages that show them; [] for none."""
        return []

    def describe(self, state: S, viewer: int | None = None) -> str:
        """One line about the position for a page or an email: scores, whose turn (a Text;
        while the game runs it says who is "to move", or to take, walk, lay, choose, name)."""
        result = self.outcome(state)
        names = self.seat_names(state)
        if result is not None:
            if not result.winners:
                over = Text("Game over: a draw.")
            else:
                over = Text("Game over: %(winners)s won.",
                            winners=and_list([names[s] for s in result.winners]))
            return Text.joined([over, result.reason]) if result.reason.strip() else over
        seat = self.to_move(state)
        if seat is None:
            return Text.verbatim("")
        return Text("%(seat)s to move.", seat=names[seat])

    def view(self, state: S, viewer: int | None) -> JSON:
        """What ``viewer`` may know of the state. Games with hidden information override this."""
        return self.encode(state)

    def reveals_hidden(self, state: S, move: M) -> bool:
        """Whether playing ``move`` (legal here) brings hidden information into view, such as a
        tile drawn from a face-down pile. A preview of such a move must not play it, or the
        player would see the draw and could then choose another move. Games without hidden
        information reveal nothing; games with it override this.
        """
        return False

    def hidden_effect(self, state: S, move: M) -> str:
        """What ``move`` will do, in words, for a preview that may not show its result."""
        return Text("%(move)s reveals something that is hidden now; you will see the result once "
                    "it is played", move=str(move))

    def render_text(self, state: S, viewer: int | None = None) -> str:
        """The position as plain text, for the terminal and plain-text emails, as the game's
        :class:`Presentation` draws it."""
        return self.presentation.render_text(state, viewer)

    def number_to_move(self, state: S, choice: NumberChoice, value: int) -> M:
        """The move that names ``value`` for a numeric choice (the parser does this for text)."""
        return self.parse_move(str(value))

    def random_move(self, state: S, rng: random.Random) -> M:
        """A uniformly random legal move (a numeric choice counts once, with a random value)."""
        move = rng.choice(self.legal_moves(state))
        if isinstance(move, NumberChoice):
            return self.number_to_move(state, move, move.pick(rng))
        return move

    def search(self) -> Search[Any, S, M]:
        """What a computer player may ask of this game besides its rules (:class:`Search`)."""
        return Search(self)

    def playout(self, state: S, rng: random.Random, max_plies: int = 100_000) -> S:
        """Random legal moves to the end. Games may override this with a faster internal path."""
        for _ in range(max_plies):
            if self.to_move(state) is None:
                return state
            state = self.apply(state, self.random_move(state, rng))
        raise RuntimeError(f"{self!r}: no end after {max_plies} plies")

    # -- bookkeeping the base class does ---------------------------------------------------------

    def play(self, state: S, move: M | str, *, seat: int | None = None) -> S:
        """The position after ``move`` (text or a move); ``state`` itself is unchanged.

        With ``seat``, also check that it is that seat's turn. Raises :class:`IllegalMove` with a
        reason a player understands.
        """
        mover = self.to_move(state)
        if mover is None:
            raise IllegalMove(Text("the game is over"))
        if seat is not None and seat != mover:
            raise IllegalMove(Text("it is not your turn"))
        parsed = self.parse_move(move) if isinstance(move, str) else move
        if not self.is_legal(state, parsed):
            raise IllegalMove(self.explain_illegal(state, parsed))
        return self.apply(state, parsed)

    def last_move_of(self, last_move: M | str | None) -> M | None:
        """Accept a last move as text or as a move (render_svg takes either)."""
        if last_move is None or not isinstance(last_move, str):
            return last_move
        try:
            return self.parse_move(last_move)
        except IllegalMove:
            return None


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
        over: bool = False,
    ) -> str:
        """A standalone SVG of the position as ``viewer`` (a seat; None: the public) sees it.

        Every word drawn or named in it (headings, scores, link names, the text alternative) is
        said through ``translator`` (a gettext catalog); the default draws the English.

        The picture is an image whose text alternative (``aria-label``) ends with
        :meth:`piece_list`; while the game runs its heading says who is "to move" (or to take,
        walk, lay, choose, name). With ``cell_href`` each cell links to the address it gives
        (None: no link), escaped like every text in it; without it there are no links.

        A move page passes ``chosen``, the cells clicked so far (``()`` before the first click):
        the board then outlines them, rings every cell the next click may use
        (:meth:`click_targets`, captures with a distinct mark), and names each link by what the
        cell holds ("B1, your Light stone"), with ``data-cell="B1"`` as a stable hook for CSS.
        Without it (None) links are named by the bare label.

        ``over=True`` draws a position where the game ended off the board (a resignation, a
        forfeit on time, an adjudication) although the rules would go on: the words about whose
        turn it is and what they must do (in the heading and the text alternative) become "game
        over"; scores and the rest stay. A position the rules ended is drawn as without it.
        """


    def render_text(self, state: S, viewer: int | None = None) -> str:
        """The position as plain text; the default is the game's :meth:`Game.describe`."""
        return self.game.describe(state, viewer)

    def piece_list(self, state: S, viewer: int | None = None) -> str:
        """Where the pieces are, in words, as ``viewer`` may know it; the default is the game's
        :meth:`Game.describe`."""
        return self.game.describe(state, viewer)
