"""A game's record: everything needed to replay it, as JSON, as text and as an SGF-like text.

The formats are described in docs/records.md. A record shows only what every player may see
while the game runs: the moves (their notation is public), the players, the options and the
seed's commitment. Once the game is over (finished or aborted) it adds what was hidden: the
seed and the full starting position (Rifugio's blind pile, in order), so anyone can replay the
game through the engine and check every draw::

    record = game_record(session, row)
    game = engine.new_game(record["game"], **record["options"])
    state = game.decode(record["start_state"])          # or game.start(record["seed"])
    for move in record["moves"]:
        state = game.play(state, move["notation"], seat=move["seat"])

Nothing here knows a particular game: only the engine contract is used.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sqlmodel import Session

from engine.text import N_
from pbem.i18n import ENGLISH, Reader
from pbem.models import GameRecord, GameStatus
from pbem.positions import engine_game, moves_of
from pbem.services.common import players_of, seats_of
from pbem.services.results import result_in, seat_colour, seat_role

FORMAT = "pbem-record"
VERSION = 1
# SGF's own letters for a two-seat game; with more seats, "M" and the seat's letter (MA, MB, ...):
# SGF property names are capital letters only, so seat numbers cannot be used.
TWO_SEATS = ("B", "W")
# Which of the two a seat's colour (in English, lower case) plays.
SGF_COLOURS = {"black": "B", "dark": "B", "white": "W", "light": "W"}
SEAT_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# A game's stored status as the text record says it (the JSON and SGF keep the stored word).
STATUS_WORDS = (N_("invited"), N_("active"), N_("finished"), N_("aborted"))


def is_over(row: GameRecord) -> bool:
    """Whether the game has ended, so its hidden information may be shown to everyone."""
    return row.status in (GameStatus.FINISHED, GameStatus.ABORTED)


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def game_record(session: Session, row: GameRecord, reader: Reader = ENGLISH) -> dict[str, Any]:
    """The record as a JSON-safe dict (docs/records.md); the result sentence is written for
    ``reader``, everything else is data."""
    assert row.id is not None
    moves = moves_of(session, row.id)
    seats = seats_of(session, row.id)
    players = players_of(session, seats)
    names = [players[s.player_id].name for s in seats]
    game = engine_game(row)
    # A seat's colour ("Light"); none where the engine only numbers them ("Player 1").
    state = game.decode(row.state)
    sides = [seat_role(name, reader) for name in game.seat_names(state)]
    over = is_over(row)
    record: dict[str, Any] = {
        "format": FORMAT, "version": VERSION,
        "game": row.game_type, "public_id": row.public_id, "options": dict(row.options),
        "status": row.status, "rated": row.rated,
        "created_at": _iso(row.created_at), "started_at": _iso(row.started_at),
        "finished_at": _iso(row.finished_at),
        "players": [{"seat": s.seat, "name": names[n],
                     "side": sides[s.seat] if s.seat < len(sides) else "",
                     # In English, as data: SGF's B and W follow it.
                     "colour": seat_colour(game, state, s.seat),
                     "resigned": s.resigned, "forfeited": s.forfeited}
                    for n, s in enumerate(seats)],
        "moves": [{"ply": m.ply, "seat": m.seat, "notation": m.notation, "time": _iso(m.made_at),
                   **({"note": m.note} if m.note else {})} for m in moves],
        "result": result_in(row, seats, players, reader) if row.result else "",
        "winners": list(row.winners or []) if row.status == GameStatus.FINISHED else None,
        "seed_commitment": row.seed_commitment,
        # Hidden until the end: with them anyone can replay the game and check every draw.
        "seed": row.seed if over else None,
        "start_state": row.start_state if over else None,
    }
    return record


def _when(stored: str | None, reader: Reader) -> str:
    """A moment of the record (ISO 8601, as the JSON keeps it) as ``reader`` reads dates."""
    return reader.when(datetime.fromisoformat(stored)) if stored else ""


def record_text(record: dict[str, Any], reader: Reader = ENGLISH) -> str:
    """The record as plain text for people: a header, then one numbered line per move."""
    lines = [reader.gettext("Game: %(game)s", game=record["game"]),
             reader.gettext("Page: %(id)s", id=record["public_id"])]
    if record["options"]:
        lines.append(reader.gettext("Options: %(options)s", options=", ".join(
            f"{name}={value}" for name, value in record["options"].items())))
    for player in record["players"]:
        name = player["name"] + (f" ({player['side']})" if player["side"] else "")
        lines.append(reader.gettext("Seat %(number)d: %(name)s", number=player["seat"] + 1,
                                    name=name))
    status = record["status"]
    lines.append(reader.gettext("Status: %(status)s", status=reader.gettext(status)
                                if status in STATUS_WORDS else status))
    for label, key in ((reader.gettext("Started"), "started_at"),
                       (reader.gettext("Finished"), "finished_at")):
        if record[key]:
            lines.append(f"{label}: {_when(record[key], reader)}")
    if record["result"]:
        lines.append(reader.gettext("Result: %(result)s", result=record["result"]))
    lines.append(reader.gettext("Seed commitment (SHA-256): %(hash)s",
                                hash=record["seed_commitment"]))
    if record["seed"] is not None:
        lines.append(reader.gettext("Seed: %(seed)s", seed=record["seed"]))
    lines.append("")
    by_seat = {p["seat"]: p["name"] for p in record["players"]}
    for move in record["moves"]:
        line = f"{move['ply'] + 1}. {by_seat.get(move['seat'], move['seat'] + 1)}: " \
               f"{move['notation']}  [{_when(move['time'], reader)}]"
        if move.get("note"):
            line += f"  {{{move['note']}}}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def sgf_escape(value: str) -> str:
    """A property value as SGF writes it: ``]`` and ``\\`` escaped, line breaks kept."""
    return re.sub(r"([\]\\])", r"\\\1", value)


def seat_property(seat: int, seats: int, two: tuple[str, str] = TWO_SEATS) -> str:
    """The property a seat's moves are written with: B and W for two seats (``two``, by seat),
    else MA, MB, ..."""
    if seats == 2:
        return two[seat]
    return "M" + SEAT_LETTERS[seat % len(SEAT_LETTERS)]


def two_seat_letters(record: dict[str, Any]) -> tuple[str, str]:
    """SGF's B and W for the seats of a two-player record, by their colours: the black or dark
    seat plays B, the white or light one W, whichever moves first (Refugia's White does). Seats
    without such colours: B for the seat that moved first, as in Go.

    >>> two_seat_letters({"players": [{"colour": "White"}, {"colour": "Black"}], "moves": []})
    ('W', 'B')
    """
    letters = tuple(SGF_COLOURS.get(p.get("colour", "").lower(), "") for p in record["players"])
    if len(letters) == 2 and sorted(letters) == ["B", "W"]:
        return letters[0], letters[1]
    first = record["moves"][0]["seat"] if record["moves"] else 0
    return TWO_SEATS if first == 0 else (TWO_SEATS[1], TWO_SEATS[0])


def record_sgf(record: dict[str, Any]) -> str:
    """The record in an SGF-like form (docs/records.md): one root node with the game's
    properties, then one node per move. Not Go: ``GM`` names the engine game."""
    count = len(record["players"])

    def prop(name: str, *values: object) -> str:
        return name + "".join(f"[{sgf_escape(str(v))}]" for v in values)

    root = [prop("GM", f"pbem:{record['game']}"), prop("FF", 4), prop("CA", "UTF-8"),
            prop("AP", "pbem"), prop("GN", record["public_id"])]
    if record["started_at"]:
        root.append(prop("DT", record["started_at"][:10]))
    if record["options"]:
        root.append(prop("OP", *(f"{k}={v}" for k, v in record["options"].items())))
    root.append(prop("PN", *(p["name"] for p in record["players"])))
    two = two_seat_letters(record) if count == 2 else TWO_SEATS
    if count == 2:
        by_letter = {two[p["seat"]]: p["name"] for p in record["players"]}
        root += [prop("PB", by_letter["B"]), prop("PW", by_letter["W"])]
    if record["result"]:
        root.append(prop("RE", record["result"]))
    if record["winners"] is not None:
        root.append(prop("WN", *(w + 1 for w in record["winners"])) if record["winners"]
                    else "WN[]")
    root.append(prop("SC", record["seed_commitment"]))
    if record["seed"] is not None:
        root.append(prop("SD", record["seed"]))
    nodes = ["(;" + "".join(root)]
    for move in record["moves"]:
        node = ";" + prop(seat_property(move["seat"], count, two), move["notation"])
        node += prop("MT", move["time"])
        if move.get("note"):
            node += prop("C", move["note"])
        nodes.append(node)
    return "\n".join(nodes) + ")\n"
