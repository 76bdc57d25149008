"""Results and positions in words that name the people: "Alice (Light) won: ...".

The engine names seats by colour ("Light", "White") or, where a game has no colours, "Player 1";
players know each other by name. Everything here turns the engine's words into sentences with a
label per seat: the player's name and, where the seat has a colour, the colour ("Alice (Light)").
Nothing here knows a game: it reads :class:`engine.Outcome` and the seat names only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import engine
from engine.text import Words
from pbem.game_options import seat_colours
from pbem.i18n import ENGLISH, Reader
from pbem.models import GameRecord, GameStatus, Seat
from pbem.positions import current_state
from pbem.services.common import shown_names

# Seat names the engine makes up when a game has no colours of its own (engine.base.Game).
_GENERIC = re.compile(r"(?:Player|Seat) \d+")


def seat_label(player_name: str, seat_name: str, reader: Reader = ENGLISH) -> str:
    """``"Alice (Light)"``; just the name where the seat has no colour ("Player 1"). The colour
    is in ``reader``'s language ("Alice (Licht)")."""
    if not seat_name or _GENERIC.fullmatch(seat_name):
        return player_name
    return f"{player_name} ({reader.text(seat_name)})"


def seat_role(seat_name: Words, reader: Reader = ENGLISH) -> str:
    """What a player plays, for "you play ...": the colour, or "" where there is none."""
    return "" if not seat_name or _GENERIC.fullmatch(seat_name) else reader.text(seat_name)


def seat_colour(game: engine.AnyGame, state: Any, seat: int, reader: Reader = ENGLISH) -> str:
    """The colour ``seat`` plays, in ``reader``'s words: the engine's seat name where it is one
    ("Light"), else the colour the seat is drawn in ("Red" in Rifugio); "" where neither says."""
    names = game.seat_names(state)
    name = names[seat] if seat < len(names) else ""
    if name and not _GENERIC.fullmatch(name):
        return reader.text(name)
    colours = seat_colours(game.info.id)
    return reader.gettext(colours[seat]) if seat < len(colours) and colours[seat] else ""


def labels_for(game: engine.AnyGame, state: Any, player_names: Sequence[str],
               reader: Reader = ENGLISH) -> list[str]:
    """A label per seat: the engine's colour ("Alice (Light)"), else the colour the seat is
    drawn in ("Alice (Red)" in Rifugio, whose engine says "Player 1"), as pages label them."""
    names = game.seat_names(state)
    colours = seat_colours(game.info.id)
    labels = []
    for seat, player in enumerate(player_names):
        name = names[seat] if seat < len(names) else ""
        if (not name or _GENERIC.fullmatch(name)) and seat < len(colours) and colours[seat]:
            name = reader.gettext(colours[seat])
        labels.append(seat_label(player, name, reader))
    return labels


def seat_names_in(names: Sequence[Words], reader: Reader = ENGLISH) -> list[str]:
    """The engine's seat names as ``reader`` reads them (what :func:`with_labels` looks for in
    a text rendered for that reader)."""
    return [reader.text(name) for name in names]


def in_words(text: Words, seat_names: Sequence[Words], labels: Sequence[str],
             reader: Reader = ENGLISH) -> str:
    """An engine text (a :class:`engine.text.Text` or plain English) for ``reader``, its seat
    names replaced by ``labels`` (made for the same reader)."""
    return with_labels(reader.text(text), seat_names_in(seat_names, reader), labels)


def with_labels(text: str, seat_names: Sequence[str], labels: Sequence[str]) -> str:
    """``text`` with each seat name replaced by its label: the first mention gets the whole
    label ("Bob (Dark)"), later ones only the part before the colour, as people write."""
    pairs = {name: label for name, label in zip(seat_names, labels, strict=False) if name}
    if not pairs:
        return text
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in
                                           sorted(pairs, key=len, reverse=True)) + r")\b")
    seen: set[str] = set()

    def name(match: re.Match[str]) -> str:
        label = pairs[match[1]]
        short = label.split(" (")[0]
        first = label not in seen
        seen.add(label)
        return label if first else short

    return pattern.sub(name, text)


def join_names(names: Sequence[str], reader: Reader = ENGLISH) -> str:
    """``"A"``, ``"A and B"``, ``"A, B and C"``."""
    if len(names) <= 1:
        return "".join(names)
    return reader.gettext("%(names)s and %(last)s", names=", ".join(names[:-1]), last=names[-1])


def told_apart(names: Sequence[str], game_id: str, reader: Reader = ENGLISH) -> list[str]:
    """``names`` with each name that more than one seat shares followed by the seat's colour
    (Rifugio's "Computer (easy) (Blue)"), or by "seat N" where the game has no colours, so
    that a title never reads "Computer (easy) and Computer (easy)".

    >>> told_apart(["Ann", "Computer (easy)", "Computer (easy)"], "rifugio")
    ['Ann', 'Computer (easy) (Blue)', 'Computer (easy) (Yellow)']
    >>> told_apart(["Bot", "Bot"], "mosey")
    ['Bot (seat 1)', 'Bot (seat 2)']
    """
    colours = seat_colours(game_id)
    shown = []
    for seat, name in enumerate(names):
        if names.count(name) == 1:
            shown.append(name)
            continue
        colour = colours[seat] if seat < len(colours) else ""
        which = (reader.gettext(colour) if colour
                 else reader.gettext("seat %(number)d", number=seat + 1))
        shown.append(f"{name} ({which})")
    return shown


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _quoted_scores(outcome: engine.Outcome) -> tuple[str, ...] | None:
    """The scores as text, only where the reason quotes every one of them: only then are they
    the result (Mosey's "scores" are stones left, which the winner may have fewer of)."""
    if outcome.scores is None:
        return None
    scores = tuple(_number(s) for s in outcome.scores)
    found = set(re.findall(r"\d+(?:\.\d+)?", outcome.reason))
    return scores if all(s in found for s in scores) else None


def _headline(outcome: engine.Outcome, labels: Sequence[str], reader: Reader = ENGLISH
              ) -> str:
    """"Alice (White) won 31-30", "Alice and Bob shared the win", "Alice and Bob drew 30-30"."""
    winners = list(outcome.winners)
    scores = _quoted_scores(outcome) if len(labels) == 2 else None
    if not winners:
        everyone = join_names(list(labels), reader)
        if scores and len(set(scores)) == 1:
            return reader.gettext("%(players)s drew %(score)s", players=everyone,
                                  score="-".join(scores))
        return reader.gettext("%(players)s drew", players=everyone)
    who = join_names([labels[w] for w in winners], reader)
    if len(winners) > 1:
        return reader.gettext("%(players)s shared the win", players=who)
    loser = 1 - winners[0]
    if scores and outcome.scores and outcome.scores[winners[0]] > outcome.scores[loser]:
        return reader.gettext("%(player)s won %(score)s", player=who,
                              score=f"{scores[winners[0]]}-{scores[loser]}")
    # A tie-break decided it: the reason says how.
    return reader.gettext("%(player)s won", player=who)


def _sentence(text: str) -> str:
    text = " ".join(text.split()).rstrip(" .")
    return f"{text}." if text else ""


def result_sentence(game: engine.AnyGame, state: Any, names: list[str],
                    reader: Reader = ENGLISH) -> str:
    """The result of a game its rules ended, e.g. "Alice (Light) won: Bob (Dark) has no move;
    in Mosey the last player to move wins." ``names`` holds a label per seat (:func:`seat_label`,
    made for the same ``reader``); "" while the game is not over."""
    outcome = game.outcome(state)
    if outcome is None:
        return ""
    headline = _headline(outcome, names, reader)
    # The headline has named everyone it mentions; the reason then names them shortly.
    mentioned = [n for n in names if n in headline]
    reason = in_words(outcome.reason, game.seat_names(state), names, reader)
    for label in mentioned:
        short = label.split(" (")[0]
        if short != label:
            reason = reason.replace(label, short)
    if not reason.strip():
        return _sentence(headline)
    return _sentence(reader.gettext("%(headline)s: %(reason)s", headline=headline,
                                    reason=reason))


def winners_in_play(winners: Sequence[int], scores: Sequence[float] | None, seats: int,
                    out: Sequence[int]) -> list[int]:
    """The winners of a game its rules ended, when ``out`` seats (resigned or forfeited, played
    to the end by a stand-in) may have come first on the board: a seat that left cannot win,
    so the best of the seats still in play win instead (by the board's places).

    >>> winners_in_play([1], [30, 41, 35], 3, out=[1])  # the stand-in scored most
    [2]
    >>> winners_in_play([0], [41, 30, 35], 3, out=[1]), winners_in_play([], None, 3, out=[2])
    ([0], [])
    """
    if not set(winners) & set(out):
        return list(winners)
    ranks = ranks_from(winners, scores, seats)
    playing = [s for s in range(seats) if s not in out]
    best = min(ranks[s] for s in playing)
    return [s for s in playing if ranks[s] == best]


def left_sentence(names: Sequence[str], left: Sequence[int], winners: Sequence[int],
                  reader: Reader = ENGLISH) -> str:
    """"Bob (Red) had left the game, so Ann (Blue) won." after the board's result, when the
    board's winner had resigned or forfeited (:func:`winners_in_play`)."""
    return _sentence(reader.ngettext(
        "%(players)s had left the game, so %(winners)s won",
        "%(players)s had left the game, so %(winners)s share the win", len(winners),
        players=join_names([names[s] for s in left], reader),
        winners=join_names([names[w] for w in winners], reader)))


def end_of_play(game: engine.AnyGame, state: Any, names: list[str],
                out: Sequence[int], reader: Reader = ENGLISH) -> tuple[list[int], str]:
    """The winners and the result sentence of a game its rules ended (see
    :func:`winners_in_play`; ``out`` the seats that had left it); no winners and "" while
    the board is not over (a game ended off the board: a resignation, a forfeit)."""
    outcome = game.outcome(state)
    if outcome is None:
        return [], ""
    winners = winners_in_play(outcome.winners, outcome.scores, len(names), out)
    result = result_sentence(game, state, names, reader)
    if winners != list(outcome.winners):
        left = [w for w in outcome.winners if w in out]
        result = f"{result} {left_sentence(names, left, winners, reader)}"
    return winners, result


def resignation_sentence(names: Sequence[str], seat: int, winners: Sequence[int],
                         reader: Reader = ENGLISH) -> str:
    """"Bob (Dark) resigned; Alice (Light) won." """
    if not winners:
        return _sentence(reader.gettext("%(player)s resigned; nobody won", player=names[seat]))
    return _sentence(reader.ngettext(
        "%(player)s resigned; %(winners)s won", "%(player)s resigned; %(winners)s share the win",
        len(winners), player=names[seat], winners=join_names([names[w] for w in winners], reader)))


def forfeit_sentence(names: Sequence[str], seat: int, winners: Sequence[int],
                     reader: Reader = ENGLISH) -> str:
    """"Bob (Dark) ran out of time and forfeits; Alice (Light) won." """
    if not winners:
        return _sentence(reader.gettext("%(player)s ran out of time and forfeits; nobody won",
                                        player=names[seat]))
    return _sentence(reader.ngettext(
        "%(player)s ran out of time and forfeits; %(winners)s won",
        "%(player)s ran out of time and forfeits; %(winners)s share the win",
        len(winners), player=names[seat], winners=join_names([names[w] for w in winners], reader)))


def adjudication_sentence(names: Sequence[str], winners: Sequence[int], reason: str,
                          reader: Reader = ENGLISH) -> str:
    """"Adjudicated by the organiser: Alice (Light) won. Bob stopped answering." The reason is
    the organiser's own words, as they wrote them."""
    if winners:
        verdict = reader.ngettext("Adjudicated by the organiser: %(winners)s won.",
                                  "Adjudicated by the organiser: %(winners)s share the win.",
                                  len(winners),
                                  winners=join_names([names[w] for w in winners], reader))
    else:
        verdict = reader.gettext("Adjudicated by the organiser: a draw.")
    reason = reason.strip()
    return f"{verdict} {_sentence(reason[:1].upper() + reason[1:])}".strip()


def shown_result(stored: str, game: engine.AnyGame, state: Any,
                 winners: Sequence[int], resigned: Sequence[int], forfeited: Sequence[int],
                 labels: Callable[[Reader], Sequence[str]], reader: Reader) -> str:
    """A game's stored (English) result in ``reader``'s language, where the server wrote it: the
    rules' result, a resignation or a forfeit, each rebuilt with ``labels(reader)`` and kept
    only if its English is what was stored; else as stored (an organiser's adjudication holds
    their own words)."""
    if reader == ENGLISH or not stored:
        return stored
    out = [*resigned, *forfeited]
    sentences: list[Callable[[Reader], str]] = [
        lambda r: end_of_play(game, state, list(labels(r)), out, r)[1],
        lambda r: result_sentence(game, state, list(labels(r)), r)]  # as stored before 2026-11

    def resignation(seat: int) -> Callable[[Reader], str]:
        return lambda r: resignation_sentence(labels(r), seat, winners, r)

    def forfeit(seat: int) -> Callable[[Reader], str]:
        return lambda r: forfeit_sentence(labels(r), seat, winners, r)

    sentences += [resignation(seat) for seat in resigned]
    sentences += [forfeit(seat) for seat in forfeited]
    for sentence in sentences:
        if sentence(ENGLISH) == stored:
            return sentence(reader)
    return stored


def ending_of(row: GameRecord, seats: Sequence[Seat], game: engine.AnyGame,
              final: Any) -> engine.Ending:
    """How the game of ``row``, which is over, ended; ``final`` is its last position. By its
    rules where that position says so; else aborted, left by its last seats in play (a
    resignation, a forfeit on time) or adjudicated. Where seats left in different ways (three
    or more players), a resignation names it."""
    if game.to_move(final) is None:
        return engine.Ending.RULES
    if row.status == GameStatus.ABORTED:
        return engine.Ending.ABORT
    if any(seat.resigned for seat in seats):
        return engine.Ending.RESIGNATION
    if any(seat.forfeited for seat in seats):
        return engine.Ending.TIME
    return engine.Ending.ADJUDICATION


def result_in(row: Any, seats: Sequence[Any], players: Mapping[int, Any],
              reader: Reader) -> str:
    """A game row's result for ``reader`` (see :func:`shown_result`); pages use this. The
    labels are made for each language from ``players`` (by id): a computer's name is in the
    reader's language ("Computer (leicht)"), but the stored English has "Computer (easy)"."""
    stored = row.result or ""
    if reader == ENGLISH or not stored:
        return stored
    game, state = current_state(row)
    return shown_result(stored, game, state, list(row.winners or []),
                        [s.seat for s in seats if s.resigned],
                        [s.seat for s in seats if s.forfeited],
                        lambda r: labels_for(game, state, shown_names(seats, players, r), r),
                        reader)


def outcome_for(winners: Sequence[int] | None, seat: int | None) -> str:
    """The result from one seat's point of view: "won", "lost", "shared" or "draw"."""
    if not winners:
        return "draw"
    if seat is None or seat not in winners:
        return "lost"
    return "won" if len(winners) == 1 else "shared"


def name_generic_seats(text: str, seat_names: Sequence[Words], player_names: Sequence[str],
                       reader: Reader = ENGLISH) -> str:
    """``text`` (written for ``reader``) with made-up seat names ("Player 1") replaced by the
    players' names; colours stay, since diagrams and their keys use them."""
    pairs = {reader.text(seat): player
             for seat, player in zip(seat_names, player_names, strict=False)
             if _GENERIC.fullmatch(seat)}
    if not pairs:
        return text
    # Longest first, so that "Player 1" never eats the start of "Player 10".
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in
                                           sorted(pairs, key=len, reverse=True)) + r")\b")
    return pattern.sub(lambda match: pairs[match[1]], text)


def ranks_from(winners: Sequence[int], scores: Sequence[float] | None, seats: int) -> list[float]:
    """Final places from a game's outcome: winners first (several winners share first place),
    then by score where the game keeps one (higher is better); equal places tie. No winner and
    no scores is a draw.

    >>> ranks_from([0], None, 2), ranks_from([], None, 2), ranks_from([1], [30, 41, 30], 3)
    ([1.0, 2.0], [1.0, 1.0], [2.0, 1.0, 2.0])
    >>> ranks_from([0], [30, 30, 20], 3)  # a tie-break decided between the first two
    [1.0, 2.0, 3.0]
    """
    points = list(scores) if scores is not None and len(scores) == seats else [0.0] * seats
    keys = [(seat not in winners and bool(winners), -points[seat]) for seat in range(seats)]
    distinct = sorted(set(keys))
    return [float(distinct.index(key) + 1) for key in keys]
