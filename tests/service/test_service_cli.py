"""The ``pbem`` command: migrate, create a game, deliver its mail, seed a demo."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlmodel import select

import engine
from pbem.cli import main, parse_duration
from pbem.clock.tables import GameClock
from pbem.db import Database
from pbem.models import GameRecord, GameStatus, Player


@pytest.fixture
def env(tmp_path: Path, smtp_server: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.chdir(tmp_path)  # no stray .env is read
    return {"PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
            "PBEM_SECRET_KEY": "cli-secret", "PBEM_BASE_URL": "https://pbem.example",
            "PBEM_SMTP_HOST": smtp_server.host, "PBEM_SMTP_PORT": str(smtp_server.port),
            "PBEM_MAIL_FROM": "pbem <pbem@pbem.example>"}


def test_create_a_game_and_deliver_its_invitations(env: dict[str, str], smtp_server: Any,
                                                  any_game: str) -> None:
    runner = CliRunner()
    upgraded = runner.invoke(main, ["db", "upgrade"], env=env)
    assert upgraded.exit_code == 0, upgraded.output
    info = engine.GAMES[any_game]
    option = info.options[0] if info.options else None
    args = ["create-game", any_game, "--per-move", "3d",
            "--player", "Ann Example <ann@example.test>", "--player", "bob@example.test"]
    if option is not None:
        args += ["--option", f"{option.name}={option.choices[-1]}"]
    seats = engine.new_game(any_game, **({option.name: option.choices[-1]} if option else {}))
    for n in range(2, seats.num_players):
        args += ["--player", f"p{n}@example.test"]
    created = runner.invoke(main, args, env=env)
    assert created.exit_code == 0, created.output
    match = re.fullmatch(r"game (\d+): https://pbem\.example/g/(\S+)\n", created.stdout)
    assert match, created.output
    database = Database(env["PBEM_DATABASE_URL"])
    with database.session() as session:
        game = session.exec(select(GameRecord)).one()
        clock = session.exec(select(GameClock)).one()
        names = {p.email: p.name for p in session.exec(select(Player))}
    assert game.public_id == match[2] and clock.game_id == game.id
    assert clock.time_control is not None and clock.time_control["per_move_seconds"] == 3 * 86400
    if option is not None:
        assert game.options[option.name] == option.choices[-1]
    assert names["ann@example.test"] == "Ann Example" and names["bob@example.test"] == "bob"
    delivered = runner.invoke(main, ["deliver"], env=env)
    assert delivered.exit_code == 0 and f"sent {seats.num_players}," in delivered.output
    assert len(smtp_server.messages) == seats.num_players


def test_bad_arguments_get_clear_errors(env: dict[str, str], any_game: str) -> None:
    runner = CliRunner()
    runner.invoke(main, ["db", "upgrade"], env=env)
    unknown = runner.invoke(main, ["create-game", "chess", "--player", "a@x.test",
                                   "--player", "b@x.test"], env=env)
    assert unknown.exit_code != 0 and "unknown game" in unknown.output
    bad_option = runner.invoke(main, ["create-game", any_game, "--option", "nonsense",
                                      "--player", "a@x.test", "--player", "b@x.test"], env=env)
    assert bad_option.exit_code != 0 and "NAME=VALUE" in bad_option.output
    with pytest.raises(Exception, match="not a duration"):
        parse_duration("three days")
    assert parse_duration("1d12h").total_seconds() == 36 * 3600
    bad_time = runner.invoke(main, ["create-game", any_game, "--per-move", "soon",
                                    "--player", "a@x.test", "--player", "b@x.test"], env=env)
    assert bad_time.exit_code != 0 and "not a duration" in bad_time.output


def test_demo_seeds_a_running_game(env: dict[str, str]) -> None:
    if not engine.GAMES:
        pytest.skip("the game catalogue is empty")
    runner = CliRunner()
    runner.invoke(main, ["db", "upgrade"], env=env)
    result = runner.invoke(main, ["demo"], env=env)
    assert result.exit_code == 0, result.output
    assert "alice@example.test" in result.output and "https://pbem.example/g/" in result.output
    with Database(env["PBEM_DATABASE_URL"]).session() as session:
        assert session.exec(select(GameRecord)).one().status == GameStatus.ACTIVE


def test_production_refuses_the_default_secret(env: dict[str, str]) -> None:
    result = CliRunner().invoke(main, ["db", "upgrade"],
                                env={**env, "PBEM_ENV": "production", "PBEM_SECRET_KEY": ""})
    assert result.exit_code == 1
    assert result.output.startswith("Error: PBEM_SECRET_KEY must be set")


def test_the_app_refuses_the_default_secret_in_production(tmp_path: Path) -> None:
    from pbem import create_app
    from pbem.config import ConfigError

    with pytest.raises(ConfigError, match="PBEM_SECRET_KEY"):
        create_app({"ENV": "production", "DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}"},
                   read_env=False)


def test_the_organiser_starts_and_aborts_games(env: dict[str, str], any_game: str) -> None:
    runner = CliRunner()
    runner.invoke(main, ["db", "upgrade"], env=env)
    players = ["--player", "a@x.test", "--player", "b@x.test"]
    for n in range(2, engine.new_game(any_game).num_players):
        players += ["--player", f"p{n}@x.test"]
    created = runner.invoke(main, ["create-game", any_game, *players], env=env)
    game_id = created.output.split()[1].rstrip(":")
    started = runner.invoke(main, ["start-game", game_id], env=env)
    assert started.exit_code == 0, started.output
    again = runner.invoke(main, ["start-game", game_id], env=env)
    assert again.exit_code != 0 and "already started" in again.output
    aborted = runner.invoke(main, ["abort-game", game_id, "--reason", "test"], env=env)
    assert aborted.exit_code == 0, aborted.output
    with Database(env["PBEM_DATABASE_URL"]).session() as session:
        assert session.exec(select(GameRecord)).one().status == GameStatus.ABORTED
    missing = runner.invoke(main, ["abort-game", "nope"], env=env)
    assert missing.exit_code != 0 and "no game" in missing.output


def test_create_a_game_with_a_fischer_clock_and_a_policy(env: dict[str, str]) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["db", "upgrade"], env=env).exit_code == 0
    made = runner.invoke(main, ["create-game", "mosey", "--player", "Ann <ann@example.test>",
                                "--player", "Bob <bob@example.test>", "--time-control",
                                "fischer 48h+24h max 96h, weekends off", "--timeout-policy",
                                "hold", "--no-vacations"], env=env)
    assert made.exit_code == 0, made.output
    with Database(env["PBEM_DATABASE_URL"]).session() as session:
        clock = session.exec(select(GameClock)).one()
    assert clock.time_control == {"kind": "fischer", "initial_seconds": 172800,
                                  "increment_seconds": 86400, "maximum_seconds": 345600,
                                  "weekends_off": True}
    assert clock.timeout_policy == "hold" and clock.vacations_allowed is False
    bad = runner.invoke(main, ["create-game", "mosey", "--player", "a@example.test",
                               "--player", "b@example.test", "--time-control", "fischer 2x"],
                        env=env)
    assert bad.exit_code != 0 and "fischer 48h+24h max 96h" in bad.output


@pytest.mark.parametrize("policy", ["pass", "random", "bot", "forfeit", "forfeit-bot", "grace",
                                    "hold"])
def test_create_game_offers_every_timeout_policy(env: dict[str, str], policy: str) -> None:
    """One list of policies (pbem.clock.deadlines.POLICIES) for the CLI, the forms and docs."""
    from pbem.clock.deadlines import POLICIES

    assert policy in POLICIES
    runner = CliRunner()
    assert runner.invoke(main, ["db", "upgrade"], env=env).exit_code == 0
    made = runner.invoke(main, ["create-game", "mosey", "--player", "a@example.test",
                                "--player", "b@example.test", "--timeout-policy", policy],
                         env=env)
    assert made.exit_code == 0, made.output
    with Database(env["PBEM_DATABASE_URL"]).session() as session:
        assert session.exec(select(GameClock)).one().timeout_policy == policy


def test_create_game_names_its_organiser_or_warns_that_nobody_is_told(
        env: dict[str, str]) -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["db", "upgrade"], env=env).exit_code == 0
    players = ["--player", "a@example.test", "--player", "b@example.test"]
    alone = runner.invoke(main, ["create-game", "mosey", *players], env=env)
    assert alone.exit_code == 0
    assert alone.stderr.startswith("warning: no --organiser and PBEM_ALERT_EMAILS is empty")
    watched = runner.invoke(main, ["create-game", "mosey", *players, "--organiser",
                                   "Olga <olga@example.test>"], env=env)
    assert watched.exit_code == 0 and watched.stderr == ""
    alerted = runner.invoke(main, ["create-game", "mosey", *players],
                            env={**env, "PBEM_ALERT_EMAILS": "ops@example.test"})
    assert alerted.exit_code == 0 and alerted.stderr == ""
    with Database(env["PBEM_DATABASE_URL"]).session() as session:
        games = session.exec(select(GameRecord).order_by(GameRecord.id))
        organisers = [g.organiser_id for g in games]
        olga = session.exec(select(Player).where(Player.email == "olga@example.test")).one()
    assert organisers == [None, olga.id, None]
    robot = runner.invoke(main, ["create-game", "mosey", *players, "--organiser", "bot"],
                          env=env)
    assert robot.exit_code == 2 and "the organiser must be a person" in robot.output


def test_the_docs_describe_exactly_the_timeout_policies() -> None:
    from pbem.clock.deadlines import POLICIES

    text = (Path(__file__).resolve().parents[2] / "docs" / "scheduler.md").read_text()
    table = text[text.index("| policy | what happens |"):].split("\n\n")[0]
    documented = re.findall(r"^\| `([a-z-]+)` \|", table, flags=re.MULTILINE)
    assert sorted(documented) == sorted(POLICIES)
