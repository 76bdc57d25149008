"""Players' ratings from their rated games: updated as each game ends, rebuilt on demand, and
the queries the rating pages show.

A game counts when it was created rated and ended by its rules, a resignation or a forfeit,
between people only: never with a computer player, never adjudicated (the organiser's result is
not a played one; :func:`pbem.admin.actions.adjudicate` marks the game unrated) or aborted.
Ratings are kept per game id, its board options together (docs/ratings.md says why).

:func:`rate_game` runs in the transaction that ends the game (from
:func:`pbem.services.moves.publish_game_over`, which every way of ending a game passes through), so
a game and the ratings it changes are written together or not at all. It rates a game once:
one that has rating changes already is left alone. Two games ending at the same moment for the
same player both count: the player's rating row is locked (PostgreSQL ``SELECT ... FOR UPDATE``;
SQLite writes one transaction at a time, ``BEGIN IMMEDIATE``), and a first rating is made by an
insert that does nothing when another transaction made it first.

    >>> from pbem.db import Database
    >>> from sqlmodel import SQLModel
    >>> database = Database("sqlite://")
    >>> SQLModel.metadata.create_all(database.engine)
    >>> with database.session() as session:
    ...     leaderboard(session, "mosey"), ratings_of(session, 1), history(session, 1, "mosey")
    ([], {}, [])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, text
from sqlmodel import Session, col, select

from pbem.db import conflict_insert
from pbem.models import GameRecord, GameStatus, Player, Seat
from pbem.positions import current_state
from pbem.ratings.model import Rating, rate
from pbem.ratings.tables import PlayerRating, RatingChange
from pbem.services.common import players_of, seats_of
from pbem.services.events import GameFinished
from pbem.services.results import ranks_from

NEW = Rating()  # a player's rating before their first rated game


@dataclass(frozen=True)
class Entry:
    """One line of a leaderboard: the player and their rating in the game."""

    player_id: int
    name: str
    rating: Rating


@dataclass(frozen=True)
class HistoryPoint:
    """A player's rating as shown (``Rating.shown``) after one rated game, finished ``at``."""

    game_id: int
    at: datetime
    shown: int


def counts(session: Session, row: GameRecord, seats: Sequence[Seat]) -> bool:
    """Whether the finished game ``row`` changes its players' ratings: created rated, ended by
    play (finished, not aborted; an adjudicated game was marked unrated), two or more seats held
    by different people, no computer among them."""
    if not row.rated or row.status != GameStatus.FINISHED or len(seats) < 2:
        return False
    ids = [s.player_id for s in seats]
    if len(set(ids)) != len(ids):
        return False
    players = players_of(session, list(seats))
    return all(p in players and players[p].bot_level is None for p in ids)


def places(row: GameRecord, seats: Sequence[Seat]) -> list[float]:
    """Each seat's place (1 for first, equal places tie): winners first, then by the engine's
    scores of the final position where the game keeps score. A seat that resigned or forfeited
    comes after every seat that played on, even when the stand-in playing it to the end did
    well."""
    winners = list(row.winners or [])
    scores = final_scores(row) if needs_scores(winners, len(seats)) else None
    return places_of(winners, [s.resigned or s.forfeited for s in seats], scores)


def needs_scores(winners: Sequence[int], seats: int) -> bool:
    """Whether a game's places depend on the scores of its final position: not with one winner
    of two, so such a game's position is never decoded for its places (a tournament's
    standings ask them of every game it has played).

    >>> needs_scores([1], 2), needs_scores([], 2), needs_scores([0], 3)
    (False, True, True)
    """
    return not (seats == 2 and len(set(winners)) == 1)


def final_scores(row: GameRecord) -> list[float] | None:
    """The engine's scores of the game's final position, where the game keeps score."""
    game, state = current_state(row)
    outcome = game.outcome(state)
    return list(outcome.scores) if outcome is not None and outcome.scores is not None else None


def places_of(winners: Sequence[int], out: Sequence[bool],
              scores: Sequence[float] | None) -> list[float]:
    """:func:`places` from a game's winners, which seats resigned or forfeited (``out``, in
    seat order) and its final scores (None where they do not count: :func:`needs_scores`).

    >>> places_of([0], [False, False], None), places_of([0], [True, False], None)
    ([1.0, 2.0], [2.0, 1.0])
    """
    base = ranks_from(list(winners), scores, len(out))
    keys = [(gone, rank) for gone, rank in zip(out, base, strict=True)]
    distinct = sorted(set(keys))
    return [float(distinct.index(key) + 1) for key in keys]


def rate_game(session: Session, now: datetime, row: GameRecord,
              seats: Sequence[Seat] | None = None) -> bool:
    """Update the ratings of ``row``'s players if the game counts and has not been rated yet;
    whether it did. Runs in the caller's transaction (the one that ended the game)."""
    assert row.id is not None
    seats = list(seats) if seats is not None else seats_of(session, row.id)
    if not counts(session, row, seats):
        return False
    done = session.exec(select(RatingChange.id).where(RatingChange.game_id == row.id)
                        .limit(1)).first()
    if done is not None:
        return False
    ranks = places(row, seats)
    ids = [s.player_id for s in seats]
    current = _locked(session, now, row.game_type, ids)
    before = [Rating(current[p].mu, current[p].sigma, current[p].games) for p in ids]
    after = rate(before, ranks)
    for player_id, old, new in zip(ids, before, after, strict=True):
        stored = current[player_id]
        stored.mu, stored.sigma, stored.games, stored.updated_at = (new.mu, new.sigma,
                                                                    new.games, now)
        session.add(stored)
        session.add(RatingChange(game_id=row.id, player_id=player_id, game_type=row.game_type,
                                 mu_before=old.mu, sigma_before=old.sigma, mu_after=new.mu,
                                 sigma_after=new.sigma, at=now))
    session.flush()
    return True


def _locked(session: Session, now: datetime, game_type: str,
            player_ids: Sequence[int]) -> dict[int, PlayerRating]:
    """The players' rating rows in ``game_type``, made where missing and locked until the
    transaction ends; always in player order, so two games sharing players cannot deadlock."""
    ids = sorted(set(player_ids))
    # Another transaction making the same first rating at the same moment: the insert waits
    # for it (the unique player and game id) and then does nothing, and the select reads its row.
    session.execute(conflict_insert(session, PlayerRating).values([
        {"player_id": p, "game_type": game_type, "mu": NEW.mu, "sigma": NEW.sigma, "games": 0,
         "updated_at": now} for p in ids]).on_conflict_do_nothing(
        index_elements=["player_id", "game_type"]))
    rows = session.exec(
        select(PlayerRating)
        .where(col(PlayerRating.player_id).in_(ids), PlayerRating.game_type == game_type)
        .order_by(col(PlayerRating.player_id)).with_for_update()
        .execution_options(populate_existing=True)).all()
    return {r.player_id: r for r in rows}


def rebuild(session: Session, now: datetime) -> tuple[int, int]:
    """Forget every rating and replay every rated finished game in the order they finished
    (``finished_at``, then id): (games rated, players rated). The same games in the same order
    give exactly the ratings the games gave as they ended.

    A game ending meanwhile waits for the rebuild (on PostgreSQL the ratings table is locked
    against writers; SQLite has one writer at a time) and is then rated on top of it."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("LOCK TABLE player_ratings IN EXCLUSIVE MODE"))
    session.execute(delete(RatingChange))
    session.execute(delete(PlayerRating))
    session.flush()
    games = session.exec(
        select(GameRecord).where(col(GameRecord.rated).is_(True),
                                 GameRecord.status == GameStatus.FINISHED)
        .order_by(col(GameRecord.finished_at), col(GameRecord.id))).all()
    rated = sum(rate_game(session, row.finished_at or now, row) for row in games)
    players = len(session.exec(select(PlayerRating.id)).all())
    return rated, players


def leaderboard(session: Session, game_type: str, limit: int = 50) -> list[Entry]:
    """The ``limit`` best rated players of ``game_type``, surest skill first (``μ − 3σ``,
    :attr:`Rating.conservative`; ties by player id). Provisional ratings are included: the page
    marks them (``Rating.provisional``)."""
    conservative = col(PlayerRating.mu) - 3 * col(PlayerRating.sigma)
    rows = session.exec(
        select(PlayerRating, Player.name)
        .join(Player, col(Player.id) == col(PlayerRating.player_id))
        .where(PlayerRating.game_type == game_type)
        .order_by(conservative.desc(), col(PlayerRating.player_id)).limit(limit)).all()
    return [Entry(r.player_id, name, Rating(r.mu, r.sigma, r.games)) for r, name in rows]


def ratings_of(session: Session, player_id: int) -> dict[str, Rating]:
    """A player's rating in each game id they have played rated games of, by game id."""
    rows = session.exec(select(PlayerRating).where(PlayerRating.player_id == player_id)
                        .order_by(col(PlayerRating.game_type))).all()
    return {r.game_type: Rating(r.mu, r.sigma, r.games) for r in rows}


def history(session: Session, player_id: int, game_type: str) -> list[HistoryPoint]:
    """A player's shown rating after each of their rated games of ``game_type``, oldest
    first (what a graph of their rating is drawn from)."""
    rows = session.exec(
        select(RatingChange)
        .where(RatingChange.player_id == player_id, RatingChange.game_type == game_type)
        .order_by(col(RatingChange.at), col(RatingChange.id))).all()
    return [HistoryPoint(r.game_id, r.at, Rating(r.mu_after, r.sigma_after).shown) for r in rows]


def on_game_finished(event: GameFinished) -> None:
    """Subscribed to :class:`~pbem.services.events.GameFinished`: the game's ratings, in the
    transaction that ended it."""
    rate_game(event.session, event.now, event.row, event.seats)
