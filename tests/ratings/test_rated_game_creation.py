"""Asking for a rated game: the dashboard's checkbox and ``pbem create-game --rated``; neither
lets a computer player into a rated game."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from flask.testing import FlaskClient
from flask_babel import force_locale, gettext
from sqlmodel import select

from pbem.cli import main
from pbem.db import Database
from pbem.models import GameRecord
from tests.ratings.support import QUICK, QUICK_OPTIONS
from tests.support import csrf_of

LABEL = "Rated game (counts for the players' ratings)"


def _checkbox(page: str) -> str:
    match = re.search(r'<input type="checkbox" id="rated"[^>]*>', page)
    assert match, "no rated-game checkbox"
    return match[0]


def _form(page: str, **fields: str) -> dict[str, str]:
    return {"csrf_token": csrf_of(page), "game": QUICK, "option-board": "2-3", "name-0": "Ann",
            "email-0": "ann@example.test", "name-1": "Bob", "email-1": "bob@example.test",
            "seat_order": "given", "time_control": "3d", "timeout_policy": "pass",
            "reminders": "24h", **fields}


def test_the_checkbox_is_off_by_default_and_makes_a_rated_game(
        admin_client: FlaskClient, sqlite_database: Database) -> None:
    page = admin_client.get(f"/admin/games/new?game={QUICK}").text
    assert LABEL in page
    assert "checked" not in _checkbox(page)  # off by default
    plain = admin_client.post("/admin/games/new", data=_form(page))
    rated = admin_client.post("/admin/games/new", data=_form(page, rated="on"))
    assert plain.status_code == rated.status_code == 303
    with sqlite_database.session() as session:
        games = session.exec(select(GameRecord).order_by(GameRecord.id))
        assert [g.rated for g in games] == [False, True]


def test_the_form_refuses_a_rated_game_with_a_computer_player(
        admin_client: FlaskClient, sqlite_database: Database) -> None:
    page = admin_client.get(f"/admin/games/new?game={QUICK}").text
    refused = admin_client.post("/admin/games/new", data=_form(
        page, rated="on", **{"kind-1": "bot:easy", "name-1": "", "email-1": ""}))
    assert refused.status_code == 422
    assert "a game with a computer player cannot be rated" in refused.text
    assert "checked" in _checkbox(refused.text)  # kept as typed
    with sqlite_database.session() as session:
        assert session.exec(select(GameRecord)).all() == []


def test_the_refusal_is_translated(admin_client: FlaskClient) -> None:
    page = admin_client.get(f"/admin/games/new?game={QUICK}").text
    refused = admin_client.post("/admin/games/new", headers={"Accept-Language": "de"},
                                data=_form(page, rated="on", **{"kind-1": "bot:easy"}))
    with admin_client.application.test_request_context(), force_locale("de"):
        said = gettext("a game with a computer player cannot be rated: untick the box or give "
                       "every seat to a person")
        label = gettext("Rated game (counts for the players' ratings)")
    assert "Wertungspartie" in said
    assert said in refused.text and "Wertungspartie" in label


def _env(tmp_path: Path, monkeypatch: Any) -> dict[str, str]:
    monkeypatch.chdir(tmp_path)
    return {"PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
            "PBEM_SECRET_KEY": "cli-secret", "PBEM_BASE_URL": "https://pbem.example",
            "PBEM_MAIL_FROM": "pbem <pbem@example.test>"}


def test_the_command_line_makes_rated_games_and_refuses_computer_players(
        tmp_path: Path, monkeypatch: Any) -> None:
    env, runner = _env(tmp_path, monkeypatch), CliRunner()
    assert runner.invoke(main, ["db", "upgrade"], env=env).exit_code == 0
    board = [f"--option=board={QUICK_OPTIONS['board']}"]
    made = runner.invoke(main, ["create-game", QUICK, *board, "--rated", "--player",
                                "ann@example.test", "--player", "bob@example.test"], env=env)
    assert made.exit_code == 0, made.output
    refused = runner.invoke(main, ["create-game", QUICK, *board, "--rated", "--player",
                                   "ann@example.test", "--player", "bot:easy"], env=env)
    assert refused.exit_code == 2
    assert "a game with a computer player cannot be rated" in refused.output
    with Database(env["PBEM_DATABASE_URL"]).session() as session:
        assert [g.rated for g in session.exec(select(GameRecord))] == [True]
