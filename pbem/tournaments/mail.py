"""A tournament's emails: one thread per player (the first email's Message-ID is kept on the
entry, and every later one answers it), in the player's language.

- ``tournament_welcome``: you are in (when the organiser creates the tournament);
- ``tournament_round``: your games of a round, with a link to each and to your move where the
  first turn is yours, and where you stand (a round robin's games are all made at the start, so
  its one email lists every round): the games' start sends no email of its own;
- ``tournament_withdrawn``: the organiser withdrew you (your running games were forfeited);
- ``tournament_standings``: the final standings, or that the tournament was cancelled.

Each game's own emails after its start (your turn, game over) come from the game as for any
other game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from email.utils import make_msgid
from typing import Any

from sqlmodel import Session, col, select

from pbem.game_options import game_name
from pbem.i18n import Reader
from pbem.models import GameRecord, GameStatus, OutboxEmail, Player
from pbem.positions import current_state
from pbem.services.common import Site
from pbem.services.results import seat_colour
from pbem.templating import render_email
from pbem.tournaments.queries import (
    StandingsView,
    entries_of,
    points_text,
    standings_view,
)
from pbem.tournaments.tables import Tournament, TournamentEntry


def standings_url(site: Site, tournament: Tournament) -> str:
    return f"{site.links.base_url}/tournaments/{tournament.slug}"


def _players(session: Session, entries: Sequence[TournamentEntry]) -> dict[int, Player]:
    ids = [e.player_id for e in entries]
    return {p.id: p for p in session.exec(select(Player).where(col(Player.id).in_(ids)))
            if p.id is not None}


def _send(session: Session, now: datetime, site: Site, tournament: Tournament,
          entry: TournamentEntry, player: Player, kind: str,
          subject: Callable[[Reader], str], context: dict[str, Any]) -> None:
    """One email of the player's tournament thread, in their language."""
    assert player.id is not None
    reader = site.reader_for(player)
    values = {"player": player, "subject": subject(reader), "tournament": tournament,
              "game_name": game_name(tournament.game_type, reader),
              "standings_url": standings_url(site, tournament),
              "my_games_url": site.links.my_games_url(player.id),
              "points_text": points_text, **context}
    message_id = make_msgid(idstring=kind.replace("_", ""), domain=site.mail_domain)
    session.add(OutboxEmail(
        player_id=player.id, kind=kind, to_address=player.email, to_name=player.name,
        subject=values["subject"],
        text_body=render_email(f"email/{kind}.txt", reader, **values),
        html_body=render_email(f"email/{kind}.html", reader, **values),
        message_id=message_id, in_reply_to=entry.thread_message_id,
        next_attempt_at=now, created_at=now))
    if not entry.thread_message_id:
        entry.thread_message_id = message_id  # the first email starts the player's thread
        session.add(entry)


def _positions(session: Session, game_ids: Sequence[int]) -> dict[int, tuple[Any, Any]]:
    """Each game's rules and current position, for the colours its seats play."""
    rows = session.exec(select(GameRecord).where(col(GameRecord.id).in_(game_ids)))
    return {row.id: current_state(row) for row in rows if row.id is not None}


def send_welcome(session: Session, now: datetime, site: Site, tournament: Tournament) -> None:
    """"You are in": the format, the other players, and where the standings will be."""
    assert tournament.id is not None
    entries = entries_of(session, tournament.id)
    players = _players(session, entries)
    names = [players[e.player_id].name for e in entries]
    for entry in entries:
        _send(session, now, site, tournament, entry, players[entry.player_id],
              "tournament_welcome",
              lambda reader: reader.gettext("Tournament %(name)s: you are in",
                                            name=tournament.name),
              {"names": names})


def points_words(points: float) -> str:
    """Points as a standings email says them: halves as ½.

    >>> points_words(2.5), points_words(0.5), points_words(3.0), points_words(1.25)
    ('2½', '½', '3', '1.25')
    """
    whole, part = divmod(points, 1)
    if part == 0.5:
        return f"{int(whole) or ''}½"
    return points_text(points)


def ordinal(rank: int, reader: Reader) -> str:
    """A place in the standings as ``reader`` writes it: 3rd, 3e, (Platz) 3, 3º.

    >>> [ordinal(n, Reader("en")) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)]
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '101st']
    >>> ordinal(3, Reader("nl")), ordinal(3, Reader("de")), ordinal(3, Reader("it"))
    ('3e', '3', '3º')
    """
    if reader.language == "nl":
        return f"{rank}e"
    if reader.language == "de":
        return str(rank)  # "Platz 3 von 12"
    if reader.language == "it":
        return f"{rank}º"
    suffix = "th" if rank % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(
        rank % 10, "th")
    return f"{rank}{suffix}"


def standing_line(view: StandingsView, player_id: int, reader: Reader) -> str:
    """"You have 2½ points, 3rd of 12.": where ``player_id`` stands (among the players still
    in)."""
    mine = next((row.standing for row in view.rows if row.standing.player == player_id), None)
    if mine is None:
        return ""
    count = sum(1 for row in view.rows if not row.withdrawn)
    return reader.ngettext("You have %(points)s point, %(place)s of %(players)d.",
                           "You have %(points)s points, %(place)s of %(players)d.",
                           1 if mine.points == 1 else 2, points=points_words(mine.points),
                           place=ordinal(mine.rank, reader), players=count)


def send_rounds(session: Session, now: datetime, site: Site, tournament: Tournament,
                rounds: Sequence[int]) -> None:
    """Each player still in gets one email for ``rounds``: their games (and byes), each
    linked, with the link to move where the first turn is theirs (the games' start writes no
    email of its own), and where they stand."""
    assert tournament.id is not None
    view = standings_view(session, tournament)
    entries = [e for e in entries_of(session, tournament.id) if e.withdrawn_at is None]
    players = _players(session, entries)
    first = min(rounds)
    new = [g.game_id for g in view.games if g.round in rounds]
    turns = {game_id: (to_move, ply) for game_id, to_move, ply in session.exec(
        select(GameRecord.id, GameRecord.to_move, GameRecord.ply)
        .where(col(GameRecord.id).in_(new), GameRecord.status == GameStatus.ACTIVE))}
    positions = _positions(session, new)
    for entry in entries:
        me = entry.player_id
        reader = site.reader_for(players[me])
        mine: list[dict[str, object]] = []
        for number, games, byes in view.rounds:
            if number not in rounds:
                continue
            if me in byes:
                mine.append({"round": number, "bye": True, "move_url": ""})
            for game in games:
                if me in game.players:
                    seat = game.players.index(me)
                    engine_game, state = positions[game.game_id]
                    to_move, ply = turns.get(game.game_id, (None, 0))
                    mine.append({
                        "round": number, "bye": False,
                        "colour": seat_colour(engine_game, state, seat, reader),
                        "opponents": [view.names[p] for p in game.players if p != me],
                        "url": site.links.seat_view_url(game.game_id, seat, holder=me),
                        "move_url": site.links.move_url(game.game_id, seat, ply, holder=me)
                        if to_move == seat else ""})
        if not mine:
            continue

        def subject(reader: Reader, count: int = len(rounds)) -> str:
            if count > 1:
                return reader.gettext("Tournament %(name)s: your games", name=tournament.name)
            return reader.gettext("Tournament %(name)s: round %(round)d",
                                  name=tournament.name, round=first)

        _send(session, now, site, tournament, entry, players[me], "tournament_round", subject,
              {"games": mine, "round": first, "rounds": list(rounds),
               "last": first >= tournament.rounds,
               # Before the first round everybody has nothing yet: nothing to say.
               "standing": standing_line(view, me, site.reader_for(players[me]))
               if first > 1 else ""})


def send_standings(session: Session, now: datetime, site: Site, tournament: Tournament, *,
                   cancelled: bool = False) -> None:
    """The final standings (or the standings when it was cancelled) to every entry."""
    assert tournament.id is not None
    view: StandingsView = standings_view(session, tournament)
    entries = entries_of(session, tournament.id)
    players = _players(session, entries)
    for entry in entries:
        def subject(reader: Reader) -> str:
            if cancelled:
                return reader.gettext("Tournament %(name)s: cancelled", name=tournament.name)
            return reader.gettext("Tournament %(name)s: final standings", name=tournament.name)

        _send(session, now, site, tournament, entry, players[entry.player_id],
              "tournament_standings", subject,
              {"rows": view.rows, "cancelled": cancelled, "swiss": view.swiss})


def send_withdrawn(session: Session, now: datetime, site: Site, tournament: Tournament,
                   entry: TournamentEntry) -> None:
    """Tell the player the organiser withdrew them: otherwise they learn it only from their
    games' emails, which say a resignation they never made."""
    players = _players(session, [entry])
    _send(session, now, site, tournament, entry, players[entry.player_id],
          "tournament_withdrawn",
          lambda reader: reader.gettext("Tournament %(name)s: you were withdrawn",
                                        name=tournament.name),
          {"started": tournament.started_at is not None})
