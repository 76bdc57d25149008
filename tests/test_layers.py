"""Imports only go down: engine below pbem, services below the web and the dashboard, the
features (tournaments, challenges, ratings, channels, calendar) above the core of the service,
and no cycles, neither between pbem's packages nor between any two of its modules.

Every import counts, also those inside functions: a late import hides a dependency, it does not
remove it. The nodes of the package cycle check are pbem's packages and top-level modules
(``pbem.web``, ``pbem.links``, ...); ``pbem`` itself is the app factory in ``pbem/__init__.py``.
The module check takes every module as a node (a package's ``__init__`` is the package's name).

Imports stand at the top of a module: one inside a function is allowed only in a module of
:data:`LATE_IMPORTS`, whose reason is a measured start-up cost, and in pbem/cli/ (its doc gives
the measurement).

The core never imports a feature: it publishes what happens (:mod:`pbem.services.events`) and the
features subscribe (:mod:`pbem.features`), so a new feature adds a package and a line there.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOWER_LAYERS = ("pbem.services", "pbem.mail", "pbem.scheduler", "pbem.tasks", "pbem.clock",
                "pbem.inbound",
                "pbem.links", "pbem.reply_addresses", "pbem.addresses", "pbem.models", "pbem.db",
                "pbem.errors", "pbem.positions")
UPPER_LAYERS = ("pbem.web", "pbem.admin")
# What a game needs to be played, timed and mailed; it knows no feature.
CORE = ("pbem.services", "pbem.models", "pbem.mail", "pbem.clock", "pbem.positions", "pbem.links",
        "pbem.db", "pbem.errors", "pbem.reply_addresses", "pbem.addresses", "pbem.i18n")
# Built on the core, reacting to its events: the features' packages, and where they are connected.
FEATURES = ("pbem.tournaments", "pbem.challenges", "pbem.ratings", "pbem.channels",
            "pbem.calendar", "pbem.analysis", "pbem.conditional",
            "pbem.chat", "pbem.notifications", "pbem.features")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(path: Path) -> str:
    name = module_name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imported_names(source: str, package: str) -> Iterator[str]:
    """Every module ``source`` (a module of ``package``) imports, absolute, wherever the import
    statement stands."""
    for node in ast.walk(parsed(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # ``from pbem import links`` imports the module pbem.links; ``from pbem import
            # create_app`` imports pbem: both are yielded, and imports() keeps what exists.
            yield from (f"{base}.{alias.name}" for alias in node.names)
            yield base + "?"


@cache
def parsed(source: str) -> ast.Module:
    return ast.parse(source)  # once for both checks


@cache
def sources() -> dict[Path, str]:
    """Each module file of engine and pbem -> its text."""
    return {path: path.read_text() for top in ("engine", "pbem")
            for path in sorted((ROOT / top).rglob("*.py"))}


@cache
def imports() -> dict[str, set[str]]:
    """Module -> the modules of engine and pbem it imports."""
    return resolve({module_name(path): list(imported_names(source, package_of(path)))
                    for path, source in sources().items()})


def resolve(raw: dict[str, list[str]]) -> dict[str, set[str]]:
    """Keep the names that are modules of engine and pbem: ``base?`` (the module a ``from``
    import names) counts only when none of the names imported from it is a module itself."""
    found: dict[str, set[str]] = {}
    for module, names in raw.items():
        targets = {n for n in names if n in raw}
        for name in names:
            if name.endswith("?") and not any(t.startswith(name[:-1] + ".") for t in targets):
                targets.add(name[:-1])
        found[module] = {t for t in targets if t.split(".")[0] in ("engine", "pbem")}
    return found


def is_in(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def node_of(module: str) -> str:
    """pbem.web.play -> pbem.web; pbem.links -> pbem.links; pbem -> pbem."""
    return ".".join(module.split(".")[:2])


def package_graph(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, targets in edges.items():
        if not is_in(module, "pbem"):
            continue
        source = node_of(module)
        graph.setdefault(source, set())
        for target in targets:
            target_node = node_of(target)
            if is_in(target, "pbem") and target_node != source and target_node in {
                    node_of(m) for m in edges}:
                graph[source].add(target_node)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of nodes (first = last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def is_feature(module: str) -> bool:
    """pbem.tournaments.mail and pbem.tournaments.pairing are; pbem.services.moves is not.

    >>> [is_feature(m) for m in ("pbem.tournaments.mail", "pbem.services.moves")]
    [True, False]
    """
    return any(is_in(module, feature) for feature in FEATURES)


def module_graph(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """Module -> the other modules of pbem it imports."""
    return {module: {t for t in targets if is_in(t, "pbem") and t != module and t in edges}
            for module, targets in edges.items() if is_in(module, "pbem")}


def all_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each group of nodes that import each other round a circle (a strongly connected component
    of two or more), sorted: Tarjan's algorithm, without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            nxt = next((t for t in targets), None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


def violations(edges: dict[str, set[str]]) -> list[str]:
    found = []
    for module, targets in sorted(edges.items()):
        for target in sorted(targets):
            if is_in(module, "engine") and is_in(target, "pbem"):
                found.append(f"{module} imports {target}: the engine knows nothing of pbem")
            if any(is_in(module, low) for low in LOWER_LAYERS) and any(
                    is_in(target, up) for up in UPPER_LAYERS):
                found.append(f"{module} imports {target}: services, mail, scheduler and clock "
                             "sit below the web pages and the dashboard")
            if any(is_in(module, core) for core in CORE) and not is_feature(module) \
                    and is_feature(target):
                found.append(f"{module} imports {target}: the core knows no feature; it "
                             "publishes events (pbem.services.events) that features subscribe to")
    return found


def test_imports_only_go_down() -> None:
    assert violations(imports()) == []


def test_no_import_cycle_between_pbem_packages() -> None:
    assert find_cycle(package_graph(imports())) is None


def test_no_import_cycle_between_any_modules_of_pbem() -> None:
    assert all_cycles(module_graph(imports())) == []


# The checks can fail: each rule, broken on purpose in a made-up graph.
@pytest.mark.parametrize(("edges", "complaint"), [
    ({"engine.games.mosey.rules": {"pbem.models"}}, "the engine knows nothing of pbem"),
    ({"pbem.services.games": {"pbem.web.support"}}, "sit below the web pages"),
    ({"pbem.scheduler.sweep": {"pbem.admin.queries"}}, "sit below the web pages"),
    ({"pbem.mail.outbox": {"pbem.admin"}}, "sit below the web pages"),
    ({"pbem.services.moves": {"pbem.ratings.service"}}, "the core knows no feature"),
    ({"pbem.models": {"pbem.tournaments.tables"}}, "the core knows no feature"),
    ({"pbem.services.games": {"pbem.challenges.service"}}, "the core knows no feature"),
])
def test_a_wrong_import_is_reported(edges: dict[str, set[str]], complaint: str) -> None:
    assert complaint in " ".join(violations(edges))


def test_a_cycle_between_packages_is_reported() -> None:
    edges = {"pbem.services.common": {"pbem.links"}, "pbem.links": {"pbem.clock.deadlines"},
             "pbem.clock.deadlines": {"pbem.services.common"}}
    assert find_cycle(package_graph(edges)) == ["pbem.clock", "pbem.services", "pbem.links",
                                                "pbem.clock"]


def test_a_feature_may_use_the_core() -> None:
    assert violations({"pbem.tournaments.service": {"pbem.services.games"},
                       "pbem.ratings.service": {"pbem.services.events"},
                       "pbem.features": {"pbem.ratings.service"}}) == []


def test_a_cycle_between_modules_of_one_package_is_reported() -> None:
    edges = {"pbem.services.games": {"pbem.services.timeouts", "pbem.services.common"},
             "pbem.services.timeouts": {"pbem.services.moves"},
             "pbem.services.moves": {"pbem.services.games"},
             "pbem.services.common": set(), "pbem.web.signin": {"pbem.web.signup"},
             "pbem.web.signup": {"pbem.web.signin"}}
    assert all_cycles(module_graph(edges)) == [
        ["pbem.services.games", "pbem.services.moves", "pbem.services.timeouts"],
        ["pbem.web.signin", "pbem.web.signup"]]
    assert find_cycle(package_graph(edges)) is None  # which the package check cannot see


def test_lazy_and_relative_imports_are_seen() -> None:
    source = "def f():\n    from pbem.web import support\n    from . import sibling\n"
    names = resolve({"pbem.services.example": list(imported_names(source, "pbem.services")),
                     "pbem.web.support": [], "pbem.services.sibling": [], "pbem": []})
    assert names["pbem.services.example"] == {"pbem.web.support", "pbem.services.sibling"}


def test_from_a_package_import_a_function_imports_the_package() -> None:
    names = resolve({"pbem.cli": list(imported_names("from pbem import create_app", "pbem")),
                     "pbem": []})
    assert names["pbem.cli"] == {"pbem"}


# Modules whose functions may import: each is imported where start-up must stay light, and what
# its functions import would make it heavy (measured; the module's doc says more).
LATE_IMPORTS = {
    "pbem": "a search worker imports the package: 0.01 s and 11 MB, 1.5 s and 100 MB with the app",
    "pbem.entry": "the `pbem` script: a spawned search worker imports it, then nothing of the app",
    "engine.cli": "CairoSVG takes about 0.4 s to import, and only `render -o board.png` needs it",
}
LATE_IMPORTS_TOO = "pbem.cli"  # every command imports what it needs: pbem/cli/__init__.py says why


def late_imports(source: str) -> list[str]:
    """``function:line`` of each import statement inside a function of ``source``."""
    return sorted(f"{function.name}:{node.lineno}" for function in ast.walk(parsed(source))
                  if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
                  for node in ast.walk(function) if isinstance(node, ast.Import | ast.ImportFrom))


def unexplained_late_imports(sources: dict[str, str]) -> list[str]:
    """Module -> its source, in; each late import of a module that may have none, out."""
    return [f"{module}.{where}" for module, source in sorted(sources.items())
            if module not in LATE_IMPORTS and not is_in(module, LATE_IMPORTS_TOO)
            for where in late_imports(source)]


def test_imports_stand_at_the_top_of_modules() -> None:
    assert unexplained_late_imports({module_name(path): source
                                     for path, source in sources().items()}) == []


def test_a_late_import_is_reported() -> None:
    late = "import os\n\ndef f():\n    x = 1\n    from pbem import links\n    return x\n"
    assert unexplained_late_imports({"pbem.services.games": late, "pbem.entry": late,
                                     "pbem.cli.operators": late}) == ["pbem.services.games.f:5"]
