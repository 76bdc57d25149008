"""What a wheel needs beyond the Python: pyproject.toml holds the metadata, this adds one step.

A wheel must carry everything the app reads (issue 30: an installed pbem answered 500 on every
page). The Python, the migrations and the source catalogs are package data (pyproject.toml); this
step adds the two things that are not files of the package in a checkout:

- the folders at the top of the repository that the app reads (``templates/``, ``docs/rules/``),
  copied to ``pbem/<folder>`` in the wheel, where ``pbem.resources.shipped`` finds them;
- the compiled catalogs (``*.mo``, git-ignored), compiled from each language's ``messages.po``
  by Babel, as ``make translations`` does in a checkout.

An editable install (``pip install -e .``, used by ``make``) reads the checkout itself, so the step
does nothing there.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SHIPPED = ("templates", "docs/rules")
"""Top-level folders the app reads; ``pbem/<folder>`` in the wheel (pbem.resources.shipped)."""


class BuildWithData(build_py):
    """``build_py``, then the shipped folders and the compiled catalogs into the build."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        package = Path(self.build_lib) / "pbem"
        for folder in SHIPPED:
            target = package / folder
            shutil.rmtree(target, ignore_errors=True)  # nothing stale from an earlier build
            shutil.copytree(HERE / folder, target,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        self.compile_catalogs(package / "translations")

    def compile_catalogs(self, folder: Path) -> None:
        """Babel's own compiler (``pybabel compile``), on the build's copy of the catalogs: the
        checkout is left as it was. Fuzzy entries stay out, as in ``make translations``."""
        from babel.messages.setuptools_frontend import compile_catalog

        command = compile_catalog(self.distribution)
        command.directory = str(folder)
        command.domain = "messages"
        command.finalize_options()
        if command.run():
            raise SystemExit(f"the catalogs in {folder} have errors (see above)")
        missing = [po for po in folder.glob("*/LC_MESSAGES/messages.po")
                   if not po.with_suffix(".mo").is_file()]
        if missing:
            raise SystemExit(f"not compiled: {', '.join(map(str, missing))}")


setup(cmdclass={"build_py": BuildWithData})
