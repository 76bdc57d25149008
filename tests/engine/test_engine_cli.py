"""The terminal front end: a game played at the prompt, and a position drawn to a real PNG."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from engine import GAMES, new_game
from engine.base import Game
from engine.cli import main, play, split_moves

ROOT = Path(__file__).resolve().parents[2]


def test_split_moves_keeps_moves_with_spaces_together() -> None:
    assert split_moves("G5xF4  B2xD2") == ["G5xF4", "B2xD2"]
    assert split_moves("take 2; lay 0,1 r3 ;end") == ["take 2", "lay 0,1 r3", "end"]


class Typist:
    """Types at the prompt: a few scripted lines, then random legal moves.

    It keeps its own copy of the game by following what the prompt prints, so it always knows
    what is legal.
    """

    def __init__(self, game: Game[Any, Any], seed: int, script: list[str]) -> None:
        self.game, self.state = game, game.start(seed=seed)
        self.rng = random.Random(seed)
        self.script, self.lines = script, []  # type: list[str], list[str]

    def write(self, line: str) -> None:
        self.lines.append(line)
        if " (computer) plays " in line:
            self.state = self.game.play(self.state, line.split(" plays ", 1)[1])

    def read(self, prompt: str) -> str:
        self.lines.append(prompt)
        if self.script:
            return self.script.pop(0)
        move = self.game.random_move(self.state, self.rng)
        self.state = self.game.play(self.state, move)
        return str(move)


@pytest.mark.parametrize("gid", list(GAMES))
def test_a_person_plays_a_whole_game_at_the_prompt(gid: str) -> None:
    """Typed moves, a typo, a request for the legal moves, and a random opponent, to the end."""
    game = new_game(gid)
    typist = Typist(game, seed=3, script=["?", "this is not a move"])
    final = play(game, seed=3, computer_seats=set(range(1, game.num_players)),
                 read=typist.read, write=typist.write)
    assert game.outcome(final) is not None
    assert final == typist.state
    text = "\n".join(typist.lines)
    assert "Legal moves:" in text
    assert "Not played:" in text
    assert "Game over" in text


def test_quitting_at_the_prompt_stops_the_game() -> None:
    game = new_game(next(iter(GAMES)))
    typist = Typist(game, seed=1, script=["quit"])
    final = play(game, seed=1, computer_seats=set(), read=typist.read, write=typist.write)
    assert final == game.start(seed=1)


def test_render_writes_a_png_of_the_position(tmp_path: Path) -> None:
    gid = next(iter(GAMES))
    game = new_game(gid)
    state = game.start(seed=1)
    moves = []
    for _ in range(3):
        move = game.legal_moves(state)[0]
        moves.append(str(move))
        state = game.play(state, move)
    out = tmp_path / "board.png"
    assert main(["render", gid, "--moves", "; ".join(moves), "-o", str(out)]) == 0
    width, height = Image.open(out).size
    assert width > 200 and height > 200
    svg_out = tmp_path / "board.svg"
    assert main(["render", gid, "--moves", "; ".join(moves), "-o", str(svg_out)]) == 0
    assert svg_out.read_text().startswith("<svg")


def test_render_reports_an_illegal_move_by_number(tmp_path: Path) -> None:
    gid = next(iter(GAMES))
    with pytest.raises(SystemExit, match="move 1"):
        main(["render", gid, "--moves", "Z99-Z98", "-o", str(tmp_path / "x.png")])


def test_unknown_game_exits_with_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "no-such-game"]) == 2
    assert "choose one of" in capsys.readouterr().err


def test_python_dash_m_engine_lists_the_catalogue() -> None:
    out = subprocess.run([sys.executable, "-m", "engine", "list"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    for gid in GAMES:
        assert gid in out
