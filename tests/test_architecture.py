"""The package's import graph has no cycles (issue 11: architecture you can see).

Every import counts, also the ones inside functions (imported lazily at run time); only imports
under ``if TYPE_CHECKING:`` are left out, since they never run. The layers between packages are
checked by import-linter (``lint-imports``, contracts in pyproject.toml).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping

import grimp
import pytest

PACKAGE = "casino_tui"


def import_graph() -> grimp.ImportGraph:
    # no cache: a cache kept next to the sources could answer for files that have changed
    return grimp.build_graph(PACKAGE, exclude_type_checking_imports=True, cache_dir=None)


def internal_imports(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    """Each module of the package -> the modules of the package it imports directly."""
    modules = {m for m in graph.modules if m == PACKAGE or m.startswith(PACKAGE + ".")}
    return {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}


def strongly_connected(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The groups of two or more modules that import each other, directly or through others
    (Tarjan's algorithm, without recursion); a module importing itself is a group of one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in edges.get(node, ()):
                    groups.append(sorted(group))
    return sorted(groups)


def describe_cycle(graph: grimp.ImportGraph, group: list[str]) -> str:
    """One cycle through the group's first module, with the line of each import."""
    members = set(group)
    start = group[0]
    first = min(m for m in graph.find_modules_directly_imported_by(start) if m in members)
    back = graph.find_shortest_chain(importer=first, imported=start) or (first, start)
    chain = [start, *back]
    steps = []
    for importer, imported in itertools.pairwise(chain):
        lines = sorted({d["line_number"] for d in graph.get_import_details(
            importer=importer, imported=imported)})
        steps.append(f"{importer} -> {imported} (line {', '.join(map(str, lines))})")
    return f"{len(group)} modules {group}: " + "; ".join(steps)


def test_no_import_cycles() -> None:
    graph = import_graph()
    groups = strongly_connected(internal_imports(graph))
    assert not groups, "import cycles among casino_tui modules:\n" + "\n".join(
        describe_cycle(graph, g) for g in groups)


def test_a_cycle_would_be_found() -> None:
    """The check itself: a lazy import from cards back up to state closes a loop."""
    graph = import_graph()
    graph.add_import(importer="casino_tui.engine.cards", imported="casino_tui.engine.state",
                     line_number=1, line_contents="from .state import State")
    groups = strongly_connected(internal_imports(graph))
    assert any({"casino_tui.engine.cards", "casino_tui.engine.state"} <= set(g) for g in groups)


def test_a_cycle_is_described_with_its_lines() -> None:
    graph = grimp.ImportGraph()
    for importer, imported, line in (("casino_tui.a", "casino_tui.b", 3),
                                     ("casino_tui.b", "casino_tui.c", 4),
                                     ("casino_tui.c", "casino_tui.a", 9)):
        graph.add_import(importer=importer, imported=imported, line_number=line,
                         line_contents=f"import {imported}")
    groups = strongly_connected(internal_imports(graph))
    assert groups == [["casino_tui.a", "casino_tui.b", "casino_tui.c"]]
    assert describe_cycle(graph, groups[0]) == (
        "3 modules ['casino_tui.a', 'casino_tui.b', 'casino_tui.c']: "
        "casino_tui.a -> casino_tui.b (line 3); casino_tui.b -> casino_tui.c (line 4); "
        "casino_tui.c -> casino_tui.a (line 9)")


@pytest.mark.parametrize(("edges", "groups"), [
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}}, [["a", "b", "c"], ["d"]]),
])
def test_strongly_connected(edges: dict[str, set[str]], groups: list[list[str]]) -> None:
    assert strongly_connected(edges) == groups
