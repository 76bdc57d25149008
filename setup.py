"""What a wheel needs beyond the Python: pyproject.toml holds the metadata, this adds one step.

A wheel must carry everything the app reads (issue 30: an installed pbem answered 500 on every
page). The Python, the migrations and the source catalogs are package data (pyproject.toml); this
step adds the two things that are not files of the package in a checkout:

- the folders at the top of the repository that the app reads (``templates/``, ``static/``,
  ``docs/rules/``), copied to ``pbem/<folder>`` in the wheel, where ``pbem.resources.shipped``
  finds them;
- the compiled catalogs (``*.mo``, git-ignored), compiled from each language's ``messages.po``
  by Babel, as ``make translations`` does in a checkout.

An editable install (``pip install -e .``, used by ``make``) reads the checkout itself, so the step
does nothing there.

It also compiles the optional native playout cores (``engine/games/*/_native.pyx``, Cython) when
Cython and a working C compiler are both at hand, and builds a pure-Python wheel, saying so in
one line, when either is missing: the engine then plays the same playouts in pure Python.
``PBEM_NATIVE=0`` builds without them. ``make native`` builds them in place in a checkout
(``python setup.py build_ext --inplace``).
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SHIPPED = ("templates", "static", "docs/rules")
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


def compiler_works() -> bool:
    """Whether the C compiler setuptools would use (``CC``, else the platform's) compiles C."""
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler

    compiler = new_compiler()
    customize_compiler(compiler)  # type: ignore[no-untyped-call]
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "probe.c"
        source.write_text("int probe(void) { return 0; }\n")
        try:
            compiler.compile([str(source)], output_dir=folder)
        except Exception:  # CompileError, or no compiler at all
            return False
    return True


def why_not_native() -> str | None:
    """Why the native cores cannot be built here (None: they can)."""
    if os.environ.get("PBEM_NATIVE", "1") == "0":
        return "PBEM_NATIVE=0"
    try:
        import Cython  # noqa: F401
    except ImportError:
        return "no Cython"
    if not compiler_works():
        return "no C compiler"
    return None


CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def native_sources() -> list[str]:
    """The cores' Cython sources, relative to the checkout."""
    return sorted(str(path.relative_to(HERE)) for path in HERE.glob("engine/games/*/_native.pyx"))


def native_extensions() -> list[Extension]:
    """The Cython playout cores, compiled (C in build/cython), or none: see the docstring."""
    reason = why_not_native()
    if reason is not None:
        print(f"native playouts: {reason}, pure Python", file=sys.stderr)
        return []
    from Cython.Build import cythonize

    sources = native_sources()
    flags = ["-O3", "-g0"]  # no debug information: a smaller core, compiled sooner
    if platform.machine().lower() in ("x86_64", "amd64"):
        flags.append("-mpopcnt")  # every x86-64 of the last 15 years; else a slow library call
    # optional: a core that fails to compile leaves a wheel without it, not no wheel
    extensions = [Extension(name.removesuffix(".pyx").replace("/", "."), [name],
                            extra_compile_args=flags, optional=True) for name in sources]
    return list(cythonize(extensions, build_dir="build/cython", quiet=True, nthreads=CORES,
                          include_path=[str(HERE)],  # engine/games/_bitboards.pxd
                          compiler_directives={"language_level": 3}))


def build_in_place(log: Path) -> str:
    """``make native``: compile the cores next to their sources, the compiler's words in ``log``;
    the one line to print. Without reading pyproject.toml: the venv's setuptools may be older
    than the one the build system asks for, and building an extension needs none of it."""
    import contextlib

    from setuptools import Distribution

    reason = why_not_native()
    if reason is not None:
        return f"native playouts: {reason}, pure Python"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out, contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            dist = Distribution({"name": "pbem-native", "ext_modules": native_extensions(),
                                 # the cores side by side: make test waits for them
                                 "script_args": ["build_ext", "--inplace",
                                                 f"--parallel={CORES}"]})
            dist.parse_command_line()
            dist.run_commands()
        except (Exception, SystemExit) as error:
            print(f"failed: {error!r}")
            return f"native playouts: the build failed (see {log}), pure Python"
    # Built is not enough: each core must import in a fresh interpreter (engine.native).
    packages = [name.removesuffix("/_native.pyx").replace("/", ".") for name in native_sources()]
    probe = subprocess.run(
        [sys.executable, "-c", "from engine import native; print(*(native.load(p) is not None "
         f"for p in {packages!r}))"], cwd=HERE, capture_output=True, text=True, check=False)
    with open(log, "a") as out:
        out.write(f"import check: {probe.stdout}{probe.stderr}")
    if probe.returncode or set(probe.stdout.split()) != {"True"}:
        return f"native playouts: not built or not importable (see {log}), pure Python"
    return "native playouts: built"


if __name__ == "__main__" and sys.argv[1:] == ["native"]:
    print(build_in_place(HERE / "build" / "native.log"))
else:
    setup(cmdclass={"build_py": BuildWithData}, ext_modules=native_extensions())
