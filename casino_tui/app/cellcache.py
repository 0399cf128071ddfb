"""Rich's measure of a text's width in cells, remembered for the last 512 texts, not 4,096.

Rich (15.x) measures the width of every text it and Textual draw through
``rich.cells.cached_cell_len``, a ``functools.lru_cache(4096)``: the last 4,096 texts measured
stay in memory with their cache entries. A game measures about a thousand different texts a
round (card names, log lines, the status line...) and keeps measuring new ones as the log
moves on, so a served game's cache grew with its session: about 2,000 entries and 185 KiB of
the game's own memory at a round's end (``python -m benchmarks.memsplit --table --moves 24
--trace``). What is measured again is what is on the screen now, far fewer than 512 texts: a
headless round at 100x30 measured 930-960 texts for the first time with a cache of 4,096 or
1,024 entries and 911 with 512 (the same: every text is measured once, then found), 1,236
with 256.

:func:`fewer_cell_lengths` puts a cache of :data:`SIZE` entries of the same function in the
place of Rich's, in ``rich.cells`` (whose ``cell_len``, which the rest of Rich imports, reads
it there) and in every module of Textual that imported it by name (its compositor, its segment
tools, its wrapping, its content), so the widths are the
same and fewer texts are kept. It is installed only when Rich's is the cache known here (an
``lru_cache`` of 4,096 around a function): another version of Rich keeps its own.
:func:`forget_cell_lengths` empties it: the fork server does, before it forks, so that a
game's entries are its own (an entry found moves to the front of the cache's list, a write to
the fork server's pages that a game would copy).
"""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import Any

import rich.cells

from .knowncache import lru_wrapped

SIZE = 512  # texts remembered
RICH_SIZE = 4096  # Rich's own cache's size, as known here
_installed: list[Any] = []  # the replacement, once made


def fewer_cell_lengths() -> bool:
    """Measure texts' widths through a cache of :data:`SIZE` entries (once per process;
    idempotent). Whether it now does (False: this Rich's cache is not the one known here, and
    is left as it is)."""
    current: Any = rich.cells.cached_cell_len
    if _installed and current is _installed[0]:
        return True
    wrapped = lru_wrapped(current, RICH_SIZE)
    if wrapped is None:
        return False
    bounded = lru_cache(SIZE)(wrapped)
    _installed[:] = [bounded]
    rich.cells.cached_cell_len = bounded  # (Rich's own modules import cell_len, which reads it)
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] != "textual":
            continue
        namespace = getattr(module, "__dict__", None)
        if not isinstance(namespace, dict):
            continue
        for key, value in list(namespace.items()):
            if value is current:
                namespace[key] = bounded
    return True


def forget_cell_lengths() -> None:
    """Empty the cache installed by :func:`fewer_cell_lengths` (nothing if it is not)."""
    if _installed:
        _installed[0].cache_clear()


__all__ = ["RICH_SIZE", "SIZE", "fewer_cell_lengths", "forget_cell_lengths"]
