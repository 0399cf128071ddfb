"""Load the engine's hot path: the mypyc-compiled ``_hot`` if it is current, else the source.

``pip install`` compiles ``_hot.py`` (see setup.py). An editable install keeps the compiled
module next to the source, where Python would prefer it even after ``_hot.py`` is edited; so in
a source checkout a compiled module older than its source is ignored (with a warning) and the
source runs instead. An installed wheel is left alone (its file times say nothing).
"""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from types import ModuleType


def _load() -> ModuleType:
    from . import _hot

    compiled = Path(_hot.__file__ or "")
    source = Path(__file__).with_name("_hot.py")
    if compiled.suffix == ".py" or not source.exists():
        return _hot
    if not (source.parents[2] / "setup.py").exists():
        return _hot  # an installed wheel: its files never change after the build
    if source.stat().st_mtime <= compiled.stat().st_mtime:
        return _hot
    warnings.warn("casino_tui/engine/_hot.py is newer than its compiled build; running the "
                  "slower pure-Python version (rebuild with: pip install -e .)", stacklevel=2)
    spec = importlib.util.spec_from_file_location("casino_tui.engine._hot_source", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hot: ModuleType = _load()


def is_compiled() -> bool:
    """Is move generation running the compiled (mypyc) hot path?"""
    return not (hot.__file__ or "").endswith(".py")
