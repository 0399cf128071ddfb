"""The app's background work (casino_tui/app/background.py): no coroutine is made before its
worker starts. A coroutine handed to Textual's ``run_worker`` is made at once, and when the
worker is cancelled before it starts (an exclusive one replaced, its screen gone) Python warns
that it was never awaited and reads a whole source file into memory to say where
(``test_title_tables`` shows one such case). So ``run_worker`` is called in one place, with
a callable."""

from __future__ import annotations

import ast
from pathlib import Path

import casino_tui

PACKAGE = Path(casino_tui.__file__).parent


def coroutines_handed_to_workers(source: str, name: str) -> list[str]:
    """Each ``run_worker(f(...), ...)`` call in ``source``: where, as ``name:line``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "run_worker" and node.args
                and isinstance(node.args[0], ast.Call)
                and ast.unparse(node.args[0].func) not in ("partial", "functools.partial")):
            found.append(f"{name}:{node.lineno}")
    return found


def test_no_worker_is_handed_a_coroutine() -> None:
    found = [where for path in sorted(PACKAGE.rglob("*.py"))
             for where in coroutines_handed_to_workers(path.read_text(encoding="utf-8"),
                                                       str(path.relative_to(PACKAGE)))]
    assert found == []


def test_a_coroutine_handed_to_a_worker_would_be_found() -> None:
    source = ("self.run_worker(self._follow(), group='table')\n"
              "self.run_worker(self._follow, group='table')\n"
              "self.run_worker(partial(self._follow, 1))\n")
    assert coroutines_handed_to_workers(source, "x.py") == ["x.py:1"]
