"""The tables: players, games, seats, moves, the audit log, and the organisers' accounts (players
have no password: their signed links are their identity, and a one-time link by email signs them
in). The tables of the mail (the outbox, board images, inbound mail), the scheduler's jobs and
the organisers' security have modules of their own, imported back at the end of this one. The
features' tables are in their packages (pbem.tournaments.tables, pbem.challenges.tables,
pbem.ratings.tables), which the core never imports; pbem/migrations/env.py names them all. Each
game's clock is a row of the clock's own table (pbem.clock.tables, which builds on this module).

Relationships are plain foreign keys queried explicitly; it keeps each service's SQL visible.
Times are timezone-aware UTC in Python; the database stores them as UTC.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Column, Date, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from pbem.models.columns import json_column, time_column


class GameStatus(StrEnum):
    INVITED = "invited"  # waiting for every seat to accept
    ACTIVE = "active"
    FINISHED = "finished"
    ABORTED = "aborted"


class SeatStatus(StrEnum):
    INVITED = "invited"
    ACCEPTED = "accepted"
    DECLINED = "declined"


class MoveSource(StrEnum):
    LINK = "link"
    ADMIN = "admin"
    TIMEOUT = "timeout"
    FORCED_PASS = "forced-pass"
    STAND_IN = "stand-in"  # a forfeited seat in a game of three or more, played at random
    REPLY = "reply"  # answered the turn email (pbem.inbound)
    BOT = "bot"  # chosen by a computer player in the scheduler's sweep (pbem.scheduler.bots)
    CONDITIONAL = "conditional"  # left in advance as the answer to the move just played


class Player(SQLModel, table=True):
    __tablename__ = "players"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    email: str = Field(index=True, unique=True)  # stored lower-case
    language: str = "en"
    time_zone: str = "UTC"
    # Non-essential mail: updates after other players' moves. Kept in step with the player's mail
    # setting (pbem.notifications: written under "every event" and "daily digest" only).
    notify_updates: bool = True
    created_at: datetime = time_column()
    # Mail to them bounced (play by reply): shown to organisers until one of them acts.
    bounced_at: datetime | None = time_column(nullable=True)
    # A computer player's level (easy, normal, strong; engine.bots.LEVELS); None for people.
    # Bots never get mail: their address is internal (pbem.services.players.bot_spec).
    bot_level: str | None = Field(default=None, index=True)  # the sweep starts from the bots
    # Part of every signed-in session (pbem.web.signin): "sign out everywhere" adds one, and
    # sessions made before no longer load.
    session_version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # The player asked that their profile page (pbem.web.profiles) be shown to nobody else.
    profile_hidden: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    # Which generation of their games-page links works (pbem.links, the token's ``v``): "Replace
    # my email links" and "sign out everywhere" add one, and older links stop working.
    links_version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class GameRecord(SQLModel, table=True):
    __tablename__ = "games"
    # The archive's order and count, with and without its game filter, and its page of games
    # found by id (its player filter), all read from the indexes alone (migration 0028).
    __table_args__ = (Index("ix_games_archive", "status", "listed", "finished_at"),
                      Index("ix_games_archive_game", "game_type", "status", "listed",
                            "finished_at"),
                      Index("ix_games_archive_rows", "id", "status", "listed", "finished_at"))

    id: int | None = Field(default=None, primary_key=True)
    public_id: str = Field(index=True, unique=True)  # unguessable; the game page's URL
    game_type: str  # engine id, e.g. "mosey"
    options: dict[str, Any] = json_column()
    status: str = GameStatus.INVITED
    state: dict[str, Any] = json_column()  # engine.encode of the current position
    start_state: dict[str, Any] = json_column()
    ply: int = 0
    to_move: int | None = None
    seed: str = ""  # secret until the game ends
    seed_commitment: str = ""  # sha256 of the seed, public from the start
    organiser_id: int | None = Field(default=None, foreign_key="players.id")
    winners: list[int] | None = json_column()
    result: str = ""
    created_at: datetime = time_column()
    started_at: datetime | None = time_column(nullable=True)
    finished_at: datetime | None = time_column(nullable=True)
    # Counts for the players' ratings when it ends by the rules, a resignation or a forfeit
    # (never with a computer player, never adjudicated or aborted): pbem.ratings.service.
    rated: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    # In the public archive and on profiles (pbem.web.archive); an unlisted game's pages are
    # still reachable by their unguessable links.
    listed: bool = Field(default=True, sa_column_kwargs={"server_default": "1"})


class Seat(SQLModel, table=True):
    __tablename__ = "seats"
    # ix_seats_player_game: a player's games from the index alone (the archive's player filter,
    # migration 0028).
    __table_args__ = (UniqueConstraint("game_id", "seat"),
                      Index("ix_seats_player_game", "player_id", "game_id"))

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    player_id: int = Field(foreign_key="players.id", index=True)
    status: str = SeatStatus.INVITED
    resigned: bool = False
    forfeited: bool = False  # timed out under "forfeit"; with 3+ seats the stand-in plays on
    # The computer plays this seat: "turn" for the current turn only (timeout policy "bot"),
    # "game" to the end (policy "forfeit-bot" with three or more seats), "resigned" to the end
    # (a resignation with three or more seats: pbem.services.resignation). None: the player.
    stand_in: str | None = Field(default=None, index=True)  # the sweep starts from these
    # Message-ID of the first email this seat got about the game; later ones reply to it.
    thread_message_id: str = ""
    # When its player last looked at the game's page (the move page, the game page); while
    # they do, a game against the computer mails them no turn (pbem.services.turn_mail).
    page_viewed_at: datetime | None = time_column(nullable=True)
    # The ply whose turn email is held for that reason, until the sweep writes it; None: none.
    turn_email_held: int | None = Field(default=None, index=True)


class Move(SQLModel, table=True):
    __tablename__ = "moves"
    # The unique ply is the database's last word on "exactly one move per ply".
    __table_args__ = (UniqueConstraint("game_id", "ply"),
                      Index("ix_moves_source", "source"))  # /metrics counts moves by source

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    ply: int  # the ply the move was played at (0 for the first move)
    seat: int
    notation: str
    note: str = ""
    source: str = MoveSource.LINK
    made_at: datetime = time_column()
    state_after: dict[str, Any] = json_column()


class AuditEntry(SQLModel, table=True):
    __tablename__ = "audit_log"

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = time_column()
    game_id: int | None = Field(default=None, foreign_key="games.id", index=True)
    player_id: int | None = Field(default=None, foreign_key="players.id")
    action: str
    detail: dict[str, Any] = json_column()


class PlayerAbsence(SQLModel, table=True):
    """Days a player is away (dates in their time zone, both ends included): clocks stop."""

    __tablename__ = "player_absences"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    start: date = Field(sa_column=Column(Date, nullable=False))
    end: date = Field(sa_column=Column(Date, nullable=False))
    created_at: datetime = time_column()


class SchedulerLease(SQLModel, table=True):
    """Who runs the scheduler: one row per job group; a holder renews it each tick."""

    __tablename__ = "scheduler_leases"

    name: str = Field(primary_key=True)
    holder: str
    expires_at: datetime = time_column()
    renewed_at: datetime = time_column()


class AdminUser(SQLModel, table=True):
    """An organiser who may log in to the dashboard."""

    __tablename__ = "admin_users"

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(index=True, unique=True)  # stored lower-case
    password_hash: str  # see pbem.admin.passwords
    active: bool = True
    created_at: datetime = time_column()
    last_login_at: datetime | None = time_column(nullable=True)
    # Part of every session's login (get_id): logging out, a new password or "sign out
    # everywhere" adds one, and sessions made before no longer load (pbem.admin.sessions).
    session_version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})

    # Flask-Login's user protocol, written out rather than inherited from UserMixin so the
    # SQLModel metaclass sees only plain fields.
    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def is_active(self) -> bool:
        return self.active

    @property
    def is_anonymous(self) -> bool:
        return False

    def get_id(self) -> str:
        # "admin:" tells the one user loader (pbem.admin) this is an organiser, not a player.
        return f"admin:{self.id}:{self.session_version}"


class SeatReplacement(SQLModel, table=True):
    """An organiser put another player on a seat; links sent to the earlier one stop working."""

    __tablename__ = "seat_replacements"

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: int
    old_player_id: int = Field(foreign_key="players.id")
    new_player_id: int = Field(foreign_key="players.id")
    admin_id: int | None = Field(default=None, foreign_key="admin_users.id")
    at: datetime = time_column()


class SignInLink(SQLModel, table=True):
    """A one-time sign-in link mailed to a player (pbem.web.signin): only the SHA-256 of its
    token is kept, so the table's rows cannot be used to sign in."""

    __tablename__ = "sign_in_links"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    token_hash: str = Field(index=True, unique=True)  # sha256 hex of the mailed token
    created_at: datetime = time_column()
    expires_at: datetime = time_column()
    used_at: datetime | None = time_column(nullable=True)  # set once: the link signs in only once


class PlayerSignIn(SQLModel, table=True):
    """A browser signed in with a link from the player's mail (pbem.web.email_links): shown to
    that player on their account page, so a link used by someone else is seen. Roughly which
    browser; never the client's address."""

    __tablename__ = "player_sign_ins"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    at: datetime = time_column()
    # Roughly which browser, and on which system, from its User-Agent ("Firefox", "Linux"); ""
    # for one it does not name.
    browser: str
    system: str
    via: str  # which link: "games-link" (a games-page link), "sign-in-link", "sign-up-link"


# Each area's tables, imported here so that SQLModel.metadata (and so Alembic) knows them all,
# and named again ("X as X") so that ``from pbem.models import OutboxEmail`` is an export.
from pbem.models.jobs import JobState as JobState  # noqa: E402
from pbem.models.jobs import MetricTally as MetricTally  # noqa: E402
from pbem.models.mail import BoardImage as BoardImage  # noqa: E402
from pbem.models.mail import CaughtMail as CaughtMail  # noqa: E402
from pbem.models.mail import InboundMail as InboundMail  # noqa: E402
from pbem.models.mail import MailStatus as MailStatus  # noqa: E402
from pbem.models.mail import OutboxEmail as OutboxEmail  # noqa: E402
from pbem.models.mail import OutboxImage as OutboxImage  # noqa: E402
from pbem.models.mail import ReplyOutcome as ReplyOutcome  # noqa: E402
from pbem.models.organisers import OrganiserRecoveryCode as OrganiserRecoveryCode  # noqa: E402
from pbem.models.organisers import OrganiserSecurity as OrganiserSecurity  # noqa: E402
