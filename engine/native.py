"""The optional compiled playout cores: found, checked for staleness, and switched off at will.

A game with a native core keeps it beside its rules as ``engine/games/<game>/_native.pyx``
(Cython, on the bitboards of ``engine/games/_bitboards.pxd``), compiled in place by
``make native`` (``python setup.py native``) or into a wheel where a C compiler is at hand. The
pure-Python rules stay the reference and the fallback: a core that is not built, fails to
import, or is older than its source in a checkout is not used, and ``PBEM_NATIVE=0`` in the
environment (or :func:`pure`, for tests and benches) switches every core off. Cores play the same
moves as the pure path for the same random numbers, so nothing a player sees depends on whether
one is built (tests/engine/test_native.py).

>>> with pure():
...     enabled()
False
>>> status("engine.games.mosey") in ("built", "not built", "stale", "off")
True
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

ENVIRONMENT = "PBEM_NATIVE"
"""``PBEM_NATIVE=0``: never use a native core (and ``setup.py`` builds none)."""

_switch = {"on": os.environ.get(ENVIRONMENT, "1") != "0"}
_loaded: dict[str, ModuleType | None] = {}


def enabled() -> bool:
    """Whether native cores may be used (not switched off by the environment or :func:`pure`)."""
    return _switch["on"]


@contextmanager
def pure() -> Iterator[None]:
    """Inside: every game plays its pure-Python path, as without a compiler."""
    before = _switch["on"]
    _switch["on"] = False
    try:
        yield
    finally:
        _switch["on"] = before


def load(package: str) -> ModuleType | None:
    """``<package>._native`` when it is built and current and cores are enabled, else None."""
    if not enabled():
        return None
    if package not in _loaded:
        _loaded[package] = _import(package) if status(package) == "built" else None
    return _loaded[package]


def status(package: str) -> str:
    """``built``, ``not built``, ``stale`` (older than its ``.pyx``: rebuild with ``make native``)
    or ``off`` (switched off), for ``<package>._native``."""
    if not enabled():
        return "off"
    try:
        spec = importlib.util.find_spec(f"{package}._native")
    except ImportError:
        return "not built"
    if spec is None or spec.origin is None or spec.origin.endswith(".pyx"):
        return "not built"
    built = Path(spec.origin)
    sources = [built.parent / "_native.pyx", *built.parent.parent.glob("_*.pxd")]
    if any(source.is_file() and source.stat().st_mtime > built.stat().st_mtime
           for source in sources):
        return "stale"
    return "built"


def _import(package: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"{package}._native")
    except ImportError:  # built for another Python, a missing symbol: the pure path plays
        return None
