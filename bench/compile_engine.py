"""A compiled copy of the engine for the long strength runs: the same code, built with mypyc.

    .venv/bin/python bench/compile_engine.py [--out build/compiled]
    cd build/compiled && ../../.venv/bin/python bench/bot_matches.py \\
        --log ../../bench/results/bot_matches.jsonl --pairing strong-normal --game stigmergy

Copies ``engine/`` and ``bench/`` to ``--out`` and compiles the engine's modules there with
mypyc, mypy's compiler (a development dependency; the engine passes ``mypy --strict``), all but
those it cannot compile: ``engine/text.py`` (``Text`` subclasses ``str``), ``engine/hexsvg.py``,
``engine/cli.py`` and the packages' ``__init__`` and ``__main__``. The service never uses it.

The compiled modules are the same code on the same dicts, sets and ``random.Random``, so they
play the same moves. The script checks that rather than trusting it: it plays a whole seeded game
of Stigmergy and one of Rifugio between bots with the compiled copy and with the source, compares
every move and confidence, and prints the seconds each took. It exits with status 1 when they
differ; use the copy only when they match, so a log (``--log``) can mix games from both.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_COMPILED = {"engine/text.py", "engine/hexsvg.py", "engine/cli.py"}

# Whole games between bots: every move and confidence, hashed (run in each copy's folder).
CHECK = """
import hashlib, sys
sys.path.insert(0, ".")
from engine import new_game
from engine.bots import Bot
for gid, options, budget in (("stigmergy", {"size": 5}, 120), ("rifugio", {"players": 3}, 40)):
    game = new_game(gid, **options)
    state, digest = game.start(seed=3), hashlib.sha256()
    bots = [Bot.at("normal", seed=seat, playouts=budget) for seat in range(game.num_players)]
    while (seat := game.to_move(state)) is not None:
        move, confidence = bots[seat].choose(game, state, seat)
        digest.update(f"{move} {confidence!r};".encode())
        state = game.play(state, move)
    print(gid, digest.hexdigest())
"""


def modules(folder: Path) -> list[str]:
    found = sorted(str(path.relative_to(folder)) for path in (folder / "engine").rglob("*.py"))
    return [name for name in found if name not in NOT_COMPILED
            and Path(name).name not in ("__init__.py", "__main__.py")]


def build(out: Path) -> None:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for part in ("engine", "bench"):
        shutil.copytree(ROOT / part, out / part,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "results"))
    subprocess.run([sys.executable, "-m", "mypyc", *modules(out)], cwd=out, check=True,
                   stdout=subprocess.DEVNULL)


def check(folder: Path) -> tuple[str, float]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHECK], cwd=folder, check=True,
                          capture_output=True, text=True)
    return done.stdout, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "compiled")
    out = parser.parse_args().out.resolve()
    build(out)
    compiled, fast = check(out)
    source, slow = check(ROOT)
    print(f"compiled {len(modules(out))} modules into {out}")
    print(f"two whole games between bots: {slow:.1f} s from source, {fast:.1f} s compiled "
          f"({slow / fast:.2f} times as fast)")
    if compiled != source:
        print("the compiled copy plays differently; do not use it:\n" + compiled + source)
        sys.exit(1)
    print("every move and confidence the same")


if __name__ == "__main__":
    main()
