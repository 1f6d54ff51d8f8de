"""The package's import graph, lazy imports included: no cycle, and the cluster pool imports nothing of ours.

The graph is built from the source (ast), not by importing, so an import inside a function counts
as much as one at the top of a module. Imports under ``if TYPE_CHECKING:`` never run and are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import othello_engine

PACKAGE = "othello_engine"
ROOT = Path(othello_engine.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    """Every Python module of the package by dotted name (a package by its ``__init__``)."""
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    for path in ROOT.rglob("*.pyx"):  # compiled modules: imported, importing nothing of ours
        found[".".join(path.relative_to(ROOT.parent).with_suffix("").parts)] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:`` (imports there never run)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                for child in node.body:
                    skipped.update(id(n) for n in ast.walk(child))
    return skipped


def _edges(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules that importing ``name`` can start loading, at any time."""
    is_package = path.name == "__init__.py"
    here = name if is_package else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped = _type_checking_nodes(tree)
    targets: set[str] = set()

    def add(target: str) -> None:
        # Loading a.b.c loads a.b first; a module inside a.b never waits on a.b's __init__ for
        # that (the package is already being loaded when any of its modules runs).
        parts = target.split(".")
        for i in range(1, len(parts) + 1):
            prefix = ".".join(parts[:i])
            if prefix in modules and not (name.startswith(prefix + ".") or prefix == name):
                targets.add(prefix)

    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != PACKAGE:
                continue
            add(source)
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                if sub in modules:
                    add(sub)
                elif source in modules and source != name and name.startswith(source + "."):
                    # `from . import name` inside a package needs the package's __init__ to have
                    # defined `name` already: a real dependency on it.
                    targets.add(source)
    targets.discard(name)
    return targets


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _edges(name, path, modules) if path.suffix == ".py" else set()
            for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path that returns to its start, or ``[]``."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_graph_sees_lazy_imports() -> None:
    graph = import_graph()
    assert len(graph) > 20
    # cli.engine dispatches to the command modules inside functions: those edges must be seen.
    assert graph.get(f"{PACKAGE}.cli.engine"), "the dispatch's lazy imports are missing from the graph"


def test_no_import_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_the_cluster_pool_imports_nothing_of_ours() -> None:
    assert import_graph()[f"{PACKAGE}.cluster"] == set()


def test_the_library_does_not_import_the_command_line() -> None:
    graph = import_graph()
    cli = f"{PACKAGE}.cli"

    def in_cli(module: str) -> bool:
        return module == cli or module.startswith(cli + ".")

    offenders = sorted(f"{name} -> {target}" for name, targets in graph.items() for target in targets
                       if not in_cli(name) and name != f"{PACKAGE}.__main__" and in_cli(target))
    assert not offenders, offenders
