"""The dashboard's commands: ``pbem create-admin EMAIL`` (also to reset an organiser's two-factor
sign-in: ``--reset-two-factor``), and the development login."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from pbem.admin import two_factor
from pbem.admin.accounts import AccountError, create_admin
from pbem.admin.passwords import new_password
from pbem.config import check_config, load_config
from pbem.db import Database

DEV_ADMIN_EMAIL = "admin@localhost"


@click.command("create-admin")
@click.argument("email")
@click.option("--password", default=None,
              help="The password (default: ask; with --generate, a random one is printed).")
@click.option("--generate", is_flag=True, help="Make up a random password and print it.")
@click.option("--reset-two-factor", is_flag=True,
              help="Switch off EMAIL's two-factor sign-in (a lost phone and lost recovery "
                   "codes) and end their sessions; the password stays unless --password or "
                   "--generate is given.")
def create_admin_command(email: str, password: str | None, generate: bool,
                         reset_two_factor: bool) -> None:
    """Create the organiser EMAIL (or give them a new password) to log in to /admin."""
    config = load_config()
    check_config(config)
    if generate:
        password = new_password()
    elif password is None and not reset_two_factor:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    database = Database.from_config(config)
    try:
        with database.write() as session:
            user = None
            if password is not None:
                user = create_admin(session, datetime.now(UTC), email, password)
            if reset_two_factor:
                user = two_factor.reset(session, email)
                if user is None:
                    raise AccountError(f"there is no organiser {email.strip().lower()!r}")
    except AccountError as error:
        raise click.ClickException(str(error)) from None
    finally:
        database.dispose()
    assert user is not None
    if reset_two_factor:
        click.echo(f"two-factor sign-in of {user.email} is off and their sessions are ended; "
                   "they can set it up again on /admin/account")
    click.echo(f"organiser {user.email} can log in at {config['BASE_URL']}/admin/login")
    if generate:
        click.echo(f"  password: {password}")


def ensure_dev_admin(database: Database) -> tuple[str, str]:
    """The development organiser's (email, password): a fresh password on every start, so the
    login printed by ``pbem dev`` always works (development databases only)."""
    password = new_password()
    with database.write() as session:
        create_admin(session, datetime.now(UTC), DEV_ADMIN_EMAIL, password)
    return DEV_ADMIN_EMAIL, password
