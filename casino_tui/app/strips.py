"""Textual's lines of the screen (``Strip``) with their caches made when first used.

Every ``Strip`` (one line of a widget, of the screen or of a crop of either) makes seven
``FIFOCache``s as it is made, each an object and an empty dict (about 0.9 KB a line), to keep
the results of cropping, styling, dividing it and so on. Most lines are never cropped or styled
more than once, or at all: a game's process three moves in held about 1,200 lines and 8,300 such
caches, about 1 MiB of its own memory (docs/SERVE.md, "What a game makes of its own").

:func:`lazy_strip_caches` makes each of those caches when the line first asks for it (an unset
slot of ``Strip`` falls back to ``__getattr__``, which makes the cache, sets it and returns it),
so a line that is never cropped has none, and one that is cropped has only that one. Textual's
methods read and write ``self._crop_cache`` and the others as before, and get the same results.
It is installed only if Textual's ``Strip`` makes exactly the caches known here, of the sizes
known here, and nothing else that the lazy one would not (checked on a line made by Textual's own
``__init__``): another version of Textual keeps its own ``Strip``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.segment import Segment
from textual.cache import FIFOCache
from textual.strip import Strip

# each cache Textual's Strip.__init__ makes, with its size
STRIP_CACHES = {"_divide_cache": 4, "_crop_cache": 16, "_style_cache": 16, "_filter_cache": 4,
                "_line_length_cache": 4, "_crop_extend_cache": 4, "_offsets_cache": 4}
# ... and the other slots it sets, with their first values
_PLAIN = {"_cell_length": None, "_render_cache": None, "_link_ids": None, "_cell_count": None}
_textual_init = Strip.__init__


def _init(self: Strip, segments: Iterable[Segment], cell_length: int | None = None) -> None:
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


def _cache(self: Strip, name: str) -> FIFOCache[Any, Any]:
    """An unset slot of a line: its cache, made now (any other name: not there)."""
    size = STRIP_CACHES.get(name)
    if size is None:
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
    cache: FIFOCache[Any, Any] = FIFOCache(size)
    setattr(self, name, cache)
    return cache


def _made_as_known() -> bool:
    """Whether Textual's own ``Strip.__init__`` sets exactly the slots known here, its caches
    empty and of the sizes known here."""
    slots = set(getattr(Strip, "__slots__", ()))
    if slots != {"_segments", *STRIP_CACHES, *_PLAIN} or "__getattr__" in vars(Strip):
        return False
    line = Strip.__new__(Strip)
    _textual_init(line, [Segment("x")], 1)
    for name, size in STRIP_CACHES.items():
        cache = getattr(line, name, None)
        if type(cache) is not FIFOCache or len(cache) or cache._maxsize != size:
            return False
    plain = {name: getattr(line, name, ...) for name in _PLAIN}
    return plain == _PLAIN | {"_cell_length": 1} and line._segments == [Segment("x")]


def lazy_strip_caches() -> bool:
    """Make Textual's lines make their caches when first used (once per process; idempotent).
    Whether lines now do (False: this Textual's ``Strip`` is not the one known here, and is
    left as it is)."""
    if Strip.__init__ is _init:
        return True
    if not _made_as_known():
        return False
    Strip.__init__ = _init  # type: ignore[method-assign]
    Strip.__getattr__ = _cache  # type: ignore[attr-defined]
    return True


__all__ = ["STRIP_CACHES", "lazy_strip_caches"]
