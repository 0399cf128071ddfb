"""Widgets' drawn lines let go with their widgets: Textual's ``StylesCache.get_inner_outer``
cached without the widget.

Each widget keeps the lines it last drew in its ``StylesCache``. Textual (8.x) caches
``StylesCache.get_inner_outer`` with ``functools.lru_cache(1024)`` on the method itself, so
every call's key holds the ``StylesCache`` it was called on: the last 1,024 widgets to draw
are kept alive through the cache, with all their drawn lines, long after the widgets are gone.
In a game served to a player at a table that was the lobby's screens (display name, new table,
the waiting room): 700 lines and what hangs off them, about 0.3 MB, three moves into the game;
and over a session, every round's summary, every dialog.

The two styles it gives depend on the two colours alone (the method never reads the cache it
is called on), so :func:`unkeyed_inner_outer` caches them by the colours only: the same
styles, at most 1,024 pairs of colours, and no widget kept.
"""

from __future__ import annotations

from functools import lru_cache, partial
from typing import Any

from textual._styles_cache import StylesCache

from .knowncache import lru_wrapped

SIZE = 1024  # as Textual's own cache
_installed: list[Any] = []  # the replacement, once made


def unkeyed_inner_outer() -> bool:
    """Cache ``StylesCache.get_inner_outer`` by its colours alone (once per process;
    idempotent). Whether it now is (False: this Textual's is not the cached method known here,
    and is left as it is)."""
    current: Any = vars(StylesCache).get("get_inner_outer")
    if _installed and current is _installed[0]:
        return True
    wrapped = lru_wrapped(current, SIZE)
    if wrapped is None:
        return False
    # the method's own code (it never reads its ``self``), cached by the colours alone
    method = staticmethod(lru_cache(SIZE)(partial(wrapped, None)))
    _installed[:] = [method]
    StylesCache.get_inner_outer = method  # type: ignore[assignment, method-assign]
    return True


__all__ = ["unkeyed_inner_outer"]
