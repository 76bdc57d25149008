"""Addresses and names that break delivery are refused where they are typed (issues 12 and 13):
by pbem.addresses, by the command line and by the dashboard's forms alike."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner
from sqlmodel import select

from pbem.addresses import BadAddress, BadName, check_address, check_name, parse_player
from pbem.cli import main
from pbem.db import Database
from pbem.models import GameRecord, Player

BAD_ADDRESSES = ["ann@@example.org", "ann@example..org", "ann@example.org.",
                 '"><xss>@example.test', "ännä@example.test", "x@", "@example.org",
                 "ann example@example.org", "a" * 250 + "@example.org"]
BAD_NAMES = ["Ann\r\nBcc: evil@example.test", "Ann\nX", "Ann\u2028X", "Ann\x0bX", "Ann\x00",
             "A" * 101, 'Ann "the best"', "<Ann>"]


@pytest.mark.parametrize("address", BAD_ADDRESSES)
def test_addresses_that_break_delivery_are_refused(address: str) -> None:
    with pytest.raises(BadAddress, match="email address"):
        check_address(address)


@pytest.mark.parametrize("name", BAD_NAMES)
def test_names_that_break_headers_are_refused(name: str) -> None:
    with pytest.raises(BadName):
        check_name(name)


def test_good_names_and_addresses_are_kept_as_people_write_them() -> None:
    assert parse_player("Anne-Marie O'Neill <Anne.Marie@Example.ORG>") == (
        "Anne-Marie O'Neill", "anne.marie@example.org")
    assert parse_player("ann+pbem@example.org") == ("ann+pbem", "ann+pbem@example.org")
    assert check_address("ann@bücher.example") == "ann@xn--bcher-kva.example"
    assert check_name("Jürgen Ünal") == "Jürgen Ünal"


@pytest.mark.parametrize("player", [f"Eve <{a}>" for a in BAD_ADDRESSES[:5]]
                         + ["Eve\nBcc: evil@x.test <e@x.test>", "x@"])
def test_the_command_line_refuses_them_and_creates_nothing(
        player: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    url = f"sqlite:///{tmp_path / 'pbem.db'}"
    env = {"PBEM_DATABASE_URL": url, "PBEM_ENV": "development"}
    runner = CliRunner()
    assert runner.invoke(main, ["db", "upgrade"], env=env).exit_code == 0
    created = runner.invoke(main, ["create-game", "mosey", "--player", player,
                                   "--player", "Bob <bob@example.test>"], env=env)
    assert created.exit_code != 0
    assert "email address" in created.output or "one line" in created.output
    database = Database(url)
    with database.session() as session:
        assert session.exec(select(GameRecord)).all() == []
        assert session.exec(select(Player)).all() == []
    database.dispose()
