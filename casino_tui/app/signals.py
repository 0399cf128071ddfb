"""SIGTERM and SIGHUP end the app like Quit: the games are saved, the terminal is restored.

The handler only notes the signal and asks the event loop to quit, so a save that is under way
finishes first (saves are atomic anyway: see :mod:`casino_tui.saves`). On the loop, every game
whose last autosave failed (or never happened) is saved once more, the games' files are
released, the computer players' worker is stopped and the app exits; Textual then leaves the
alternate screen, shows the cursor and turns mouse reporting off. The process exits with
status 128 + the signal's number (143 for SIGTERM, 129 for SIGHUP), as a shell reports a
process that a signal ended.

When that has not happened within :data:`GRACE` seconds (a terminal that was hung up and
blocks the output, a loop that does not answer) or a second signal comes, the process restores
the terminal itself as far as it still can and exits at once. The worker process never
outlives the app, however the app ends (see :mod:`casino_tui.ai.worker`).

Only the real program installs the handlers (``casino-tui``: ``handle_signals=True``); apps
under test do not.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import sys
import threading
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .app import CasinoApp

EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
GRACE = 3.0  # seconds the app has to leave cleanly after the signal

# Undo what a full-screen app turns on, for when it cannot do so itself in time: mouse
# reporting, focus events, bracketed paste, the kitty keyboard protocol, attributes, the
# hidden cursor, line wrap off and the alternate screen.
TERMINAL_RESET = (
    b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l\x1b[?1004l\x1b[?2004l"
    b"\x1b[<u\x1b[0m\x1b[?25h\x1b[?7h\x1b[?1049l"
)


def exit_status(signum: int) -> int:
    """The process's exit status after ``signum`` ended it: 128 + its number."""
    return 128 + signum


class SignalExit:
    """The handlers of one app: see the module's description."""

    def __init__(self, app: CasinoApp, loop: asyncio.AbstractEventLoop) -> None:
        self.app = app
        self.loop = loop
        self.signum: int | None = None
        self._watchdog: threading.Timer | None = None

    def install(self) -> None:
        for sig in EXIT_SIGNALS:
            signal.signal(sig, self._handler)

    def _handler(self, signum: int, _frame: FrameType | None) -> None:
        if self.signum is not None:  # a second signal: do not wait any longer
            force_exit(signum)
        self.signum = signum
        self.app.exit_signal = signum
        self._watchdog = threading.Timer(GRACE, force_exit, (signum,))
        self._watchdog.daemon = True
        self._watchdog.start()
        with contextlib.suppress(RuntimeError):  # the loop has ended: the app is leaving
            self.loop.call_soon_threadsafe(quit_on_signal, self.app, signum)


def install(app: CasinoApp) -> SignalExit:
    """Handle SIGTERM and SIGHUP for ``app`` (call on the app's running event loop)."""
    handlers = SignalExit(app, asyncio.get_running_loop())
    handlers.install()
    atexit.register(release_dead_terminal)
    return handlers


def release_dead_terminal() -> None:
    """At exit: output for a terminal that has hung up cannot be written; the standard streams
    that cannot flush it are pointed at /dev/null, or Python's last flush would fail and turn
    the exit status into 120."""
    streams = {id(s): s for s in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)
               if s is not None}
    for stream in streams.values():
        try:
            stream.flush()
        except (OSError, ValueError):
            with contextlib.suppress(OSError, ValueError):
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, stream.fileno())
                os.close(null)


def quit_on_signal(app: CasinoApp, signum: int) -> None:
    """On the event loop: save what is unsaved, release the games, stop the worker, exit."""
    from .screens.game import GameScreen

    for screen in app.screen_stack:
        if isinstance(screen, GameScreen):
            slot = screen.slot
            if slot is not None and not slot.closed and (
                    slot.last_error is not None or not slot.saved):
                screen.autosave()  # one more try; a failure leaves the last good save
    app.close_games()
    app.shutdown_chooser()
    app.exit(return_code=exit_status(signum))


def force_exit(signum: int) -> None:
    """Restore the terminal as far as it still can (within half a second) and end the process
    at once with 128 + ``signum``."""
    def reset() -> None:
        with contextlib.suppress(Exception):
            stream = sys.__stderr__  # where Textual writes
            if stream is not None:
                os.write(stream.fileno(), TERMINAL_RESET)

    writer = threading.Thread(target=reset, daemon=True, name="terminal-reset")
    writer.start()
    writer.join(0.5)
    os._exit(exit_status(signum))
