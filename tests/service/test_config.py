"""Settings that must stop pbem from starting: near-miss environments, weak secrets, the
debugger in production."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask

from pbem.cli import main
from pbem.config import ConfigError, check_config, load_config

GOOD_SECRET = "x" * 32


def _checked(**environ: str) -> dict[str, Any]:
    config = load_config({f"PBEM_{k}": v for k, v in environ.items()}, read_dotenv=False)
    check_config(config)
    return config


@pytest.mark.parametrize("env", ["Production", "PRODUCTION", "prod", "production ", "dev",
                                 "staging"])
def test_an_unknown_environment_is_refused(env: str) -> None:
    with pytest.raises(ConfigError, match="PBEM_ENV must be development, test or production"):
        _checked(ENV=env, SECRET_KEY=GOOD_SECRET)


@pytest.mark.parametrize("env", ["development", "test", "production"])
def test_the_three_environments_are_accepted(env: str) -> None:
    assert _checked(ENV=env, SECRET_KEY=GOOD_SECRET,
                    BASE_URL="https://pbem.example.org")["ENV"] == env


def test_production_refuses_a_short_secret_but_development_does_not() -> None:
    with pytest.raises(ConfigError, match="at least 32 characters"):
        _checked(ENV="production", SECRET_KEY="x" * 31)
    with pytest.raises(ConfigError, match="PBEM_SECRET_KEY must be set"):
        _checked(ENV="production")
    assert _checked(ENV="development", SECRET_KEY="short")["SECRET_KEY"] == "short"


def test_production_links_must_be_https() -> None:
    with pytest.raises(ConfigError, match="PBEM_BASE_URL must start with https:// in production"):
        _checked(ENV="production", SECRET_KEY=GOOD_SECRET, BASE_URL="http://pbem.example.org")
    _checked(ENV="development", BASE_URL="http://127.0.0.1:5000")


def test_production_refuses_the_werkzeug_debugger() -> None:
    environ = {"PBEM_ENV": "production", "PBEM_SECRET_KEY": GOOD_SECRET, "FLASK_DEBUG": "1",
               "PBEM_BASE_URL": "https://pbem.example.org"}
    with pytest.raises(ConfigError, match="FLASK_DEBUG"):
        check_config(load_config(environ, read_dotenv=False))
    assert load_config({**environ, "PBEM_ENV": "development"}, read_dotenv=False)["FLASK_DEBUG"]
    check_config(load_config({**environ, "FLASK_DEBUG": "0"}, read_dotenv=False))


def test_the_app_refuses_a_near_miss_environment(tmp_path: Path) -> None:
    from pbem import create_app

    with pytest.raises(ConfigError, match="PBEM_ENV"):
        create_app({"ENV": "Production", "SECRET_KEY": GOOD_SECRET,
                    "DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}"}, read_env=False)


def test_serve_refuses_debug_in_production(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    monkeypatch.chdir(tmp_path)
    started: list[Any] = []
    monkeypatch.setattr(Flask, "run", lambda self, **kw: started.append(kw))
    env = {"PBEM_ENV": "production", "PBEM_SECRET_KEY": GOOD_SECRET, "FLASK_DEBUG": "1",
           "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}",
           "PBEM_BASE_URL": "https://pbem.example.org"}
    refused = CliRunner().invoke(main, ["serve"], env=env)
    assert refused.exit_code == 1
    assert refused.output == "Error: FLASK_DEBUG (the Werkzeug debugger) must be off in " \
        "production\n"
    assert started == []
    served = CliRunner().invoke(main, ["serve"], env={**env, "FLASK_DEBUG": "0"})
    assert served.exit_code == 0, served.output
    assert started == [{"host": "127.0.0.1", "port": 5000, "threaded": True, "debug": False}]


@pytest.mark.parametrize("taken", ["web", "mail"])
def test_dev_refuses_a_taken_port_at_once_and_says_what_to_do(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, taken: str) -> None:
    """A second `make run` beside the first: a plain message, nothing started, no database
    made (it used to fail half-way with a traceback from the mail catcher)."""
    import socket

    monkeypatch.chdir(tmp_path)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]  # closed again: free for the other option
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = ["dev", "--port", str(port if taken == "web" else free),
                "--smtp-port", str(port if taken == "mail" else free)]
        env = {"PBEM_ENV": "development", "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'd.db'}"}
        refused = CliRunner().invoke(main, args, env=env)
    option = "--port" if taken == "web" else "--smtp-port"
    assert refused.exit_code == 1, refused.output
    assert f"127.0.0.1:{port} is in use" in refused.output
    assert f"is pbem dev already running? Stop it, or choose another port: pbem dev {option}" \
        in refused.output
    assert not (tmp_path / "d.db").exists()
