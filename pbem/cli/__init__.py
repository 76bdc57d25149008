"""The ``pbem`` command.

    pbem db upgrade
    pbem serve --host 127.0.0.1 --port 5000
    pbem create-game mosey --option order=5 --player "Ann <ann@example.org>" \\
                           --player "Bob <bob@example.org>" --per-move 3d
    pbem create-game refugia --rated --player ... # counts for the players' ratings
    pbem ratings rebuild        # every rating again from the rated games (pbem.cli.ratings)
    pbem start-game 12          # start it although not everyone has accepted
    pbem abort-game 12 --reason "a player left"
    pbem deliver
    pbem deliver --loop [--every 5]     # a deliverer, on any number of hosts at once
    pbem scheduler      # reminders, timeouts, mail delivery (run one or two, under systemd)
    pbem scheduler --no-deliver         # leaving mail to the deliverers
    pbem worker         # computer players' searches, with PBEM_TASKS (pbem.cli.operators)
    pbem sweep [--now 2025-03-01T12:00:00Z]     # one sweep (pbem.cli.operators)
    pbem backup /var/backups/pbem/pbem.db       # an online copy of a SQLite database
    pbem demo
    pbem dev            # everything `make run` needs, in one process

A command imports what only it needs when it runs, not at the top, so that every command
(and ``pbem --help``) starts without the others' modules: measured, ``pbem --help`` takes
1.6 s of CPU, 2.4 s with every command's imports at the top.
"""

from __future__ import annotations

import logging
import signal
import socket
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

import click
from sqlalchemy.exc import OperationalError
from sqlmodel import select

import engine
from pbem import create_app
from pbem.admin.cli import create_admin_command, ensure_dev_admin
from pbem.cli.common import checked_config, open_database
from pbem.clock import controls
from pbem.clock.controls import BadTimeControl, parse_time_control
from pbem.clock.deadlines import POLICIES
from pbem.config import ConfigError, check_config, load_config
from pbem.db import Database
from pbem.features import connect
from pbem.i18n import LANGUAGES, supported
from pbem.logs import configure_logging, mask_secrets
from pbem.models import GameRecord
from pbem.services import (
    ServiceError,
    abort_game,
    create_game,
    parse_player,
    respond_to_invitation,
    start_game,
)
from pbem.services.common import seats_of, site_from_config

if TYPE_CHECKING:  # the scheduler is imported by the commands that run it
    from pbem.scheduler.runner import SchedulerJobs

DEMO_PLAYERS = ("Alice <alice@example.test>", "Bob <bob@example.test>")


def parse_duration(text: str) -> timedelta:
    """``3d`` -> 3 days, in the notation of :mod:`pbem.clock.controls` (``36h``, ``1d12h``).

    >>> parse_duration("36h")
    datetime.timedelta(days=1, seconds=43200)
    """
    try:
        duration = controls.parse_duration(text)
    except BadTimeControl as error:
        raise click.BadParameter(str(error), param_hint="--per-move") from None
    if duration <= timedelta(0):
        raise click.BadParameter("the time per move must be longer than zero",
                                 param_hint="--per-move")
    return duration


def _config() -> dict[str, Any]:
    return checked_config()


class PbemGroup(click.Group):
    """Refusals of the settings or the database are one line naming what is wrong (an operator
    reads a journal under ``Restart=always``: a 37-line traceback hides the one that matters)."""

    def invoke(self, ctx: click.Context) -> Any:
        configure_logging()  # before anything logs: every line of every command masked
        try:
            return super().invoke(ctx)
        except ConfigError as error:
            raise click.ClickException(str(error)) from None
        except OperationalError as error:
            reason = str(error.orig or error).strip().splitlines()[0]
            raise click.ClickException(
                f"PBEM_DATABASE_URL: the database cannot be reached ({mask_secrets(reason)}); "
                "is it running, and are the host, port, name and user right?") from None


@click.group(cls=PbemGroup)
def main() -> None:
    """pbem: play-by-email board games."""
    connect()  # ratings, tournaments and rematches react to games that end


@main.group()
def db() -> None:
    """The database."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Create or migrate the database schema (Alembic), and with PBEM_TASKS the job tables."""
    from pbem.migrate import upgrade

    config = _config()
    upgrade(config["DATABASE_URL"], search_path=config.get("DATABASE_SEARCH_PATH"))
    if config["TASKS"]:
        from pbem.tasks.jobs import make_job_tables

        database = open_database(config)
        if make_job_tables(database):
            click.echo(f"made the job tables for the searches ({config['TASKS']})")
        database.dispose()
    click.echo(f"database is up to date: {mask_secrets(config['DATABASE_URL'])}")


def _leave_on_sigterm() -> None:
    """SIGTERM raises SystemExit(0), once: the process is leaving through its ``finally``, and a
    second SIGTERM or a Ctrl-C (systemd's, an impatient operator's) would cut the clean stop
    short, or kill it once Python's shutdown gave the signal its default action back."""
    def leave(*_: object) -> None:
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, signal.SIG_IGN)
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, leave)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
def serve(host: str, port: int) -> None:
    """Run the web app (use a WSGI server such as gunicorn in front for production)."""
    config = _config()  # refuses FLASK_DEBUG in production before anything listens
    # Flask's run() would switch the debugger on from FLASK_DEBUG by itself: decide here instead.
    debug = bool(config["FLASK_DEBUG"]) and config["ENV"] != "production"
    create_app().run(host=host, port=port, threaded=True, debug=debug)


@main.command("create-game")
@click.argument("game")
@click.option("--option", "options", multiple=True, metavar="NAME=VALUE",
              help="A game option, e.g. order=5 (repeat for several).")
@click.option("--player", "players", multiple=True, required=True, metavar='"NAME <EMAIL>"',
              help="A player, in seat order (repeat for each); bot or bot:LEVEL (easy, normal,"
                   " strong) for a computer player.")
@click.option("--per-move", default=None, help="Time per move, e.g. 3d or 12h.")
@click.option("--random-seats", is_flag=True, help="Shuffle the seat order.")
@click.option("--time-control", default=None,
              help='Instead of --per-move: e.g. "fischer 48h+24h max 96h, weekends off".')
@click.option("--timeout-policy", default=None, type=click.Choice(POLICIES),
              help="When a clock runs out (default: the game's own; docs/scheduler.md).")
@click.option("--organiser", default=None, metavar='"NAME <EMAIL>"',
              help="Who is told when the game needs a person (a bounce, a clock on hold, a "
                   "declined invitation) [default: PBEM_ALERT_EMAILS].")
@click.option("--no-vacations", is_flag=True, help="Players' absences do not stop the clock.")
@click.option("--language", default=None, type=click.Choice(list(LANGUAGES)),
              help="The language of the players this creates (their emails and pages); players"
                   " pbem knows already keep theirs [default: PBEM_DEFAULT_LANGUAGE].")
@click.option("--rated", is_flag=True,
              help="The game counts for the players' ratings (people only, no computer player).")
@click.option("--unlisted", is_flag=True,
              help="Leave the game out of the public archive and player profiles.")
def create_game_command(game: str, options: tuple[str, ...], players: tuple[str, ...],
                        per_move: str | None, random_seats: bool, time_control: str | None,
                        timeout_policy: str | None, organiser: str | None, no_vacations: bool,
                        language: str | None, rated: bool, unlisted: bool) -> None:
    """Create a game and email the invitations; prints its id and page URL."""
    from pbem.admin.actions import welcome_new_players

    try:
        control = parse_time_control(time_control) if time_control else None
    except BadTimeControl as error:
        raise click.BadParameter(str(error), param_hint="--time-control") from None

    config = _config()
    parsed: dict[str, object] = {}
    for item in options:
        name, sep, value = item.partition("=")
        if not sep:
            raise click.BadParameter(f"{item!r}: use NAME=VALUE", param_hint="--option")
        parsed[name.strip()] = value.strip()
    database = open_database(config)
    site = site_from_config(database, config)
    try:
        specs = [parse_player(p) for p in players]
        organiser_spec = parse_player(organiser) if organiser else None
        if organiser_spec and organiser_spec.bot_level:
            raise click.BadParameter("the organiser must be a person", param_hint="--organiser")
        if rated and any(spec.bot_level for spec in specs):
            raise click.BadParameter("a game with a computer player cannot be rated: leave out"
                                     " --rated or give every seat to a person",
                                     param_hint="--rated")
        with database.write() as session:
            now = datetime.now(UTC)
            # Before the game: its invitations are written in each player's language.
            welcome_new_players(session, now, specs,
                                language or supported(config.get("DEFAULT_LANGUAGE"), "en"))
            row = create_game(session, now, site, game_type=game, options=parsed,
                              players=specs,
                              per_move=parse_duration(per_move) if per_move else None,
                              random_seats=random_seats, time_control=control,
                              timeout_policy=timeout_policy, organiser=organiser_spec,
                              vacations_allowed=not no_vacations, rated=rated,
                              listed=not unlisted)
    except ServiceError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"game {row.id}: {site.links.game_url(row.public_id)}")
    if organiser_spec is None and not site.alert_emails:
        click.echo("warning: no --organiser and PBEM_ALERT_EMAILS is empty: nobody will be told"
                   " when this game needs a person (a bounce, a clock on hold)", err=True)


def _organiser_action(game: str, action: Any) -> None:
    """Run a service on the game with this id or public id, as its organiser."""
    config = _config()
    database = open_database(config)
    with database.session() as session:
        row = session.exec(select(GameRecord).where(
            (GameRecord.public_id == game)
            | (GameRecord.id == (int(game) if game.isdigit() else -1))
        )).one_or_none()
    if row is None:
        raise click.ClickException(f"there is no game {game!r}")
    try:
        with database.write() as session:
            action(session, datetime.now(UTC), site_from_config(database, config),
                   game_id=row.id)
    except ServiceError as error:
        raise click.ClickException(str(error)) from None


@main.command("start-game")
@click.argument("game")
def start_game_command(game: str) -> None:
    """Start GAME (id or public id) now, even if not everyone has accepted."""
    _organiser_action(game, lambda *a, **k: start_game(*a, force=True, **k))
    click.echo(f"game {game} started")


@main.command("abort-game")
@click.argument("game")
@click.option("--reason", default="", help="Told to the players.")
def abort_game_command(game: str, reason: str) -> None:
    """Abort GAME (id or public id); every player is told."""
    _organiser_action(game, lambda *a, **k: abort_game(*a, reason=reason, **k))
    click.echo(f"game {game} aborted")


@main.command()
@click.option("--loop", is_flag=True,
              help="Keep delivering until stopped (SIGTERM, Ctrl-C), without the scheduler's "
                   "lease: run one on each delivery host.")
@click.option("--every", default=None, type=click.IntRange(min=1),
              help="With --loop: seconds between passes when nothing more is due "
                   "[PBEM_DELIVER_EVERY, default 5].")
def deliver(loop: bool, every: int | None) -> None:
    """Send the emails that are due (one pass over the outbox), then the messages to players'
    other channels; with --loop, go on doing so."""
    from pbem.channels.delivery import deliver_channels
    from pbem.mail.outbox import SmtpSettings, deliver_pending

    config = _config()
    database = open_database(config)
    smtp = SmtpSettings.from_config(config)
    claim_for = timedelta(seconds=int(config["DELIVER_CLAIM_SECONDS"]))
    if loop:
        _deliver_loop(database, config, smtp, every or int(config["DELIVER_EVERY"]), claim_for)
        return
    now = datetime.now(UTC)
    report = deliver_pending(database, smtp, now, claim_for=claim_for)
    click.echo(f"sent {report.sent}, deferred {report.deferred}, failed {report.failed}")
    for error in report.errors[:5]:
        click.echo(f"  {mask_secrets(error)}", err=True)
    channels = deliver_channels(database, site_from_config(database, config), now,
                                claim_for=claim_for)
    if channels.attempted:
        click.echo(f"channels: sent {channels.sent}, deferred {channels.deferred}, "
                   f"failed {channels.failed}")


def _deliver_loop(database: Database, config: dict[str, Any], smtp: Any, every: int,
                  claim_for: timedelta) -> None:
    """``pbem deliver --loop``: until SIGTERM or Ctrl-C, each finishing the pass under way."""
    import signal

    from pbem.scheduler.deliverer import Deliverer

    deliverer = Deliverer(database, site_from_config(database, config), smtp, every=every,
                          claim_for=claim_for)
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: deliverer.stop.set())
    click.echo(f"pbem deliver {deliverer.holder}: via {smtp.relay}, every {every}s when idle, "
               f"claims of {int(claim_for.total_seconds())}s")
    deliverer.run()
    click.echo(f"pbem deliver {deliverer.holder}: stopped")


def seed_demo(database: Database, config: dict[str, Any]) -> tuple[str, list[str]]:
    """A demo game between two local addresses, already accepted: (page URL, players' URLs)."""
    site = site_from_config(database, config)
    game_id = next(iter(engine.GAMES))  # the catalogue's first game
    now = datetime.now(UTC)
    with database.write() as session:
        row = create_game(session, now, site, game_type=game_id,
                          players=[parse_player(p) for p in DEMO_PLAYERS],
                          per_move=timedelta(days=3))
        assert row.id is not None
        for seat in range(len(DEMO_PLAYERS)):
            respond_to_invitation(session, now, site, game_id=row.id, seat=seat, accept=True)
        player_ids = [s.player_id for s in _seats(session, row.id)]
    return site.links.game_url(row.public_id), [site.links.my_games_url(p) for p in player_ids]


def _seats(session: Any, game_id: int) -> list[Any]:
    return seats_of(session, game_id)


@main.command()
def demo() -> None:
    """Create a demo game between alice@example.test and bob@example.test."""
    config = _config()
    url, players = seed_demo(open_database(config), config)
    click.echo(f"demo game: {url}")
    for name, link in zip(DEMO_PLAYERS, players, strict=True):
        click.echo(f"  {name}: {link}")


def scheduler_jobs(database: Database, config: dict[str, Any]) -> SchedulerJobs:
    """The scheduler's jobs for ``config``: with PBEM_TASKS the computer players' job queues
    their searches for ``pbem worker`` instead of searching here."""
    from pbem.scheduler.runner import jobs_from_config

    jobs = jobs_from_config(database, config)
    if config.get("TASKS"):
        from pbem.tasks.queueing import requeue

        jobs.queue_bots = partial(requeue, database)
    return jobs


def start_background_scheduler(database: Database, config: dict[str, Any]) -> Any:
    """The scheduler's jobs (sweep, delivery) in a background thread of this process."""
    from pbem.scheduler.runner import build_scheduler

    jobs = scheduler_jobs(database, config)
    scheduler = build_scheduler(jobs, blocking=False,
                                sweep_every=int(config.get("SWEEP_EVERY", 60)),
                                deliver_every=int(config.get("DELIVER_EVERY", 5)),
                                bot_every=int(config.get("BOT_EVERY", 2)))
    scheduler.start()
    return scheduler, jobs


@main.command()
@click.option("--sweep-every", default=None, type=int,
              help="Seconds between sweeps [PBEM_SWEEP_EVERY, default 60].")
@click.option("--deliver-every", default=None, type=int,
              help="Seconds between deliveries [PBEM_DELIVER_EVERY, default 5].")
@click.option("--no-deliver", is_flag=True,
              help="Leave mail to `pbem deliver --loop` processes [PBEM_SCHEDULER_DELIVERS=off].")
def scheduler(sweep_every: int | None, deliver_every: int | None, no_deliver: bool) -> None:
    """Run the scheduler: reminders, timeouts and mail delivery (one active process at a time;
    a second one stands by and takes over if the first stops)."""
    from pbem.scheduler.runner import build_scheduler

    config = _config()
    sweep_every = sweep_every or int(config["SWEEP_EVERY"])
    deliver_every = deliver_every or int(config["DELIVER_EVERY"])
    jobs = scheduler_jobs(open_database(config), config)
    jobs.delivers = jobs.delivers and not no_deliver
    runner = build_scheduler(jobs, blocking=True, sweep_every=sweep_every,
                             deliver_every=deliver_every, fetch_every=int(config["FETCH_EVERY"]),
                             bot_every=int(config["BOT_EVERY"]))
    delivery = (f"deliver every {deliver_every}s" if jobs.delivers
                else "delivery left to `pbem deliver --loop`")
    click.echo(f"pbem scheduler {jobs.holder}: sweep every {sweep_every}s, {delivery}, "
               f"computer players every {config['BOT_EVERY']}s")
    # systemd stops with SIGTERM: leave through `finally`, releasing the lease for the standby.
    _leave_on_sigterm()
    try:
        runner.start()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        jobs.stop()


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--smtp-port", default=8025, show_default=True, type=int)
def dev(host: str, port: int, smtp_port: int) -> None:
    """Everything for playing alone on one machine: SQLite, mail catcher, demo game, web app."""
    from pbem.mail.catcher import database_store, start_catcher
    from pbem.migrate import upgrade

    config = load_config()
    if config["ENV"] != "development":
        raise click.ClickException("pbem dev is for development (PBEM_ENV=development) only")
    _check_free(host, port, "--port")
    _check_free("127.0.0.1", smtp_port, "--smtp-port")
    config.update(SMTP_HOST="127.0.0.1", SMTP_PORT=smtp_port, SMTP_TLS="none", SMTP_USER="",
                  SMTP_PASSWORD="", BASE_URL=f"http://{host}:{port}")
    check_config(config)
    # The mail catcher's SMTP sessions and each migration's line would bury the addresses this
    # command prints; their warnings and errors still show.
    for chatty in ("mail.log", "alembic.runtime.migration"):
        logging.getLogger(chatty).setLevel(logging.WARNING)
    upgrade(config["DATABASE_URL"])
    database = open_database(config)
    catcher = start_catcher(database_store(database), host="127.0.0.1", port=smtp_port)
    with database.session() as session:
        has_games = session.exec(select(GameRecord)).first() is not None
    if not has_games:
        seed_demo(database, config)
    background, jobs = start_background_scheduler(database, config)
    _leave_on_sigterm()  # so `finally` releases the lease
    app = create_app({**config, "DATABASE": database})
    base = config["BASE_URL"]
    click.echo(f"pbem is running at {base}/")
    click.echo(f"  caught mail (open the turn email to play): {base}/dev/mail")
    click.echo(f"  mail catcher (SMTP): 127.0.0.1:{smtp_port}")
    click.echo(f"  scheduler: sweep every {config['SWEEP_EVERY']} s, delivery every"
               f" {config['DELIVER_EVERY']} s, computer players every {config['BOT_EVERY']} s")
    click.echo(f"  database: {mask_secrets(config['DATABASE_URL'])}")

    admin_email, admin_password = ensure_dev_admin(database)
    click.echo(f"  dashboard: {base}/admin/  login {admin_email} / {admin_password}")
    try:
        app.run(host=host, port=port, threaded=True, use_reloader=False)
    finally:
        background.shutdown(wait=False)
        jobs.stop()
        catcher.stop()


def _check_free(host: str, port: int, option: str) -> None:
    """Refuse at once, saying what to do, when ``port`` is taken (usually by a pbem dev still
    running): else the mail catcher or the web app failed half-way, with a traceback."""
    with socket.socket() as probe:
        try:
            probe.bind((host, port))
        except OSError as error:
            raise click.ClickException(
                f"{host}:{port} is in use ({error.strerror}): is pbem dev already running? "
                f"Stop it, or choose another port: pbem dev {option} {port + 1}") from None


def _register_admin_commands() -> None:
    from pbem.cli.mail_in import dkim_keygen_command, fetch_mail_command, inbound_command
    from pbem.cli.operators import backup_command, doctor_command, sweep_command, worker_command
    from pbem.cli.ratings import ratings_group
    from pbem.cli.tournaments import tournament_group

    main.add_command(create_admin_command)
    main.add_command(doctor_command)
    main.add_command(sweep_command)
    main.add_command(worker_command)
    main.add_command(backup_command)
    main.add_command(ratings_group)
    main.add_command(tournament_group)
    for command in (inbound_command, fetch_mail_command, dkim_keygen_command):
        main.add_command(command)


_register_admin_commands()


if __name__ == "__main__":
    main()
