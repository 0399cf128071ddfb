"""A moment of the app's life that code outside it waits for (its first frame on the terminal:
:mod:`casino_tui.app.firstframe`; the start of its quit: :mod:`casino_tui.app.quitting`).

What waits registers before the moment; when it comes, each callback is called once, from
whichever thread the moment comes in. A callback's error is not the app's: the app (or
Textual's output thread) must go on.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable


class Moment:
    """Callbacks waiting for one moment, each called once when it comes."""

    def __init__(self) -> None:
        self._waiting: list[Callable[[], None]] = []
        self._lock = threading.Lock()

    def wait(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (once) when the moment comes."""
        with self._lock:
            self._waiting.append(callback)

    def awaited(self) -> bool:
        """Whether anything waits for the moment."""
        with self._lock:
            return bool(self._waiting)

    def come(self) -> None:
        """The moment has come: call what waits for it, each once (errors are dropped)."""
        with self._lock:
            callbacks, self._waiting = self._waiting, []
        for callback in callbacks:
            with contextlib.suppress(Exception):
                callback()


__all__ = ["Moment"]
