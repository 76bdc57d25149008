"""A tournament's games, results and standings as stored: the pure pairing and standings
functions (:mod:`pbem.tournaments`) fed from the database, for the pages, the emails and the
next round's pairing alike, so all three always agree.

A game counts in the standings once it is finished, however it ended (by the rules, a
resignation, a forfeit on time or by withdrawal, an organiser's adjudication): each seat's place
is the one the ratings use (:func:`pbem.ratings.service.places`; a seat that resigned or
forfeited comes last), and places become points by :func:`~pbem.tournaments.standings.table_points`.
An aborted game (a cancelled tournament) counts for nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlmodel import Session, col, func, select

from pbem.models import GameRecord, GameStatus, Player, Seat
from pbem.ratings.service import final_scores, needs_scores, places_of
from pbem.tournaments.pairing import SeatBalance
from pbem.tournaments.standings import (
    Format,
    GameResult,
    Standing,
    crosstable,
    standings,
    table_points,
)
from pbem.tournaments.tables import Tournament, TournamentEntry, TournamentFormat, TournamentGame


@dataclass(frozen=True)
class TableGame:
    """One game of the tournament: where it sits (round, table) and how it stands."""

    game_id: int
    public_id: str
    round: int
    table: int
    players: tuple[int, ...]  # player ids in seat order
    status: str
    points: tuple[float, ...] | None  # each seat's points once finished; None before

    @property
    def finished(self) -> bool:
        return self.points is not None

    @property
    def over(self) -> bool:
        """Nothing more will happen in it (finished, or aborted with its tournament)."""
        return self.status in (GameStatus.FINISHED, GameStatus.ABORTED)


@dataclass(frozen=True)
class RoundCell:
    """What one player did in one round: sat at ``game`` against ``opponents`` (every other
    player at the table, in seat order) and scored ``points`` there (None until it is finished),
    or had a bye (``game`` is None)."""

    game: TableGame | None
    opponents: tuple[int, ...] = ()
    points: float | None = None


@dataclass(frozen=True)
class Row:
    """One line of the standings, with the player's name and whether they withdrew."""

    standing: Standing
    name: str
    withdrawn: bool


@dataclass
class StandingsView:
    """Everything a standings page or email shows."""

    tournament: Tournament
    rows: list[Row]
    names: dict[int, str]
    games: list[TableGame]
    # For each player and each opponent they met: (points scored, the game's public id) per game
    # between them (pbem.tournaments.standings.crosstable).
    cross: dict[int, dict[int, list[tuple[float, str]]]] = field(default_factory=dict)

    @property
    def rounds(self) -> list[tuple[int, list[TableGame], list[int]]]:
        """(round, its games by table, the players with a bye) for every round made so far."""
        byes = self.tournament.byes or {}
        return [(number, sorted((g for g in self.games if g.round == number),
                                key=lambda g: g.table),
                 list(byes.get(str(number), [])))
                for number in range(1, self.tournament.current_round + 1)]

    @property
    def round_by_round(self) -> dict[int, dict[int, RoundCell]]:
        """For each player, what they did in each round they took part in, by round number: a
        round they sat out (withdrawn, or joined no table) is absent.

        A Swiss shows this instead of the crosstable: each player meets a handful of the others,
        so a row a player and a column a round is the table's true size (a 200-player Swiss has
        1,400 such cells against 40,000 of a crosstable, almost all empty)."""
        cells: dict[int, dict[int, RoundCell]] = {}
        for game in self.games:
            for seat, player in enumerate(game.players):
                cells.setdefault(player, {})[game.round] = RoundCell(
                    game, game.players[:seat] + game.players[seat + 1:],
                    None if game.points is None else game.points[seat])
        for number, players in (self.tournament.byes or {}).items():
            for player in players:
                cells.setdefault(player, {})[int(number)] = RoundCell(None)
        return cells

    @property
    def swiss(self) -> bool:
        return self.tournament.format == TournamentFormat.SWISS


def points_text(points: float) -> str:
    """Points as people write them: 1, 0.5, 2.5.

    >>> points_text(2.0), points_text(0.5), points_text(1.25)
    ('2', '0.5', '1.25')
    """
    return f"{points:g}"


def entries_of(session: Session, tournament_id: int) -> list[TournamentEntry]:
    """The entries in the order they were made (the seeding)."""
    return list(session.exec(select(TournamentEntry)
                             .where(TournamentEntry.tournament_id == tournament_id)
                             .order_by(col(TournamentEntry.position))))


def games_of(session: Session, tournament_id: int) -> list[TableGame]:
    """Every game of the tournament, by round and table, with its players and points.

    Read as columns, not as rows of the ORM: a Swiss of 200 players has 600 games and 1,200
    seats to read for each standings page and each pairing, and making objects of them took
    most of the page's time (issue 36). Only the finished games whose places depend on their
    final position (:func:`~pbem.ratings.service.needs_scores`: a draw, a table of three or more)
    are read whole, in one more query, to decode it."""
    links = session.exec(
        select(TournamentGame.game_id, TournamentGame.round, TournamentGame.table)
        .where(TournamentGame.tournament_id == tournament_id)
        .order_by(col(TournamentGame.round), col(TournamentGame.table))).all()
    ids = [game_id for game_id, _, _ in links]
    games = {game_id: (public_id, status, winners or [])
             for game_id, public_id, status, winners in session.exec(
                 select(GameRecord.id, GameRecord.public_id, GameRecord.status,
                        GameRecord.winners).where(col(GameRecord.id).in_(ids)))
             if game_id is not None}
    players: dict[int, list[int]] = {}
    out: dict[int, list[bool]] = {}
    for game_id, player_id, resigned, forfeited in session.exec(
            select(Seat.game_id, Seat.player_id, Seat.resigned, Seat.forfeited)
            .where(col(Seat.game_id).in_(ids)).order_by(col(Seat.game_id), col(Seat.seat))):
        players.setdefault(game_id, []).append(player_id)
        out.setdefault(game_id, []).append(resigned or forfeited)
    scored = [game_id for game_id, (_, status, winners) in games.items()
              if status == GameStatus.FINISHED
              and needs_scores(winners, len(players.get(game_id, [])))]
    scores = {row.id: final_scores(row) for row in session.exec(
        select(GameRecord).where(col(GameRecord.id).in_(scored)))} if scored else {}
    found = []
    for game_id, number, table in links:
        public_id, status, winners = games[game_id]
        points = (table_points(places_of(winners, out.get(game_id, []), scores.get(game_id)))
                  if status == GameStatus.FINISHED else None)
        found.append(TableGame(game_id, public_id, number, table,
                               tuple(players.get(game_id, [])), status, points))
    return found


def games_running(session: Session, tournament_id: int, round_number: int | None = None) -> int:
    """How many of the tournament's games (of ``round_number``, or of every round) are not over:
    one count, so a game's end does not read every game of a long tournament."""
    query = (select(func.count()).select_from(TournamentGame)
             .join(GameRecord, col(GameRecord.id) == col(TournamentGame.game_id))
             .where(TournamentGame.tournament_id == tournament_id,
                    col(GameRecord.status).not_in([GameStatus.FINISHED, GameStatus.ABORTED])))
    if round_number is not None:
        query = query.where(TournamentGame.round == round_number)
    return int(session.exec(query).one())


def results_of(games: Sequence[TableGame]) -> list[GameResult]:
    return [GameResult(g.players, g.points, g.game_id) for g in games if g.points is not None]


def all_byes(tournament: Tournament) -> list[int]:
    """Every bye given so far, one entry per bye (a player may have several)."""
    return [p for players in (tournament.byes or {}).values() for p in players]


def table_of(session: Session, tournament: Tournament,
             entries: Sequence[TournamentEntry] | None = None,
             games: Sequence[TableGame] | None = None) -> list[Standing]:
    """The standings: every entry, withdrawn or not (their games still count)."""
    assert tournament.id is not None
    entries = entries if entries is not None else entries_of(session, tournament.id)
    games = games if games is not None else games_of(session, tournament.id)
    fmt: Format = "swiss" if tournament.format == TournamentFormat.SWISS else "round-robin"
    return standings([e.player_id for e in entries], results_of(games),
                     byes=all_byes(tournament), fmt=fmt)


def standings_view(session: Session, tournament: Tournament) -> StandingsView:
    assert tournament.id is not None
    entries = entries_of(session, tournament.id)
    games = games_of(session, tournament.id)
    ids = [e.player_id for e in entries]
    names = {p.id: p.name for p in session.exec(select(Player).where(col(Player.id).in_(ids)))
             if p.id is not None}
    withdrawn = {e.player_id for e in entries if e.withdrawn_at is not None}
    rows = [Row(s, names[s.player], s.player in withdrawn)
            for s in table_of(session, tournament, entries, games)]
    public = {g.game_id: g.public_id for g in games}
    cross = {player: {opponent: [(points, public[game_id or 0]) for points, game_id in cells]
                      for opponent, cells in row.items()}
             for player, row in crosstable(ids, results_of(games)).items()}
    return StandingsView(tournament, rows, names, games, cross)


def pairs_played(games: Sequence[TableGame]) -> Counter[frozenset[int]]:
    """How often each two players met (games still running count: they have met)."""
    met: Counter[frozenset[int]] = Counter()
    for game in games:
        if game.status == GameStatus.ABORTED:
            continue
        for i, a in enumerate(game.players):
            for b in game.players[i + 1:]:
                met[frozenset((a, b))] += 1
    return met


def seat_balance(games: Sequence[TableGame]) -> SeatBalance:
    """Who sat first how often, from the games so far in round order."""
    balance = SeatBalance()
    for game in sorted(games, key=lambda g: (g.round, g.table)):
        balance.record(game.players)
    return balance
