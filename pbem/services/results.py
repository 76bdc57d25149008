"""Results and positions in words that name the people: "Alice (Light) won: ...".

The engine names seats by colour ("Light", "White") or, where a game has no colours, "Player 1";
players know each other by name. Everything here turns the engine's words into sentences with a
label per seat: the player's name and, where the seat has a colour, the colour ("Alice (Light)").
Nothing here knows a game: it reads :class:`engine.Outcome` and the seat names only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import engine

# Seat names the engine makes up when a game has no colours of its own (engine.base.Game).
_GENERIC = re.compile(r"(?:Player|Seat) \d+")


def seat_label(player_name: str, seat_name: str) -> str:
    """``"Alice (Light)"``; just the name where the seat has no colour ("Player 1")."""
    if not seat_name or _GENERIC.fullmatch(seat_name):
        return player_name
    return f"{player_name} ({seat_name})"


def seat_role(seat_name: str) -> str:
    """What a player plays, for "you play ...": the colour, or "" where there is none."""
    return "" if not seat_name or _GENERIC.fullmatch(seat_name) else seat_name


def labels_for(game: engine.Game, state: Any, player_names: Sequence[str]) -> list[str]:  # type: ignore[type-arg]
    names = game.seat_names(state)
    return [seat_label(player, names[seat] if seat < len(names) else "")
            for seat, player in enumerate(player_names)]


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


def join_names(names: Sequence[str]) -> str:
    """``"A"``, ``"A and B"``, ``"A, B and C"``."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


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


def _headline(outcome: engine.Outcome, labels: Sequence[str]) -> str:
    """"Alice (White) won 31-30", "Alice and Bob shared the win", "Alice and Bob drew 30-30"."""
    winners = list(outcome.winners)
    scores = _quoted_scores(outcome) if len(labels) == 2 else None
    if not winners:
        tail = f" {'-'.join(scores)}" if scores and len(set(scores)) == 1 else ""
        return f"{join_names(list(labels))} drew{tail}"
    who = join_names([labels[w] for w in winners])
    if len(winners) > 1:
        return f"{who} shared the win"
    loser = 1 - winners[0]
    if scores and outcome.scores and outcome.scores[winners[0]] > outcome.scores[loser]:
        return f"{who} won {scores[winners[0]]}-{scores[loser]}"
    return f"{who} won"  # a tie-break decided it: the reason says how


def _sentence(text: str) -> str:
    text = " ".join(text.split()).rstrip(" .")
    return f"{text}." if text else ""


def result_sentence(game: engine.Game, state: Any, names: list[str]) -> str:  # type: ignore[type-arg]
    """The result of a game its rules ended, e.g. "Alice (Light) won: Bob (Dark) has no move;
    in Mosey the last player to move wins." ``names`` holds a label per seat (:func:`seat_label`);
    "" while the game is not over."""
    outcome = game.outcome(state)
    if outcome is None:
        return ""
    headline = _headline(outcome, names)
    # The headline has named everyone it mentions; the reason then names them shortly.
    mentioned = [n for n in names if n in headline]
    reason = with_labels(outcome.reason, game.seat_names(state), names)
    for label in mentioned:
        short = label.split(" (")[0]
        if short != label:
            reason = reason.replace(label, short)
    return _sentence(f"{headline}: {reason}" if reason.strip() else headline)


def resignation_sentence(names: Sequence[str], seat: int, winners: Sequence[int]) -> str:
    """"Bob (Dark) resigned; Alice (Light) won." """
    return _sentence(f"{names[seat]} resigned; {_winners(names, winners)}")


def forfeit_sentence(names: Sequence[str], seat: int, winners: Sequence[int]) -> str:
    """"Bob (Dark) ran out of time and forfeits; Alice (Light) won." """
    return _sentence(f"{names[seat]} ran out of time and forfeits; {_winners(names, winners)}")


def adjudication_sentence(names: Sequence[str], winners: Sequence[int], reason: str) -> str:
    """"Adjudicated by the organiser: Alice (Light) won. Bob stopped answering." """
    verdict = _winners(names, winners) if winners else "a draw"
    reason = reason.strip()
    return (f"Adjudicated by the organiser: {_sentence(verdict)} "
            f"{_sentence(reason[:1].upper() + reason[1:])}").strip()


def _winners(names: Sequence[str], winners: Sequence[int]) -> str:
    if not winners:
        return "nobody won"
    verb = "won" if len(winners) == 1 else "share the win"
    return f"{join_names([names[w] for w in winners])} {verb}"


def outcome_for(winners: Sequence[int] | None, seat: int | None) -> str:
    """The result from one seat's point of view: "won", "lost", "shared" or "draw"."""
    if not winners:
        return "draw"
    if seat is None or seat not in winners:
        return "lost"
    return "won" if len(winners) == 1 else "shared"


def name_generic_seats(text: str, seat_names: Sequence[str], player_names: Sequence[str]
                       ) -> str:
    """``text`` with made-up seat names ("Player 1") replaced by the players' names; colours
    stay, since diagrams and their keys use them."""
    pairs = {seat: player for seat, player in zip(seat_names, player_names, strict=False)
             if _GENERIC.fullmatch(seat)}
    if not pairs:
        return text
    # Longest first, so that "Player 1" never eats the start of "Player 10".
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in
                                           sorted(pairs, key=len, reverse=True)) + r")\b")
    return pattern.sub(lambda match: pairs[match[1]], text)
