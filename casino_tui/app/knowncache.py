"""The function inside a ``functools.lru_cache`` of a known size: what the app's replacements of
Textual's and Rich's caches (:mod:`.stylescache`, :mod:`.cellcache`) check before they put
their own in its place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def lru_wrapped(cached: Any, size: int) -> Callable[..., Any] | None:
    """The function ``cached`` caches, if it is an ``lru_cache`` of ``size`` entries; None for
    anything else (another version's cache of another size, or no cache)."""
    wrapped = getattr(cached, "__wrapped__", None)
    info = getattr(cached, "cache_info", None)
    if wrapped is None or info is None or info().maxsize != size:
        return None
    return wrapped  # type: ignore[no-any-return]


__all__ = ["lru_wrapped"]
