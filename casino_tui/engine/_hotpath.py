"""Load the engine's compiled modules if they are current, else their sources.

``pip install`` compiles :data:`COMPILED` (``_hot``, ``scoring`` and ``state``) with mypyc (see
setup.py); without a C compiler, or with ``CASINO_TUI_PURE=1``, they stay plain Python and run as
such, with the same results. An editable install keeps the compiled modules next to their
sources, where Python would prefer them even after a source is edited; so in a source checkout,
when any compiled module is older than its source, every one of them is loaded from its source
instead (with a warning): they call each other directly once compiled, so it is all or nothing.
An installed wheel is left alone (its file times say nothing). ``CASINO_TUI_PURE=1`` in the
environment runs the sources even when compiled modules are present (tests compare the two).

``casino_tui.engine`` imports this module before any of the compiled ones.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # mypyc reads the compiled modules' class options from it
    from mypy_extensions import mypyc_attr as mypyc_attr
else:  # (this module is never compiled) at run time a no-op: mypy_extensions is not needed
    def mypyc_attr(*_args: object, **_kwargs: object) -> Callable[[type], type]:
        return lambda cls: cls

PACKAGE = __name__.rpartition(".")[0]  # casino_tui.engine
HERE = Path(__file__).parent
COMPILED = ("_hot", "scoring", "state")  # setup.py compiles these (one mypyc group)


def _compiled_file(name: str) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = HERE / f"{name}{suffix}"
        if path.exists():
            return path
    return None


def _older_than_source(name: str, source: str) -> bool:
    """Is the build of module ``name`` older than its ``source`` file, in a source checkout?
    (An installed wheel's files never change after the build: never.)"""
    compiled = _compiled_file(name)
    path = HERE / source
    return (HERE.parents[1] / "setup.py").exists() and compiled is not None \
        and path.exists() and path.stat().st_mtime > compiled.stat().st_mtime


def stale_modules() -> list[str]:
    """The compiled modules older than their source, in a source checkout (else none)."""
    return [name for name in COMPILED if _older_than_source(name, f"{name}.py")]


class _SourceFinder:
    """A meta path finder that loads the named engine modules from their ``.py`` sources."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = {f"{PACKAGE}.{n}": HERE / f"{n}.py" for n in names}

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        source = self.names.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


def _prefer_current_sources() -> None:
    if any(f"{PACKAGE}.{n}" in sys.modules for n in COMPILED):
        return
    if os.environ.get("CASINO_TUI_PURE") == "1":  # asked for: the pure-Python engine
        sys.meta_path.insert(0, _SourceFinder(COMPILED))
        return
    stale = stale_modules()
    if not stale:
        return
    warnings.warn(f"casino_tui/engine/{stale[0]}.py is newer than its compiled build; running "
                  "the slower pure-Python engine (rebuild with: pip install -e .)", stacklevel=3)
    sys.meta_path.insert(0, _SourceFinder(COMPILED))


_prefer_current_sources()

# What the rest of the engine takes from _hot: a compiled build that lacks any of it (a broken
# or foreign build) is not used; the sources are.
REQUIRED = ("generate_for", "play_on_table", "play_card", "order_by_keys", "shuffled",
            "shuffled_seeded", "_TRAILS")


def _load_hot() -> ModuleType:
    """``_hot`` as built, or from its source (with every compiled module, with a warning naming
    the rebuild) when the build cannot be imported or lacks part of what the engine uses."""
    name = f"{PACKAGE}._hot"
    try:
        module = importlib.import_module(name)
        problem = ", ".join(n for n in REQUIRED if not hasattr(module, n))
        problem = problem and f"it lacks {problem}"
    except ImportError as exc:  # a build for another Python or engine
        module, problem = None, str(exc)
    if not problem:
        assert module is not None
        return module
    if module is not None and (module.__file__ or "").endswith(".py"):
        raise ImportError(f"{name} ({module.__file__}): {problem}")  # the source itself is wrong
    warnings.warn(f"casino_tui/engine: the compiled engine cannot be used ({problem}); running "
                  "the slower pure-Python engine (rebuild with: pip install -e .)", stacklevel=3)
    for compiled in COMPILED:
        sys.modules.pop(f"{PACKAGE}.{compiled}", None)
    sys.meta_path.insert(0, _SourceFinder(COMPILED))
    return importlib.import_module(name)


hot: ModuleType = _load_hot()

from .moves import Build, Move, Pile  # noqa: E402

NATIVE = "_cgen"  # casino_tui/engine/_cgen.c: move generation in C, built by setup.py if it can


def _native() -> ModuleType | None:
    """The C move generator, if it is built, current and not refused (``CASINO_TUI_PURE=1``)."""
    if os.environ.get("CASINO_TUI_PURE") == "1":
        return None
    if _compiled_file(NATIVE) is None:
        return None
    if _older_than_source(NATIVE, f"{NATIVE}.c"):
        warnings.warn(f"casino_tui/engine/{NATIVE}.c is newer than its build; generating moves "
                      "without it (rebuild with: pip install -e .)", stacklevel=3)
        return None
    try:
        module = importlib.import_module(f"{PACKAGE}.{NATIVE}")
        module.setup(hot.generate_for, hot.play_on_table, hot.order_by_keys, Move, Build,
                     hot._TRAILS, hot.play_card)
    except (ImportError, AttributeError, TypeError) as exc:  # a build for another engine
        warnings.warn(f"casino_tui/engine/{NATIVE}: {exc}; generating moves without it",
                      stacklevel=3)
        return None
    return module


native: ModuleType | None = _native()

# The hot path's move generator, table update and deal order: the C ones when they are there
# (they hand what they do not take to _hot's), else _hot's. Both give the same results
# (tests/test_movegen.py).
_impl: ModuleType = native if native is not None else hot
generate_for: Callable[..., list[Move] | None] = _impl.generate_for
play_on_table: Callable[[list[Pile], Move, int, list[int]], tuple[list[Pile], Build | None]] = \
    _impl.play_on_table
play_card: Callable[[list[Pile], list[int], Move, int, list[int], list[int]], list[Pile]] = \
    _impl.play_card
order_by_keys: Callable[[tuple[int, ...], list[float]], list[int]] = _impl.order_by_keys
shuffled: Callable[[tuple[int, ...], Callable[[], float]], list[int]] = _impl.shuffled
shuffled_seeded: Callable[[tuple[int, ...], bytes], list[int]] = _impl.shuffled_seeded


def is_compiled() -> bool:
    """Is the engine running its compiled (mypyc) modules?"""
    return not (hot.__file__ or "").endswith(".py")


def is_native() -> bool:
    """Is move generation running the C generator (``_cgen``)?"""
    return native is not None
