"""README.md's map ("How it fits together") is the tree as it is: every folder and module it names
exists, and every package of pbem is on it, so a newcomer reading it finds what is there.

The map is the first code block after the heading. A line that starts at the margin names a
top folder (``pbem/``); an indented line names, before its first gap of two spaces, folders
(``services/``) and modules (``turns.py``) in it; a line indented further goes on with the
description of the line above. ``<game>`` stands for any name.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEADING = "## How it fits together"
CONTINUATION = 10  # a line indented this far or more goes on describing the line above


def map_lines(readme: str) -> list[str]:
    """The lines of the map's code block."""
    after = readme.split(HEADING, 1)[1]
    return after.split("```", 2)[1].strip("\n").splitlines()


def named_paths(lines: list[str]) -> list[str]:
    """Every path the map names, relative to the checkout.

    >>> named_paths(["pbem/                 the service", "  web/ admin/   pages",
    ...              "                      more words", "  links.py  signed links"])
    ['pbem/', 'pbem/web/', 'pbem/admin/', 'pbem/links.py']
    """
    top = ""
    paths = []
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip() or indent >= CONTINUATION:
            continue
        names = re.split(r" {2,}", line.strip(), maxsplit=1)[0]
        if indent == 0:
            top = names.split()[0]
            paths.append(top)
            continue
        paths += [top + name for name in re.split(r"\s+", names)]
    return paths


def complaints(root: Path, lines: list[str]) -> list[str]:
    """What is wrong with the map of ``root``: names of nothing, and pbem's packages left out."""
    found = []
    paths = named_paths(lines)
    for path in paths:
        if not path.endswith(("/", ".py")):
            found.append(f"{path!r} is neither a folder (name/) nor a module (name.py)")
            continue
        real = path.split("<", 1)[0]
        if not (root / real).exists():
            found.append(f"the map names {path}, which is not in the tree")
    named = set(paths)
    for folder in sorted((root / "pbem").iterdir()):
        if folder.is_dir() and folder.name != "__pycache__" and any(folder.glob("*.py")) \
                and f"pbem/{folder.name}/" not in named:
            found.append(f"pbem/{folder.name}/ is a package the map does not name")
    return found


def test_the_readme_map_names_what_is_there() -> None:
    assert complaints(ROOT, map_lines((ROOT / "README.md").read_text())) == []


def test_a_wrong_map_is_reported(tmp_path: Path) -> None:
    for path in ("pbem/web/__init__.py", "pbem/links.py", "pbem/tournaments/__init__.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    lines = ["pbem/", "  web/ links.py  pages, signed links", "  models.py    gone"]
    assert complaints(tmp_path, lines) == [
        "the map names pbem/models.py, which is not in the tree",
        "pbem/tournaments/ is a package the map does not name"]
