"""Textual's keyboard thread asleep while nobody types.

Textual 8's Linux driver reads the terminal in a thread that wakes ten times a second
(``selector.select(0.1)``) to see whether input came and whether a lone Escape's sequence has
timed out, whether anything came or not: about 1 ms of CPU a second for every game, idle or
not, which at 200 players is a fifth of a core (and at a key every two seconds, as much as a
tenth of what a key costs the game: benchmarks/keycpu.py). :func:`quiet_input` gives the app
that driver with the same loop, except that it waits for input without a timeout unless a
timeout is pending: a lone Escape's (the parser's own; then it wakes ten times a second, as
before, until the Escape is told from a sequence's start), or Textual's signal to stop after
input is disabled (suspending, leaving), which wakes it through a pipe of its own: from then
on until it ends it wakes ten times a second as Textual's own loop does, however long the
app's thread takes to signal the stop (Textual joins the thread right after: a thread back
asleep then would hold the app until a key came).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import threading
from collections.abc import Callable
from typing import IO, Any

from textual.drivers import linux_driver

POLL = 0.1  # Textual's own interval, while a timeout is pending
# (the parser's pending timeout, read where Textual keeps it: ``_timeout_time``, None when none
# is pending. A parser without it counts as always pending: Textual's own loop.)
_NO_TIMEOUT_KNOWN = 0.0


class _Then(str):
    """An empty write that carries what to call once Textual's output thread reaches it."""

    callback: Callable[[], None]

    def __new__(cls, callback: Callable[[], None]) -> _Then:
        then = super().__new__(cls, "")
        then.callback = callback
        return then


class _Output:
    """The terminal's stream as Textual's output thread uses it (``write``, ``flush``,
    ``fileno``), which calls a :class:`_Then`'s callback when it comes to it in the queue of
    writes: everything written before it is then flushed to the terminal."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if isinstance(text, _Then):
            self._stream.flush()
            text.callback()
            return 0
        return self._stream.write(text)

    def flush(self) -> None:
        self._stream.flush()

    def fileno(self) -> int:
        return self._stream.fileno()

    def isatty(self) -> bool:
        return self._stream.isatty()


class _WakingEvent(threading.Event):
    """Textual's signal to the input thread to stop (``exit_event``), which also wakes that
    thread when it is set: the thread sees it at once instead of at its next poll."""

    def __init__(self, wake: Callable[[], None]) -> None:
        super().__init__()
        self._wake = wake

    def set(self) -> None:
        super().set()
        self._wake()


class QuietLinuxDriver(linux_driver.LinuxDriver):
    """Textual's Linux driver whose input thread sleeps while no input comes (and which tells
    when what it has written has reached the terminal: :meth:`after_written`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self._file is not None:  # (only Textual's output thread writes to it)
            self._file = _Output(self._file)  # type: ignore[assignment]
        self._wake_r, self._wake_w = os.pipe()  # (not inherited by child processes)
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._stop_at_once()

    def _stop_at_once(self) -> None:
        """The input thread ends as soon as Textual tells it to (input disabled: leaving or
        suspending), not at its next poll: Textual's ``exit_event`` wakes it when set, and the
        thread's last look for input does not wait (:meth:`run_input_thread`). Textual's own
        loop took 0.1-0.2 s of wall time there, which held a game that was quit (its process
        and memory) that much longer, and the app's exit with it."""
        self.exit_event = _WakingEvent(self._wake)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # full (it is awake already) or closed
            os.write(self._wake_w, b"w")

    def after_written(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once everything written so far has reached the terminal: in
        Textual's output thread, after it has written and flushed it all (at once when that
        thread is not running)."""
        writer = self._writer_thread
        if writer is None or not writer.is_alive():
            callback()
        else:
            writer.write(_Then(callback))

    def disable_input(self) -> None:
        # The thread wakes and waits ten times a second again, so it sees the exit Textual
        # signals next (and joins) as soon as it would have before.
        self._wake()
        super().disable_input()

    def close(self) -> None:
        super().close()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def run_input_thread(self) -> None:
        """Textual's ``LinuxDriver.run_input_thread`` (8.2), waiting without a timeout while
        none is pending."""
        selector = selectors.SelectSelector()
        fileno = self.fileno
        wake = self._wake_r
        selector.register(fileno, selectors.EVENT_READ)
        selector.register(wake, selectors.EVENT_READ)
        EVENT_READ = selectors.EVENT_READ

        parser = linux_driver.XTermParser(self._debug)
        feed = parser.feed
        tick = parser.tick

        # the module's decoder, as Textual's loop takes it (casino_tui.app.input_bytes makes
        # it lenient)
        decode = linux_driver.getincrementaldecoder("utf-8")().decode
        read = os.read

        def process_selector_events(
                selector_events: list[tuple[selectors.SelectorKey, int]],
                final: bool = False) -> None:
            for last, (_selector_key, mask) in linux_driver.loop_last(selector_events):
                if mask & EVENT_READ:
                    unicode_data = decode(read(fileno, 1024 * 4), final=final and last)
                    if not unicode_data:
                        # This can occur if the stdin is piped
                        break
                    for event in feed(unicode_data):
                        self.process_message(event)
            for event in tick():
                self.process_message(event)

        # Woken (input is being disabled): Textual's signal to stop comes next, and Textual
        # joins this thread right after it. The thread then wakes ten times a second until
        # it sees the signal, however late it comes: the app's thread may be held up between
        # the wake and the signal (a busy host, a game at a low priority), and a thread back
        # asleep by then would keep the game from ending until a key came (a crowd's player
        # waited 60 s for their quit when it stayed awake only half a second).
        woken = False

        def select(timeout: float | None) -> list[tuple[selectors.SelectorKey, int]]:
            nonlocal woken
            ready = selector.select(timeout)
            if any(key.fd == wake for key, _mask in ready):
                woken = True
                with contextlib.suppress(OSError):
                    while read(wake, 512):
                        pass
            return [(key, mask) for key, mask in ready if key.fd == fileno]

        def pending() -> bool:
            """A timeout to wait for: a lone Escape's, or Textual's signal to stop."""
            return woken or getattr(parser, "_timeout_time", _NO_TIMEOUT_KNOWN) is not None

        try:
            while not self.exit_event.is_set():
                process_selector_events(select(POLL if pending() else None))
            selector.unregister(fileno)
            # (the terminal is no longer looked at: Textual's loop slept 0.1 s here)
            process_selector_events(select(0), final=True)

        finally:
            selector.close()
            try:
                for _event in feed(""):
                    pass
            except (EOFError, linux_driver.ParseError):
                pass


def quiet_input(driver_class: type) -> type:
    """``driver_class``, or the quiet one in its place when it is Textual's Linux driver."""
    if driver_class is linux_driver.LinuxDriver:
        return QuietLinuxDriver
    return driver_class
