"""The moment the app's first frame has reached its terminal, for whoever waits for it.

A game that ``casino-tui serve`` forks from its fork server starts at the server's CPU priority,
so that a crowd logging in reaches its titles before the games already being played take the
CPU back, and lowers its priority once its first frame (the title, usually) is on the player's
terminal (:func:`casino_tui.serve.forkserver.lower_after_first_frame`). What waits registers
here with :func:`when_written` before the app runs; the app calls :func:`written` once, after
its first frame: on a terminal from Textual's output thread, once that frame's bytes are
written and flushed (``QuietLinuxDriver.after_written``), elsewhere (headless, other drivers)
after the first refresh. Nothing waits in a game started any other way, and it costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from .moment import Moment

_first_frame = Moment()


def when_written(callback: Callable[[], None]) -> None:
    """Call ``callback`` (once, from any thread) when the app's first frame is written."""
    _first_frame.wait(callback)


def waiting() -> bool:
    """Whether anything waits for the first frame."""
    return _first_frame.awaited()


def written() -> None:
    """The first frame is on the terminal: call what waits for it, each once. A callback's
    error is not the app's (it may run in Textual's output thread, which must go on)."""
    _first_frame.come()


__all__ = ["waiting", "when_written", "written"]
