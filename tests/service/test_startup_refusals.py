"""A site that is wrong says so at once, by name, in one line (issue 30): every command that
starts pbem, and gunicorn's app, refuse a setting that cannot work without a traceback; nothing
prints a password; production refuses to start without its compiled catalogs."""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import pbem.config
import pbem.i18n
from pbem.cli import main
from pbem.config import ConfigError, check_config, load_config
from tests.support import free_port

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {"PBEM_ENV": "production", "PBEM_SECRET_KEY": "s" * 40,
              "PBEM_BASE_URL": "https://pbem.example.org"}


@pytest.mark.parametrize("command", [["serve"], ["scheduler"], ["inbound"], ["db", "upgrade"],
                                     ["deliver"], ["sweep"], ["create-game", "mosey",
                                                              "--player", "a@x.test"]])
@pytest.mark.parametrize(("setting", "value", "line"), [
    ("PBEM_BASE_URL", "http://pbem.example.org",
     "Error: PBEM_BASE_URL must start with https:// in production, not "
     "'http://pbem.example.org'"),
    ("PBEM_SMTP_PORT", "twenty-five", "Error: PBEM_SMTP_PORT must be a whole number, not "
     "'twenty-five'"),
    ("PBEM_DATABASE_URL", "postgres ql://pbem:s3cret@db/pbem",
     "Error: PBEM_DATABASE_URL is not a database URL such as sqlite:///instance/pbem.db or "
     "postgresql+psycopg://user:password@host:5432/pbem"),
])
def test_every_command_refuses_a_bad_setting_in_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str], setting: str,
        value: str, line: str) -> None:
    monkeypatch.chdir(tmp_path)
    env = {**PRODUCTION, "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}",
           "PBEM_REPLY_ADDRESS": "play@pbem.example.org", setting: value}
    result = CliRunner().invoke(main, command, env=env)
    assert result.exit_code == 1
    assert result.output == line + "\n"
    assert "s3cret" not in result.output
    assert not (tmp_path / "p.db").exists()  # refused before anything was made


def test_gunicorn_stops_with_the_one_line(tmp_path: Path) -> None:
    """Under gunicorn a bad setting stops the whole server (not workers restarted forever),
    and its log says the line, not a traceback per worker."""
    gunicorn = Path(sys.executable).with_name("gunicorn")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), **PRODUCTION,
           "PBEM_BASE_URL": "pbem.example.org",
           "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}"}
    # One worker: with two, gunicorn's arbiter may trip over the second exit while it halts
    # and print a traceback of its own (seen under load), which says nothing about ours.
    result = subprocess.run([str(gunicorn), "--workers", "1", "--bind",
                             f"127.0.0.1:{free_port()}", "pbem.wsgi:app"], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "pbem: PBEM_BASE_URL must be an absolute http(s) address" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_database_that_is_down_is_one_line_without_its_password(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, closed_port: int) -> None:
    monkeypatch.chdir(tmp_path)
    url = f"postgresql+psycopg://pbem:s3cret-pw@127.0.0.1:{closed_port}/pbem"
    result = CliRunner().invoke(main, ["db", "upgrade"], env={"PBEM_DATABASE_URL": url})
    assert result.exit_code == 1
    [line] = result.output.splitlines()
    assert line.startswith("Error: PBEM_DATABASE_URL: the database cannot be reached (")
    assert "s3cret-pw" not in result.output


def test_db_upgrade_never_prints_the_password(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """PostgreSQL here trusts loopback connections, so any password logs in: the one in the URL
    must not be printed all the same."""
    from sqlalchemy import create_engine, text

    from tests.support import postgres_url

    base, problem = postgres_url()
    if base is None:
        pytest.skip(problem)
    schema = f"pbem_test_upgrade_{free_port()}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        url = base.replace("://", "://postgres:s3cret-pw@", 1) if "@" not in base else base
        monkeypatch.chdir(tmp_path)
        result = CliRunner().invoke(main, ["db", "upgrade"], env={
            "PBEM_DATABASE_URL": url, "PBEM_DATABASE_SEARCH_PATH": schema})
        assert result.exit_code == 0, result.output
        assert "database is up to date: " in result.output
        assert "s3cret-pw" not in result.output
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture
def without_dutch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the catalogs whose compiled Dutch one is missing (a documented install that
    never ran `make translations`)."""
    copy = tmp_path / "translations"
    shutil.copytree(pbem.i18n.TRANSLATIONS, copy)
    missing = copy / "nl" / "LC_MESSAGES" / "messages.mo"
    missing.unlink()
    monkeypatch.setattr(pbem.config, "catalog_problems",  # where the settings' check reads it
                        functools.partial(pbem.i18n.catalog_problems, copy))
    return missing


def test_production_refuses_to_start_without_a_compiled_catalog(without_dutch: Path) -> None:
    config = load_config(PRODUCTION, read_dotenv=False)
    with pytest.raises(ConfigError, match=f"{without_dutch} is missing"):
        check_config(config)


def test_development_warns_of_a_missing_catalog_and_starts(
        without_dutch: Path, caplog: pytest.LogCaptureFixture) -> None:
    check_config(load_config({}, read_dotenv=False))
    assert f"{without_dutch} is missing" in caplog.text
